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
    ("gamma", "power", "init", "target"),
    [
        (0.1, 0.75, 1.0, None),
        (1.0, 1.0, 2.0, None),
        (0.5, -1.0, 1.0, None),
        (1.0, 1.0, 2.0, 0.6),
        (0.5, -1.0, 1.0, 2.2),
    ],
)
def test_values_follow_formula(gamma, power, init, target):
    opt = _Optimizer()
    ext = extensions.InverseShift("lr", gamma, power, init=init, target=target)
    values = _run(ext, opt, 6)
    expected = [init * (1 + gamma * t) ** (-power) for t in range(7)]
    if target is not None:
        clamp = min if power < 0 else max
        expected = [init] + [clamp(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_init_defaults_to_the_optimizer_value():
    opt = _Optimizer(lr=0.6)
    values = _run(extensions.InverseShift("lr", 1.0, 1.0), opt, 2)
    assert values == pytest.approx([0.6, 0.3, 0.2])


def test_explicit_optimizer():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main)
    ext = extensions.InverseShift("lr", 1.0, 1.0, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_in_trainer(tmp_path):
    opt = _Optimizer(1.0)
    trainer = _trainer(opt, tmp_path, stop=3)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.InverseShift("lr", 1.0, 1.0))
    trainer.run()
    assert seen == pytest.approx([1.0, 1 / 2, 1 / 3])


def test_resume_continues_the_sequence():
    make = lambda: extensions.InverseShift("lr", 0.5, 2.0, init=1.0)  # noqa: E731
    full = _run(make(), _Optimizer(), 6)
    first = make()
    _run(first, _Optimizer(), 4)
    resumed = make()
    _roundtrip(first, resumed)
    assert _run(resumed, _Optimizer(), 2) == full[4:]


def test_load_after_initialize_sets_the_restored_value():
    first = extensions.InverseShift("lr", 1.0, 1.0, init=1.0)
    _run(first, _Optimizer(), 3)
    opt = _Optimizer()
    resumed = extensions.InverseShift("lr", 1.0, 1.0, init=1.0)
    resumed.initialize(_trainer(opt))
    _roundtrip(first, resumed)
    assert opt.lr == pytest.approx(0.25)


def test_negative_gamma():
    with pytest.raises(ValueError, match="negative gamma"):
        extensions.InverseShift("lr", -0.1, 1.0)


@pytest.mark.parametrize(
    "args",
    [(None, 0.1, 1.0), ("lr", "0.1", 1.0), ("lr", 0.1, None), ("lr", 0.1, True)],
)
def test_bad_argument_types(args):
    with pytest.raises(TypeError, match="InverseShift"):
        extensions.InverseShift(*args)


def test_unknown_attribute():
    ext = extensions.InverseShift("momentun", 0.1, 1.0)
    with pytest.raises(AttributeError, match="no attribute 'momentun'"):
        ext.initialize(_trainer(_Optimizer()))
