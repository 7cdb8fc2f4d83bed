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


@pytest.mark.parametrize(
    ("rate", "max_count", "init", "target"),
    [
        (0.5, 6, 1.0, None),
        (2.0, 4, 0.8, None),
        (1.0, 5, 1.0, 0.3),
        (0.9, 10, 2.0, None),
    ],
)
def test_values_follow_formula(rate, max_count, init, target):
    opt = _Optimizer()
    ext = extensions.PolynomialShift("lr", rate, max_count, init, target)
    values = _run(ext, opt, 8)
    expected = [init * max(1 - t / max_count, 0) ** rate for t in range(9)]
    if target is not None:
        expected = [init] + [max(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_reaches_zero_and_stays():
    values = _run(extensions.PolynomialShift("lr", 1.0, 4, init=1.0), _Optimizer(), 6)
    assert values == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0, 0.0, 0.0])


def test_target_at_the_end_does_not_divide_by_zero():
    ext = extensions.PolynomialShift("lr", 0.5, 2, init=1.0, target=0.1)
    values = _run(ext, _Optimizer(), 3)
    assert values[-2:] == [0.1, 0.1]


def test_negative_rate_grows_to_target():
    ext = extensions.PolynomialShift("lr", -1.0, 4, init=1.0, target=3.0)
    values = _run(ext, _Optimizer(), 5)
    assert values == pytest.approx([1.0, 4 / 3, 2.0, 3.0, 3.0, 3.0])


def test_init_defaults_to_the_optimizer_value():
    values = _run(extensions.PolynomialShift("lr", 1.0, 2), _Optimizer(lr=0.4), 2)
    assert values == [0.4, 0.2, 0.0]


def test_in_trainer(tmp_path):
    opt = _Optimizer(1.0)
    trainer = _trainer(opt, tmp_path, stop=4)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.PolynomialShift("lr", 1.0, 4))
    trainer.run()
    assert seen == pytest.approx([1.0, 0.75, 0.5, 0.25])


def test_explicit_optimizer():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main)
    ext = extensions.PolynomialShift("lr", 1.0, 2, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence():
    make = lambda: extensions.PolynomialShift("lr", 0.5, 10, init=1.0)  # noqa: E731
    full = _run(make(), _Optimizer(), 8)
    first = make()
    _run(first, _Optimizer(), 5)
    resumed = make()
    _roundtrip(first, resumed)
    assert _run(resumed, _Optimizer(), 3) == full[5:]


def test_load_after_initialize_sets_the_restored_value():
    first = extensions.PolynomialShift("lr", 1.0, 4, init=1.0)
    _run(first, _Optimizer(), 2)
    opt = _Optimizer()
    resumed = extensions.PolynomialShift("lr", 1.0, 4, init=1.0)
    resumed.initialize(_trainer(opt))
    _roundtrip(first, resumed)
    assert opt.lr == 0.5


@pytest.mark.parametrize("max_count", [0, -1])
def test_non_positive_max_count(max_count):
    with pytest.raises(ValueError, match="max_count must be positive"):
        extensions.PolynomialShift("lr", 0.5, max_count)


@pytest.mark.parametrize(
    "args", [(["lr"], 0.5, 10), ("lr", "0.5", 10), ("lr", 0.5, None)]
)
def test_bad_argument_types(args):
    with pytest.raises(TypeError, match="PolynomialShift"):
        extensions.PolynomialShift(*args)


def test_unknown_attribute():
    ext = extensions.PolynomialShift("alpha", 0.5, 10)
    with pytest.raises(AttributeError, match="no attribute 'alpha'"):
        ext.initialize(_trainer(_Optimizer()))
