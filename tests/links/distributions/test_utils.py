import numpy
import pytest

import chainer
from chainer import distributions
from chainer import gradient_check
from chainer.distributions import utils


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_modified_xlogx_forward(dtype):
    x = numpy.array([0.0, 0.5, 1.0, 2.0], dtype)
    y = utils._modified_xlogx(x)
    assert y.dtype == dtype
    expected = [0.0, 0.5 * numpy.log(0.5), 0.0, 2.0 * numpy.log(2.0)]
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_modified_xlogx_backward_and_double_backward():
    rng = numpy.random.RandomState(0)
    x = rng.uniform(0.1, 1, (2, 3))
    gy = rng.normal(size=(2, 3))
    ggx = rng.normal(size=(2, 3))
    gradient_check.check_backward(utils._modified_xlogx, x, gy)
    gradient_check.check_double_backward(utils._modified_xlogx, x, gy, ggx)


def test_modified_xlogx_warns_at_zero_and_takes_gradient_zero():
    x = chainer.Variable(numpy.array([0.0, numpy.e]))
    y = chainer.functions.sum(utils._modified_xlogx(x))
    with pytest.warns(RuntimeWarning, match="x = 0"):
        y.backward()
    numpy.testing.assert_allclose(x.grad, [0.0, 2.0])


def test_reachable_from_the_package():
    assert distributions.utils is utils
