import numpy
import pytest

from chainer import utils


def _dense():
    return numpy.array([[0, 1.0, 0], [2.0, 0, 3.0]], numpy.float32)


def test_to_coo_round_trip():
    coo = utils.to_coo(_dense(), requires_grad=True)
    assert coo.order == "C"
    assert coo.shape == (2, 3)
    assert coo.data.requires_grad
    numpy.testing.assert_array_equal(coo.data.array, [1, 2, 3])
    numpy.testing.assert_array_equal(coo.to_dense(), _dense())


def test_to_coo_batched_padding():
    x = numpy.stack([_dense(), numpy.zeros((2, 3), numpy.float32)])
    coo = utils.to_coo(x, ldnz=5)
    assert coo.data.shape == (2, 5)
    assert (coo.row[1] == -1).all()
    numpy.testing.assert_array_equal(coo.to_dense(), x)


def test_order_detection():
    row = numpy.array([1, 0], numpy.int32)
    col = numpy.array([0, 1], numpy.int32)
    data = numpy.ones(2, numpy.float32)
    assert utils.CooMatrix(data, row, col, (2, 2)).order == "F"


def test_ldnz_smaller_than_the_non_zeros_is_raised_to_them():
    # As in Chainer: the entry arrays get max(nnz, ldnz) entries.
    assert utils.to_coo(numpy.ones((1, 2, 2), numpy.float32), ldnz=1).data.shape == (
        1,
        4,
    )
    assert utils.to_coo(numpy.ones((2, 2), numpy.float32), ldnz=1).data.shape == (4,)


def test_ldnz_pads_a_single_matrix():
    x = numpy.array([[0, 2], [3, 0]], numpy.float32)
    coo = utils.to_coo(x, ldnz=5)
    assert coo.data.shape == coo.row.shape == coo.col.shape == (5,)
    numpy.testing.assert_array_equal(coo.row, [0, 1, -1, -1, -1])
    numpy.testing.assert_array_equal(coo.to_dense(), x)


def test_get_order():
    row = numpy.array([0, 0, 1, 1, 2], numpy.int32)
    col = numpy.array([0, 1, 1, 2, 2], numpy.int32)
    assert utils.get_order(row, col) == "C"
    assert utils.get_order(col, row) == "C"
    assert utils.get_order(numpy.array([0, 1, 0]), numpy.array([0, 0, 1])) == "F"
    assert utils.get_order(numpy.array([0, 2, 1]), numpy.array([1, 0, 2])) == "other"
    # Padding (-1 in both) is ignored; -1 in only one of them is an error.
    assert utils.get_order(numpy.array([0, 1, -1]), numpy.array([0, 0, -1])) == "C"
    with pytest.raises(ValueError, match="invalid index combination"):
        utils.get_order(numpy.array([0, -1]), numpy.array([0, 1]))
    with pytest.raises(ValueError, match="shape"):
        utils.get_order(numpy.array([0, 1]), numpy.array([0, 1, 2]))


def test_bad_inputs():
    with pytest.raises(ValueError, match="ndim of x"):
        utils.to_coo(numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match="same shape"):
        utils.CooMatrix(numpy.ones(2), numpy.zeros(3, int), numpy.zeros(2, int), (2, 2))
    with pytest.raises(ValueError, match="order"):
        utils.CooMatrix(
            numpy.ones(2), numpy.zeros(2, int), numpy.zeros(2, int), (2, 2), "X"
        )
