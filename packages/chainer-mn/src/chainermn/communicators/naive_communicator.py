"""The naive communicator: one allreduce per parameter."""

from __future__ import annotations

import numpy

from chainermn.communicators import _channel
from chainermn.communicators import _grads
from chainermn.communicators import mpi_communicator_base


class NaiveCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """Communicator that averages each gradient with its own allreduce.

    The simplest scheme: :meth:`multi_node_mean_grad` runs one MPI allreduce
    per parameter (in the order of their names), and :meth:`bcast_data` one
    broadcast per parameter. It suits models with few, large parameters and
    serves as the reference the packed :class:`FlatCommunicator` is checked
    against. NumPy (CPU) arrays only.

    Args:
        mpi_comm (mpi4py.MPI.Comm): The MPI communicator to use.
    """

    def bcast_data(self, model):
        """Copies rank 0's parameters into every process's model (collective).

        One broadcast per initialized parameter, in the order of their
        names; the arrays are overwritten in place.

        Args:
            model (~chainer.Link): The model, built the same way everywhere.

        Raises:
            ValueError: On every process, before any data moves, when the
                processes' models differ in their parameters' names, shapes
                or dtypes.
        """
        params = _grads.initialized_params(model, type(self).__name__)
        self._check_same_params(model, "bcast_data")
        for param in params:
            array = param.array
            if array.flags.c_contiguous:
                self._channel.bcast_inplace(_channel.byte_view(array), 0, "bcast_data")
            else:
                buf = numpy.ascontiguousarray(array)
                self._channel.bcast_inplace(_channel.byte_view(buf), 0, "bcast_data")
                array[...] = buf

    def _mean_grads(self, params, channel, op):
        dtype = self._config["allreduce_grad_dtype"]
        size = channel.size
        for param in params:
            grad = param.grad
            if grad.flags.c_contiguous and (dtype is None or grad.dtype == dtype):
                buf = grad.reshape(-1)
                channel.allreduce_inplace(buf, op)
                buf /= size
            else:
                buf = numpy.array(grad, dtype=dtype, order="C").reshape(-1)
                channel.allreduce_inplace(buf, op)
                numpy.divide(buf.reshape(grad.shape), size, out=grad, casting="unsafe")
