import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import inv
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _well_conditioned(shape, dtype):
    n = shape[-1]
    a = numpy.random.uniform(-0.5, 0.5, shape) + numpy.eye(n) * 2
    return a.astype(dtype)


def _tolerances(case):
    if case.dtype == numpy.float16:
        case.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        case.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        case.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
    else:
        case.check_forward_options = {"atol": 1e-4, "rtol": 1e-4}
        case.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        case.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}


@testing.parameterize(*testing.product({"n": [1, 3], "dtype": _DTYPES}))
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestInv(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return (_well_conditioned((self.n, self.n), self.dtype),)

    def forward(self, inputs, device):
        (a,) = inputs
        return (inv.inv(a),)

    def forward_expected(self, inputs):
        (a,) = inputs
        return (numpy.linalg.inv(a.astype(numpy.float64)).astype(self.dtype),)


@testing.parameterize(
    *testing.product({"shape": [(4, 3, 3), (2, 1, 1)], "dtype": _DTYPES})
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBatchInv(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return (_well_conditioned(self.shape, self.dtype),)

    def forward(self, inputs, device):
        (a,) = inputs
        return (inv.batch_inv(a),)

    def forward_expected(self, inputs):
        (a,) = inputs
        return (numpy.linalg.inv(a.astype(numpy.float64)).astype(self.dtype),)


def test_singular_matrix():
    with pytest.raises(ValueError, match="singular"):
        inv.inv(numpy.zeros((2, 2), "f"))
    with pytest.raises(ValueError, match="singular"):
        inv.batch_inv(numpy.zeros((1, 2, 2), "f"))


def test_exported_as_f():
    assert chainer.functions.inv is inv.inv
    assert chainer.functions.batch_inv is inv.batch_inv


@pytest.mark.parametrize(
    ("func", "shape", "dtype"),
    [
        (inv.inv, (2, 3), "f"),
        (inv.inv, (2, 2, 2), "f"),
        (inv.inv, (2, 2), "i"),
        (inv.batch_inv, (2, 2), "f"),
        (inv.batch_inv, (2, 2, 3), "f"),
    ],
)
def test_bad_input(func, shape, dtype):
    with pytest.raises(type_check.InvalidType):
        func(numpy.ones(shape, dtype))
