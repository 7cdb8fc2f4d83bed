"""``PrintHook``: prints each function's inputs and gradients."""

from __future__ import annotations

import sys
import warnings

from chainer import backend
from chainer import function_hook
from chainer import variable


class PrintHook(function_hook.FunctionHook):
    """Function hook that prints debug information on every function call.

    Before forward and backward of each function it prints the function's
    label and a summary (shape, dtype, mean and std) of each input array, and
    before backward also of each output gradient.

    Args:
        sep: *(deprecated since v4.0.0)* Ignored.
        end (str): Character appended to each printed line.
        file: Output file-like object.
        flush (bool): If ``True``, ``file`` is flushed after each report.

    Example:
        >>> import io
        >>> import numpy as np
        >>> import chainer
        >>> from chainer import function_hooks
        >>> out = io.StringIO()
        >>> with function_hooks.PrintHook(file=out):
        ...     y = chainer.Variable(np.ones(3, np.float32)) * 2
        >>> out.getvalue().splitlines()[1]
        'input data'
    """

    name = "PrintHook"

    def __init__(self, sep=None, end="\n", file=sys.stdout, flush=True):
        if sep is not None:
            warnings.warn(
                "sep argument in chainer.function_hooks.PrintHook is deprecated.",
                DeprecationWarning,
            )
        if not hasattr(file, "write"):
            raise TypeError(
                f"file must be a writable file-like object, not {type(file).__name__}"
            )
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, msg):
        self.file.write(msg + self.end)

    def _process(self, function, in_data, out_grad=None):
        self._print(f"function\t{function.label}")
        self._print("input data")
        for d in in_data:
            if d is None:
                # Inputs not retained for backward are released.
                self._print("(removed)")
                continue
            self._print(variable.Variable(d).debug_print())
        if out_grad is not None:
            self._print("output gradient")
            for d in out_grad:
                if d is None:
                    self._print("(None)")
                    continue
                xp = backend.get_array_module(d)
                v = variable.Variable(xp.zeros_like(d))
                v.grad = d
                self._print(v.debug_print())
        if self.flush and hasattr(self.file, "flush"):
            self.file.flush()

    def forward_preprocess(self, function, in_data):
        """Prints the function label and its input arrays."""
        self._process(function, in_data)

    def backward_preprocess(self, function, in_data, out_grad):
        """Prints the function label, its inputs and its output gradients."""
        self._process(function, in_data, out_grad)
