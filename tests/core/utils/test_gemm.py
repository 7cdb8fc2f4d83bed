"""chainer.utils.gemm: NumPy's matmul, or a plugin's GEMM registered under KEY."""

import contextlib

import numpy

from chainer import plugins
from chainer.utils import gemm


def _operands():
    rng = numpy.random.RandomState(0)
    a = rng.standard_normal((5, 4)).astype(numpy.float32)
    b = rng.standard_normal((3, 4)).astype(numpy.float32).T  # a strided view
    return a, b


@contextlib.contextmanager
def _registered(name, kernels):
    # A plugin registering ``kernels`` (key -> function) while in the block.
    class _Plugin:
        @plugins.hookimpl
        def register_kernels(self):
            return kernels

    registered = plugins.register(_Plugin(), name=name)
    try:
        yield
    finally:
        plugins.unregister(registered)


def test_without_a_plugin_it_is_numpy_matmul():
    a, b = _operands()
    numpy.testing.assert_allclose(gemm.matmul(a, b), a @ b, rtol=1e-6)
    out = numpy.empty((5, 3), numpy.float32)
    assert gemm.matmul(a, b, out=out) is out
    numpy.testing.assert_allclose(out, a @ b, rtol=1e-6)


def test_a_registered_gemm_takes_numpy_products():
    calls = []

    def plugin_gemm(a, b, out=None):
        calls.append((a.shape, b.shape, out is not None))
        return numpy.matmul(a, b, out=out) * 0 + 7

    with _registered("test-gemm-hook", {gemm.KEY: plugin_gemm}):
        a, b = _operands()
        y = gemm.matmul(a, b)
    assert calls == [((5, 4), (4, 3), False)]
    numpy.testing.assert_array_equal(y, numpy.full((5, 3), 7, numpy.float32))
    # Unregistered, NumPy's product again.
    numpy.testing.assert_allclose(gemm.matmul(a, b), a @ b, rtol=1e-6)


def test_right_operand_without_a_plugin_multiplies_each_time():
    a, b = _operands()
    product = gemm.right_operand(b)
    numpy.testing.assert_allclose(product(a), a @ b, rtol=1e-6)
    out = numpy.ones((5, 3), numpy.float32)
    assert product(a, out=out, accumulate=True) is out
    numpy.testing.assert_allclose(out, 1 + a @ b, rtol=1e-6)
    assert product(a, out=out) is out
    numpy.testing.assert_allclose(out, a @ b, rtol=1e-6)


def test_a_registered_right_operand_is_used_unless_it_declines():
    prepared = []

    def prepare(b, uses):
        prepared.append((b.shape, uses))
        if b.shape[0] == 4:
            return None  # declined: core multiplies with matmul
        return lambda a, out=None, accumulate=False: numpy.full(
            (a.shape[0], b.shape[1]), 7, a.dtype
        )

    with _registered("test-right-operand-hook", {gemm.RIGHT_OPERAND_KEY: prepare}):
        a, b = _operands()
        declined = gemm.right_operand(b)
        taken = gemm.right_operand(numpy.ones((2, 3), numpy.float32), uses=35)
    assert prepared == [((4, 3), None), ((2, 3), 35)]
    numpy.testing.assert_allclose(declined(a), a @ b, rtol=1e-6)
    numpy.testing.assert_array_equal(
        taken(numpy.ones((5, 2), numpy.float32)), numpy.full((5, 3), 7)
    )


def test_matmuls_without_a_plugin_multiplies_each_pair():
    a, b = _operands()
    c = numpy.ones((3, 2), numpy.float32)
    got = gemm.matmuls([(a, b), (b, c)])
    assert len(got) == 2
    numpy.testing.assert_allclose(got[0], a @ b, rtol=1e-6)
    numpy.testing.assert_allclose(got[1], b @ c, rtol=1e-6)


def test_a_registered_matmuls_takes_numpy_pairs_only():
    calls = []

    def plugin_matmuls(pairs):
        calls.append([(a.shape, b.shape) for a, b in pairs])
        return [numpy.full((a.shape[0], b.shape[1]), 7, a.dtype) for a, b in pairs]

    with _registered("test-matmuls-hook", {gemm.MATMULS_KEY: plugin_matmuls}):
        a, b = _operands()
        got = gemm.matmuls([(a, b)])
        assert gemm.matmuls([]) == []
    assert calls == [[((5, 4), (4, 3))]]
    numpy.testing.assert_array_equal(got[0], numpy.full((5, 3), 7))
