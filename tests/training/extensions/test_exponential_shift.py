import pytest

from chainer import optimizers
from chainer import serializers
from chainer.training import extensions


@pytest.mark.parametrize(
    ("rate", "init", "target"),
    [(0.5, 2.0, None), (2.0, 0.25, None), (0.5, 2.0, 0.3), (2.0, 0.25, 3.0)],
)
def test_values_follow_formula(rate, init, target, make_optimizer, run_shift):
    opt = make_optimizer()
    values = run_shift(extensions.ExponentialShift("lr", rate, init, target), opt, 6)
    expected = [init * rate**t for t in range(7)]
    if target is not None:
        clamp = min if rate > 1 else max
        expected = [init] + [clamp(v, target) for v in expected[1:]]
    assert values == pytest.approx(expected, rel=1e-12)


def test_negative_values_with_target(make_optimizer, run_shift):
    opt = make_optimizer()
    values = run_shift(
        extensions.ExponentialShift("lr", 0.5, -4.0, target=-1.5), opt, 4
    )
    assert values == [-4.0, -2.0, -1.5, -1.5, -1.5]


def test_init_defaults_to_the_optimizer_value(make_optimizer, run_shift):
    opt = make_optimizer(lr=0.8)
    values = run_shift(extensions.ExponentialShift("lr", 0.5), opt, 3)
    assert values == [0.8, 0.4, 0.2, 0.1]


def test_explicit_optimizer_is_shifted_instead_of_main(make_optimizer, shift_trainer):
    main, other = make_optimizer(1.0), make_optimizer(1.0)
    trainer = shift_trainer(main)
    ext = extensions.ExponentialShift("lr", 0.5, optimizer=other)
    ext.initialize(trainer)
    ext(trainer)
    assert (main.lr, other.lr) == (1.0, 0.5)


def test_call_without_initialize_initializes(make_optimizer, shift_trainer):
    opt = make_optimizer(1.0)
    ext = extensions.ExponentialShift("lr", 0.5)
    ext(shift_trainer(opt))
    assert opt.lr == 0.5


def test_in_trainer_each_update_sees_the_shifted_value(shift_trainer):
    opt = optimizers.MomentumSGD(lr=1.0)
    trainer = shift_trainer(opt, stop=5)
    seen = []
    trainer.updater.update_core.side_effect = lambda: seen.append(opt.lr)
    trainer.extend(extensions.ExponentialShift("lr", 0.5))
    trainer.run()
    assert seen == [1.0, 0.5, 0.25, 0.125, 0.0625]
    assert opt.hyperparam.lr == 0.03125


def test_resume_continues_the_sequence(make_optimizer, run_shift, roundtrip):
    full = run_shift(extensions.ExponentialShift("lr", 0.5, 1.0), make_optimizer(), 6)
    first = extensions.ExponentialShift("lr", 0.5, 1.0)
    run_shift(first, make_optimizer(), 3)
    # Loaded before initialize (load_npz(resume, trainer), then run()).
    resumed = extensions.ExponentialShift("lr", 0.5, 1.0)
    roundtrip(first, resumed)
    opt = make_optimizer()
    assert run_shift(resumed, opt, 3) == full[3:]


def test_load_after_initialize_sets_the_restored_value(
    make_optimizer, shift_trainer, run_shift, roundtrip
):
    # Snapshot autoload loads the trainer after the extensions' initialize.
    first = extensions.ExponentialShift("lr", 0.5, 1.0)
    run_shift(first, make_optimizer(), 3)
    opt = make_optimizer()
    resumed = extensions.ExponentialShift("lr", 0.5, 1.0)
    trainer = shift_trainer(opt)
    resumed.initialize(trainer)
    assert opt.lr == 1.0
    roundtrip(first, resumed)
    assert opt.lr == 0.125
    resumed(trainer)
    assert opt.lr == 0.0625


def test_serialized_keys(make_optimizer, run_shift):
    ext = extensions.ExponentialShift("lr", 0.5, 1.0)
    run_shift(ext, make_optimizer(), 2)
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    assert set(s.target) == {"_t", "_last_value"}
    assert int(s.target["_t"]) == 2
    assert float(s.target["_last_value"]) == 0.25


def test_negative_rate():
    with pytest.raises(ValueError, match="negative rate"):
        extensions.ExponentialShift("lr", -0.5)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"attr": 1, "rate": 0.5},
        {"attr": "lr", "rate": "0.5"},
        {"attr": "lr", "rate": 0.5, "init": "1"},
        {"attr": "lr", "rate": 0.5, "target": [1]},
    ],
)
def test_bad_argument_types(kwargs):
    with pytest.raises(TypeError, match="ExponentialShift"):
        extensions.ExponentialShift(**kwargs)


def test_unknown_attribute(make_optimizer, shift_trainer):
    ext = extensions.ExponentialShift("lrr", 0.5)
    with pytest.raises(AttributeError, match="no attribute 'lrr'"):
        ext.initialize(shift_trainer(make_optimizer()))


def test_read_only_attribute(shift_trainer):
    # Adam's lr is computed from alpha; it cannot be set.
    opt = optimizers.Adam()
    ext = extensions.ExponentialShift("lr", 0.5, init=0.1)
    with pytest.raises(AttributeError, match="cannot set 'lr' of the optimizer Adam"):
        ext.initialize(shift_trainer(opt))
