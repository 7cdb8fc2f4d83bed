import numpy
import pytest

import chainer
from chainer import initializer


def test_initializer_dtype():
    assert initializer.Initializer().dtype is None
    assert initializer.Initializer(numpy.float16).dtype is numpy.float16
    assert chainer.Initializer is initializer.Initializer


def test_subclass_fills_array():
    class Fives(initializer.Initializer):
        def __call__(self, array):
            array[...] = 5

    a = numpy.zeros(3, dtype=numpy.float32)
    Fives()(a)
    numpy.testing.assert_array_equal(a, [5, 5, 5])


def test_base_call_raises():
    with pytest.raises(TypeError, match="does not override __call__"):
        initializer.Initializer()(numpy.zeros(2))


@pytest.mark.parametrize(
    ("shape", "fans"),
    [((3, 4), (4, 3)), ((5, 2, 3, 3), (18, 45)), ((2, 3, 2, 2, 2), (24, 16))],
)
def test_get_fans(shape, fans):
    assert initializer.get_fans(shape) == fans


def test_get_fans_bad_shape():
    with pytest.raises(ValueError, match="must be of length >= 2"):
        initializer.get_fans((3,))
    with pytest.raises(ValueError, match="shape must be tuple"):
        initializer.get_fans([3, 4])
