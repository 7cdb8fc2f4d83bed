"""``chainer.function_hooks.debug_print``: Chainer's module of :class:`PrintHook`.

:class:`PrintHook` prints, before the forward and the backward of every
function it watches, the function's label and a summary of each input array
(and, before backward, of each output gradient), the way
:meth:`chainer.Variable.debug_print` describes a variable.
"""

from chainer.function_hooks.print_hook import PrintHook

__all__ = ["PrintHook"]
