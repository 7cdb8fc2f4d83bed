import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import sparse_matmul
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


class _Coo:
    """The attributes of Chainer's ``chainer.utils.CooMatrix``."""

    def __init__(self, data, row, col, shape):
        self.data = data
        self.row = row
        self.col = col
        self.shape = shape


def _pattern(batch, shape):
    # Row and column indices of a random sparsity pattern; a batch is padded
    # with -1 to one length plus one, as Chainer's to_coo(..., ldnz) does.
    masks = numpy.random.uniform(size=(batch or 1, *shape)) < 0.5
    masks[:, 0, 0] = True
    if batch is None:
        return numpy.nonzero(masks[0])
    ldnz = int(masks.sum(axis=(1, 2)).max()) + 1
    row = numpy.full((batch, ldnz), -1, numpy.int32)
    col = numpy.full((batch, ldnz), -1, numpy.int32)
    for i, mask in enumerate(masks):
        r, c = numpy.nonzero(mask)
        row[i, : len(r)] = r
        col[i, : len(c)] = c
    return row, col


def _to_dense(data, row, col, shape):
    if data.ndim == 1:
        dense = numpy.zeros(shape)
        numpy.add.at(dense, (row, col), data)
        return dense
    return numpy.stack(
        [
            _to_dense(d[r >= 0], r[r >= 0], c[r >= 0], shape)
            for d, r, c in zip(data, row, col, strict=True)
        ]
    )


def _op(x, trans):
    return x.swapaxes(-1, -2) if trans else x


@testing.parameterize(
    *testing.product(
        {
            "batch": [None, 3],
            "sparse_first": [True, False],
            "transa": [False, True],
            "transb": [False, True],
            "dtype": _DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSparseMatMul(testing.FunctionTestCase):
    def setUp(self):
        # op(a) is (m, k) and op(b) is (k, n).
        m, k, n = 4, 3, 2
        sp_op_shape, dn_op_shape = (
            ((m, k), (k, n)) if self.sparse_first else ((k, n), (m, k))
        )
        sp_trans, dn_trans = (
            (self.transa, self.transb)
            if self.sparse_first
            else (self.transb, self.transa)
        )
        self.sp_shape = sp_op_shape[::-1] if sp_trans else sp_op_shape
        dn_shape = dn_op_shape[::-1] if dn_trans else dn_op_shape
        self.dn_shape = dn_shape if self.batch is None else (self.batch, *dn_shape)
        self.row, self.col = _pattern(self.batch, self.sp_shape)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        data = numpy.random.uniform(-1, 1, self.row.shape).astype(self.dtype)
        dense = numpy.random.uniform(-1, 1, self.dn_shape).astype(self.dtype)
        return data, dense

    def forward(self, inputs, device):
        data, dense = inputs
        xp = device.xp
        coo = _Coo(data, xp.asarray(self.row), xp.asarray(self.col), self.sp_shape)
        if self.sparse_first:
            y = sparse_matmul.sparse_matmul(coo, dense, self.transa, self.transb)
        else:
            y = sparse_matmul.sparse_matmul(dense, coo, self.transa, self.transb)
        return (y,)

    def forward_expected(self, inputs):
        data, dense = inputs
        sp = _to_dense(data.astype(numpy.float64), self.row, self.col, self.sp_shape)
        if self.sparse_first:
            y = _op(sp, self.transa) @ _op(dense, self.transb)
        else:
            y = _op(dense, self.transa) @ _op(sp, self.transb)
        return (y.astype(self.dtype),)


def test_duplicate_entries_add_up():
    coo = _Coo(
        numpy.array([1.0, 2.0], "f"), numpy.array([0, 0]), numpy.array([1, 1]), (2, 2)
    )
    y = sparse_matmul.sparse_matmul(coo, numpy.eye(2, dtype="f"))
    numpy.testing.assert_array_equal(y.array, [[0, 3], [0, 0]])


def test_exported_as_f():
    assert chainer.functions.sparse_matmul is sparse_matmul.sparse_matmul


def test_needs_one_sparse_operand():
    a = numpy.ones((2, 2), "f")
    coo = _Coo(numpy.ones(1, "f"), numpy.zeros(1, "i"), numpy.zeros(1, "i"), (2, 2))
    with pytest.raises(ValueError, match="one sparse"):
        sparse_matmul.sparse_matmul(a, a)
    with pytest.raises(ValueError, match="one sparse"):
        sparse_matmul.sparse_matmul(coo, coo)


@pytest.mark.parametrize(
    ("data", "dense"),
    [
        (numpy.ones(1, "f"), numpy.ones((3, 2), "f")),
        (numpy.ones(1, "f"), numpy.ones((2, 2), "d")),
        (numpy.ones(1, "f"), numpy.ones((1, 2, 2), "f")),
        (numpy.ones((1, 1), "f"), numpy.ones((2, 2, 2), "f")),
        (numpy.ones(1, "i"), numpy.ones((2, 2), "i")),
    ],
)
def test_bad_input(data, dense):
    index = numpy.zeros(data.shape, "i")
    coo = _Coo(data, index, index, (2, 2))
    with pytest.raises(type_check.InvalidType):
        sparse_matmul.sparse_matmul(coo, dense)
