"""chainer.utils' small modules: argument, array, cache, error, experimental,
imgproc, meta, nondeterministic, precision, _collections, and the helpers of
chainer.utils itself (tempdir, _raise_from, collections_abc)."""

import abc
import collections.abc
import os
import subprocess
import sys
import warnings

import numpy
import pytest

import chainer
from chainer import utils
from chainer.utils import _collections
from chainer.utils import argument
from chainer.utils import array
from chainer.utils import cache
from chainer.utils import error
from chainer.utils import imgproc
from chainer.utils import meta
from chainer.utils import precision

# -- argument ----------------------------------------------------------------


def _f(**kwargs):
    return argument.parse_kwargs(kwargs, ("foo", 1), ("bar", 2), deterministic="gone")


def test_parse_kwargs():
    assert _f() == (1, 2)
    assert _f(bar=3, foo=4) == (4, 3)
    with pytest.raises(
        TypeError, match=r"^_f\(\) got unexpected keyword argument\(s\) 'ham', 'spam'$"
    ):
        _f(spam=1, ham=2)
    with pytest.raises(ValueError, match="^gone$"):
        _f(deterministic=True)


def test_parse_kwargs_pops_what_it_reads():
    kwargs = {"foo": 5}
    assert argument.parse_kwargs(kwargs, ("foo", 0)) == (5,)
    assert kwargs == {}


def test_check_unexpected_kwargs_and_assert_empty():
    argument.check_unexpected_kwargs({"a": 1}, b="no b")
    with pytest.raises(ValueError, match="no a"):
        argument.check_unexpected_kwargs({"a": 1}, a="no a")

    def g(**kwargs):
        argument.assert_kwargs_empty(kwargs)

    g()
    with pytest.raises(
        TypeError, match=r"^g\(\) got unexpected keyword argument\(s\) 'x'$"
    ):
        g(x=1)


# -- array -------------------------------------------------------------------


def test_sum_to_and_size_of_shape():
    x = numpy.arange(24.0).reshape(2, 3, 4)
    numpy.testing.assert_array_equal(
        array.sum_to(x, (3, 1)), x.sum(axis=(0, 2))[:, None]
    )
    assert array.sum_to(x, x.shape) is x
    assert array.size_of_shape((2, 3, 4)) == 24
    assert utils.sum_to is array.sum_to
    with pytest.raises(TypeError, match="functions.sum_to"):
        array.sum_to(chainer.Variable(x), (1,))


@pytest.mark.parametrize(
    ("func", "result_shape"),
    [(array.as_vec, (6,)), (array.as_mat, (2, 3)), (array.empty_like, (2, 3))],
)
def test_deprecated_array_helpers(func, result_shape):
    x = numpy.ones((2, 3))
    with pytest.warns(DeprecationWarning, match="deprecated"):
        y = func(x if func is not array.as_mat else x.reshape(2, 3, 1))
    assert y.shape == result_shape


# -- cache -------------------------------------------------------------------


class _Dist:
    def __init__(self, x):
        self.x = x
        self.calls = 0

    @cache.cached_property
    def doubled(self):
        """Twice x."""
        self.calls += 1
        return self.x * 2


def test_cached_property_caches_per_instance_and_backprop_mode():
    assert _Dist.doubled.__name__ == "doubled"
    assert _Dist.doubled.__doc__ == "Twice x."
    d = _Dist(chainer.Variable(numpy.ones(2, numpy.float32)))
    a = d.doubled
    assert d.doubled is a
    assert d.calls == 1
    assert a.creator is not None
    with chainer.no_backprop_mode():
        b = d.doubled
        assert d.doubled is b
    assert b is not a
    assert b.creator is None
    assert d.calls == 2
    assert _Dist(1).doubled == 2
    with pytest.raises(AttributeError):
        d.doubled = 3


# -- error, experimental, nondeterministic -------------------------------------
# (``chainer.utils.experimental`` and ``chainer.utils.nondeterministic`` are
# the functions, as in Chainer; their modules share the names.)


def test_format_array_props():
    text = error._format_array_props([numpy.zeros((2, 3), numpy.float32), None])
    assert text == "(2, 3):float32, None"


def test_experimental_message_and_switch(monkeypatch):
    with pytest.warns(FutureWarning, match="^my.api is experimental. The interface"):
        utils.experimental("my.api")
    monkeypatch.setattr(chainer, "disable_experimental_feature_warning", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.experimental("my.api")


def test_nondeterministic_warns_only_when_configured():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.nondeterministic("atomicAdd kernel")
    with (
        chainer.using_config("warn_nondeterministic", True),
        pytest.warns(UserWarning, match="Source: atomicAdd kernel"),
    ):
        utils.nondeterministic("atomicAdd kernel")


# -- imgproc -----------------------------------------------------------------


def test_oversample_ten_crops():
    img = numpy.arange(2 * 4 * 5, dtype=numpy.float32).reshape(2, 4, 5)
    crops = imgproc.oversample([img, img + 100], (2, 3))
    assert crops.shape == (20, 2, 2, 3)
    numpy.testing.assert_array_equal(crops[0], img[:, :2, :3])
    numpy.testing.assert_array_equal(crops[1], img[:, :2, 2:])
    numpy.testing.assert_array_equal(crops[2], img[:, 2:, :3])
    numpy.testing.assert_array_equal(crops[3], img[:, 2:, 2:])
    numpy.testing.assert_array_equal(crops[4], img[:, 1:3, 1:4])
    for i in range(5):
        numpy.testing.assert_array_equal(crops[5 + i], crops[i][:, :, ::-1])
    numpy.testing.assert_array_equal(crops[10], img[:, :2, :3] + 100)


# -- meta --------------------------------------------------------------------


def test_final_methods():
    class Base(meta.enable_final()):
        @meta.final
        def locked(self):
            return 1

        @meta.final(action=DeprecationWarning)
        def old(self):
            return 2

        def free(self):
            return 3

    class Ok(Base):
        def free(self):
            return 4

    assert Ok().free() == 4
    with pytest.raises(TypeError, match="'locked' of Base in Bad is not allowed"):

        class Bad(Base):
            def locked(self):
                pass

    with pytest.warns(DeprecationWarning, match="'old' of Base in Old is deprecated"):

        class Old(Base):
            def old(self):
                return 5

    assert Old().old() == 5
    assert utils.final is meta.final
    assert utils.enable_final is meta.enable_final


def test_enable_final_with_abc_and_bases():
    class Mixin:
        def hello(self):
            return "hi"

    class Base(meta.enable_final(base=Mixin, meta_base=abc.ABCMeta)):
        @abc.abstractmethod
        def run(self):
            pass

    with pytest.raises(TypeError):
        Base()

    class Impl(Base, collections.abc.Sized):
        def run(self):
            return 1

        def __len__(self):
            return 0

    assert Impl().hello() == "hi"
    with pytest.raises(ValueError, match="action"):
        meta.final(action=int)


# -- precision ---------------------------------------------------------------


class _Node:
    @precision._fp16_mixed_precision_helper
    def forward(self, inputs):
        self.seen = [x.dtype for x in inputs]
        return (inputs[0] * 2, numpy.zeros(1, numpy.float64))


def test_fp16_mixed_precision_helper():
    node = _Node()
    y, z = node.forward((numpy.ones(2, numpy.float16), numpy.arange(2)))
    assert node.seen == [numpy.float32, numpy.dtype(int)]
    assert y.dtype == numpy.float16
    assert z.dtype == numpy.float64
    (y, _) = node.forward((numpy.ones(2, numpy.float32),))
    assert y.dtype == numpy.float32


# -- _collections and chainer.utils helpers ------------------------------------


def test_ordered_set():
    s = _collections.OrderedSet([3, 1, 3, 2])
    assert list(s) == [3, 1, 2]
    s.add(0)
    s.discard(1)
    s.discard(42)
    assert list(s) == [3, 2, 0]
    assert 2 in s
    assert len(s) == 3
    assert list(reversed(s)) == [0, 2, 3]
    assert isinstance(s, collections.abc.MutableSet)


def test_tempdir_is_removed():
    with utils.tempdir(prefix="chainer-test-") as d:
        assert os.path.isdir(d)
        assert os.path.basename(d).startswith("chainer-test-")
        with open(os.path.join(d, "f"), "w") as f:
            f.write("x")
    assert not os.path.exists(d)


def test_raise_from_chains_and_describes_the_cause():
    cause = KeyError("k")
    with pytest.raises(
        RuntimeError, match=r"failed\n\n\(caused by\)\nKeyError: 'k'"
    ) as info:
        utils._raise_from(RuntimeError, "failed", cause)
    assert info.value.__cause__ is cause


def test_collections_abc_and_lazy_names():
    assert utils.collections_abc is collections.abc
    assert utils.get_conv_outsize(5, 3, 1, 1) == 5
    assert utils.get_deconv_outsize(5, 3, 1, 1) == 5
    assert callable(utils.get_order)
    with pytest.raises(AttributeError):
        utils.no_such_name  # noqa: B018


def test_submodules_are_attributes_of_chainer_utils():
    # In a fresh interpreter nothing has imported the submodules yet; code
    # written for Chainer reaches them as ``chainer.utils.<name>``.
    code = (
        "import chainer.utils as u\n"
        "print(u.argument.__name__, u.conv_nd.__name__, hasattr(u, 'no_such_name'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["chainer.utils.argument", "chainer.utils.conv_nd", "False"]
