import numpy
import pytest

import chainer
import chainer.links as L
from chainer import dataset
from chainer import optimizers
from chainer import serializers
from chainer import training
from chainer.backends import cuda
from chainer.iterators import SerialIterator
from chainer.training import updaters


def cpu_devices(n):
    names = ["main", "second", "third", "fourth"][:n]
    return {name: "@numpy" for name in names}


@pytest.fixture
def side_by_side(update_side_by_side):
    """``side_by_side(updater, ds, batch_size, ref_opt, n)``.

    Compares ``n`` updates of ``updater`` with those of a StandardUpdater of
    ``ref_opt`` on the same batches (see ``update_side_by_side``), and
    returns the StandardUpdater.
    """

    def run(updater, ds, batch_size, ref_opt, n):
        ref_updater = updaters.StandardUpdater(
            SerialIterator(ds, batch_size, shuffle=False), ref_opt
        )
        update_side_by_side(updater, ref_updater, n)
        return ref_updater

    return run


@pytest.mark.parametrize(
    ("n_devices", "batch_size"), [(1, 6), (2, 8), (2, 7), (3, 9), (3, 10)]
)
def test_same_result_as_one_device(
    n_devices, batch_size, make_classifier, make_dataset, make_pair, side_by_side
):
    ds = make_dataset()
    (_, opt), (_, ref_opt) = make_pair(make_classifier(), lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, batch_size, shuffle=False),
        opt,
        devices=cpu_devices(n_devices),
    )
    ref_updater = side_by_side(updater, ds, batch_size, ref_opt, 8)
    assert updater.iteration == 8
    assert updater.epoch == ref_updater.epoch


def test_same_result_with_momentum_and_device_objects(
    make_classifier, make_dataset, make_pair, side_by_side
):
    ds = make_dataset()
    (_, opt), (_, ref_opt) = make_pair(
        make_classifier(), optimizers.MomentumSGD, lr=0.1
    )
    cpu = chainer.get_device("@numpy")
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False),
        opt,
        devices={"main": cpu, "second": -1},
    )
    side_by_side(updater, ds, 8, ref_opt, 6)


def test_lazily_initialized_parameters_are_shared(
    make_dataset, make_pair, assert_same_params
):
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(L.Classifier(L.Linear(None, 3)), lr=0.3)
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


def test_loss_func_and_loss_scale(
    make_classifier, make_dataset, make_pair, side_by_side
):
    ds = make_dataset()
    (model, opt), (_, ref_opt) = make_pair(make_classifier(), lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 6, shuffle=False),
        opt,
        devices=cpu_devices(2),
        loss_func=lambda x, t: model(x, t),
        loss_scale=64.0,
    )
    side_by_side(updater, ds, 6, ref_opt, 4)


def test_user_models_and_inferred_devices(
    make_classifier, make_dataset, make_pair, side_by_side, assert_same_params
):
    ds = make_dataset()
    (model, opt), (_, ref_opt) = make_pair(make_classifier(), lr=0.3)
    second = model.copy(mode="copy")
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False),
        opt,
        models={"main": model, "second": second},
    )
    side_by_side(updater, ds, 8, ref_opt, 3)
    assert_same_params(second, model, rtol=0, atol=0)


def test_old_style_converter_gets_legacy_device_id(
    make_classifier, make_dataset, make_pair, side_by_side
):
    ds = make_dataset()
    seen_devices = []

    def to_arrays(batch, device):
        seen_devices.append(device)
        return dataset.concat_examples(batch)

    (_, opt), (_, ref_opt) = make_pair(make_classifier(), lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False),
        opt,
        converter=to_arrays,
        devices=cpu_devices(2),
    )
    side_by_side(updater, ds, 8, ref_opt, 3)
    assert seen_devices == [-1] * 6


def test_dict_batches_are_keyword_arguments(
    make_classifier, make_dataset, make_pair, side_by_side
):
    ds = [{"x": x, "t": t} for x, t in make_dataset()]
    (_, opt), (_, ref_opt) = make_pair(make_classifier(label_key="t"), lr=0.3)
    updater = updaters.ParallelUpdater(
        SerialIterator(ds, 8, shuffle=False), opt, devices=cpu_devices(2)
    )
    side_by_side(updater, ds, 8, ref_opt, 3)


def test_new_style_converter_gets_a_device(make_dataset, optimizer):
    seen = []

    @dataset.converter()
    def conv(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch, device)

    updater = updaters.ParallelUpdater(
        SerialIterator(make_dataset(), 4, shuffle=False),
        optimizer,
        converter=conv,
        devices=cpu_devices(2),
    )
    updater.update()
    assert seen == [chainer.get_device("@numpy")] * 2


def test_auto_new_epoch(make_dataset, optimizer):
    updater = updaters.ParallelUpdater(
        SerialIterator(make_dataset(n=16), 8, shuffle=False),
        optimizer,
        devices=cpu_devices(2),
    )
    updater.update()
    assert optimizer.epoch == 0
    updater.update()
    assert optimizer.epoch == 1
    assert updater.epoch == 1


def test_reports_main_and_copies_in_trainer(
    tmp_path, make_classifier, make_dataset, make_pair
):
    ds = make_dataset()
    (_, opt), (ref, _) = make_pair(make_classifier(), lr=0.3)
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


def test_serialize_round_trip(
    tmp_path, make_classifier, make_dataset, make_pair, assert_same_params
):
    ds = make_dataset()
    (model, opt), (ref, ref_opt) = make_pair(
        make_classifier(), optimizers.MomentumSGD, lr=0.1
    )
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
    (model2, opt2), _ = make_pair(make_classifier(), optimizers.MomentumSGD, lr=0.1)
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


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        pytest.param({}, ValueError, "needs `devices`", id="nothing"),
        pytest.param(
            {"devices": {"first": "@numpy", "second": "@numpy"}},
            KeyError,
            "'main'",
            id="devices-without-main",
        ),
        pytest.param(
            {"devices": ["@numpy", "@numpy"]},
            TypeError,
            "dict of name -> device",
            id="devices-not-a-dict",
        ),
        pytest.param(
            {"devices": {"main": "@numpy", "second": "numpy"}},
            (ValueError, RuntimeError),
            "invalid device specifier",
            id="bad-device-specifier",
        ),
        pytest.param(
            lambda m: {"models": {"main": m.copy("copy"), "second": m.copy("copy")}},
            ValueError,
            "target link of the 'main' optimizer",
            id="models-main-not-the-target",
        ),
        pytest.param(
            lambda m: {"models": {"second": m}},
            KeyError,
            "'main'",
            id="models-without-main",
        ),
        pytest.param(
            lambda m: {"models": {"main": m, "second": m}},
            ValueError,
            "same link as another",
            id="models-shared",
        ),
        pytest.param(
            lambda m: {
                "models": {"main": m, "second": m.copy("copy")},
                "devices": {"main": "@numpy", "third": "@numpy"},
            },
            ValueError,
            "same keys",
            id="models-and-devices-keys-differ",
        ),
    ],
)
def test_bad_models_or_devices(arguments, error, match, make_dataset, optimizer):
    if callable(arguments):
        arguments = arguments(optimizer.target)
    with pytest.raises(error, match=match):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4), optimizer, **arguments
        )


def test_batch_smaller_than_devices(make_dataset, optimizer):
    updater = updaters.ParallelUpdater(
        SerialIterator(make_dataset(), 2), optimizer, devices=cpu_devices(3)
    )
    with pytest.raises(ValueError, match="minibatch of 2 example.*3 devices"):
        updater.update()


def test_exhausted_iterator(make_dataset, optimizer):
    updater = updaters.ParallelUpdater(
        SerialIterator(make_dataset(n=8), 8, repeat=False),
        optimizer,
        devices=cpu_devices(2),
    )
    updater.update()
    with pytest.raises(RuntimeError, match="exhausted"):
        updater.update()


def test_gpu_ids_without_cuda_backend(make_dataset, optimizer):
    if cuda.available:
        pytest.skip("a CUDA backend is installed")
    with pytest.raises(RuntimeError, match="chainer-cuda"):
        updaters.ParallelUpdater(
            SerialIterator(make_dataset(), 4),
            optimizer,
            devices={"main": 0, "second": 1},
        )
