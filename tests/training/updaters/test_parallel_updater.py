import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import dataset
from chainer import optimizers
from chainer import serializers
from chainer import training
from chainer.backends import cuda
from chainer.iterators import SerialIterator
from chainer.training import updaters


class MLP(chainer.Chain):
    def __init__(self, n_in=5, n_hidden=8, n_out=3):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_hidden)
            self.l2 = L.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def make_dataset(n=42, n_in=5):
    rng = numpy.random.RandomState(0)
    x = rng.randn(n, n_in).astype(numpy.float32)
    t = (x[:, 0] > 0).astype(numpy.int32) + (x[:, 1] > 0.5).astype(numpy.int32)
    return list(zip(x, t, strict=True))


def make_pair(optimizer_class=optimizers.SGD, n_in=5, **kwargs):
    """A model with an optimizer, and an identical reference pair."""
    model = L.Classifier(MLP(n_in))
    ref = model.copy(mode="copy")
    pairs = []
    for m in (model, ref):
        opt = optimizer_class(**kwargs)
        opt.setup(m)
        pairs.append((m, opt))
    return pairs


def assert_same_params(a, b, rtol=1e-5, atol=1e-6):
    pa = dict(a.namedparams())
    pb = dict(b.namedparams())
    assert sorted(pa) == sorted(pb)
    for name, p in pa.items():
        numpy.testing.assert_allclose(
            p.array, pb[name].array, rtol=rtol, atol=atol, err_msg=name
        )


def cpu_devices(n):
    names = ["main", "second", "third", "fourth"][:n]
    return {name: "@numpy" for name in names}


@pytest.mark.parametrize(
    ("n_devices", "batch_size"), [(1, 6), (2, 8), (2, 7), (3, 9), (3, 10)]
)
def test_same_result_as_one_device(n_devices, batch_size):
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, batch_size, shuffle=False),
        opt,
        devices=cpu_devices(n_devices),
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, batch_size, shuffle=False), ref_opt
    )
    for _ in range(8):
        updater.update()
        ref_updater.update()
    assert updater.iteration == 8
    assert updater.epoch == ref_updater.epoch
    assert_same_params(model, ref)


def test_same_result_with_momentum_and_device_objects():
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(optimizers.MomentumSGD, lr=0.1)
    cpu = chainer.get_device("@numpy")
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False),
        opt,
        devices={"main": cpu, "second": -1},
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 8, shuffle=False), ref_opt
    )
    for _ in range(6):
        updater.update()
        ref_updater.update()
    assert_same_params(model, ref)


def test_lazily_initialized_parameters_are_shared():
    ds = make_dataset()
    model = L.Classifier(L.Linear(None, 3))
    ref = model.copy(mode="copy")
    opt = optimizers.SGD(lr=0.3)
    opt.setup(model)
    ref_opt = optimizers.SGD(lr=0.3)
    ref_opt.setup(ref)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt, devices=cpu_devices(2)
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 8, shuffle=False), ref_opt
    )
    numpy.random.seed(3)
    updater.update()
    numpy.random.seed(3)
    ref_updater.update()
    for _ in range(3):
        updater.update()
        ref_updater.update()
    assert_same_params(model, ref)


def test_loss_func_and_loss_scale():
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 6, shuffle=False),
        opt,
        devices=cpu_devices(2),
        loss_func=lambda x, t: model(x, t),
        loss_scale=64.0,
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 6, shuffle=False), ref_opt
    )
    for _ in range(4):
        updater.update()
        ref_updater.update()
    assert_same_params(model, ref)


def test_user_models_and_inferred_devices():
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(lr=0.3)
    second = model.copy(mode="copy")
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False),
        opt,
        models={"main": model, "second": second},
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 8, shuffle=False), ref_opt
    )
    for _ in range(3):
        updater.update()
        ref_updater.update()
    assert_same_params(model, ref)
    assert_same_params(second, model, rtol=0, atol=0)


def test_old_style_converter_gets_legacy_device_id():
    ds = make_dataset()
    seen_devices = []

    def to_arrays(batch, device):
        seen_devices.append(device)
        return dataset.concat_examples(batch)

    (model, opt), (ref, ref_opt) = make_pair(lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False),
        opt,
        converter=to_arrays,
        devices=cpu_devices(2),
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 8, shuffle=False), ref_opt
    )
    for _ in range(3):
        updater.update()
        ref_updater.update()
    assert_same_params(model, ref)
    assert seen_devices == [-1] * 6


def test_dict_batches_are_keyword_arguments():
    ds = [{"x": x, "t": t} for x, t in make_dataset()]
    model = L.Classifier(MLP(), label_key="t")
    ref = model.copy(mode="copy")
    opt = optimizers.SGD(lr=0.3)
    opt.setup(model)
    ref_opt = optimizers.SGD(lr=0.3)
    ref_opt.setup(ref)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt, devices=cpu_devices(2)
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 8, shuffle=False), ref_opt
    )
    for _ in range(3):
        updater.update()
        ref_updater.update()
    assert_same_params(model, ref)


def test_new_style_converter_gets_a_device():
    ds = make_dataset()
    seen = []

    @dataset.converter()
    def conv(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch, device)

    (_, opt), _ = make_pair()
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 4, shuffle=False),
        opt,
        converter=conv,
        devices=cpu_devices(2),
    )
    updater.update()
    assert seen == [chainer.get_device("@numpy")] * 2


def test_auto_new_epoch():
    ds = make_dataset(n=16)
    (_, opt), _ = make_pair()
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt, devices=cpu_devices(2)
    )
    updater.update()
    assert opt.epoch == 0
    updater.update()
    assert opt.epoch == 1
    assert updater.epoch == 1


def test_reports_main_and_copies_in_trainer(tmp_path):
    ds = make_dataset()
    (_, opt), (ref, _) = make_pair(lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt, devices=cpu_devices(3)
    )
    trainer = training.Trainer(updater, (3, "iteration"), out=str(tmp_path))
    seen = []

    @training.make_extension(trigger=(1, "iteration"))
    def record(tr):
        seen.append(dict(tr.observation))

    trainer.extend(record)
    trainer.run()
    assert len(seen) == 3
    for observation in seen:
        assert sorted(observation) == [
            f"{prefix}/{key}"
            for prefix in ("main", "second", "third")
            for key in ("accuracy", "loss")
        ]
    # Each model reports the loss of its own part: the main model got
    # examples 0, 3 and 6 of the first batch.
    x, t = dataset.concat_examples([ds[0], ds[3], ds[6]])
    with chainer.no_backprop_mode():
        expected = ref(x, t).array
    numpy.testing.assert_allclose(seen[0]["main/loss"].array, expected, rtol=1e-6)


def test_training_aliases():
    assert training.ParallelUpdater is updaters.ParallelUpdater
    assert training.updater.ParallelUpdater is updaters.ParallelUpdater
    assert issubclass(updaters.ParallelUpdater, updaters.StandardUpdater)


def test_serialize_round_trip(tmp_path):
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(optimizers.MomentumSGD, lr=0.1)
    devices = cpu_devices(2)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt, devices=devices
    )
    ref_updater = updaters.StandardUpdater(
        SerialIterator(ds, 8, shuffle=False), ref_opt
    )
    for _ in range(3):
        updater.update()
    path = tmp_path / "updater.npz"
    serializers.save_npz(str(path), updater)

    # An updater that has trained elsewhere: loading must bring the main
    # model, and before the next forward pass its copy, up to date.
    (model2, opt2), _ = make_pair(optimizers.MomentumSGD, lr=0.1)
    updater2 = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt2, devices=devices
    )
    updater2.update()
    serializers.load_npz(str(path), updater2)
    assert updater2.iteration == 3
    for _ in range(4):  # crosses the end of the first epoch
        updater.update()
        updater2.update()
    for _ in range(7):
        ref_updater.update()
    assert_same_params(model2, model, rtol=0, atol=0)
    assert_same_params(model2, ref)
    assert updater2.epoch == updater.epoch == 1
    assert opt2.epoch == 1


def test_no_devices_nor_models():
    (_, opt), _ = make_pair()
    with pytest.raises(ValueError, match="needs `devices`"):
        updaters.ParallelUpdater(SerialIterator(make_dataset(), 4), opt)


def test_devices_without_main():
    (_, opt), _ = make_pair()
    with pytest.raises(KeyError, match="'main'"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4),
            opt,
            devices={"first": "@numpy", "second": "@numpy"},
        )


def test_devices_not_a_dict():
    (_, opt), _ = make_pair()
    with pytest.raises(TypeError, match="dict of name -> device"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4), opt, devices=["@numpy", "@numpy"]
        )


def test_bad_device_specifier():
    (_, opt), _ = make_pair()
    with pytest.raises(ValueError, match="invalid device specifier"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4),
            opt,
            devices={"main": "@numpy", "second": "numpy"},
        )


def test_models_main_is_not_the_optimizer_target():
    (model, opt), _ = make_pair()
    with pytest.raises(ValueError, match="target link of the 'main' optimizer"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4),
            opt,
            models={"main": model.copy(mode="copy"), "second": model.copy("copy")},
        )


def test_models_without_main_or_shared():
    (model, opt), _ = make_pair()
    with pytest.raises(KeyError, match="'main'"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4), opt, models={"second": model}
        )
    with pytest.raises(ValueError, match="same link as another"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4),
            opt,
            models={"main": model, "second": model},
        )


def test_models_and_devices_keys_differ():
    (model, opt), _ = make_pair()
    with pytest.raises(ValueError, match="same keys"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4),
            opt,
            models={"main": model, "second": model.copy("copy")},
            devices={"main": "@numpy", "third": "@numpy"},
        )


def test_batch_smaller_than_devices():
    (_, opt), _ = make_pair()
    updater = updaters.ParallelUpdater(
        SerialIterator(make_dataset(), 2), opt, devices=cpu_devices(3)
    )
    with pytest.raises(ValueError, match="minibatch of 2 example.*3 devices"):
        updater.update()


def test_exhausted_iterator():
    (_, opt), _ = make_pair()
    updater = updaters.ParallelUpdater(
        SerialIterator(make_dataset(n=8), 8, repeat=False),
        opt,
        devices=cpu_devices(2),
    )
    updater.update()
    with pytest.raises(RuntimeError, match="exhausted"):
        updater.update()


def test_gpu_ids_without_cuda_backend():
    if cuda.available:
        pytest.skip("a CUDA backend is installed")
    (_, opt), _ = make_pair()
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4), opt, devices={"main": 0, "second": 1}
        )
