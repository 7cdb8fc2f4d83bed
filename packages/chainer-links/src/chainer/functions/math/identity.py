"""The identity function."""

from chainer import function_node


class Identity(function_node.FunctionNode):
    """Identity function: outputs its inputs unchanged."""

    def forward(self, inputs):
        return inputs

    def backward(self, indexes, grad_outputs):
        return tuple(grad_outputs[i] for i in indexes)


def identity(*inputs):
    """Just returns its inputs, as new variables connected to them.

    Args:
        *inputs (~chainer.Variable or :ref:`ndarray`): One or more arrays of
            any shape and dtype.

    Returns:
        ~chainer.Variable or tuple of ~chainer.Variable: A variable for each
        input; a single variable when there is one input.
    """
    if not inputs:
        raise TypeError("identity needs at least one input")
    ret = Identity().apply(inputs)
    return ret[0] if len(ret) == 1 else ret
