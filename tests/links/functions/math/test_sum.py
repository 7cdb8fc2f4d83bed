import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.math import sum as sum_mod
from chainer.utils import type_check

_DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _tolerances(case):
    if case.dtype == numpy.float16:
        case.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        case.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        case.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}


@testing.parameterize(
    *(
        testing.product(
            {
                "shape": [(3, 4, 2)],
                "axis": [None, 0, -1, (0, 2), (2, 1, 0)],
                "keepdims": [False, True],
                "dtype": _DTYPES,
            }
        )
        + testing.product(
            {"shape": [()], "axis": [None], "keepdims": [False], "dtype": _DTYPES}
        )
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSum(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (sum_mod.sum(x, axis=self.axis, keepdims=self.keepdims),)

    def forward_expected(self, inputs):
        (x,) = inputs
        y = x.astype(numpy.float64).sum(axis=self.axis, keepdims=self.keepdims)
        return (numpy.asarray(y, self.dtype),)


@testing.parameterize(
    *testing.product(
        {
            "shapes": [
                ((3, 4), (3, 1)),
                ((3, 4), (4,)),
                ((2, 3, 4), (1, 1)),
                ((3, 4), (3, 4)),
                ((3, 4), ()),
            ],
            "dtype": _DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSumTo(testing.FunctionTestCase):
    def setUp(self):
        _tolerances(self)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shapes[0]).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (sum_mod.sum_to(x, self.shapes[1]),)

    def forward_expected(self, inputs):
        (x,) = inputs
        shape = self.shapes[1]
        lead = x.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1
        )
        y = x.astype(numpy.float64).sum(axis=axes, keepdims=True)
        return (numpy.asarray(y.reshape(shape), self.dtype),)


def test_classes_at_chainer_paths():
    assert issubclass(sum_mod.Sum, chainer.FunctionNode)
    assert issubclass(sum_mod.SumTo, chainer.FunctionNode)
    assert chainer.functions.sum is sum_mod.sum
    assert chainer.functions.sum_to is sum_mod.sum_to


def test_sum_int_input():
    with pytest.raises(type_check.InvalidType):
        sum_mod.sum(numpy.zeros((2, 3), numpy.int32))


def test_sum_to_incompatible_shape():
    with pytest.raises(type_check.InvalidType):
        sum_mod.sum_to(numpy.zeros((2, 3), "f"), (2,))
