"""Helpers of the static subgraph feature: :func:`static_code` and friends."""

import functools

from chainer import configuration


def static_code(*dec_args, **dec_kwargs):
    """Decorator marking a function to be included in the static schedule.

    Inside a static chain (the ``forward`` of a chain decorated with
    :func:`~chainer.static_graph`), a function decorated with
    ``@static_code`` is added to the chain's static schedule and runs on
    every call of the chain, whatever calls it (the chain's own code, a link
    or a :class:`~chainer.FunctionNode`). Use it for code with side effects
    that must happen each iteration, such as reading the next batch into an
    array or updating a counter. Outside a static chain the function simply
    runs.

    It can be used bare (``@static_code``) or with the keyword option
    ``func_name``, a name shown for the function in the schedule's debugging
    output (``@static_code(func_name='my_update')``).

    Returns:
        The wrapped function, which returns what the original one returns.
    """
    if len(dec_args) == 1 and not dec_kwargs and callable(dec_args[0]):
        return _wrap_static_code(dec_args[0], None)
    if dec_args:
        raise TypeError(
            "static_code takes a function, or keyword options only "
            f"(func_name); got positional arguments {dec_args!r}"
        )
    unknown = set(dec_kwargs) - {"func_name"}
    if unknown:
        raise TypeError(f"static_code got unexpected options: {sorted(unknown)}")
    func_name = dec_kwargs.get("func_name")

    def wrap(func):
        if not callable(func):
            raise TypeError(f"static_code decorates a callable, not {func!r}")
        return _wrap_static_code(func, func_name)

    return wrap


def _wrap_static_code(func, func_name):
    @functools.wraps(func)
    def wrapped_func(*args, **kwargs):
        schedule = configuration.config.schedule_func
        if schedule is None:
            return func(*args, **kwargs)
        return schedule.append_function(func, args, kwargs, func_name=func_name)

    wrapped_func._is_static_code = True
    return wrapped_func


def is_static_func(func):
    """Returns whether ``func`` was decorated with :func:`static_code`."""
    return bool(getattr(func, "_is_static_code", False))


def is_trace_mode():
    """Returns whether the code runs inside a static chain.

    That is, whether ``chainer.config.schedule_func`` holds the static
    schedule of the chain being called.
    """
    return configuration.config.schedule_func is not None


def static_forward_optimizations(func, inputs):
    """Runs the forward computation of a function node in a static chain.

    Inside a static chain the computation is recorded in the chain's static
    schedule (under the node's label) and run; outside, ``func.forward``
    simply runs.

    Args:
        func (~chainer.FunctionNode): The function node.
        inputs (tuple of :ref:`ndarray`): Its input arrays.

    Returns:
        tuple of :ref:`ndarray`: The output arrays of ``func.forward``.
    """
    schedule = configuration.config.schedule_func
    if schedule is None:
        return func.forward(inputs)
    return schedule.append_function(
        func.forward, (inputs,), {}, func_name=getattr(func, "label", None)
    )
