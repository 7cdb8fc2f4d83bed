import pytest

from chainer.training import extensions


@pytest.mark.parametrize(
    ("rate", "max_count", "init", "target"),
    [
        (0.5, 6, 1.0, None),
        (2.0, 4, 0.8, None),
        (1.0, 5, 1.0, 0.3),
        (0.9, 10, 2.0, None),
    ],
)
def test_values_follow_formula(
    rate, max_count, init, target, make_optimizer, run_shift
):
    opt = make_optimizer()
    ext = extensions.PolynomialShift("lr", rate, max_count, init, target)
    values = run_shift(ext, opt, 8)
    expected = [init * max(1 - t / max_count, 0) ** rate for t in range(9)]
    if target is not None:
        expected = [init] + [max(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_reaches_zero_and_stays(make_optimizer, run_shift):
    values = run_shift(
        extensions.PolynomialShift("lr", 1.0, 4, init=1.0), make_optimizer(), 6
    )
    assert values == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0, 0.0, 0.0])


def test_target_at_the_end_does_not_divide_by_zero(make_optimizer, run_shift):
    ext = extensions.PolynomialShift("lr", 0.5, 2, init=1.0, target=0.1)
    values = run_shift(ext, make_optimizer(), 3)
    assert values[-2:] == [0.1, 0.1]


def test_negative_rate_grows_to_target(make_optimizer, run_shift):
    ext = extensions.PolynomialShift("lr", -1.0, 4, init=1.0, target=3.0)
    values = run_shift(ext, make_optimizer(), 5)
    assert values == pytest.approx([1.0, 4 / 3, 2.0, 3.0, 3.0, 3.0])


def test_init_defaults_to_the_optimizer_value(make_optimizer, run_shift):
    values = run_shift(
        extensions.PolynomialShift("lr", 1.0, 2), make_optimizer(lr=0.4), 2
    )
    assert values == [0.4, 0.2, 0.0]


def test_in_trainer(make_optimizer, shift_trainer):
    opt = make_optimizer(1.0)
    trainer = shift_trainer(opt, stop=4)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.PolynomialShift("lr", 1.0, 4))
    trainer.run()
    assert seen == pytest.approx([1.0, 0.75, 0.5, 0.25])


def test_explicit_optimizer(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.PolynomialShift("lr", 1.0, 2, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    make = lambda: extensions.PolynomialShift("lr", 0.5, 10, init=1.0)  # noqa: E731
    full = run_shift(make(), make_optimizer(), 8)
    first = make()
    run_shift(first, make_optimizer(), 5)
    resumed = make()
    roundtrip(first, resumed)
    assert run_shift(resumed, make_optimizer(), 3) == full[5:]


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    first = extensions.PolynomialShift("lr", 1.0, 4, init=1.0)
    run_shift(first, make_optimizer(), 2)
    opt = make_optimizer()
    resumed = extensions.PolynomialShift("lr", 1.0, 4, init=1.0)
    resumed.initialize(shift_trainer(opt))
    roundtrip(first, resumed)
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


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.PolynomialShift("alpha", 0.5, 10)
    with pytest.raises(AttributeError, match="no attribute 'alpha'"):
        ext.initialize(shift_trainer(make_optimizer()))
