import copy
import pickle
import warnings

import numpy
import pytest

import chainer
from chainer import Variable


def _var(*shape, dtype=numpy.float32):
    return Variable(numpy.arange(numpy.prod(shape), dtype=dtype).reshape(shape))


class TestConstruction:
    def test_data_and_name(self):
        x = Variable(numpy.ones((2, 3), numpy.float32), name="x")
        assert x.shape == (2, 3)
        assert x.ndim == 2
        assert x.size == 6
        assert x.dtype == numpy.float32
        assert x.name == "x"
        assert x.array is x.data
        assert x.requires_grad
        assert x.grad is None
        assert x.creator is None
        assert len(x) == 2

    def test_none_data(self):
        x = Variable()
        assert x.array is None
        assert x.node.shape is None

    @pytest.mark.parametrize("bad", [1.0, [1, 2], "a", numpy.float32(1)])
    def test_non_array_data_rejected(self, bad):
        with pytest.raises(TypeError, match="numpy.ndarray or cuda.ndarray"):
            Variable(bad)

    def test_volatile_rejected(self):
        with pytest.raises(ValueError, match="volatile"):
            Variable(numpy.ones(1), volatile=True)

    def test_unknown_kwarg(self):
        with pytest.raises(TypeError, match="unexpected keyword"):
            Variable(numpy.ones(1), foo=1)

    def test_layout(self):
        # The standard layout (None) is accepted; Chainer 7's experimental
        # layouts are refused by name.
        assert Variable(numpy.ones(1), layout=None).shape == (1,)
        with pytest.raises(ValueError, match="memory layout"):
            Variable(numpy.ones((1, 2, 3, 4)), layout="NHWC")

    def test_keyword_options(self):
        x = Variable(numpy.ones(2, numpy.float32), name="x", requires_grad=0)
        assert x.name == "x"
        assert x.node.name == "x"
        assert x.requires_grad is False
        assert x.node.requires_grad is False
        assert x.node.shape == (2,)
        assert x.node.dtype == numpy.float32
        assert x.node.get_variable_or_none() is x

    def test_data_is_positional_only_option(self):
        with pytest.raises(TypeError):
            Variable(numpy.ones(1), "name")

    def test_initial_grad(self):
        g = numpy.full(3, 2, numpy.float32)
        x = Variable(numpy.ones(3, numpy.float32), grad=g)
        numpy.testing.assert_array_equal(x.grad, g)

    def test_len_of_scalar(self):
        with pytest.raises(TypeError, match="unsized"):
            len(Variable(numpy.array(1.0)))


class TestGrad:
    def test_grad_setter_checks_shape(self):
        x = _var(3)
        with pytest.raises(ValueError, match="shape of data and grad mismatch"):
            x.grad = numpy.ones(4, numpy.float32)

    def test_grad_setter_checks_dtype(self):
        x = _var(3)
        with pytest.raises(TypeError, match="dtype of data and grad mismatch"):
            x.grad = numpy.ones(3, numpy.float64)

    def test_grad_setter_wraps_in_variable_requiring_grad(self):
        # As in Chainer: a graph built through grad_var in double backprop
        # reaches the gradient that was set.
        x = _var(3)
        y = x * 2
        y.grad = numpy.full(3, 3.0, numpy.float32)
        gy = y.grad_var
        assert gy.requires_grad
        assert gy.creator is None
        y.backward(enable_double_backprop=True)
        assert x.grad_var.requires_grad
        x.grad_var.grad = numpy.ones(3, numpy.float32)
        x.grad_var.backward()
        numpy.testing.assert_array_equal(gy.grad, [2.0, 2.0, 2.0])

    def test_grad_var(self):
        x = _var(3)
        g = Variable(numpy.ones(3, numpy.float32))
        x.grad_var = g
        assert x.grad_var is g
        assert x.grad is g.array
        with pytest.raises(TypeError):
            x.grad_var = numpy.ones(3, numpy.float32)

    def test_cleargrad(self):
        x = _var(3)
        x.grad = numpy.ones(3, numpy.float32)
        x.cleargrad()
        assert x.grad is None

    def test_zerograd_warns_and_zeros(self):
        x = _var(3)
        with pytest.warns(DeprecationWarning):
            x.zerograd()
        numpy.testing.assert_array_equal(x.grad, numpy.zeros(3))

    def test_addgrad(self):
        x = _var(3)
        y = _var(3)
        y.grad = numpy.ones(3, numpy.float32)
        x.addgrad(y)
        x.addgrad(y)
        numpy.testing.assert_array_equal(x.grad, numpy.full(3, 2))
        assert x.grad is not y.grad

    def test_copydata(self):
        x = _var(3)
        y = Variable(numpy.full(3, 7, numpy.float32))
        arr = x.array
        x.copydata(y)
        assert x.array is arr
        numpy.testing.assert_array_equal(arr, [7, 7, 7])


class TestRepr:
    def test_repr(self):
        x = Variable(numpy.array([1.0, 2.0], numpy.float32))
        assert repr(x) == "variable([1., 2.])"
        x.name = "x"
        assert repr(x) == "variable x([1., 2.])"

    def test_str(self):
        x = Variable(numpy.array([1.0, 2.0], numpy.float32))
        assert str(x) == "variable([1. 2.])"

    def test_none(self):
        assert repr(Variable()) == "variable(None)"

    def test_empty(self):
        x = Variable(numpy.empty((0, 2), numpy.float32))
        assert repr(x) == "variable([], shape=(0, 2))"

    def test_summary_and_debug_print(self):
        x = Variable(numpy.ones(2, numpy.float32), name="w")
        assert x.summary() == "<variable w>"
        text = x.debug_print()
        assert text.splitlines() == [
            "<variable w>",
            "- device: CPU",
            "- backend: <class 'numpy.ndarray'>",
            "- shape: (2,)",
            "- dtype: float32",
            "- statistics: mean=1.00000000, std=0.00000000",
            "- grad: None",
        ]
        x.grad = numpy.zeros(2, numpy.float32)
        assert x.debug_print().endswith("\n- grad: 0")
        x.grad = numpy.array([1.0, 3.0], numpy.float32)
        assert x.debug_print().endswith("\n- grad: mean=2.00000000, std=1.00000000")
        empty = Variable().debug_print().splitlines()
        assert empty[1:] == [
            "- device: None",
            "- backend: None",
            "- shape: None",
            "- dtype: None",
            "- statistics: None",
            "- grad: None",
        ]


class TestOperatorsAndComparison:
    def test_comparisons_return_arrays(self):
        x = Variable(numpy.array([1.0, 2.0, 3.0], numpy.float32))
        numpy.testing.assert_array_equal(x < 2, [True, False, False])
        numpy.testing.assert_array_equal(x >= 2, [False, True, True])
        numpy.testing.assert_array_equal(x == x, [True, True, True])
        numpy.testing.assert_array_equal(x != 1, [False, True, True])

    def test_hash_by_identity(self):
        x = _var(2)
        y = _var(2)
        d = {x: 1, y: 2}
        assert d[x] == 1
        assert d[y] == 2

    def test_array_on_left(self):
        x = Variable(numpy.ones(3, numpy.float32))
        y = numpy.full(3, 2, numpy.float32) * x
        assert isinstance(y, Variable)
        numpy.testing.assert_array_equal(y.array, [2, 2, 2])

    def test_item(self):
        assert Variable(numpy.array([3.5])).item() == 3.5
        with pytest.raises(ValueError, match="one element"):
            _var(2).item()

    def test_T_and_reshape_and_transpose(self):
        x = _var(2, 3)
        assert x.T.shape == (3, 2)
        assert x.reshape(3, 2).shape == (3, 2)
        assert x.reshape((6,)).shape == (6,)
        assert x.transpose(1, 0).shape == (3, 2)
        assert x.transpose().shape == (3, 2)

    def test_mean(self):
        x = _var(2, 3)
        numpy.testing.assert_allclose(x.mean().array, 2.5)
        numpy.testing.assert_allclose(x.mean(axis=0).array, [1.5, 2.5, 3.5])
        w = numpy.array([1.0, 0.0, 1.0], numpy.float32)
        numpy.testing.assert_allclose(x.mean(axis=1, weights=w).array, [1.0, 4.0])


class TestGraph:
    def test_creator(self):
        x = _var(3)
        y = x * 2
        assert y.creator is not None
        assert y.creator_node is y.creator
        assert y.rank == 1
        y.unchain()
        assert y.creator is None

    def test_unchain_backward(self):
        x = _var(3)
        y = x * 2
        z = y + 1
        z.unchain_backward()
        assert z.creator is None
        assert y.creator is None

    def test_graph_without_requires_grad(self):
        # As in Chainer: with backprop enabled the creator is recorded even
        # if no input requires a gradient; the output requires none.
        x = Variable(numpy.ones(3, numpy.float32), requires_grad=False)
        y = x * 2
        assert y.creator is not None
        assert not y.requires_grad
        assert not y.node.requires_grad
        with chainer.no_backprop_mode():
            assert (x * 2).creator is None

    def test_no_backprop_mode(self):
        x = _var(3)
        with chainer.no_backprop_mode():
            y = x * 2
            with chainer.force_backprop_mode():
                z = x * 2
        assert y.creator is None
        assert y.requires_grad
        assert z.creator is not None

    def test_as_variable_and_as_array(self):
        a = numpy.ones(2, numpy.float32)
        v = chainer.as_variable(a)
        assert not v.requires_grad
        assert chainer.as_variable(v) is v
        assert chainer.as_array(v) is a
        assert chainer.as_array(a) is a


class TestDevice:
    def test_cpu(self):
        x = _var(3)
        assert x.xp is numpy
        assert x.device == chainer.get_device("@numpy")
        x.to_cpu()
        x.to_device("@numpy")
        assert isinstance(x.array, numpy.ndarray)

    def test_to_gpu_without_cuda(self):
        with pytest.raises(RuntimeError, match="chainer-cuda"):
            _var(3).to_gpu()

    def test_chainerx_and_ideep_unavailable(self):
        x = _var(3)
        with pytest.raises(RuntimeError, match="ChainerX is not available"):
            x.to_chx()
        with pytest.raises(RuntimeError, match="iDeep is not available"):
            x.to_intel64()
        # Not a ChainerX array: from_chx leaves it alone, as in Chainer 7.
        data = x.array
        assert x.from_chx() is None
        assert x.array is data


class TestPickleAndCopy:
    def test_pickle(self):
        x = Variable(numpy.arange(3, dtype=numpy.float32), name="x")
        x.grad = numpy.ones(3, numpy.float32)
        y = pickle.loads(pickle.dumps(x))
        numpy.testing.assert_array_equal(y.array, x.array)
        numpy.testing.assert_array_equal(y.grad, x.grad)
        assert y.name == "x"

    def test_copy_has_own_node(self):
        x = _var(3)
        y = copy.copy(x)
        assert y.array is x.array
        assert y.node is not x.node


class TestParameter:
    def test_array_initializer(self):
        a = numpy.ones((2, 3), numpy.float32)
        p = chainer.Parameter(a)
        assert p.array is a
        assert p.is_initialized
        assert p.grad is None

    def test_lazy(self):
        p = chainer.Parameter(chainer.initializers.Constant(3.0))
        assert not p.is_initialized
        assert p.array is None
        assert p.dtype == numpy.float32
        p.initialize((2, 2))
        numpy.testing.assert_array_equal(p.array, numpy.full((2, 2), 3.0))

    def test_shape(self):
        p = chainer.Parameter(0.5, (3,))
        numpy.testing.assert_array_equal(p.array, [0.5, 0.5, 0.5])

    def test_default_nan(self):
        p = chainer.Parameter(shape=(2,))
        assert numpy.isnan(p.array).all()

    def test_dtype_from_initializer(self):
        p = chainer.Parameter(chainer.initializers.Zero(numpy.float64))
        assert p.dtype == numpy.float64

    def test_dtype_unknown_before_initialization(self):
        def fill(array):
            array[...] = 1

        p = chainer.Parameter(fill)
        with pytest.raises(RuntimeError, match="dtype"):
            p.dtype  # noqa: B018
        p.initialize((2,))
        assert p.dtype == numpy.float32

        def fill_half(array):
            array[...] = 1

        fill_half.dtype = numpy.float16
        assert chainer.Parameter(fill_half).dtype == numpy.float16
        # An initializer whose dtype is None follows the default dtype.
        assert chainer.Parameter(chainer.initializers.One()).dtype == numpy.float32

    def test_bad_initializer(self):
        with pytest.raises(TypeError, match="initializer"):
            chainer.Parameter("bad")

    def test_update_rule_called(self):
        p = chainer.Parameter(numpy.zeros(2, numpy.float32))
        calls = []

        class Rule:
            def update(self, param):
                calls.append(param)

        p.update()
        assert calls == []
        p.update_rule = Rule()
        p.update()
        assert calls == [p]

    def test_pickle(self):
        p = chainer.Parameter(numpy.arange(3, dtype=numpy.float32), name="W")
        q = pickle.loads(pickle.dumps(p))
        assert isinstance(q, chainer.Parameter)
        numpy.testing.assert_array_equal(q.array, p.array)
        assert q.name == "W"

    def test_to_device_before_init(self):
        p = chainer.Parameter(chainer.initializers.One())
        p.to_device("@numpy")
        p.initialize(3)
        assert isinstance(p.array, numpy.ndarray)

    def test_zerograd_uninitialized_warns(self):
        p = chainer.Parameter(chainer.initializers.One())
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            p.zerograd()
        assert any(issubclass(x.category, DeprecationWarning) for x in w)

    def test_gradient_starts_as_nan(self):
        # Chainer: a parameter created with a shape, or initialized later,
        # has a NaN-filled gradient until cleargrad (backward accumulates).
        p = chainer.Parameter(0.5, (3,))
        assert p.grad.shape == (3,)
        assert numpy.isnan(p.grad).all()
        lazy = chainer.Parameter(chainer.initializers.Zero(numpy.float64))
        assert lazy.grad is None
        lazy.initialize((2, 2))
        assert lazy.grad.dtype == numpy.float64
        assert numpy.isnan(lazy.grad).all()

    def test_grad_state_before_initialization(self):
        cleared = chainer.Parameter(chainer.initializers.One())
        cleared.cleargrad()
        cleared.initialize(2)
        assert cleared.grad is None
        zeroed = chainer.Parameter(chainer.initializers.One())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            zeroed.zerograd()
        zeroed.initialize(2)
        numpy.testing.assert_array_equal(zeroed.grad, [0.0, 0.0])


def test_copydata_into_empty_plain_variable_is_a_clear_error():
    src = Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(ValueError, match="destination variable has no data"):
        Variable().copydata(src)
    with pytest.raises(ValueError, match="source variable has no data"):
        src.copydata(Variable())


def test_copydata_initializes_empty_parameter():
    src = Variable(numpy.arange(3, dtype=numpy.float32))
    p = chainer.Parameter(chainer.initializers.Zero())
    p.copydata(src)
    numpy.testing.assert_array_equal(p.array, [0, 1, 2])
