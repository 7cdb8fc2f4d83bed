import pytest

from chainer.training import extensions


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
def test_values_follow_formula(gamma, power, init, target, make_optimizer, run_shift):
    opt = make_optimizer()
    ext = extensions.InverseShift("lr", gamma, power, init=init, target=target)
    values = run_shift(ext, opt, 6)
    expected = [init * (1 + gamma * t) ** (-power) for t in range(7)]
    if target is not None:
        clamp = min if power < 0 else max
        expected = [init] + [clamp(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_init_defaults_to_the_optimizer_value(make_optimizer, run_shift):
    opt = make_optimizer(lr=0.6)
    values = run_shift(extensions.InverseShift("lr", 1.0, 1.0), opt, 2)
    assert values == pytest.approx([0.6, 0.3, 0.2])


def test_explicit_optimizer(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.InverseShift("lr", 1.0, 1.0, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_in_trainer(make_optimizer, shift_trainer):
    opt = make_optimizer(1.0)
    trainer = shift_trainer(opt, stop=3)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.InverseShift("lr", 1.0, 1.0))
    trainer.run()
    assert seen == pytest.approx([1.0, 1 / 2, 1 / 3])


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    make = lambda: extensions.InverseShift("lr", 0.5, 2.0, init=1.0)  # noqa: E731
    full = run_shift(make(), make_optimizer(), 6)
    first = make()
    run_shift(first, make_optimizer(), 4)
    resumed = make()
    roundtrip(first, resumed)
    assert run_shift(resumed, make_optimizer(), 2) == full[4:]


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    first = extensions.InverseShift("lr", 1.0, 1.0, init=1.0)
    run_shift(first, make_optimizer(), 3)
    opt = make_optimizer()
    resumed = extensions.InverseShift("lr", 1.0, 1.0, init=1.0)
    resumed.initialize(shift_trainer(opt))
    roundtrip(first, resumed)
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


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.InverseShift("momentun", 0.1, 1.0)
    with pytest.raises(AttributeError, match="no attribute 'momentun'"):
        ext.initialize(shift_trainer(make_optimizer()))
