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


def test_product_grads_values_and_memory_orders():
    rng = numpy.random.RandomState(1)
    for a_t, b_t in ((False, False), (True, False), (False, True), (True, True)):
        a = rng.standard_normal((3, 4) if a_t else (4, 3)).astype(numpy.float32)
        b = rng.standard_normal((5, 3) if b_t else (3, 5)).astype(numpy.float32)
        a = a.T if a_t else a
        b = b.T if b_t else b
        gy = rng.standard_normal((4, 5)).astype(numpy.float32)
        ga, gb = gemm.product_grads(a, b, gy)
        numpy.testing.assert_allclose(ga, gy @ b.T, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(gb, a.T @ gy, rtol=1e-5, atol=1e-6)
        # A transposed operand's gradient is the transpose of a C product.
        assert ga.flags.f_contiguous if a_t else ga.flags.c_contiguous
        assert gb.flags.f_contiguous if b_t else gb.flags.c_contiguous


def test_product_grads_declines_other_operands():
    a, b = _operands()
    gy = numpy.ones((5, 3), numpy.float32)
    assert gemm.product_grads(a, b, gy.astype(numpy.float64)) is None
    assert gemm.product_grads(a[0], b, gy[0]) is None
    assert gemm.product_grads(a.tolist(), b, gy) is None
