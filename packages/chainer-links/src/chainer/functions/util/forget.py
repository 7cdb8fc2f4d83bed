import chainer
from chainer import backend
from chainer import configuration
from chainer import function_node
from chainer import variable


def _ordinal(n):
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _call_func(func, xs):
    outs = func(*xs)
    if isinstance(outs, tuple):
        for i, out in enumerate(outs):
            if not isinstance(out, variable.Variable):
                raise RuntimeError(
                    f"{_ordinal(i + 1)} element of a returned tuple is not "
                    f"Variable, but is {type(out)}"
                )
        return outs
    if isinstance(outs, variable.Variable):
        return (outs,)
    raise RuntimeError(
        f"A tuple of Variables or a Variable are expected, but {type(outs)} "
        "is returned."
    )


def _vjp(func, n_inputs, targets, out_indexes):
    """Returns ``g(*xs, *gys)``: the gradients of ``func`` at ``xs`` for ``gys``.

    ``targets`` are the indexes of the inputs to differentiate by and
    ``out_indexes`` those of the outputs that ``gys`` belong to. ``g`` is
    differentiable when called with backprop enabled.
    """

    def vjp(*args):
        xs, gys = args[:n_inputs], args[n_inputs:]
        double = configuration.config.enable_backprop
        with (
            chainer.force_backprop_mode(),
            chainer.using_config("in_recomputing", True),
        ):
            outs = _call_func(func, xs)
            gxs = chainer.grad(
                [outs[k] for k in out_indexes],
                [xs[i] for i in targets],
                list(gys),
                enable_double_backprop=double,
            )
        ret = []
        for i, gx in zip(targets, gxs, strict=True):
            if gx is None:
                data = xs[i].array
                gx = variable.Variable(
                    backend.get_array_module(data).zeros_like(data),
                    requires_grad=False,
                )
            ret.append(gx)
        return tuple(ret)

    return vjp


class Forget(function_node.FunctionNode):
    """Calls ``func`` without keeping its graph; recomputes it in backward."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError("func must be callable")
        self.func = func

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        with (
            chainer.no_backprop_mode(),
            chainer.using_config("_will_recompute", True),
        ):
            xs = [variable.Variable(x) for x in inputs]
            outs = _call_func(self.func, xs)
        return tuple(out.array for out in outs)

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        out_indexes = [k for k, gy in enumerate(grad_outputs) if gy is not None]
        gys = [grad_outputs[k] for k in out_indexes]
        if configuration.config.enable_backprop:
            # Double backprop: the gradient computation is itself forgotten
            # and recomputed, so it is differentiable to any order.
            vjp = _vjp(self.func, len(inputs), indexes, out_indexes)
            return Forget(vjp).apply((*inputs, *gys))
        # Fresh variables without creators, so backprop stops at them.
        dummies = [
            variable.Variable(x.array, requires_grad=i in indexes)
            for i, x in enumerate(inputs)
        ]
        with (
            chainer.force_backprop_mode(),
            chainer.using_config("in_recomputing", True),
        ):
            outs = _call_func(self.func, dummies)
        if len(outs) != len(grad_outputs):
            raise RuntimeError(
                f"forget: the function returned {len(outs)} outputs on "
                f"recomputation but {len(grad_outputs)} on the first call"
            )
        chainer.backward([outs[k] for k in out_indexes], gys)
        return tuple(dummies[i].grad_var for i in indexes)


def forget(func, *xs):
    """Calls a function without storing internal results.

    On a forward propagation, Chainer normally stores all internal results of
    the functions on the computational graph, as they are required by the
    backward propagation. These results can consume too much memory when they
    are large. This function forgets such internal results on the forward
    propagation, and still supports backpropagation by recalculation.

    On the forward propagation, ``forget`` calls ``func`` with the given
    variables without creating a computational graph, so no internal result
    is stored. On the backward propagation, it calls ``func`` again to create
    the graph and backpropagates through it. This reduces memory usage at the
    cost of calling ``func`` twice. Double backpropagation works: the
    gradient computation is itself forgotten and recomputed.

    While ``func`` is recomputed, ``chainer.config.in_recomputing`` is
    ``True``, so that links which update state in their forward pass (such as
    batch normalization's running statistics) can skip the second update.

    .. note::
        ``func`` must behave deterministically: functions that draw random
        numbers, such as :func:`~chainer.functions.dropout` and
        :func:`~chainer.functions.negative_sampling`, give different results
        on the second call, and the gradients are then wrong.

    Args:
        func (callable): A function to call. It must take :class:`Variable`
            arguments and return a :class:`Variable` or a tuple of them.
        xs (~chainer.Variable or :ref:`ndarray`): Argument variables of the
            function.

    Returns:
        ~chainer.Variable or tuple: A variable ``func`` returns; if it returns
        a tuple, the function returns a tuple too.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.functions as F
        >>> def f(a, b):
        ...     return a + b + a
        >>> x = chainer.Variable(np.array([1.0, 2.0], np.float32))
        >>> y = chainer.Variable(np.array([3.0, 4.0], np.float32))
        >>> z = F.forget(f, x, y)  # the internal x + y is not kept
        >>> z.array
        array([5., 8.], dtype=float32)
        >>> z.grad = np.ones(2, np.float32)
        >>> z.backward()
        >>> x.grad
        array([2., 2.], dtype=float32)
    """
    if not callable(func):
        raise TypeError("func must be callable")
    ret = Forget(func).apply(xs)
    if len(ret) == 1:
        return ret[0]
    return ret
