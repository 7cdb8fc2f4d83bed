import pytest

from chainer.training import extensions


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
def test_values_follow_formula(value_range, time_range, make_optimizer, run_shift):
    opt = make_optimizer(lr=123.0)
    values = run_shift(extensions.LinearShift("lr", value_range, time_range), opt, 9)
    expected = [_expected(*value_range, *time_range, t) for t in range(10)]
    assert values == pytest.approx(expected, rel=1e-12)


def test_documented_example(make_optimizer, run_shift):
    ext = extensions.LinearShift("lr", (1.0, 0.5), (2, 4))
    values = run_shift(ext, make_optimizer(), 6)
    assert values == pytest.approx([1.0, 1.0, 1.0, 0.75, 0.5, 0.5, 0.5])


def test_in_trainer(make_optimizer, shift_trainer):
    opt = make_optimizer(9.0)
    trainer = shift_trainer(opt, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.LinearShift("lr", (0.0, 1.0), (0, 4)))
    trainer.run()
    assert seen == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


def test_explicit_optimizer(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.LinearShift("lr", (0.0, 1.0), (0, 2), optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    make = lambda: extensions.LinearShift("lr", (1.0, 0.0), (1, 7))  # noqa: E731
    full = run_shift(make(), make_optimizer(), 8)
    first = make()
    run_shift(first, make_optimizer(), 3)
    resumed = make()
    roundtrip(first, resumed)
    assert run_shift(resumed, make_optimizer(), 5) == full[3:]


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    first = extensions.LinearShift("lr", (1.0, 0.0), (0, 4))
    run_shift(first, make_optimizer(), 1)
    opt = make_optimizer()
    resumed = extensions.LinearShift("lr", (1.0, 0.0), (0, 4))
    resumed.initialize(shift_trainer(opt))
    assert opt.lr == 1.0
    roundtrip(first, resumed)
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


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.LinearShift("eta", (1.0, 0.0), (0, 2))
    with pytest.raises(AttributeError, match="no attribute 'eta'"):
        ext.initialize(shift_trainer(make_optimizer()))
