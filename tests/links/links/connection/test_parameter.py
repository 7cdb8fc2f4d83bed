import numpy

import chainer
from chainer import testing
from chainer.links.connection import parameter


def test_returns_its_parameter():
    array = numpy.random.uniform(-1, 1, (2, 3)).astype(numpy.float32)
    link = parameter.Parameter(array)
    y = link()
    assert y is link.W
    assert isinstance(y, chainer.Parameter)
    assert link.W.array is array
    assert [name for name, _ in link.namedparams()] == ["/W"]


def test_dtype_kept():
    link = parameter.Parameter(numpy.zeros(3, numpy.float16))
    assert link.W.dtype == numpy.float16


def test_gradient_flows():
    link = parameter.Parameter(numpy.array([1.0, 2.0], numpy.float32))
    loss = chainer.functions.sum(link() * link())
    loss.backward()
    numpy.testing.assert_allclose(link.W.grad, [2.0, 4.0])


def test_serialization_round_trip():
    src = parameter.Parameter(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    dst = parameter.Parameter(numpy.zeros((2, 3), numpy.float32))
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.W.array, src.W.array)
