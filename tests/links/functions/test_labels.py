"""The shared range check of labels (chainer.functions._labels)."""

import numpy
import pytest

from chainer.functions import _labels


def test_error_is_a_value_error_and_an_index_error():
    assert issubclass(_labels.LabelRangeError, ValueError)
    assert issubclass(_labels.LabelRangeError, IndexError)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int16, numpy.int32, numpy.int64])
def test_in_range_labels_pass(dtype):
    t = numpy.array([[0, 4], [2, 3]], dtype)
    assert _labels.check_labels("f", t, 5) is t
    view = t[:, ::-1]  # a strided view
    assert _labels.check_labels("f", view, 5, -1) is view


def test_ignored_labels_outside_the_range_pass_and_are_replaced():
    t = numpy.array([0, -1, 4], numpy.int32)
    labels = _labels.check_labels("f", t, 5, -1)
    assert labels.dtype == t.dtype
    numpy.testing.assert_array_equal(labels, [0, 0, 4])
    numpy.testing.assert_array_equal(t, [0, -1, 4])
    with pytest.raises(_labels.LabelRangeError, match=r"f: t\[1\] = -1 is out"):
        _labels.check_labels("f", t, 5)


def test_message_names_function_position_value_and_range():
    t = numpy.array([[0, 1], [7, 9]], numpy.int64)
    with pytest.raises(_labels.LabelRangeError) as info:
        _labels.check_labels("g", t, 5, -1, "labels", "x.shape[1]")
    assert str(info.value) == (
        "g: labels[1, 0] = 7 is out of range; each label must satisfy "
        "0 <= labels < x.shape[1] = 5 or labels == -1 (ignore_label)"
    )


def test_empty_and_zero_dimensional_labels():
    empty = numpy.zeros(0, numpy.int32)
    assert _labels.check_labels("f", empty, 0) is empty
    with pytest.raises(_labels.LabelRangeError, match=r"f: t = 3 is out"):
        _labels.check_labels("f", numpy.array(3, numpy.int32), 3)


def test_unsigned_labels_are_checked():
    t = numpy.array([1, 200], numpy.uint8)
    with pytest.raises(_labels.LabelRangeError, match="= 200 "):
        _labels.check_labels("f", t, 10)


def test_all_ignored_with_no_valid_label():
    t = numpy.full(3, -1, numpy.int64)
    numpy.testing.assert_array_equal(_labels.check_labels("f", t, 0, -1), [0, 0, 0])


def test_labels_of_another_dtype_take_the_general_check():
    t = numpy.array([0.0, 2.0, -1.0])
    numpy.testing.assert_array_equal(_labels.check_labels("f", t, 3, -1), [0, 2, 0])
    with pytest.raises(_labels.LabelRangeError, match=r"t\[1\] = 2.0 "):
        _labels.check_labels("f", t, 2, -1)


class _OtherArray(numpy.ndarray):
    """Stands in for a non-NumPy array type in the branch CuPy's arrays take."""


def test_branch_of_other_array_types():
    t = numpy.array([[0, -1], [2, 1]], numpy.int32).view(_OtherArray)
    in_range = t[:, 1:] + 1
    assert _labels.check_labels("f", in_range, 3) is in_range
    labels = _labels.check_labels("f", t, 3, -1)
    numpy.testing.assert_array_equal(labels, [[0, 0], [2, 1]])
    with pytest.raises(_labels.LabelRangeError, match=r"f: t\[1, 0\] = 2 "):
        _labels.check_labels("f", t, 2, -1)
