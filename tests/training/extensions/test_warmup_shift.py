import pytest

from chainer import serializers
from chainer import testing
from chainer.training import extensions


class _Optimizer:
    def __init__(self, lr=1.0):
        self.lr = lr


def _trainer(optimizer, tmp_path=".", stop=5):
    trainer = testing.get_trainer_with_mock_updater((stop, "iteration"))
    trainer.updater.get_optimizer = {"main": optimizer}.__getitem__
    trainer.out = str(tmp_path)
    return trainer


def _run(ext, optimizer, n):
    trainer = _trainer(optimizer)
    ext.initialize(trainer)
    values = [optimizer.lr]
    for _ in range(n):
        ext(trainer)
        values.append(optimizer.lr)
    return values


def _roundtrip(src, dst):
    s = serializers.DictionarySerializer()
    src.serialize(s)
    dst.serialize(serializers.NpzDeserializer(s.target))


def test_documented_example():
    ext = extensions.WarmupShift("lr", 0.1, 3, 0.4)
    values = _run(ext, _Optimizer(lr=9.0), 5)
    assert values == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.4, 0.4])


@pytest.mark.parametrize(
    ("start", "warmup_iter", "init"), [(0.0, 4, 1.0), (1.0, 2, 0.5), (0.2, 1, 0.3)]
)
def test_values_follow_formula(start, warmup_iter, init):
    values = _run(
        extensions.WarmupShift("lr", start, warmup_iter, init), _Optimizer(), 6
    )
    expected = [
        start + (init - start) * min(t, warmup_iter) / warmup_iter for t in range(7)
    ]
    assert values == pytest.approx(expected, rel=1e-12)


def test_in_trainer(tmp_path):
    opt = _Optimizer(9.0)
    trainer = _trainer(opt, tmp_path, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.WarmupShift("lr", 0.0, 2, 1.0))
    trainer.run()
    assert seen == [0.0, 0.5, 1.0, 1.0, 1.0]


def test_explicit_optimizer():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main)
    ext = extensions.WarmupShift("lr", 0.0, 2, 0.5, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.25)


def test_resume_continues_the_sequence():
    make = lambda: extensions.WarmupShift("lr", 0.0, 5, 1.0)  # noqa: E731
    full = _run(make(), _Optimizer(), 7)
    first = make()
    _run(first, _Optimizer(), 2)
    resumed = make()
    _roundtrip(first, resumed)
    assert _run(resumed, _Optimizer(), 5) == full[2:]


def test_load_after_initialize_sets_the_restored_value():
    first = extensions.WarmupShift("lr", 0.0, 4, 1.0)
    _run(first, _Optimizer(), 1)
    opt = _Optimizer()
    resumed = extensions.WarmupShift("lr", 0.0, 4, 1.0)
    resumed.initialize(_trainer(opt))
    assert opt.lr == 0.0
    _roundtrip(first, resumed)
    assert opt.lr == 0.25


@pytest.mark.parametrize("warmup_iter", [0, -3, 2.5, True])
def test_bad_warmup_iter(warmup_iter):
    with pytest.raises(ValueError, match="warmup_iter must be a positive int"):
        extensions.WarmupShift("lr", 0.0, warmup_iter, 1.0)


@pytest.mark.parametrize(
    "args", [(None, 0.0, 2, 1.0), ("lr", "0", 2, 1.0), ("lr", 0.0, 2, None)]
)
def test_bad_argument_types(args):
    with pytest.raises(TypeError, match="WarmupShift"):
        extensions.WarmupShift(*args)


def test_unknown_attribute():
    ext = extensions.WarmupShift("lrr", 0.0, 2, 1.0)
    with pytest.raises(AttributeError, match="no attribute 'lrr'"):
        ext.initialize(_trainer(_Optimizer()))
