"""Shape, indexing and reduction primitives (chainer.primitive_ops.array, .reduction).

Forward results are compared with plain NumPy; gradients and second-order
gradients are checked numerically with chainer.gradient_check.
"""

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import primitive_ops
from chainer.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, low=-1.0, high=1.0):
    return numpy.asarray(numpy.random.uniform(low, high, shape), dtype=dtype)


def _tol(dtype):
    # The numerical side runs in float64; the analytic side keeps the dtype.
    if dtype == numpy.float16:
        return {"atol": 1e-2, "rtol": 1e-2, "dtype": numpy.float64}
    if dtype == numpy.float32:
        return {"atol": 1e-4, "rtol": 1e-3, "dtype": numpy.float64}
    return {"atol": 1e-5, "rtol": 1e-4}


def _forward_tol(dtype):
    # For reductions, compared with a float64 reference.
    if dtype == numpy.float16:
        return {"atol": 1e-3, "rtol": 1e-2}
    if dtype == numpy.float32:
        return {"atol": 1e-6, "rtol": 1e-4}
    return {"atol": 1e-12, "rtol": 1e-10}


def _check_grads(func, x_data, dtype):
    """First- and second-order gradient checks of a one-output function."""
    x_data = x_data if isinstance(x_data, tuple) else (x_data,)
    y = func(*[chainer.Variable(x.copy()) for x in x_data])
    gy = _uniform(y.shape, y.dtype)
    ggx = tuple(_uniform(x.shape, x.dtype) for x in x_data)
    gradient_check.check_backward(func, x_data, gy, **_tol(dtype))
    gradient_check.check_double_backward(func, x_data, gy, ggx, **_tol(dtype))


def _assert_forward(y, expected):
    assert isinstance(y, chainer.Variable)
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == expected.shape
    assert y.dtype == expected.dtype
    numpy.testing.assert_array_equal(y.array, expected)


# ---------------------------------------------------------------------------
# reshape
# ---------------------------------------------------------------------------

RESHAPES = [
    ((2, 3), (3, 2)),
    ((2, 3), (6,)),
    ((2, 3), (-1,)),
    ((2, 3, 4), (4, -1)),
    ((2, 3, 4), (-1, 3, 2)),
    ((6,), (1, 2, 1, 3)),
    ((), (1, 1)),
    ((1,), ()),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("in_shape", "out_shape"), RESHAPES)
def test_reshape(in_shape, out_shape, dtype):
    x = _uniform(in_shape, dtype)
    _assert_forward(primitive_ops.reshape(x, out_shape), x.reshape(out_shape))
    _check_grads(lambda v: primitive_ops.reshape(v, out_shape), x, dtype)


def test_reshape_forms():
    x = chainer.Variable(numpy.arange(6.0).reshape(2, 3))
    expected = numpy.arange(6.0).reshape(3, 2)
    for y in (
        x.reshape(3, 2),
        x.reshape((3, 2)),
        x.reshape([3, 2]),
        x.reshape(-1, 2),
        primitive_ops.reshape(x, [3, -1]),
    ):
        _assert_forward(y, expected)
    _assert_forward(primitive_ops.reshape(x, 6), numpy.arange(6.0))


def test_reshape_to_same_shape_returns_input_variable():
    x = chainer.Variable(numpy.ones((2, 3)))
    assert primitive_ops.reshape(x, (2, 3)) is x


def test_reshape_gradient_keeps_input_shape():
    x = chainer.Variable(numpy.arange(6.0).reshape(2, 3))
    y = x.reshape(-1)
    y.grad = numpy.arange(6.0) * 10
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.arange(6.0).reshape(2, 3) * 10)


def test_reshape_size_mismatch():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType) as info:
        primitive_ops.reshape(x, (4, 2))
    assert "6 != 8" in str(info.value)


def test_reshape_unknown_dimension_does_not_divide():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"size 6 into shape \(-1, 4\)"):
        primitive_ops.reshape(x, (-1, 4))


def test_reshape_two_unknown_dimensions():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(ValueError, match="only one dimension can be -1"):
        x.reshape(-1, -1)


# ---------------------------------------------------------------------------
# transpose
# ---------------------------------------------------------------------------

TRANSPOSES = [
    ((2, 3), None),
    ((2, 3, 4), None),
    ((2, 3, 4), (1, 0, 2)),
    ((2, 3, 4), (2, 0, 1)),
    ((2, 3, 4), (-1, 0, -2)),
    ((3,), (0,)),
    ((), None),
    ((), ()),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axes"), TRANSPOSES)
def test_transpose(shape, axes, dtype):
    x = _uniform(shape, dtype)
    _assert_forward(primitive_ops.transpose(x, axes), numpy.transpose(x, axes))
    _check_grads(lambda v: primitive_ops.transpose(v, axes), x, dtype)


def test_transpose_methods():
    data = numpy.arange(24.0).reshape(2, 3, 4)
    x = chainer.Variable(data)
    _assert_forward(x.T, data.T)
    _assert_forward(x.transpose(), data.T)
    _assert_forward(x.transpose(1, 0, 2), data.transpose(1, 0, 2))
    _assert_forward(x.transpose((2, 0, 1)), data.transpose(2, 0, 1))
    _assert_forward(x.transpose([-1, 0, 1]), data.transpose(2, 0, 1))


def test_transpose_gradient_uses_inverse_permutation():
    x = chainer.Variable(numpy.zeros((2, 3, 4)))
    y = x.transpose(2, 0, 1)
    gy = numpy.arange(24.0).reshape(4, 2, 3)
    y.grad = gy
    y.backward()
    numpy.testing.assert_array_equal(x.grad, gy.transpose(1, 2, 0))


@pytest.mark.parametrize("axes", [(0,), (0, 0), (0, 2), (0, 1, 2)])
def test_transpose_bad_axes(axes):
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(ValueError, match="not a permutation"):
        primitive_ops.transpose(x, axes)


# ---------------------------------------------------------------------------
# broadcast_to and sum_to
# ---------------------------------------------------------------------------

BROADCASTS = [
    ((3,), (2, 3)),
    ((1, 3), (4, 3)),
    ((2, 1), (2, 5)),
    ((), (2, 2)),
    ((3, 1), (2, 3, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("in_shape", "out_shape"), BROADCASTS)
def test_broadcast_to(in_shape, out_shape, dtype):
    x = _uniform(in_shape, dtype)
    _assert_forward(
        primitive_ops.broadcast_to(x, out_shape), numpy.broadcast_to(x, out_shape)
    )
    _check_grads(lambda v: primitive_ops.broadcast_to(v, out_shape), x, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("out_shape", "in_shape"), BROADCASTS)
def test_sum_to(in_shape, out_shape, dtype):
    x = _uniform(in_shape, dtype)
    lead = len(in_shape) - len(out_shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(out_shape) if s == 1 and in_shape[lead + i] != 1
    )
    expected = x.sum(axis=axes, keepdims=True).reshape(out_shape)
    y = primitive_ops.sum_to(x, out_shape)
    assert y.shape == out_shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, rtol=5e-3 if lead else 1e-6)
    _check_grads(lambda v: primitive_ops.sum_to(v, out_shape), x, dtype)


def test_sum_to_scalar_shape():
    x = numpy.arange(6.0).reshape(2, 3)
    y = primitive_ops.sum_to(x, ())
    assert y.shape == ()
    assert float(y.array) == 15.0


def test_same_shape_returns_input_variable():
    x = chainer.Variable(numpy.ones((2, 3)))
    assert primitive_ops.broadcast_to(x, (2, 3)) is x
    assert primitive_ops.sum_to(x, (2, 3)) is x


def test_broadcast_to_gradient_is_summed():
    x = chainer.Variable(numpy.array([1.0, 2.0, 3.0]))
    y = primitive_ops.broadcast_to(x, (4, 3))
    y.grad = numpy.ones((4, 3))
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [4.0, 4.0, 4.0])


@pytest.mark.parametrize("shape", [(4, 3), (3, 2)])
def test_broadcast_to_incompatible_shape(shape):
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x\.shape=\(2, 3\)"):
        primitive_ops.broadcast_to(x, shape)


def test_broadcast_to_fewer_dimensions():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"ndim <= len\(shape\)"):
        primitive_ops.broadcast_to(x, (3,))


def test_sum_to_incompatible_shape():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"summed to \(4,\)"):
        primitive_ops.sum_to(x, (4,))


def test_sum_to_more_dimensions():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match="ndim >= 3"):
        primitive_ops.sum_to(x, (1, 2, 3))


# ---------------------------------------------------------------------------
# get_item
# ---------------------------------------------------------------------------

INDEXES = [
    1,
    -1,
    numpy.int64(2),
    slice(1, 3),
    slice(None, None, -1),
    slice(None, None, 2),
    (slice(None), 1),
    (0, slice(1, None)),
    None,
    (None, Ellipsis, None),
    Ellipsis,
    (Ellipsis, 2),
    numpy.array([3, 0, 1]),
    numpy.array([0, 0, 2]),
    [2, 1],
    [[0, 1], [1, 2]],
    [[2, 0], 1],
    ([[]],),
    [True, False, True, True],
    (slice(None), numpy.array([2, 2, 0])),
    numpy.array([True, False, True, True]),
    numpy.array([[True, False, True], [False, False, True]] * 2),
    (numpy.array([0, 3]), numpy.array([1, 2])),
    numpy.array([], numpy.intp),
]


def _index_id(index):
    return repr(index).replace(" ", "").replace("\n", "")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", INDEXES, ids=_index_id)
def test_get_item(index, dtype):
    x = _uniform((4, 3), dtype)
    numpy_index = index
    if isinstance(index, list):
        # As in Chainer: a list of ints is one index array, any other list a
        # tuple of indices (NumPy's behaviour before 1.23).
        if all(isinstance(i, int) for i in index):
            numpy_index = numpy.asarray(index)
        else:
            numpy_index = tuple(index)
    expected = numpy.asarray(x[numpy_index])
    _assert_forward(primitive_ops.get_item(x, index), expected)
    _assert_forward(chainer.Variable(x)[index], expected)
    if expected.size:
        _check_grads(lambda v: v[index], x, dtype)


def test_get_item_repeated_indices_accumulate():
    x = chainer.Variable(numpy.zeros(4, numpy.float32))
    y = x[[0, 0, 2, 0]]
    y.grad = numpy.array([1.0, 2.0, 3.0, 4.0], numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [7.0, 0.0, 3.0, 0.0])
    assert x.grad.dtype == numpy.float32


def test_get_item_gradient_of_basic_index():
    x = chainer.Variable(numpy.zeros((2, 3)))
    y = x[1, ::2]
    y.grad = numpy.array([5.0, 6.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 0], [5, 0, 6]])


def test_get_item_boolean_mask_gradient():
    x = chainer.Variable(numpy.ones((2, 2)))
    y = x[numpy.array([[True, False], [False, True]])]
    y.grad = numpy.array([2.0, 3.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[2.0, 0.0], [0.0, 3.0]])


def test_get_item_with_variable_index():
    x = chainer.Variable(numpy.arange(4.0))
    index = chainer.Variable(numpy.array([3, 1]))
    _assert_forward(x[index], numpy.array([3.0, 1.0]))


def test_get_item_zero_dim_result_is_array():
    y = chainer.Variable(numpy.arange(6.0).reshape(2, 3))[1, 2]
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == ()
    assert float(y.array) == 5.0


@pytest.mark.parametrize(
    ("index", "pattern"),
    [
        (5, r"out of bounds.*x\.shape=\(4, 3\)"),
        ((slice(None), 3), r"out of bounds.*x\.shape=\(4, 3\)"),
        (numpy.array([True, False]), r"boolean index did not match"),
        (1.5, r"only integers"),
    ],
)
def test_get_item_bad_index(index, pattern):
    x = chainer.Variable(numpy.ones((4, 3), numpy.float32))
    with pytest.raises(IndexError, match=pattern):
        x[index]


# ---------------------------------------------------------------------------
# cast
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("to_dtype", DTYPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cast(dtype, to_dtype):
    x = _uniform((2, 3), dtype)
    y = primitive_ops.cast(x, to_dtype)
    _assert_forward(y, x.astype(to_dtype))
    v = chainer.Variable(x)
    y = primitive_ops.cast(v, to_dtype)
    y.grad = numpy.ones((2, 3), to_dtype)
    y.backward()
    # The gradient comes back in the input's dtype.
    assert v.grad.dtype == dtype
    numpy.testing.assert_array_equal(v.grad, numpy.ones((2, 3)))
    if dtype != to_dtype:
        gy = _uniform((2, 3), to_dtype)
        ggx = _uniform((2, 3), dtype)

        def func(v):
            return primitive_ops.cast(v, to_dtype)

        # No float64 re-evaluation here: the cast itself is under test. The
        # function is linear, so a large step costs no accuracy and keeps
        # float16 rounding out of the finite differences.
        tol = {"atol": 1e-2, "rtol": 1e-2, "eps": 0.5}
        gradient_check.check_backward(func, x, gy, **tol)
        gradient_check.check_double_backward(func, x, gy, ggx, **tol)


def test_cast_accepts_dtype_names():
    x = numpy.ones(3, numpy.float32)
    assert primitive_ops.cast(x, "float16").dtype == numpy.float16
    assert primitive_ops.cast(x, numpy.dtype("float64")).dtype == numpy.float64


def test_cast_to_same_dtype():
    # As in Chainer: a new graph node while backprop is on, the input itself
    # when it is off.
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = primitive_ops.cast(x, numpy.float32)
    assert y is not x
    assert y.creator is not None
    assert y.array is x.array
    with chainer.no_backprop_mode():
        assert primitive_ops.cast(x, numpy.float32) is x


def test_cast_accepts_integer_input():
    y = primitive_ops.cast(numpy.arange(3, dtype=numpy.int32), numpy.float32)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, [0.0, 1.0, 2.0])


def test_cast_needs_one_input():
    with pytest.raises(type_check.InvalidType):
        primitive_ops.array.Cast(numpy.float32).apply((numpy.ones(3), numpy.ones(3)))


def test_get_item_list_with_slices_is_a_tuple():
    x = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    y = primitive_ops.get_item(x, [0, slice(1, 3)])
    numpy.testing.assert_array_equal(y.array, x[0, 1:3])


def test_cast_bad_dtype():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    with pytest.raises(TypeError, match="not understood"):
        primitive_ops.cast(x, "float99")


# ---------------------------------------------------------------------------
# sum
# ---------------------------------------------------------------------------

SUM_AXES = [None, 0, 1, -1, (0, 2), (2, 0), (-3, -1), (0, 1, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", SUM_AXES)
def test_sum(axis, keepdims, dtype):
    x = _uniform((2, 3, 4), dtype)
    y = primitive_ops.sum(x, axis=axis, keepdims=keepdims)
    expected = numpy.asarray(x.sum(axis=axis, keepdims=keepdims))
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(
        y.array, expected, rtol=1e-2 if dtype == numpy.float16 else 1e-6
    )
    _check_grads(lambda v: primitive_ops.sum(v, axis=axis, keepdims=keepdims), x, dtype)


def test_sum_of_scalar_shape():
    x = numpy.asarray(2.5)
    y = primitive_ops.sum(x)
    assert y.shape == ()
    assert float(y.array) == 2.5
    _check_grads(primitive_ops.sum, x, numpy.float64)


def test_sum_gradient_broadcasts_back():
    x = chainer.Variable(numpy.zeros((2, 3)))
    y = primitive_ops.sum(x, axis=1)
    y.grad = numpy.array([1.0, 2.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[1, 1, 1], [2, 2, 2]])


@pytest.mark.parametrize(
    ("axis", "pattern"),
    [
        (3, "axis < x.ndim"),
        (-4, "axis < x.ndim"),
        ((0, 0), "duplicate"),
        ((1, -2), "duplicate"),
    ],
)
def test_sum_bad_axis(axis, pattern):
    # Out-of-range axes are type errors (InvalidType), as in Chainer.
    x = chainer.Variable(numpy.ones((2, 3, 4), numpy.float32))
    with pytest.raises((ValueError, type_check.InvalidType), match=pattern):
        primitive_ops.sum(x, axis=axis)


def test_sum_rejects_integer_input():
    x = chainer.Variable(numpy.ones(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == 'f'"):
        primitive_ops.sum(x)


# ---------------------------------------------------------------------------
# average and Variable.mean
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 1)])
def test_average_unweighted(axis, keepdims, dtype):
    x = _uniform((2, 3, 4), dtype)
    expected = numpy.asarray(x.astype(numpy.float64).mean(axis=axis, keepdims=keepdims))
    for y in (
        primitive_ops.average(x, axis=axis, keepdims=keepdims),
        chainer.Variable(x).mean(axis=axis, keepdims=keepdims),
    ):
        assert y.shape == expected.shape
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **_forward_tol(dtype))
    _check_grads(lambda v: v.mean(axis=axis, keepdims=keepdims), x, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_average_weighted_along_axis(axis, keepdims, dtype):
    x = _uniform((2, 3), dtype)
    w = _uniform((x.shape[axis],), dtype, 0.5, 2.0)
    expected = numpy.average(x.astype(numpy.float64), axis=axis, weights=w)
    if keepdims:
        expected = numpy.expand_dims(expected, axis)
    y = primitive_ops.average(x, axis=axis, weights=w, keepdims=keepdims)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **_forward_tol(dtype))
    z = chainer.Variable(x).mean(axis=axis, weights=w, keepdims=keepdims)
    numpy.testing.assert_allclose(z.array, expected, **_forward_tol(dtype))

    # The weights are differentiable too.
    def func(v, weights):
        return v.mean(axis=axis, weights=weights, keepdims=keepdims)

    _check_grads(func, (x, w), dtype)


def test_average_weighted_over_all_axes():
    x = _uniform((2, 3))
    w = _uniform((2, 3), numpy.float64, 0.5, 2.0)
    y = primitive_ops.average(x, weights=w)
    assert y.shape == ()
    numpy.testing.assert_allclose(y.array, numpy.average(x, weights=w), rtol=1e-12)
    _check_grads(
        lambda v, weights: primitive_ops.average(v, weights=weights),
        (x, w),
        numpy.float64,
    )


def test_mean_is_differentiable_through_backward():
    x = chainer.Variable(numpy.arange(6.0).reshape(2, 3))
    y = x.mean()
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.full((2, 3), 1.0 / 6))


def test_average_weights_length_mismatch():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(
        ValueError, match=r"length of weights 4 differs from x\.shape\[1\]=3"
    ):
        x.mean(axis=1, weights=numpy.ones(4, numpy.float32))


def test_average_bad_axis():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match="axis < x.ndim"):
        primitive_ops.average(x, axis=2)
    with pytest.raises(ValueError, match="tuple axis is not supported"):
        primitive_ops.average(x, axis=(0, 1), weights=numpy.ones((2, 3), numpy.float32))


@pytest.mark.parametrize("keepdims", [True, False])
def test_sum_over_length_one_axis_gradient_shape(keepdims):
    x = chainer.Variable(numpy.ones((2, 1, 3), numpy.float32))
    y = primitive_ops.sum(x, axis=1, keepdims=keepdims)
    y.grad = numpy.full(y.shape, 2.0, numpy.float32)
    y.backward()
    assert x.grad.shape == (2, 1, 3)
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 1, 3), 2.0))


def test_get_item_too_many_indices_is_invalid_type():
    x = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        primitive_ops.get_item(x, (0, 0, 0))
    # None adds an axis without consuming one.
    assert primitive_ops.get_item(x, (None, 0, 0, None)).shape == (1, 1)


def test_get_item_two_ellipses_is_value_error():
    x = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(ValueError, match="Ellipsis"):
        primitive_ops.get_item(x, (Ellipsis, Ellipsis))


def test_get_item_out_of_bounds_is_index_error():
    x = numpy.zeros((3, 4), numpy.float32)
    with pytest.raises(IndexError, match="out of bounds"):
        primitive_ops.get_item(x, 5)
