"""chainer.primitive_ops.reduction.sum builds its node without calling Sum.__init__."""

import numpy
import pytest

import chainer
from chainer.primitive_ops import reduction


@pytest.mark.parametrize(
    ("axis", "keepdims", "expected"),
    [(None, False, None), (1, True, (1,)), (-1, False, (1,)), ((0, -1), True, (0, 1))],
)
def test_sum_node_matches_its_constructor(axis, keepdims, expected):
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    y = reduction.sum(x, axis=axis, keepdims=keepdims)
    node = y.creator_node
    reference = reduction.Sum(expected, keepdims)
    assert type(node) is reduction.Sum
    assert vars(node).keys() >= vars(reference).keys()
    for name, value in vars(reference).items():
        assert getattr(node, name) == value, name


@pytest.mark.parametrize("axis", [2, -3, (0, 0), (5,)])
def test_sum_bad_axis_is_named(axis):
    x = numpy.ones((2, 3), numpy.float32)
    errors = (chainer.utils.type_check.InvalidType, ValueError)
    with pytest.raises(errors, match="axis"):
        reduction.sum(x, axis=axis)


@pytest.mark.parametrize("axis", [[0], (1, "x"), 1.0, (0.0,)])
def test_sum_axis_of_wrong_type(axis):
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(TypeError, match="axis"):
        reduction.sum(x, axis=axis)


def test_sum_axis_numpy_int():
    x = numpy.ones((2, 3), numpy.float32)
    y = reduction.sum(x, axis=(numpy.int64(1),))
    numpy.testing.assert_array_equal(y.array, [3.0, 3.0])
