import importlib.util

import pytest

import chainer.links as L
from chainer.links.theano import theano_function


@pytest.mark.skipif(
    importlib.util.find_spec("theano") is not None, reason="Theano is installed"
)
def test_without_theano_construction_names_the_package():
    with pytest.raises(RuntimeError, match="Theano"):
        theano_function.TheanoFunction(inputs=(), outputs=())


def test_exported_as_chainer_links_name():
    assert L.TheanoFunction is theano_function.TheanoFunction
