"""Joining a delegate variable to other variables' graph: :func:`pseudo_connect`."""

from __future__ import annotations

from chainer import function_node
from chainermn.functions import _util


class PseudoConnect(function_node.FunctionNode):
    """Passes inputs ``1..n`` through; input 0 (the delegate) gets a zero gradient."""

    def forward(self, inputs):
        self._delegate_meta = (
            inputs[0].shape,
            inputs[0].dtype,
            _util.device_of(inputs[0]),
        )
        return tuple(inputs[1:])

    def backward(self, indexes, grad_outputs):
        ret = []
        for i in indexes:
            if i == 0:
                # Never None: the delegate's creator (a send) must run its
                # backward after everything that follows it here.
                shape, dtype, device = self._delegate_meta
                ret.append(device.xp.zeros(shape, dtype))
            else:
                ret.append(grad_outputs[i - 1])
        return tuple(ret)


def pseudo_connect(delegate_variable, *actual_variables):
    """Connects a delegate variable to the graph of other variables.

    The outputs have the values of ``actual_variables`` and pass their
    gradients through unchanged; in the graph they also depend on
    ``delegate_variable``, which receives a zero gradient in the backward
    pass. This orders communications: when ``delegate_variable`` is the
    delegate variable of a :func:`~chainermn.functions.send`, that send's
    backward (which receives gradients from its peer) runs only after the
    backward of everything computed from the outputs, e.g. a
    :func:`~chainermn.functions.send` of them to a third process::

        phi = chainermn.functions.send(x, comm, rank=1)
        # The backward of the second send runs before the first one's.
        y = chainermn.functions.pseudo_connect(phi, y)
        phi = chainermn.functions.send(y, comm, rank=2)
        phi.backward()

    Args:
        delegate_variable (~chainer.Variable): The variable to attach, usually
            a delegate variable; ``None`` attaches nothing new (the outputs
            are then plain copies in the graph).
        *actual_variables (~chainer.Variable or :ref:`ndarray`): Variables
            whose values are passed on.

    Returns:
        ~chainer.Variable or tuple of ~chainer.Variable: One variable per
        actual variable (the variable itself when there is one).
    """
    if not actual_variables:
        raise ValueError(
            "pseudo_connect needs at least one actual variable to connect "
            "the delegate variable to"
        )
    for i, x in enumerate(actual_variables):
        if x is None:
            raise TypeError(f"pseudo_connect: actual_variables[{i}] is None")
    if delegate_variable is None:
        delegate_variable = _util.anchor(_util.device_of(actual_variables[0]))
    ys = PseudoConnect().apply((delegate_variable, *actual_variables))
    return ys[0] if len(ys) == 1 else ys
