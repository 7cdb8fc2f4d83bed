"""Old-style ``Function`` (forward and backward on arrays) and backprop modes."""

from __future__ import annotations

import collections
import contextlib
import weakref

import numpy

from chainer import backend
from chainer import configuration
from chainer import function_hook
from chainer import function_node
from chainer import variable

FunctionHook = function_hook.FunctionHook


@contextlib.contextmanager
def no_backprop_mode():
    """Context manager that disables graph construction (``enable_backprop=False``).

    Example:
        >>> import numpy, chainer
        >>> x = chainer.Variable(numpy.ones(2, numpy.float32))
        >>> with chainer.no_backprop_mode():
        ...     y = x + 1
        >>> y.creator is None
        True
    """
    with configuration.using_config("enable_backprop", False):
        yield


@contextlib.contextmanager
def force_backprop_mode():
    """Context manager that enables graph construction even inside
    :func:`no_backprop_mode`."""
    with configuration.using_config("enable_backprop", True):
        yield


class FunctionAdapter(function_node.FunctionNode):
    """Adapts an old-style :class:`Function` to the FunctionNode interface.

    Args:
        function (Function): The wrapped function.
    """

    def __init__(self, function: Function) -> None:
        super().__init__()
        self._function = function

    @property
    def function(self) -> Function:
        """The wrapped old-style function."""
        return self._function

    @property
    def label(self) -> str:
        return self._function.label

    @property
    def _impl_name(self):
        return type(self._function).__name__

    def check_type_forward(self, in_types):
        self._function.check_type_forward(in_types)

    def forward(self, inputs):
        func = self._function
        # What the function retains is decided anew by each call's forward;
        # an old-style function keeps every input unless it says otherwise.
        func._input_indexes_to_retain = None
        func._output_indexes_to_retain = None
        outputs = func.forward(inputs)
        if not isinstance(outputs, tuple):
            raise TypeError(
                f"{self.label}.forward must return a tuple of arrays, "
                f"got {type(outputs).__name__}"
            )
        kept = func._input_indexes_to_retain
        self.retain_inputs(tuple(range(len(inputs))) if kept is None else kept)
        if func._output_indexes_to_retain is not None:
            self.retain_outputs(func._output_indexes_to_retain)
        return outputs

    def backward(self, target_input_indexes, grad_outputs):
        func = self._function
        keep = set(self._input_indexes_to_retain or ())
        in_data = [x.data if i in keep else None for i, x in enumerate(self.inputs)]
        grad_out_data = tuple(None if g is None else g._data for g in grad_outputs)
        with configuration.using_config("enable_backprop", False):
            gxs = func.backward(tuple(in_data), grad_out_data)
        if not isinstance(gxs, (tuple, list)):
            raise TypeError(
                f"{self.label}.backward must return a tuple of arrays, "
                f"got {type(gxs).__name__}"
            )
        if len(gxs) != len(self.inputs):
            raise ValueError(
                f"{self.label}.backward returned {len(gxs)} gradients for "
                f"{len(self.inputs)} inputs"
            )
        ret = []
        for i in target_input_indexes:
            gx = gxs[i]
            if gx is None:
                ret.append(None)
                continue
            if isinstance(gx, numpy.generic):
                gx = numpy.asarray(gx)
            ret.append(variable.Variable._make(gx, False))
        return tuple(ret)


class Function:
    """Old-style function whose ``forward`` and ``backward`` work on arrays.

    Override :meth:`forward` (or :meth:`forward_cpu`/:meth:`forward_gpu`) and
    :meth:`backward` (or :meth:`backward_cpu`/:meth:`backward_gpu`). Its
    backward is not differentiable; write a :class:`~chainer.FunctionNode` for
    double backprop. Calling the function on Variables runs it through a
    :class:`FunctionAdapter` node.
    """

    _input_indexes_to_retain = None
    _output_indexes_to_retain = None
    _node_ref = None

    def __call__(self, *inputs):
        node = FunctionAdapter(self)
        # Shared dict: hooks added later still see this call's backward.
        node._local_function_hooks = self.local_function_hooks
        ret = node.apply(inputs)
        # The graph (output nodes) keeps the adapter alive; holding it weakly
        # avoids a function <-> node reference cycle.
        self._node_ref = weakref.ref(node)
        return ret[0] if len(ret) == 1 else ret

    @property
    def node(self):
        """The :class:`FunctionAdapter` of the last call (None once released)."""
        ref = self._node_ref
        return None if ref is None else ref()

    @property
    def inputs(self):
        """Input Variables of the last call (retained data)."""
        node = self.node
        if node is None or node.inputs is None:
            return None
        return tuple(n.get_variable() for n in node.inputs)

    @property
    def outputs(self):
        """Weak references to the output Variables of the last call."""
        node = self.node
        if node is None or node.outputs is None:
            return None
        refs = []
        for ref in node.outputs:
            n = ref()
            var = None if n is None else n.get_variable_or_none()
            refs.append(weakref.ref(var) if var is not None else (lambda: None))
        return tuple(refs)

    @property
    def rank(self):
        node = self.node
        return 0 if node is None else node.rank

    @property
    def stack(self):
        node = self.node
        return None if node is None else node.stack

    @property
    def label(self) -> str:
        """Short name of the function (its class name by default)."""
        return type(self).__name__

    @property
    def output_data(self):
        """Retained output arrays of the last call."""
        node = self.node
        if node is None:
            raise RuntimeError("the function has not been called")
        return node.output_data

    @property
    def local_function_hooks(self):
        """Ordered dict of hooks registered on this function (all its calls)."""
        hooks = self.__dict__.get("_local_hooks")
        if hooks is None:
            hooks = self._local_hooks = collections.OrderedDict()
        return hooks

    def add_hook(self, hook, name=None):
        """Registers a function hook on this function.

        The hook observes every later call of the function (forward and
        backward).

        Args:
            hook (~chainer.FunctionHook): The hook.
            name (str): Name of the hook (default: ``hook.name``).
        """
        if not isinstance(hook, function_hook.FunctionHook):
            raise TypeError("Hook must be of type FunctionHook")
        if name is None:
            name = hook.name
        hooks = self.local_function_hooks
        if name in hooks:
            raise KeyError(f"Hook {name} already exists")
        hooks[name] = hook
        hook.added(self)

    def delete_hook(self, name):
        """Unregisters the function hook named ``name``."""
        hooks = self.local_function_hooks
        if name not in hooks:
            raise KeyError(f"Hook {name} does not exist")
        hooks[name].deleted(self)
        del hooks[name]

    def check_type_forward(self, in_types):
        """Checks input types (no-op by default)."""

    def forward(self, inputs):
        """Computes outputs from input arrays (dispatches by array module)."""
        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs):
        """Computes outputs on the CPU; override this or :meth:`forward`."""
        raise TypeError(f"{self.label} does not implement forward for NumPy arrays")

    def forward_gpu(self, inputs):
        """Computes outputs on a GPU; override this or :meth:`forward`."""
        raise TypeError(f"{self.label} does not implement forward for GPU arrays")

    def backward(self, inputs, grad_outputs):
        """Computes input gradient arrays (dispatches by array module).

        Args:
            inputs (tuple of :ref:`ndarray`): Input arrays (None for inputs not
                retained).
            grad_outputs (tuple of :ref:`ndarray`): Output gradients (None for
                outputs without gradient).

        Returns:
            tuple of :ref:`ndarray`: One gradient (or None) per input.
        """
        arrays = [a for a in inputs + tuple(grad_outputs) if a is not None]
        if backend.get_array_module(*arrays) is numpy:
            return self.backward_cpu(inputs, grad_outputs)
        return self.backward_gpu(inputs, grad_outputs)

    def backward_cpu(self, inputs, grad_outputs):
        """CPU backward; the default returns no gradients (None per input)."""
        return (None,) * len(inputs)

    def backward_gpu(self, inputs, grad_outputs):
        """GPU backward; the default returns no gradients (None per input)."""
        return (None,) * len(inputs)

    def retain_inputs(self, indexes):
        """Keeps only these inputs for backward (others are passed as None)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes, retain_after_backward=False):
        """Keeps these outputs so that backward can read ``output_data``."""
        self._output_indexes_to_retain = tuple(indexes)

    def unchain(self):
        """Purges the function's node from the graph."""
        node = self.node
        if node is not None:
            node.unchain()
