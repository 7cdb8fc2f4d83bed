import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import cholesky
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"n": [1, 4], "dtype": _DTYPES}))
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestCholesky(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-4, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        b = numpy.random.uniform(-1, 1, (self.n, self.n))
        a = b @ b.T + numpy.eye(self.n) * self.n
        return (a.astype(self.dtype),)

    def forward(self, inputs, device):
        (a,) = inputs
        # The numerical gradient perturbs entries one at a time; symmetrising
        # first makes it see the symmetric input cholesky is defined on.
        return (cholesky.cholesky((a + a.T) * 0.5),)

    def forward_expected(self, inputs):
        (a,) = inputs
        a = a.astype(numpy.float64)
        return (numpy.linalg.cholesky((a + a.T) / 2).astype(self.dtype),)


def test_factor_reconstructs_input():
    b = numpy.random.uniform(-1, 1, (3, 3))
    a = (b @ b.T + numpy.eye(3)).astype("f")
    y = cholesky.cholesky(a).array
    numpy.testing.assert_allclose(y @ y.T, a, rtol=1e-5, atol=1e-5)
    numpy.testing.assert_array_equal(numpy.triu(y, 1), 0)


def test_not_positive_definite():
    with pytest.raises(numpy.linalg.LinAlgError):
        cholesky.cholesky(-numpy.eye(2, dtype="f"))


def test_exported_as_f():
    assert chainer.functions.cholesky is cholesky.cholesky


@pytest.mark.parametrize(
    ("shape", "dtype"), [((2, 3), "f"), ((2, 2, 2), "f"), ((2, 2), "i")]
)
def test_bad_input(shape, dtype):
    with pytest.raises(type_check.InvalidType):
        cholesky.cholesky(numpy.ones(shape, dtype))
