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


def _expected(v1, v2, t1, t2, t):
    if t <= t1:
        return v1
    if t >= t2:
        return v2
    return v1 + (v2 - v1) * (t - t1) / (t2 - t1)


@pytest.mark.parametrize(
    ("value_range", "time_range"),
    [((1.0, 0.0), (2, 6)), ((0.1, 0.5), (0, 4)), ((2.0, -2.0), (3, 3))],
)
def test_values_follow_formula(value_range, time_range):
    opt = _Optimizer(lr=123.0)
    values = _run(extensions.LinearShift("lr", value_range, time_range), opt, 9)
    expected = [_expected(*value_range, *time_range, t) for t in range(10)]
    assert values == pytest.approx(expected, rel=1e-12)


def test_documented_example():
    ext = extensions.LinearShift("lr", (1.0, 0.5), (2, 4))
    values = _run(ext, _Optimizer(), 6)
    assert values == pytest.approx([1.0, 1.0, 1.0, 0.75, 0.5, 0.5, 0.5])


def test_in_trainer(tmp_path):
    opt = _Optimizer(9.0)
    trainer = _trainer(opt, tmp_path, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.LinearShift("lr", (0.0, 1.0), (0, 4)))
    trainer.run()
    assert seen == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


def test_explicit_optimizer():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main)
    ext = extensions.LinearShift("lr", (0.0, 1.0), (0, 2), optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence():
    make = lambda: extensions.LinearShift("lr", (1.0, 0.0), (1, 7))  # noqa: E731
    full = _run(make(), _Optimizer(), 8)
    first = make()
    _run(first, _Optimizer(), 3)
    resumed = make()
    _roundtrip(first, resumed)
    assert _run(resumed, _Optimizer(), 5) == full[3:]


def test_load_after_initialize_sets_the_restored_value():
    first = extensions.LinearShift("lr", (1.0, 0.0), (0, 4))
    _run(first, _Optimizer(), 1)
    opt = _Optimizer()
    resumed = extensions.LinearShift("lr", (1.0, 0.0), (0, 4))
    resumed.initialize(_trainer(opt))
    assert opt.lr == 1.0
    _roundtrip(first, resumed)
    assert opt.lr == 0.75


def test_reversed_time_range():
    with pytest.raises(ValueError, match="time_range"):
        extensions.LinearShift("lr", (1.0, 0.0), (5, 2))


@pytest.mark.parametrize(
    ("value_range", "time_range"),
    [(1.0, (0, 2)), ((1.0, 2.0, 3.0), (0, 2)), ((1.0, 0.0), (0, "2"))],
)
def test_bad_ranges(value_range, time_range):
    with pytest.raises(TypeError, match="LinearShift"):
        extensions.LinearShift("lr", value_range, time_range)


def test_bad_attr():
    with pytest.raises(TypeError, match="attr must be a str"):
        extensions.LinearShift(None, (1.0, 0.0), (0, 2))


def test_unknown_attribute():
    ext = extensions.LinearShift("eta", (1.0, 0.0), (0, 2))
    with pytest.raises(AttributeError, match="no attribute 'eta'"):
        ext.initialize(_trainer(_Optimizer()))
