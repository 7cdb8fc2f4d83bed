"""A function node running a pair of compiled Theano functions."""

from chainer import backend
from chainer import function


def _arrays(values, count, what):
    values = list(values)
    if len(values) != count:
        raise ValueError(f"{what} returned {len(values)} arrays, expected {count}")
    return values


class TheanoFunction(function.Function):
    """Runs a compiled forward and backward function as one function node.

    This is what :class:`~chainer.links.TheanoFunction` builds from a Theano
    graph. ``forward_func(*inputs)`` returns the list of outputs;
    ``backward_func(*inputs, *grad_outputs)`` returns the list of input
    gradients. Both receive and return arrays of the inputs' backend (NumPy
    on the CPU), so any callables with that contract work, compiled by
    Theano or not.

    Args:
        forward_func (callable): The forward computation.
        backward_func (callable): The gradient computation.
    """

    def __init__(self, forward_func, backward_func):
        self.forward_func = forward_func
        self.backward_func = backward_func

    def forward(self, inputs):
        outputs = self.forward_func(*inputs)
        if not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        xp = backend.get_array_module(*inputs)
        outputs = tuple(xp.asarray(y) for y in outputs)
        self._output_specs = [(y.shape, y.dtype) for y in outputs]
        return outputs

    def backward(self, inputs, grad_outputs):
        xp = backend.get_array_module(*inputs)
        # Outputs nobody differentiated get a zero gradient.
        grad_outputs = [
            xp.zeros(shape, dtype) if gy is None else gy
            for (shape, dtype), gy in zip(self._output_specs, grad_outputs, strict=True)
        ]
        gxs = _arrays(
            self.backward_func(*inputs, *grad_outputs),
            len(inputs),
            "backward_func",
        )
        return tuple(
            None if gx is None else xp.asarray(gx, dtype=x.dtype)
            for x, gx in zip(inputs, gxs, strict=True)
        )


def theano_function(forward_func, backward_func, *inputs):
    """Applies compiled forward and backward functions to ``inputs``.

    See :class:`TheanoFunction`.

    Args:
        forward_func (callable): ``forward_func(*inputs)`` returns the list of
            output arrays.
        backward_func (callable): ``backward_func(*inputs, *grad_outputs)``
            returns the list of input gradients.
        inputs (~chainer.Variable or :ref:`ndarray`): Inputs.

    Returns:
        ~chainer.Variable or tuple: The outputs; one Variable when there is
        one output.
    """
    return TheanoFunction(forward_func, backward_func)(*inputs)
