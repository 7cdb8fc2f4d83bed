from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import utils
from chainer import variable
from chainer.utils import gemm
from chainer.utils import type_check


def _plain_linear(node, xs):
    # Float (n, k) input, (m, k) weight and, if any, an (m,) bias of x's dtype.
    n = len(xs)
    if n != 2 and n != 3:
        return False
    x, W = xs[0], xs[1]
    if not (
        x.dtype.kind == "f"
        and W.dtype.kind == "f"
        and x.ndim == 2
        and W.ndim == 2
        and x.shape[1] == W.shape[1]
    ):
        return False
    if n == 2:
        return True
    b = xs[2]
    return b.dtype == x.dtype and b.ndim == 1 and b.shape[0] == W.shape[0]


class LinearFunction(function_node.FunctionNode):
    """Affine map ``x @ W.T + b`` of a 2-d batch."""

    @type_check.fast_path(_plain_linear)
    def check_type_forward(self, in_types):
        n_in = in_types.size()
        type_check.expect(n_in >= 2, n_in <= 3)
        x_type, w_type = in_types[:2]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    def forward(self, inputs):
        x, W = inputs[:2]
        self.retain_inputs((0, 1))
        if x.dtype == W.dtype and x.dtype.kind == "f" and x.dtype.itemsize > 2:
            y = x @ W.T
        else:
            # NumPy has no half-precision BLAS (and its half loop accumulates
            # in half precision): multiply in float32 at least.
            xp = backend.get_array_module(x)
            dtype = xp.promote_types(xp.promote_types(x.dtype, W.dtype), xp.float32)
            y = (x.astype(dtype, copy=False) @ W.T.astype(dtype, copy=False)).astype(
                x.dtype, copy=False
            )
        if len(inputs) == 3:
            y += inputs[2]
        return (y,)

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        # A weight that already has a gradient in this pass (an RNN's weight,
        # used at every time step): its contribution is deferred, and all of
        # them become one GEMM over the stacked time steps at the end of the
        # pass instead of one small, memory-bound GEMM and a full-size add
        # per step.
        if 1 in target_input_indexes:
            pos = target_input_indexes.index(1)
            (gy,) = grad_outputs
            w_node = self.inputs[1]
            if (
                grad_inputs[pos] is not None
                and gy is not None
                and self.defer_input_grad(
                    1,
                    _sum_weight_grads,
                    (gy.array, self.inputs[0].data, w_node.dtype),
                )
            ):
                rest = target_input_indexes[:pos] + target_input_indexes[pos + 1 :]
                rest_grads = grad_inputs[:pos] + grad_inputs[pos + 1 :]
                ret = []
                if rest:
                    ret.extend(
                        super().backward_accumulate(rest, grad_outputs, rest_grads)
                    )
                ret.insert(pos, grad_inputs[pos])
                return tuple(ret)
        return super().backward_accumulate(
            target_input_indexes, grad_outputs, grad_inputs
        )

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        W_array = W.array
        if (
            0 in indexes
            and 1 in indexes
            and W_array.flags.c_contiguous
            and not utils._config_entry("enable_backprop")
        ):
            # Outside a graph, gy @ W and gy.T @ x in one call (a plugin may
            # run them side by side); gW comes back C-ordered.
            both = gemm.product_grads(x.array, W_array.T, gy.array)
            if both is not None:
                gx, gWt = both
                ret = [
                    variable.Variable(gx, requires_grad=False),
                    variable.Variable(gWt.T, requires_grad=False),
                ]
                if 2 in indexes:
                    ret.append(primitive_ops.sum(gy, axis=0))
                return tuple(ret)
        ret = []
        if 0 in indexes:
            gx = primitive_ops.matmul(gy, W)
            if gx.dtype != x.dtype:
                gx = primitive_ops.cast(gx, x.dtype)
            ret.append(gx)
        if 1 in indexes:
            gW = primitive_ops.matmul(primitive_ops.transpose(gy), x)
            if gW.dtype != W.dtype:
                gW = primitive_ops.cast(gW, W.dtype)
            ret.append(gW)
        if 2 in indexes:
            ret.append(primitive_ops.sum(gy, axis=0))
        return tuple(ret)


def _sum_weight_grads(payloads):
    # sum_t gy_t.T @ x_t as one GEMM over the stacked steps.
    dtype = payloads[0][2]
    if len(payloads) == 1:
        gy, x = payloads[0][:2]
    else:
        xp = backend.get_array_module(payloads[0][0])
        gy = xp.concatenate([p[0] for p in payloads])
        x = xp.concatenate([p[1] for p in payloads])
    if gy.dtype == x.dtype and gy.dtype.itemsize > 2:
        gW = gy.T @ x
    else:
        xp = backend.get_array_module(gy)
        acc = xp.promote_types(xp.promote_types(gy.dtype, x.dtype), xp.float32)
        gW = gy.T.astype(acc, copy=False) @ x.astype(acc, copy=False)
    return gW.astype(dtype, copy=False)


def linear(x, W, b=None, n_batch_axes=1):
    """Linear function, or affine transformation.

    It computes :math:`Y = x W^\\top + b`. The leading ``n_batch_axes`` axes
    of ``x`` are batch axes; the remaining axes are flattened into one
    feature axis of size :math:`N`.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float input of shape
            ``(s_1, ..., s_B, t_1, ..., t_k)`` with ``B = n_batch_axes`` and
            ``t_1 * ... * t_k = N``.
        W (~chainer.Variable or :ref:`ndarray`): Weight of shape ``(M, N)``.
        b (~chainer.Variable or :ref:`ndarray`): Optional bias of shape
            ``(M,)``, with the dtype of ``x``.
        n_batch_axes (int): Number of leading batch axes of ``x`` (at least
            one).

    Returns:
        ~chainer.Variable: Output of shape ``(s_1, ..., s_B, M)`` and the
        dtype of ``x``.

    Raises:
        ValueError: If ``n_batch_axes`` is not positive.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> x = np.random.uniform(0, 1, (3, 4)).astype(np.float32)
        >>> W = np.random.uniform(0, 1, (5, 4)).astype(np.float32)
        >>> b = np.random.uniform(0, 1, (5,)).astype(np.float32)
        >>> F.linear(x, W, b).shape
        (3, 5)
    """
    if n_batch_axes <= 0:
        raise ValueError(f"n_batch_axes must be positive, got {n_batch_axes}")
    batch_shape = None
    ndim = x.ndim
    if n_batch_axes > 1:
        if ndim <= n_batch_axes:
            raise ValueError(
                f"linear: x of ndim {ndim} has no feature axis after "
                f"n_batch_axes={n_batch_axes} batch axes"
            )
        batch_shape = x.shape[:n_batch_axes]
        x = primitive_ops.reshape(
            x, (_size(batch_shape), _size(x.shape[n_batch_axes:]))
        )
    elif ndim > 2:
        x = primitive_ops.reshape(x, (x.shape[0], _size(x.shape[1:])))
    args = (x, W) if b is None else (x, W, b)
    (y,) = LinearFunction().apply(args)
    if batch_shape is not None:
        y = primitive_ops.reshape(y, (*batch_shape, y.shape[1]))
    return y


def _size(shape):
    size = 1
    for s in shape:
        size *= s
    return size
