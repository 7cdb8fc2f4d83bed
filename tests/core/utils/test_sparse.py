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


def test_bad_inputs():
    with pytest.raises(ValueError, match="ldnz"):
        utils.to_coo(numpy.ones((1, 2, 2), numpy.float32), ldnz=1)
    with pytest.raises(ValueError, match="ndim of x"):
        utils.to_coo(numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match="same shape"):
        utils.CooMatrix(numpy.ones(2), numpy.zeros(3, int), numpy.zeros(2, int), (2, 2))
    with pytest.raises(ValueError, match="order"):
        utils.CooMatrix(
            numpy.ones(2), numpy.zeros(2, int), numpy.zeros(2, int), (2, 2), "X"
        )
