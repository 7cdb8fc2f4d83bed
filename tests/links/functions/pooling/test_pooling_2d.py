import numpy
import pytest

from chainer.functions.pooling import pooling_2d
from chainer.utils import type_check


def test_attributes():
    p = pooling_2d.Pooling2D((3, 2), None, (1, 0), cover_all=False)
    assert (p.kh, p.kw, p.sy, p.sx, p.ph, p.pw) == (3, 2, 3, 2, 1, 0)
    assert (p.ksize, p.stride, p.pad) == ((3, 2), (3, 2), (1, 0))
    assert not p.cover_all
    assert not p.return_indices


def test_defaults():
    p = pooling_2d.Pooling2D(2, 1)
    assert (p.kh, p.kw, p.sy, p.sx, p.ph, p.pw) == (2, 2, 1, 1, 0, 0)
    assert p.cover_all


def test_type_check():
    p = pooling_2d.Pooling2D(2)
    with pytest.raises(type_check.InvalidType):
        p.apply((numpy.zeros((1, 1, 4), numpy.float32),))
