"""Batch normalization with statistics over the batches of all processes.

The function behind :class:`chainermn.links.MultiNodeBatchNormalization`.
"""

from __future__ import annotations

import numpy

from chainer import backend
from chainer import function_node
from chainer.functions.normalization import moments
from chainer.utils import type_check
from chainermn.functions import _util


class MultiNodeBatchNormalizationFunction(function_node.FunctionNode):
    """Batch normalization of ``(x, gamma, beta)`` with all processes' statistics.

    The statistics are those of the concatenation of the batches of all
    processes: sums over the processes, in float64, by two allreduces (the
    mean, then the centred squares, as a one-process computation does). The
    batches may differ in size. The backward pass allreduces the per-channel
    sums of ``gamma * gy`` and ``gamma * gy * x_hat``, which the gradient of
    ``x`` needs; the gradients of ``gamma`` and ``beta`` are this process's
    own terms, whose mean over the processes (taken by the multi-node
    optimizer) is the gradient of the mean of the processes' losses.

    Args:
        comm (~chainermn.communicators.CommunicatorBase): Communicator.
        eps (float): Epsilon added to the variance.
        mean (:ref:`ndarray`): Running mean, updated in place (or None).
        var (:ref:`ndarray`): Running (unbiased) variance, updated in place.
        decay (float): Decay rate of the running statistics.
        communication_backend (str): ``'mpi'``, ``'nccl'`` (the
            ``'pure_nccl'`` communicator only) or ``'auto'`` (NCCL where the
            communicator has it).
    """

    def __init__(
        self,
        comm,
        eps=2e-05,
        mean=None,
        var=None,
        decay=0.9,
        communication_backend="auto",
    ):
        self.comm = comm
        self.eps = eps
        self.running_mean = mean
        self.running_var = var
        self.decay = decay
        self.communication_backend = _util.check_communication_backend(
            comm, communication_backend
        )

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "gamma", "beta"))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            gamma_type.dtype.kind == "f",
            gamma_type.dtype == beta_type.dtype,
            gamma_type.shape == beta_type.shape,
            x_type.ndim >= gamma_type.ndim + 1,
        )
        for i in range(type_check.eval(gamma_type.ndim)):
            type_check.expect(x_type.shape[i + 1] == gamma_type.shape[i])

    def forward(self, inputs):
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        dtype = moments.compute_dtype(x.dtype, gamma.dtype)
        self._axis = (0, *range(gamma.ndim + 1, x.ndim))
        self._expand = (1, *gamma.shape) + (1,) * (x.ndim - gamma.ndim - 1)
        xc = x.astype(dtype, copy=False)
        sums, m = self._allreduce(
            xp, xc.sum(axis=self._axis), extra=x.size // max(gamma.size, 1)
        )
        self._m = m
        self._x_dtype = x.dtype
        inv_m = 1.0 / max(m, 1.0)
        mean = (sums * inv_m).astype(dtype)
        d = xc - mean.reshape(self._expand)
        (sq, _) = self._allreduce(xp, (d * d).sum(axis=self._axis))
        var = (sq * inv_m).astype(dtype)
        inv_std = 1.0 / xp.sqrt(var + dtype.type(self.eps))
        x_hat = d * inv_std.reshape(self._expand)
        y = x_hat * gamma.astype(dtype, copy=False).reshape(self._expand)
        y += beta.astype(dtype, copy=False).reshape(self._expand)
        self._x_hat = x_hat
        self._inv_std = inv_std
        self._dtype = dtype
        if self.running_mean is not None and m > 0:
            # The running variance is the unbiased m / (m - 1) * var, with m
            # the number of samples over all processes.
            decay = self.decay
            adjust = m / max(m - 1.0, 1.0)
            self.running_mean *= decay
            self.running_mean += (1 - decay) * mean.reshape(gamma.shape)
            self.running_var *= decay
            self.running_var += (1 - decay) * adjust * var.reshape(gamma.shape)
        self.retain_inputs((1,))
        return (y.astype(x.dtype, copy=False),)

    def _allreduce(self, xp, per_channel, extra=None):
        # Sums a per-channel array (and one more number) over the processes,
        # in float64: on the GPU through NCCL with the 'nccl' backend, else
        # on the host through MPI.
        on_gpu = self.communication_backend == "nccl" and xp is not numpy
        flat = per_channel.ravel() if on_gpu else _util.to_host(per_channel).ravel()
        buf = (xp if on_gpu else numpy).empty(
            flat.size + (extra is not None), numpy.float64
        )
        buf[: flat.size] = flat
        if extra is not None:
            buf[-1] = extra
        if on_gpu:
            buf = self.comm._nccl_allreduce(buf, "multi-node batch normalization")
        else:
            buf = self.comm.allreduce(buf)
        total = buf[: flat.size].reshape(per_channel.shape)
        if xp is not numpy and not on_gpu:
            total = _util.send_to(backend.get_device_from_array(per_channel), total)
        return total, (float(buf[-1]) if extra is not None else None)

    def backward(self, indexes, grad_outputs):
        (gamma,) = self.get_retained_inputs()
        gamma = gamma.array
        (gy,) = grad_outputs
        xp = backend.get_array_module(gamma)
        dtype = self._dtype
        x_hat = self._x_hat
        gy = gy.array.astype(dtype, copy=False)
        gbeta = gy.sum(axis=self._axis)
        ggamma = (gy * x_hat).sum(axis=self._axis)
        # With g = gy * gamma the gradient by x_hat, gx = inv_std * (g -
        # (sum(g) + x_hat * sum(g * x_hat)) / m), the sums over every
        # process's samples. Each process's g uses its own gamma (they are
        # equal in data-parallel training), so the sums are exact either way.
        # Every process runs this allreduce, whatever gradients it needs.
        gamma_c = gamma.astype(dtype, copy=False).ravel()
        both = xp.concatenate([gamma_c * gbeta.ravel(), gamma_c * ggamma.ravel()])
        (total, _) = self._allreduce(xp, both)
        c = gbeta.size
        g_sum = total[:c].astype(dtype).reshape(self._expand)
        g_x_hat_sum = total[c:].astype(dtype).reshape(self._expand)
        inv_m = dtype.type(1.0 / max(self._m, 1.0))
        gx = gy * gamma.astype(dtype, copy=False).reshape(self._expand)
        gx -= (x_hat * g_x_hat_sum + g_sum) * inv_m
        gx *= self._inv_std.reshape(self._expand)
        out = {
            0: gx.astype(self._x_dtype, copy=False),
            1: ggamma.reshape(gamma.shape).astype(gamma.dtype, copy=False),
            2: gbeta.reshape(gamma.shape).astype(gamma.dtype, copy=False),
        }
        return tuple(out[i] for i in indexes)
