from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer.utils import type_check


def _outer(a, b):
    # (i, j), (i, k) -> (i, j * k) with entry [i, j * K + k] = a[i, j] * b[i, k].
    n, J = a.shape
    K = b.shape[1]
    return primitive_ops.reshape(
        primitive_ops.reshape(a, (n, J, 1)) * primitive_ops.reshape(b, (n, 1, K)),
        (n, J * K),
    )


class BilinearFunction(function_node.FunctionNode):
    """Bilinear form of two batches of vectors, optionally with linear terms."""

    def check_type_forward(self, in_types):
        n_in = type_check.eval(in_types.size())
        if n_in not in (3, 6):
            raise type_check.InvalidType(
                "in_types.size() == 3 or in_types.size() == 6",
                f"in_types.size() == {n_in}",
            )
        e1_type, e2_type, w_type = in_types[:3]
        type_check.expect(
            e1_type.dtype.kind == "f",
            e1_type.ndim == 2,
            e2_type.dtype == e1_type.dtype,
            e2_type.ndim == 2,
            e1_type.shape[0] == e2_type.shape[0],
            w_type.dtype == e1_type.dtype,
            w_type.ndim == 3,
            e1_type.shape[1] == w_type.shape[0],
            e2_type.shape[1] == w_type.shape[1],
        )
        if n_in == 6:
            v1_type, v2_type, b_type = in_types[3:]
            type_check.expect(
                v1_type.dtype == e1_type.dtype,
                v1_type.ndim == 2,
                v1_type.shape[0] == w_type.shape[0],
                v1_type.shape[1] == w_type.shape[2],
                v2_type.dtype == e1_type.dtype,
                v2_type.ndim == 2,
                v2_type.shape[0] == w_type.shape[1],
                v2_type.shape[1] == w_type.shape[2],
                b_type.dtype == e1_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[2],
            )

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        e1, e2, W = inputs[:3]
        xp = backend.get_array_module(e1)
        n, J = e1.shape
        K = e2.shape[1]
        # One GEMM: (i, j * k) outer products times W viewed as (j * k, l).
        outer = (e1[:, :, None] * e2[:, None, :]).reshape(n, J * K)
        y = xp.matmul(outer, W.reshape(J * K, -1))
        if len(inputs) == 6:
            V1, V2, b = inputs[3:]
            y += xp.matmul(e1, V1)
            y += xp.matmul(e2, V2)
            y += b
        return (y,)

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        e1, e2, W = inputs[:3]
        (gy,) = grad_outputs
        J, K, L = W.shape
        ret = []
        for i in indexes:
            if i == 0:
                # ge1[i, j] = sum_kl e2[i, k] gy[i, l] W[j, k, l]
                g = primitive_ops.matmul(
                    _outer(e2, gy),
                    primitive_ops.transpose(primitive_ops.reshape(W, (J, K * L))),
                )
                if len(inputs) == 6:
                    g = g + primitive_ops.matmul(gy, primitive_ops.transpose(inputs[3]))
            elif i == 1:
                Wt = primitive_ops.reshape(
                    primitive_ops.transpose(W, (1, 0, 2)), (K, J * L)
                )
                g = primitive_ops.matmul(_outer(e1, gy), primitive_ops.transpose(Wt))
                if len(inputs) == 6:
                    g = g + primitive_ops.matmul(gy, primitive_ops.transpose(inputs[4]))
            elif i == 2:
                g = primitive_ops.reshape(
                    primitive_ops.matmul(primitive_ops.transpose(_outer(e1, e2)), gy),
                    (J, K, L),
                )
            elif i == 3:
                g = primitive_ops.matmul(primitive_ops.transpose(e1), gy)
            elif i == 4:
                g = primitive_ops.matmul(primitive_ops.transpose(e2), gy)
            else:
                g = primitive_ops.sum(gy, axis=0)
            ret.append(g)
        return tuple(ret)


def bilinear(e1, e2, W, V1=None, V2=None, b=None):
    """Applies a bilinear function based on given parameters.

    This is a building block of the Neural Tensor Network (Socher et al.,
    *Reasoning With Neural Tensor Networks for Knowledge Base Completion*,
    NIPS 2013). With ``e1`` of shape ``(I, J)``, ``e2`` of shape ``(I, K)``,
    ``W`` of shape ``(J, K, L)``, ``V1`` of shape ``(J, L)``, ``V2`` of shape
    ``(K, L)`` and ``b`` of shape ``(L,)`` (``I`` is the batch size) it
    computes

    .. math::

        y_{il} = \\sum_{jk} e^1_{ij} e^2_{ik} W_{jkl}
            + \\sum_j e^1_{ij} V^1_{jl} + \\sum_k e^2_{ik} V^2_{kl} + b_l.

    ``V1``, ``V2`` and ``b`` are optional, but must be given all together;
    without them the last three terms are omitted. An ``e1`` or ``e2`` of
    more than two dimensions is treated as a batch of flattened vectors
    (the leading axis is the batch axis).

    Args:
        e1 (~chainer.Variable or :ref:`ndarray`): Float array of shape
            ``(I, J)`` (or ``(I, ...)`` with ``J`` trailing elements).
        e2 (~chainer.Variable or :ref:`ndarray`): Array of shape ``(I, K)``
            (or ``(I, ...)``), the dtype of ``e1``.
        W (~chainer.Variable or :ref:`ndarray`): Array of shape ``(J, K, L)``.
        V1 (~chainer.Variable or :ref:`ndarray`): Array of shape ``(J, L)``.
        V2 (~chainer.Variable or :ref:`ndarray`): Array of shape ``(K, L)``.
        b (~chainer.Variable or :ref:`ndarray`): Array of shape ``(L,)``.

    Returns:
        ~chainer.Variable: Array of shape ``(I, L)`` and the dtype of ``e1``.

    Raises:
        ValueError: If some but not all of ``V1``, ``V2`` and ``b`` are None.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> e1 = np.array([[1, 2]], np.float32)
        >>> e2 = np.array([[3, 4, 5]], np.float32)
        >>> W = np.ones((2, 3, 1), np.float32)
        >>> F.bilinear(e1, e2, W).array
        array([[36.]], dtype=float32)
    """
    missing = (V1 is None, V2 is None, b is None)
    if any(missing) and not all(missing):
        raise ValueError(
            "All coefficients and bias for bilinear() must be None, if at "
            "least one of them is None."
        )
    if e1.ndim > 2:
        e1 = primitive_ops.reshape(e1, (e1.shape[0], -1))
    if e2.ndim > 2:
        e2 = primitive_ops.reshape(e2, (e2.shape[0], -1))
    inputs = (e1, e2, W) if V1 is None else (e1, e2, W, V1, V2, b)
    return BilinearFunction().apply(inputs)[0]
