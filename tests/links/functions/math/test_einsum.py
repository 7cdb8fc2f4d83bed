import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import einsum
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product_dict(
        [
            {"subscripts": "ij,jk->ik", "shapes": ((2, 3), (3, 4))},
            {"subscripts": "ij,jk", "shapes": ((2, 3), (3, 4))},
            {"subscripts": "ij->ji", "shapes": ((2, 3),)},
            {"subscripts": "ij->", "shapes": ((2, 3),)},
            {"subscripts": "ij->i", "shapes": ((2, 3),)},
            {"subscripts": "ii->i", "shapes": ((3, 3),)},
            {"subscripts": "ii", "shapes": ((3, 3),)},
            {"subscripts": "iij,j->ij", "shapes": ((2, 2, 3), (3,))},
            {"subscripts": "i,i", "shapes": ((3,), (3,))},
            {"subscripts": "i,j->ij", "shapes": ((2,), (3,))},
            {"subscripts": "ij,k->ik", "shapes": ((2, 3), (4,))},
            {"subscripts": ",ij->ij", "shapes": ((), (2, 3))},
            {"subscripts": "->", "shapes": ((),)},
            {"subscripts": "...ij,...jk->...ik", "shapes": ((5, 2, 3), (5, 3, 4))},
            {"subscripts": "...j,j", "shapes": ((4, 2, 3), (3,))},
            {"subscripts": "i...,i...->...", "shapes": ((2, 3), (2, 3))},
            {"subscripts": "ij,jk,kl->il", "shapes": ((2, 3), (3, 4), (4, 2))},
            {"subscripts": " bij , bjk -> bik ", "shapes": ((2, 2, 3), (2, 3, 2))},
        ],
        [{"dtype": d} for d in _DTYPES],
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestEinSum(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        return tuple(
            numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes
        )

    def forward(self, inputs, device):
        return (einsum.einsum(self.subscripts, *inputs),)

    def forward_expected(self, inputs):
        inputs = [x.astype(numpy.float64) for x in inputs]
        y = numpy.einsum(self.subscripts, *inputs)
        return (numpy.asarray(y, self.dtype),)


def test_exported_as_f():
    assert chainer.functions.einsum is einsum.einsum


def test_size_mismatch():
    a = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        einsum.einsum("ij,jk", a, a)
    with pytest.raises(type_check.InvalidType):
        einsum.einsum("ij,ij", a, numpy.ones((1, 3), "f"))


def test_dtype_errors():
    a = numpy.ones((2, 3), "f")
    with pytest.raises(type_check.InvalidType):
        einsum.einsum("ij,ij", a, a.astype("d"))
    with pytest.raises(type_check.InvalidType):
        einsum.einsum("ij", a.astype("i"))


@pytest.mark.parametrize(
    ("subscripts", "n_operands"),
    [
        ("ij", 2),
        ("ij,jk", 1),
        ("ijk", 1),
        ("i", 1),
        ("ij->k", 1),
        ("ij->ii", 1),
        ("i1", 1),
        ("..i.j", 1),
        ("ij->i->j", 1),
    ],
)
def test_bad_subscripts(subscripts, n_operands):
    a = numpy.ones((2, 2), "f")
    with pytest.raises(ValueError):
        einsum.einsum(subscripts, *([a] * n_operands))


def test_subscripts_must_come_first():
    with pytest.raises(TypeError):
        einsum.einsum(numpy.ones(2, "f"), "i")
