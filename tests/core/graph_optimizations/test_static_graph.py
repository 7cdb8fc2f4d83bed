import numpy
import pytest

import chainer
from chainer.graph_optimizations.static_graph import ScheduleManager
from chainer.graph_optimizations.static_graph import static_graph
from chainer.graph_optimizations.static_graph_utilities import static_code


def _dense(in_size, out_size, seed):
    W = numpy.random.RandomState(seed).normal(size=(out_size, in_size))
    return chainer.Parameter(W.astype(numpy.float32))


class Dynamic(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W1 = _dense(3, 4, 0)
            self.W2 = _dense(4, 2, 1)

    def forward(self, x):
        h = x @ self.W1.T
        return (h * h) @ self.W2.T


class Static(Dynamic):
    def __init__(self, **options):
        super().__init__()
        self.counter = 0
        self.forward = static_graph(**options)(type(self).forward_impl).__get__(self)

    @static_code
    def count(self):
        self.counter += 1

    def forward_impl(self, x):
        self.count()
        return Dynamic.forward(self, x)


class Bare(Dynamic):
    @static_graph
    def forward(self, x):
        return Dynamic.forward(self, x)


def _x(seed=2):
    return numpy.random.RandomState(seed).uniform(-1, 1, (5, 3)).astype(numpy.float32)


def test_results_and_gradients_match_define_by_run():
    dynamic, static = Dynamic(), Static()
    for seed in (2, 3, 4):  # the first call builds the schedule, later ones use it
        x_dyn = chainer.Variable(_x(seed))
        x_sta = chainer.Variable(_x(seed))
        dynamic.cleargrads()
        static.cleargrads()
        y_dyn = dynamic(x_dyn)
        y_sta = static(x_sta)
        numpy.testing.assert_allclose(y_sta.array, y_dyn.array, rtol=1e-6)
        gy = numpy.ones_like(y_dyn.array)
        y_dyn.grad = gy
        y_sta.grad = gy.copy()
        y_dyn.backward()
        y_sta.backward()
        numpy.testing.assert_allclose(x_sta.grad, x_dyn.grad, rtol=1e-6)
        numpy.testing.assert_allclose(static.W1.grad, dynamic.W1.grad, rtol=1e-6)
        numpy.testing.assert_allclose(static.W2.grad, dynamic.W2.grad, rtol=1e-6)


def test_double_backprop_through_a_static_chain():
    chain = Static(enable_double_backprop=True)
    x = chainer.Variable(_x())
    y = chain(x)
    (gx,) = chainer.grad(
        [y], [x], grad_outputs=[numpy.ones_like(y.array)], enable_double_backprop=True
    )
    assert gx.creator is not None
    (ggx,) = chainer.grad([gx], [x], grad_outputs=[numpy.ones_like(gx.array)])
    assert ggx.shape == x.shape


def test_schedule_attributes_follow_use_static_graph():
    chain = Bare()
    with chainer.using_config("use_static_graph", False):
        chain(_x())
    assert not hasattr(chain, "schedule_manager")
    assert not hasattr(chain, "static_schedule")
    chain(_x())
    assert isinstance(chain.schedule_manager, ScheduleManager)
    assert not chain.static_schedule.is_empty()
    assert "ScheduleManager" in repr(chain.schedule_manager)


def test_static_code_runs_on_every_call_and_is_recorded_once():
    chain = Static()
    for _ in range(3):
        chain(_x())
    assert chain.counter == 3
    names = [info.func_name for info in chain.static_schedule.functions]
    assert len(names) == 1
    assert "count" in names[0]


def test_static_code_outside_a_static_chain_just_runs():
    calls = []

    @static_code(func_name="append")
    def append(value):
        calls.append(value)
        return value * 2

    assert append(3) == 6
    assert calls == [3]


def test_force_test_define_by_run_skips_schedules_in_test_mode():
    chain = Static(force_test_define_by_run=True)
    with chainer.using_config("train", False):
        chain(_x())
    assert not hasattr(chain, "schedule_manager")
    assert chain.counter == 1


def test_repeated_calls_in_one_iteration_get_their_own_schedules():
    chain = Bare()
    x = _x()
    y1 = chain(x)
    first = chain.static_schedule
    y2 = chain(x)
    assert chain.static_schedule is not first
    loss = y1 + y2
    loss.grad = numpy.ones_like(loss.array)
    loss.backward()  # backprop ends the forward pass of the schedules
    chain(x)
    assert chain.static_schedule is first


def test_test_mode_reuses_the_schedule():
    chain = Bare()
    with chainer.using_config("train", False):
        chain(_x())
        first = chain.static_schedule
        chain(_x())
    assert chain.static_schedule is first


def test_minimize_cache_size_keeps_the_latest_signature_only():
    chain = Static(minimize_cache_size=True)
    chain(_x())
    chain(numpy.zeros((2, 3), numpy.float32))
    assert len(chain.schedule_manager.schedules) == 1


def test_nested_static_chains_raise():
    class Outer(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = Bare()

        @static_graph
        def forward(self, x):
            return self.inner(x)

    with pytest.raises(RuntimeError, match="nested"):
        Outer()(_x())


def test_nested_lists_of_inputs_and_outputs():
    class Pair(chainer.Chain):
        @static_graph
        def forward(self, xs):
            a, (b,) = xs
            return [a + b, (a * b,)]

    a, b = _x(1), _x(2)
    out = Pair()([a, (b,)])
    assert isinstance(out, list)
    assert isinstance(out[1], tuple)
    numpy.testing.assert_allclose(out[0].array, a + b)
    numpy.testing.assert_allclose(out[1][0].array, a * b)


@pytest.mark.parametrize(
    "call",
    [
        lambda chain: chain(_x(), scale=2),  # keyword arguments
        lambda chain: chain("not an array"),
    ],
)
def test_unsupported_arguments_raise(call):
    class Scaled(chainer.Chain):
        @static_graph
        def forward(self, x, scale=1):
            return x * scale

    with pytest.raises(TypeError, match="static chain"):
        call(Scaled())


def test_outputs_must_be_variables():
    class ReturnsArray(chainer.Chain):
        @static_graph
        def forward(self, x):
            return x.array

    with pytest.raises(TypeError, match="outputs of a static chain"):
        ReturnsArray()(chainer.Variable(_x()))


def test_decorator_options_are_checked():
    with pytest.raises(TypeError, match="unexpected options"):
        static_graph(verbose=True)


def test_decorator_needs_a_chain():
    @static_graph
    def forward(self, x):
        return x

    with pytest.raises(TypeError, match="chain"):
        forward(object(), _x())


def test_chainer_namespace_exports_the_decorators():
    assert chainer.static_graph is static_graph
    assert chainer.static_code is static_code
    assert chainer.graph_optimizations.static_graph is static_graph
