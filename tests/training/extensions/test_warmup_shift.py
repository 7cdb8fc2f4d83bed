import pytest

from chainer.training import extensions


def test_documented_example(make_optimizer, run_shift):
    ext = extensions.WarmupShift("lr", 0.1, 3, 0.4)
    values = run_shift(ext, make_optimizer(lr=9.0), 5)
    assert values == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.4, 0.4])


@pytest.mark.parametrize(
    ("start", "warmup_iter", "init"), [(0.0, 4, 1.0), (1.0, 2, 0.5), (0.2, 1, 0.3)]
)
def test_values_follow_formula(start, warmup_iter, init, make_optimizer, run_shift):
    values = run_shift(
        extensions.WarmupShift("lr", start, warmup_iter, init), make_optimizer(), 6
    )
    expected = [
        start + (init - start) * min(t, warmup_iter) / warmup_iter for t in range(7)
    ]
    assert values == pytest.approx(expected, rel=1e-12)


def test_in_trainer(make_optimizer, shift_trainer):
    opt = make_optimizer(9.0)
    trainer = shift_trainer(opt, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.WarmupShift("lr", 0.0, 2, 1.0))
    trainer.run()
    assert seen == [0.0, 0.5, 1.0, 1.0, 1.0]


def test_explicit_optimizer(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.WarmupShift("lr", 0.0, 2, 0.5, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.25)


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    make = lambda: extensions.WarmupShift("lr", 0.0, 5, 1.0)  # noqa: E731
    full = run_shift(make(), make_optimizer(), 7)
    first = make()
    run_shift(first, make_optimizer(), 2)
    resumed = make()
    roundtrip(first, resumed)
    assert run_shift(resumed, make_optimizer(), 5) == full[2:]


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    first = extensions.WarmupShift("lr", 0.0, 4, 1.0)
    run_shift(first, make_optimizer(), 1)
    opt = make_optimizer()
    resumed = extensions.WarmupShift("lr", 0.0, 4, 1.0)
    resumed.initialize(shift_trainer(opt))
    assert opt.lr == 0.0
    roundtrip(first, resumed)
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


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.WarmupShift("lrr", 0.0, 2, 1.0)
    with pytest.raises(AttributeError, match="no attribute 'lrr'"):
        ext.initialize(shift_trainer(make_optimizer()))
