"""Matrix products of NumPy kernels, on a CPU plugin's GEMM where one is registered.

This module is an extension of this project, not part of Chainer 7's API.
Kernels that multiply NumPy matrices inside one node (the recurrences of
``F.n_step_lstm``, ``F.n_step_rnn`` and ``F.n_step_gru``, for instance) call
:func:`matmul` instead of ``@``, so that a plugin can run those products on
its own GEMM: chainer-cpu registers, under :data:`KEY`, its oneMKL GEMM split
over its thread team where the ``chainer-cpu[mkl]`` extra is installed
(``chainer_cpu._gemm``). Without such a plugin, and for other arrays (CuPy),
:func:`matmul` is ``xp.matmul``.

A matrix that right-multiplies many others (a recurrent weight, once per time
step) goes through :func:`right_operand`, which lets the plugin prepare it
once (chainer-cpu packs it into oneMKL's packed-GEMM format). Independent
products that a gradient needs together (a layer's input and weight
gradients) go through :func:`matmuls`, which lets the plugin run them side
by side.
"""

import numpy

from chainer import _dispatch

#: The kernel-table key under which a plugin registers its 2-d NumPy GEMM,
#: ``fn(a, b, out=None)`` returning ``a @ b``.
KEY = ("chainer.utils.gemm:matmul", "numpy")
#: The key under which a plugin registers ``fn(b, uses)`` returning a product
#: function for a NumPy ``b`` (see :func:`right_operand`), or None where it
#: has nothing better than :func:`matmul`.
RIGHT_OPERAND_KEY = ("chainer.utils.gemm:right_operand", "numpy")
#: The key under which a plugin registers ``fn(pairs)`` returning the list
#: ``[a @ b for a, b in pairs]`` of NumPy matrices (see :func:`matmuls`).
MATMULS_KEY = ("chainer.utils.gemm:matmuls", "numpy")


def matmul(a, b, out=None):
    """Returns ``a @ b`` for two 2-d arrays, through the plugin's GEMM on NumPy.

    Args:
        a (:ref:`ndarray`): ``(m, k)`` matrix, any strides.
        b (:ref:`ndarray`): ``(k, n)`` matrix of the same array type.
        out (:ref:`ndarray` or None): ``(m, n)`` array to write the product
            into.

    Returns:
        :ref:`ndarray`: The product (``out`` where given).
    """
    if type(a) is numpy.ndarray:
        fn = _dispatch.core_hook(KEY)
        if fn is not None:
            return fn(a, b, out=out)
        return numpy.matmul(a, b, out=out)
    import chainer.backend

    xp = chainer.backend.get_array_module(a)
    return xp.matmul(a, b, out=out)


def matmuls(pairs):
    """Returns ``[a @ b for a, b in pairs]`` for independent 2-d products.

    On NumPy a plugin registered under :data:`MATMULS_KEY` may run the
    products side by side (chainer-cpu: one product per thread of its team
    when they are as many as its threads and of similar size, which for
    products of about a hundred million multiply-adds beats splitting each
    in turn).

    Args:
        pairs (list of tuple): ``(a, b)`` pairs of 2-d arrays, ``a`` of shape
            ``(m, k)`` and ``b`` of shape ``(k, n)``, any strides.

    Returns:
        list: The products, in the order of ``pairs``.
    """
    if pairs and all(
        type(a) is numpy.ndarray and type(b) is numpy.ndarray for a, b in pairs
    ):
        fn = _dispatch.core_hook(MATMULS_KEY)
        if fn is not None:
            return fn(pairs)
    return [matmul(a, b) for a, b in pairs]


def product_grads(a, b, gy):
    """Both gradients of ``y = a @ b`` for 2-d NumPy arrays, through :func:`matmuls`.

    The gradients ``gy @ b.T`` and ``a.T @ gy`` in one :func:`matmuls` call
    (a plugin may run them side by side). An F-ordered operand (such as
    ``W.T`` of a C-ordered ``W``) gets its gradient as the transpose of a
    C-ordered product, so that the gradient reaching ``W`` is C-ordered.

    Args:
        a (numpy.ndarray): ``(m, k)`` matrix.
        b (numpy.ndarray): ``(k, n)`` matrix.
        gy (numpy.ndarray): ``(m, n)`` gradient of the product.

    Returns:
        tuple or None: ``(ga, gb)``; None unless all three are NumPy
        matrices of one dtype (the caller then takes its general path).
    """
    if not (
        type(gy) is numpy.ndarray
        and type(a) is numpy.ndarray
        and type(b) is numpy.ndarray
        and a.ndim == 2
        and b.ndim == 2
        and a.dtype == b.dtype == gy.dtype
    ):
        return None
    a_t = a.flags.f_contiguous and not a.flags.c_contiguous
    b_t = b.flags.f_contiguous and not b.flags.c_contiguous
    ga, gb = matmuls(
        [
            (b, gy.T) if a_t else (gy, b.T),
            (gy.T, a) if b_t else (a.T, gy),
        ]
    )
    return (ga.T if a_t else ga), (gb.T if b_t else gb)


def right_operand(b, uses=None):
    """Prepares ``b`` for many products ``a @ b`` with the same ``b``.

    Args:
        b (:ref:`ndarray`): ``(k, n)`` matrix; it must not change while the
            returned function is in use.
        uses (int or None): How many products are expected (the number of
            time steps), where known: preparing pays off only over several.

    Returns:
        callable: ``product(a, out=None, accumulate=False)`` returning ``a @
        b`` for an ``(m, k)`` matrix ``a`` of the same array type and dtype,
        any ``m``: into ``out`` where given, and added to ``out`` (which is
        then required) with ``accumulate=True``.
    """
    if type(b) is numpy.ndarray:
        prepare = _dispatch.core_hook(RIGHT_OPERAND_KEY)
        if prepare is not None:
            product = prepare(b, uses)
            if product is not None:
                return product
    return _Product(b)


class _Product:
    # right_operand's product function without a plugin: matmul each time.

    def __init__(self, b):
        self._b = b

    def __call__(self, a, out=None, accumulate=False):
        if accumulate:
            out += matmul(a, self._b)
            return out
        return matmul(a, self._b, out=out)
