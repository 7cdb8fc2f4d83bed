import warnings

import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import matmul
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _op(x, trans):
    return x.swapaxes(-1, -2) if trans and x.ndim >= 2 else x


def _tolerances(case):
    if case.dtype == numpy.float16:
        case.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        case.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        case.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
    else:
        case.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        case.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}


@testing.parameterize(
    *testing.product(
        {
            # Shapes after transposition: op(a) @ op(b).
            "shapes": [
                ((2, 3), (3, 4)),
                ((3,), (3,)),
                ((2, 3), (3,)),
                ((3,), (3, 4)),
                ((5, 2, 3), (5, 3, 4)),
                ((4, 1, 2, 3), (5, 3, 2)),
                ((2, 3), (6, 3, 4)),
            ],
            "transa": [False, True],
            "transb": [False, True],
            "dtype": _DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestMatMul(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        a_shape, b_shape = self.shapes
        a = numpy.random.uniform(-1, 1, a_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, b_shape).astype(self.dtype)
        # Stored transposed when the flag is set, so that op() restores them.
        return _op(a, self.transa).copy(), _op(b, self.transb).copy()

    def forward(self, inputs, device):
        a, b = inputs
        return (matmul.matmul(a, b, transa=self.transa, transb=self.transb),)

    def forward_expected(self, inputs):
        a, b = inputs
        a = _op(a, self.transa).astype(numpy.float64)
        b = _op(b, self.transb)
        return (numpy.asarray(numpy.matmul(a, b), self.dtype),)


@testing.parameterize(
    *testing.product_dict(
        [
            # (a.shape, b.shape, transa, transb); (B, N) is B column vectors.
            {"case": ((4, 2, 3), (4, 3, 5), False, False)},
            {"case": ((4, 3, 2), (4, 3, 5), True, False)},
            {"case": ((4, 2, 3), (4, 5, 3), False, True)},
            {"case": ((4, 3, 2), (4, 5, 3), True, True)},
            {"case": ((4, 3), (4, 3), True, False)},
            {"case": ((4, 3), (4, 5), False, True)},
            {"case": ((4, 2, 3), (4, 3), False, False)},
            {"case": ((4, 3, 2), (4, 3), True, False)},
        ],
        [{"dtype": d} for d in _DTYPES],
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestBatchMatMul(testing.FunctionTestCase):
    def setUp(self):
        self.a_shape, self.b_shape, self.transa, self.transb = self.case
        _tolerances(self)

    def _mats(self, x):
        return x.reshape(*x.shape, 1) if x.ndim == 2 else x

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, self.a_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.b_shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        a, b = inputs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            y = matmul.batch_matmul(a, b, self.transa, self.transb)
        return (y,)

    def forward_expected(self, inputs):
        a, b = inputs
        a3 = _op(self._mats(a), self.transa).astype(numpy.float64)
        b3 = _op(self._mats(b), self.transb)
        return (numpy.asarray(numpy.matmul(a3, b3), self.dtype),)


def test_batch_matmul_is_deprecated():
    a = numpy.ones((2, 3, 4), "f")
    b = numpy.ones((2, 4), "f")
    with pytest.warns(DeprecationWarning, match="batch_matmul is deprecated"):
        y = matmul.batch_matmul(a, b)
    assert y.shape == (2, 3, 1)


def test_mixed_dtypes_promote():
    a = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    b = chainer.Variable(numpy.ones((3, 2), numpy.float64))
    y = matmul.matmul(a, b)
    assert y.dtype == numpy.float64
    y.grad = numpy.ones((2, 2))
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float64


def test_exported_as_f():
    assert chainer.functions.matmul is matmul.matmul
    assert chainer.functions.batch_matmul is matmul.batch_matmul


def test_matmul_shape_mismatch():
    with pytest.raises(type_check.InvalidType):
        matmul.matmul(numpy.ones((2, 3), "f"), numpy.ones((2, 3), "f"))


def test_matmul_int_input():
    with pytest.raises(type_check.InvalidType):
        matmul.matmul(numpy.ones((2, 3), "i"), numpy.ones((3, 2), "i"))


def test_batch_matmul_bad_inputs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(type_check.InvalidType):
            matmul.batch_matmul(numpy.ones((2, 3, 4, 1), "f"), numpy.ones((2, 4), "f"))
        with pytest.raises(type_check.InvalidType):
            matmul.batch_matmul(numpy.ones((2, 3, 4), "f"), numpy.ones((3, 4, 1), "f"))
        with pytest.raises(type_check.InvalidType):
            matmul.batch_matmul(numpy.ones((2, 3, 4), "f"), numpy.ones((2, 3, 1), "f"))


def test_matmul_node_at_chainer_path():
    # chainer.functions.math.matmul.MatMul is the node F.matmul applies.
    from chainer.functions.math import matmul as matmul_module

    y = matmul_module.matmul(
        chainer.Variable(numpy.ones((2, 3), numpy.float32)),
        numpy.ones((3, 4), numpy.float32),
    )
    assert isinstance(y.creator, matmul_module.MatMul)
