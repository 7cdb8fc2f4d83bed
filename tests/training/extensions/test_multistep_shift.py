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


def test_values_follow_the_steps():
    ext = extensions.MultistepShift("lr", 0.1, (2, 5), 1.0)
    values = _run(ext, _Optimizer(lr=7.0), 7)
    assert values == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01])


@pytest.mark.parametrize("steps", [(1, 2, 4), (3,), (), (2, 2, 6)])
def test_value_is_init_times_gamma_to_the_steps_passed(steps):
    values = _run(extensions.MultistepShift("lr", 0.5, steps, 2.0), _Optimizer(), 8)
    expected = []
    k = 0
    for t in range(9):
        # One step at most per invocation, as in Chainer.
        if t > 0 and k < len(steps) and t >= steps[k]:
            k += 1
        expected.append(2.0 * 0.5**k)
    assert values == pytest.approx(expected)


def test_init_none_uses_the_optimizer_value():
    ext = extensions.MultistepShift("lr", 0.5, (1,), None)
    assert _run(ext, _Optimizer(lr=0.4), 2) == [0.4, 0.2, 0.2]


def test_in_trainer(tmp_path):
    opt = _Optimizer(9.0)
    trainer = _trainer(opt, tmp_path, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.MultistepShift("lr", 0.5, [1, 3], 1.0))
    trainer.run()
    assert seen == [1.0, 0.5, 0.5, 0.25, 0.25]


def test_explicit_optimizer():
    main, other = _Optimizer(1.0), _Optimizer(1.0)
    trainer = _trainer(main)
    ext = extensions.MultistepShift("lr", 0.5, (1,), 1.0, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence():
    make = lambda: extensions.MultistepShift("lr", 0.1, (2, 5), 1.0)  # noqa: E731
    full = _run(make(), _Optimizer(), 7)
    first = make()
    _run(first, _Optimizer(), 3)
    resumed = make()
    _roundtrip(first, resumed)
    assert _run(resumed, _Optimizer(), 4) == pytest.approx(full[3:])


def test_serialized_keys():
    ext = extensions.MultistepShift("lr", 0.1, (2, 5), 1.0)
    _run(ext, _Optimizer(), 3)
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    assert set(s.target) == {"_t", "_current_step"}
    assert (int(s.target["_t"]), int(s.target["_current_step"])) == (3, 1)


def test_load_after_initialize_sets_the_restored_value():
    first = extensions.MultistepShift("lr", 0.1, (1, 2), 1.0)
    _run(first, _Optimizer(), 2)
    opt = _Optimizer()
    resumed = extensions.MultistepShift("lr", 0.1, (1, 2), 1.0)
    resumed.initialize(_trainer(opt))
    assert opt.lr == 1.0
    _roundtrip(first, resumed)
    assert opt.lr == pytest.approx(0.01)


def test_unsorted_steps():
    with pytest.raises(ValueError, match="increasing order"):
        extensions.MultistepShift("lr", 0.1, (5, 2), 1.0)


@pytest.mark.parametrize(
    "args",
    [
        (3, 0.1, (1,), 1.0),
        ("lr", "0.1", (1,), 1.0),
        ("lr", 0.1, 5, 1.0),
        ("lr", 0.1, ("a",), 1.0),
        ("lr", 0.1, (1,), "1"),
    ],
)
def test_bad_argument_types(args):
    with pytest.raises(TypeError, match="MultistepShift"):
        extensions.MultistepShift(*args)


def test_unknown_attribute():
    ext = extensions.MultistepShift("lrate", 0.1, (1,), 1.0)
    with pytest.raises(AttributeError, match="no attribute 'lrate'"):
        ext.initialize(_trainer(_Optimizer()))
