import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import det
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _well_conditioned(shape, dtype):
    n = shape[-1]
    a = numpy.random.uniform(-0.5, 0.5, shape) + numpy.eye(n)
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
class TestDet(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return (_well_conditioned((self.n, self.n), self.dtype),)

    def forward(self, inputs, device):
        (a,) = inputs
        return (det.det(a),)

    def forward_expected(self, inputs):
        (a,) = inputs
        y = numpy.linalg.det(a.astype(numpy.float64))
        return (numpy.asarray(y, self.dtype),)


@testing.parameterize(
    *testing.product({"shape": [(4, 3, 3), (2, 1, 1)], "dtype": _DTYPES})
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBatchDet(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return (_well_conditioned(self.shape, self.dtype),)

    def forward(self, inputs, device):
        (a,) = inputs
        return (det.batch_det(a),)

    def forward_expected(self, inputs):
        (a,) = inputs
        return (numpy.linalg.det(a.astype(numpy.float64)).astype(self.dtype),)


def test_singular_matrix_has_zero_determinant():
    assert float(det.det(numpy.zeros((2, 2), "f")).array) == 0


def test_exported_as_f():
    assert chainer.functions.det is det.det
    assert chainer.functions.batch_det is det.batch_det


@pytest.mark.parametrize(
    ("func", "shape", "dtype"),
    [
        (det.det, (2, 3), "f"),
        (det.det, (2, 2, 2), "f"),
        (det.det, (2, 2), "i"),
        (det.batch_det, (2, 2), "f"),
        (det.batch_det, (2, 2, 3), "f"),
    ],
)
def test_bad_input(func, shape, dtype):
    with pytest.raises(type_check.InvalidType):
        func(numpy.ones(shape, dtype))
