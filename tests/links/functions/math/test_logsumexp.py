import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import logsumexp
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, axis):
    x = x.astype(numpy.float64)
    m = x.max(axis=axis, keepdims=True)
    y = numpy.log(numpy.exp(x - m).sum(axis=axis, keepdims=True)) + m
    if axis is None:
        return y.reshape(())
    return y.squeeze(axis)


@testing.parameterize(
    *(
        testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [None, 0, -1, (0, 2), (2, 1, 0)],
                "dtype": _DTYPES,
            }
        )
        + testing.product({"shape": [()], "axis": [None], "dtype": _DTYPES})
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestLogSumExp(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (logsumexp.logsumexp(x, axis=self.axis),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.asarray(_reference(x, self.axis), self.dtype),)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_large_values_do_not_overflow(dtype):
    x = numpy.array([[1000.0, 1000.0], [-1000.0, -1000.0]], dtype)
    if dtype == numpy.float16:
        x = x / 100
    y = logsumexp.logsumexp(x, axis=1)
    expected = _reference(x, 1)
    assert numpy.isfinite(y.array).all()
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-3)


def test_exported_as_f():
    assert chainer.functions.logsumexp is logsumexp.logsumexp


def test_int_input():
    with pytest.raises(type_check.InvalidType):
        logsumexp.logsumexp(numpy.ones((2, 3), numpy.int32))


def test_bad_axis():
    x = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        logsumexp.logsumexp(x, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        logsumexp.logsumexp(x, axis=(0, -2))
    with pytest.raises(TypeError):
        logsumexp.logsumexp(x, axis="0")
