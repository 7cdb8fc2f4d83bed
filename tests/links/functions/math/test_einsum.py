import numpy
import pytest

import chainer
from chainer import gradient_check
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
        einsum.einsum("ij", a.astype("i"))


def test_mixed_float_dtypes_promote():
    a = chainer.Variable(numpy.ones((2, 3), numpy.float16))
    b = chainer.Variable(numpy.ones((3, 4), numpy.float64))
    y = einsum.einsum("ij,jk->ik", a, b)
    assert y.dtype == numpy.float64
    numpy.testing.assert_array_equal(y.array, numpy.full((2, 4), 3.0))
    y.grad = numpy.ones((2, 4))
    y.backward()
    assert a.grad.dtype == numpy.float16
    assert b.grad.dtype == numpy.float64
    numpy.testing.assert_array_equal(a.grad, numpy.full((2, 3), 4.0))


@pytest.mark.parametrize(
    ("subscripts", "args"),
    [
        ("ij,jk->ik", ([0, 1], [1, 2], [0, 2])),
        ("ij,jk", ([0, 1], [1, 2])),
        ("ii->i", ([3, 3], [3])),
        ("...ij,...jk->...ik", ([Ellipsis, 0, 1], [Ellipsis, 1, 2], [Ellipsis, 0, 2])),
        ("Ba,aZ", ([1, 26], [26, 25])),
    ],
)
def test_sublist_form(subscripts, args):
    shapes = {"ij,jk->ik": ((2, 3), (3, 4)), "ij,jk": ((2, 3), (3, 4))}
    shapes["ii->i"] = ((3, 3),)
    shapes["...ij,...jk->...ik"] = ((5, 2, 3), (5, 3, 4))
    shapes["Ba,aZ"] = ((2, 3), (3, 4))
    xs = [numpy.random.uniform(-1, 1, s) for s in shapes[subscripts]]
    operands = []
    for x, sub in zip(xs, args, strict=False):
        operands += [x, sub]
    if len(args) > len(xs):
        operands.append(args[-1])
    y = einsum.einsum(*operands)
    numpy.testing.assert_allclose(y.array, numpy.einsum(subscripts, *xs))


def test_sublist_errors():
    a = numpy.ones((2, 2), "f")
    with pytest.raises(TypeError):
        einsum.einsum(a, ["i", "j"])
    with pytest.raises(ValueError):
        einsum.einsum(a, [0, 52])
    with pytest.raises(TypeError):
        einsum.einsum([0, 1])


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [
        ("...i,...i", ((2,), (1, 2))),
        ("...i,...i", ((2, 2), (1, 2))),
        ("...i,j...", ((2, 3), (2, 3))),
    ],
)
def test_ellipsis_is_not_broadcast(subscripts, shapes):
    xs = [numpy.zeros(s, "f") for s in shapes]
    with pytest.raises(type_check.InvalidType):
        einsum.einsum(subscripts, *xs)


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [
        ("...->", ((2,),)),
        ("j...i->ij", ((2, 1, 3),)),
        ("i,...i->", ((2,), (3, 2))),
        ("i,i->...", ((2,), (2,))),
    ],
)
def test_ellipsis_output_errors(subscripts, shapes):
    xs = [numpy.zeros(s, "f") for s in shapes]
    with pytest.raises(ValueError):
        einsum.einsum(subscripts, *xs)


def _diag_reference(subs, out_sub, xs, out_shape):
    # Element by element: zero off the diagonals of repeated letters, else
    # the contraction over the letters the inputs have.
    present = "".join(c for c in dict.fromkeys(out_sub) if c in subs)
    full = numpy.einsum(f"{subs}->{present}", *xs)
    y = numpy.zeros(out_shape)
    for index in numpy.ndindex(*out_shape):
        letters = {}
        if all(
            letters.setdefault(c, k) == k for c, k in zip(out_sub, index, strict=True)
        ):
            y[index] = full[tuple(letters[c] for c in present)]
    return y


@pytest.mark.parametrize(
    ("in_subs", "out_sub", "in_shapes", "out_shape"),
    [
        ("i", "ij", ((3,),), (3, 4)),
        ("", "i", ((),), (3,)),
        (",i", "ij", ((), (2,)), (2, 3)),
        (",ij", "i", ((), (3, 4)), (3,)),
        ("i", "ii", ((3,),), (3, 3)),
        (["ij"], "iik", ((2, 3),), (2, 2, 4)),
    ],
)
def test_diag_einsum(in_subs, out_sub, in_shapes, out_shape):
    xs = [numpy.random.uniform(-1, 1, s) for s in in_shapes]

    def op(*xs):
        node = einsum.DiagEinSum(in_subs=in_subs, out_sub=out_sub, out_shape=out_shape)
        return node.apply(xs)[0]

    subs = in_subs if isinstance(in_subs, str) else ",".join(in_subs)
    numpy.testing.assert_allclose(
        op(*xs).array, _diag_reference(subs, out_sub, xs, out_shape)
    )
    g = numpy.random.uniform(-1, 1, out_shape)
    gg = [numpy.random.uniform(-1, 1, s) for s in in_shapes]
    gradient_check.check_backward(op, xs, g)
    gradient_check.check_double_backward(op, xs, g, gg)


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


def test_einsum_node_takes_a_comma_separated_string():
    a = numpy.random.uniform(-1, 1, (2, 3))
    b = numpy.random.uniform(-1, 1, (3, 4))
    (y,) = einsum.EinSum("ij,jk", "ik").apply((a, b))
    numpy.testing.assert_allclose(y.array, a @ b)
    assert einsum.EinSum(["ij", "jk"], "ik").in_subs == ("ij", "jk")
