import numpy
import pytest

import chainer
import chainer.links as L
from chainer import backend
from chainer import dataset
from chainer import iterators
from chainer import optimizers
from chainer import serializers
from chainer import training
from chainer.training import updaters


class Recorder(chainer.Chain):
    """A link recording its calls; the loss is the sum of a parameter."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.ones(2, dtype=numpy.float32))
        self.calls = []

    def forward(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return chainer.functions.sum(self.w)


def _tuple_data(n=6):
    return [
        (numpy.full(2, i, dtype=numpy.float32), numpy.int32(i % 2)) for i in range(n)
    ]


def _updater(data=None, batch_size=2, **kwargs):
    model = Recorder()
    optimizer = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(
        _tuple_data() if data is None else data, batch_size, shuffle=False
    )
    return updaters.StandardUpdater(it, optimizer, **kwargs), model, optimizer, it


def test_tuple_batch_is_passed_as_positional_args():
    updater, model, optimizer, _ = _updater()
    updater.update()
    assert updater.iteration == 1
    assert optimizer.t == 1
    (args, kwargs) = model.calls[0]
    assert len(args) == 2
    assert kwargs == {}
    numpy.testing.assert_array_equal(args[0], [[0, 0], [1, 1]])
    numpy.testing.assert_array_equal(args[1], [0, 1])


def test_dict_batch_is_passed_as_keyword_args():
    data = [{"x": numpy.zeros(2, dtype=numpy.float32), "t": 1} for _ in range(4)]
    updater, model, _, _ = _updater(data)
    updater.update()
    args, kwargs = model.calls[0]
    assert args == ()
    assert set(kwargs) == {"x", "t"}


def test_array_batch_is_passed_as_single_arg():
    data = [numpy.zeros(3, dtype=numpy.float32) for _ in range(4)]
    updater, model, _, _ = _updater(data)
    updater.update()
    args, _ = model.calls[0]
    assert len(args) == 1
    assert args[0].shape == (2, 3)


def test_loss_func_is_used():
    calls = []
    model = Recorder()

    def loss_func(x, t):
        calls.append(x.shape)
        return chainer.functions.sum(model.w)

    updater, model2, _, _ = _updater(loss_func=loss_func)
    updater.update()
    assert calls == [(2, 2)]
    assert model2.calls == []


def test_epoch_properties_follow_main_iterator():
    updater, _, _, it = _updater()
    assert updater.epoch == 0
    assert updater.epoch_detail == 0.0
    assert updater.previous_epoch_detail is None
    for _ in range(3):
        updater.update()
    assert updater.epoch == it.epoch == 1
    assert updater.is_new_epoch
    assert updater.epoch_detail == 1.0
    assert updater.previous_epoch_detail == pytest.approx(2 / 3)


def test_auto_new_epoch():
    updater, _, optimizer, _ = _updater()
    assert optimizer.use_auto_new_epoch
    for _ in range(6):
        updater.update()
    assert optimizer.epoch == 2

    updater, _, optimizer, _ = _updater(auto_new_epoch=False)
    assert not optimizer.use_auto_new_epoch
    for _ in range(6):
        updater.update()
    assert optimizer.epoch == 0


def test_loss_scale_is_given_to_optimizers():
    updater, _, optimizer, _ = _updater(loss_scale=8.0)
    assert updater.loss_scale == 8.0
    assert optimizer._loss_scale == 8.0


def test_dict_of_iterators_and_optimizers():
    m1, m2 = Recorder(), Recorder()
    o1 = optimizers.SGD().setup(m1)
    o2 = optimizers.SGD().setup(m2)
    it = iterators.SerialIterator(_tuple_data(), 2)
    other = iterators.SerialIterator(_tuple_data(), 3)
    updater = updaters.StandardUpdater(
        {"main": it, "aux": other}, {"gen": o1, "dis": o2}
    )
    assert updater.get_iterator("aux") is other
    assert updater.get_optimizer("dis") is o2
    assert updater.get_all_optimizers() == {"gen": o1, "dis": o2}
    with pytest.raises(KeyError, match="no optimizer named 'main'"):
        updater.get_optimizer("main")
    with pytest.raises(KeyError, match="no iterator named 'x'"):
        updater.get_iterator("x")
    with pytest.raises(ValueError, match="'main' entry"):
        updaters.StandardUpdater({"train": it}, o1)


def test_single_objects_are_named_main():
    updater, _, optimizer, it = _updater()
    assert updater.get_iterator("main") is it
    assert updater.get_optimizer("main") is optimizer
    assert updater.get_all_optimizers() == {"main": optimizer}


@pytest.mark.parametrize("device", [-1, "@numpy", backend.CpuDevice(), numpy])
def test_device_specifiers(device):
    updater, _, _, _ = _updater(device=device)
    assert updater.device == backend.CpuDevice()
    assert updater.input_device == backend.CpuDevice()
    updater.update()


def test_input_device():
    updater, _, _, _ = _updater(input_device=-1)
    assert updater.device is None
    assert updater.input_device == backend.CpuDevice()
    with pytest.raises(ValueError, match="same time"):
        _updater(device=-1, input_device=-1)


def test_unexpected_kwargs():
    with pytest.raises(TypeError, match="'devices'"):
        _updater(devices=-1)


def test_new_style_converter_gets_device():
    seen = []

    @dataset.converter()
    def conv(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch, device)

    updater, _, _, _ = _updater(converter=conv, device=-1)
    updater.update()
    assert seen == [backend.CpuDevice()]

    seen.clear()
    updater, _, _, _ = _updater(converter=conv)
    updater.update()
    assert seen == [None]


def test_old_style_converter_gets_legacy_device():
    seen = []

    def conv(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch)

    updater, _, _, _ = _updater(converter=conv, device="@numpy")
    updater.update()
    updater.converter = conv
    updater.input_device = None
    updater.update()
    assert seen == [-1, None]


def test_bad_arguments():
    model = Recorder()
    optimizer = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(_tuple_data(), 2)
    with pytest.raises(TypeError, match="dataset iterator"):
        updaters.StandardUpdater(_tuple_data(), optimizer)
    with pytest.raises(TypeError, match="must be an Optimizer"):
        updaters.StandardUpdater(it, model)
    with pytest.raises(ValueError, match=r"optimizer.setup\(model\) first"):
        updaters.StandardUpdater(it, optimizers.SGD(), device=-1)
    with pytest.raises(TypeError, match="converter must be callable"):
        updaters.StandardUpdater(it, optimizer, converter=3)
    with pytest.raises((ValueError, RuntimeError), match="invalid device"):
        updaters.StandardUpdater(it, optimizer, device="gpu0")


class _EmptyIterator(dataset.Iterator):
    epoch = 0
    epoch_detail = 0.0
    previous_epoch_detail = None
    is_new_epoch = False

    def __next__(self):
        return []


def test_empty_batch_gives_clear_error():
    model = Recorder()
    optimizer = optimizers.SGD().setup(model)
    updater = updaters.StandardUpdater(_EmptyIterator(), optimizer)
    with pytest.raises(ValueError, match="empty batch"):
        updater.update()
    assert updater.iteration == 0


def test_exhausted_iterator_gives_clear_error():
    model = Recorder()
    optimizer = optimizers.SGD().setup(model)
    it = iterators.SerialIterator(_tuple_data(4), 2, repeat=False)
    updater = updaters.StandardUpdater(it, optimizer)
    updater.update()
    updater.update()
    with pytest.raises(RuntimeError, match="exhausted"):
        updater.update()
    assert updater.iteration == 2


def test_finalize_finalizes_iterators():
    finalized = []

    class It(_EmptyIterator):
        def finalize(self):
            finalized.append(self)

    model = Recorder()
    optimizer = optimizers.SGD().setup(model)
    a, b = It(), It()
    updaters.StandardUpdater({"main": a, "b": b}, optimizer).finalize()
    assert finalized == [a, b]


def test_serialize_round_trip(tmp_path):
    model = L.Linear(2, 2)
    optimizer = optimizers.MomentumSGD().setup(model)
    it = iterators.SerialIterator(_tuple_data(), 2, shuffle=False)

    def loss(x, t):
        return chainer.functions.sum(model(x))

    updater = updaters.StandardUpdater(it, optimizer, loss_func=loss)
    for _ in range(4):
        updater.update()
    saver = serializers.DictionarySerializer()
    saver.save(updater)
    keys = set(saver.target)
    assert "iteration" in keys
    assert any(k.startswith("iterator:main/") for k in keys)
    assert "optimizer:main/t" in keys
    assert "model:main/W" in keys

    model2 = L.Linear(2, 2)
    optimizer2 = optimizers.MomentumSGD().setup(model2)
    it2 = iterators.SerialIterator(_tuple_data(), 2, shuffle=False)
    updater2 = updaters.StandardUpdater(it2, optimizer2, loss_func=loss)
    serializers.NpzDeserializer(saver.target).load(updater2)
    assert updater2.iteration == 4
    assert optimizer2.t == 4
    assert updater2.epoch_detail == updater.epoch_detail
    numpy.testing.assert_array_equal(model2.W.array, model.W.array)


def test_training_namespace_alias():
    assert training.StandardUpdater is updaters.StandardUpdater


def test_input_device_setter_and_read_only_device():
    updater, _, _, _ = _updater()
    updater.input_device = "@numpy"
    assert updater.input_device == backend.CpuDevice()
    updater.update()
    with pytest.raises(AttributeError):
        updater.device = -1


def test_empty_non_repeating_dataset_gives_clear_error():
    model = Recorder()
    optimizer = optimizers.SGD().setup(model)
    updater = updaters.StandardUpdater(
        iterators.SerialIterator([], 2, repeat=False), optimizer
    )
    with pytest.raises(RuntimeError, match="exhausted"):
        updater.update()
