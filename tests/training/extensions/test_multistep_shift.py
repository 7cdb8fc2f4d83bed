import pytest

from chainer import serializers
from chainer.training import extensions


def test_values_follow_the_steps(make_optimizer, run_shift):
    ext = extensions.MultistepShift("lr", 0.1, (2, 5), 1.0)
    values = run_shift(ext, make_optimizer(lr=7.0), 7)
    assert values == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01, 0.01])


@pytest.mark.parametrize("steps", [(1, 2, 4), (3,), (), (2, 2, 6)])
def test_value_is_init_times_gamma_to_the_steps_passed(
    steps, make_optimizer, run_shift
):
    values = run_shift(
        extensions.MultistepShift("lr", 0.5, steps, 2.0), make_optimizer(), 8
    )
    expected = []
    k = 0
    for t in range(9):
        # One step at most per invocation, as in Chainer.
        if t > 0 and k < len(steps) and t >= steps[k]:
            k += 1
        expected.append(2.0 * 0.5**k)
    assert values == pytest.approx(expected)


def test_init_none_uses_the_optimizer_value(make_optimizer, run_shift):
    ext = extensions.MultistepShift("lr", 0.5, (1,), None)
    assert run_shift(ext, make_optimizer(lr=0.4), 2) == [0.4, 0.2, 0.2]


def test_in_trainer(make_optimizer, shift_trainer):
    opt = make_optimizer(9.0)
    trainer = shift_trainer(opt, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.MultistepShift("lr", 0.5, [1, 3], 1.0))
    trainer.run()
    assert seen == [1.0, 0.5, 0.5, 0.25, 0.25]


def test_explicit_optimizer(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.MultistepShift("lr", 0.5, (1,), 1.0, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    make = lambda: extensions.MultistepShift("lr", 0.1, (2, 5), 1.0)  # noqa: E731
    full = run_shift(make(), make_optimizer(), 7)
    first = make()
    run_shift(first, make_optimizer(), 3)
    resumed = make()
    roundtrip(first, resumed)
    assert run_shift(resumed, make_optimizer(), 4) == pytest.approx(full[3:])


def test_serialized_keys(make_optimizer, run_shift):
    ext = extensions.MultistepShift("lr", 0.1, (2, 5), 1.0)
    run_shift(ext, make_optimizer(), 3)
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    assert set(s.target) == {"_t", "_current_step"}
    assert (int(s.target["_t"]), int(s.target["_current_step"])) == (3, 1)


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    first = extensions.MultistepShift("lr", 0.1, (1, 2), 1.0)
    run_shift(first, make_optimizer(), 2)
    opt = make_optimizer()
    resumed = extensions.MultistepShift("lr", 0.1, (1, 2), 1.0)
    resumed.initialize(shift_trainer(opt))
    assert opt.lr == 1.0
    roundtrip(first, resumed)
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


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.MultistepShift("lrate", 0.1, (1,), 1.0)
    with pytest.raises(AttributeError, match="no attribute 'lrate'"):
        ext.initialize(shift_trainer(make_optimizer()))
