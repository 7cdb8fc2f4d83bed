"""``FunctionNode``: a differentiable function node of the computational graph."""

from __future__ import annotations

import collections
import traceback
import weakref

import numpy

from chainer import _dispatch
from chainer import configuration
from chainer import function_hook
from chainer import variable as variable_module
from chainer.utils import type_check

_config = configuration.config
_Variable = variable_module.Variable
_make_variable = variable_module.Variable._make
_array_node = variable_module._array_node
_make_output = variable_module.Variable._make_output
_weakref = weakref.ref
_tc_local = type_check._thread_local
_LightTypes = type_check.LightTypeInfoTuple
_ndarray = numpy.ndarray
_fh_local = function_hook._thread_local
_cfg_local = _config._local
_cfg_global = configuration.global_config


def _as_output_array(y):
    # NumPy reductions return 0-d scalars; outputs must be arrays.
    if isinstance(y, numpy.generic):
        return numpy.asarray(y)
    if y is None:
        raise TypeError("forward returned None as an output")
    return y


# (FunctionNode subclass, backend name) -> kernel(node, inputs) or None, a view
# of chainer._dispatch's per-class cache. Empty while no kernel is registered
# (and the registry is not pending), so apply skips the lookup.
_kernel_overrides = _dispatch.kernel_cache
# node class -> {backend name: kernel}, what apply reads: one plain dict lookup
# per call, and no backend lookup for a class without kernels.
_class_kernels = _dispatch.class_kernels


def _backend_name(x) -> str:
    if type(x) is _ndarray:
        return "numpy"
    from chainer import backend

    return backend.get_device_from_array(x).name.lstrip("@").split(":")[0]


def _runs_directly(cls, *arrays):
    """Whether ``cls.apply`` on ``arrays`` would only run its forward and wrap it.

    ``cls`` is a FunctionNode class or a tuple of them (all are asked).

    So it is when no graph is recorded (``enable_backprop`` is off, as inside
    a backward pass without ``enable_double_backprop``), no debug check or
    function hook would see the call, every array is a NumPy ndarray and no
    plugin overrides the NumPy kernel of ``cls``. The backward methods of the
    primitive ops then compute their gradients on the arrays and wrap them
    with :func:`_direct_output`, which skips about 2 us of ``apply``'s
    bookkeeping per op (the input loop, the type check, the kernel and hook
    lookups) with the same results. Type checks are skipped too: the arrays
    come from a graph whose forward checked them.
    """
    for a in arrays:
        if type(a) is not _ndarray:
            return False
    local = _cfg_local.__dict__
    if local:
        if local.get("enable_backprop", _cfg_global.enable_backprop) or local.get(
            "debug", _cfg_global.debug
        ):
            return False
    elif _cfg_global.enable_backprop or _cfg_global.debug:
        return False
    if _fh_local.__dict__.get("function_hooks"):
        return False
    if _kernel_overrides:
        for c in cls if type(cls) is tuple else (cls,):
            if _overrides_numpy(c):
                return False
    return True


def _overrides_numpy(cls):
    # Whether a plugin registered a NumPy kernel for node class cls. As in
    # apply: the per-class table (a plain dict lookup; the kernel_cache[cls,
    # backend] view costs a __missing__ call each time).
    by_backend = _class_kernels.get(cls)
    if by_backend is None:
        by_backend = _dispatch.kernels_of(cls)
    return bool(by_backend) and "numpy" in by_backend


def _direct_output(y, requires_grad):
    """The Variable ``apply`` would return for the forward output ``y``."""
    if type(y) is not _ndarray:
        y = _as_output_array(y)
    return _make_variable(y, requires_grad)


def _apply_checked_pair(node, lhs, rhs):
    """``node.apply((lhs, rhs))[0]`` for two Variables, with less bookkeeping.

    For the arithmetic operators of Variable (``x * y`` and the like), whose
    node has one output and a type check that accepts two arrays of one dtype
    and shape. When both variables hold such NumPy arrays and ``apply`` would
    take its plain path (no debug mode, no function hook, no NumPy kernel
    override of the node's class), this runs ``forward`` and records the graph
    exactly as ``apply`` does, without its generic input loop and checks
    (about a third of an operator's cost); any other case goes to ``apply``.
    The graph recording is ``FunctionNode._record_graph`` written out for two
    inputs and one output (a call and its loops cost 10 % of an operator):
    keep the three in step. (Sharing the single-output part with
    :func:`_apply_unchecked` through a helper measured 650 more instructions
    per operator forward, 2.7 %.)
    """
    a = lhs._data
    b = rhs._data
    if (
        type(a) is _ndarray
        and type(b) is _ndarray
        and a.dtype is b.dtype
        and a.shape == b.shape
    ):
        backprop = _plain_backprop(node)
        if backprop is not None:
            y = node.forward((a, b))[0]
            if type(y) is not _ndarray:
                y = _as_output_array(y)
            requires_grad = lhs._requires_grad or rhs._requires_grad
            if not backprop:
                return _make_variable(y, requires_grad)
            ln = lhs._node
            rn = rhs._node
            node.inputs = (ln, rn)
            rank = ln.rank
            if rn.rank > rank:
                rank = rn.rank
            node.rank = rank
            out = _make_output(y, node, rank + 1)
            node.outputs = (_weakref(out._node),)
            if node._input_indexes_to_retain is not None:
                for i in node._input_indexes_to_retain:
                    if i:
                        rn.data = b
                    else:
                        ln.data = a
            if node._output_indexes_to_retain is not None:
                out._node.data = y
                node._retained_output_data = (y,)
            if not requires_grad:
                out._requires_grad = out._node._requires_grad = False
            return out
    return node.apply((lhs, rhs))[0]


def _apply_unchecked(node, x):
    """``node.apply((x,))[0]`` for one Variable, with less bookkeeping.

    For nodes with one output whose type check accepts any single input (the
    Variable-and-constant operators, ``x * 0.5``); see
    :func:`_apply_checked_pair`.
    """
    a = x._data
    if type(a) is _ndarray:
        backprop = _plain_backprop(node)
        if backprop is not None:
            y = node.forward((a,))[0]
            if type(y) is not _ndarray:
                y = _as_output_array(y)
            if not backprop:
                return _make_variable(y, x._requires_grad)
            xn = x._node
            node.inputs = (xn,)
            rank = node.rank = xn.rank
            out = _make_output(y, node, rank + 1)
            node.outputs = (_weakref(out._node),)
            if node._input_indexes_to_retain is not None:
                xn.data = a
            if node._output_indexes_to_retain is not None:
                out._node.data = y
                node._retained_output_data = (y,)
            if not x._requires_grad:
                out._requires_grad = out._node._requires_grad = False
            return out
    return node.apply((x,))[0]


def _plain_backprop(node):
    # enable_backprop when apply would take its plain path for node on NumPy
    # arrays (no debug mode, no function hook, no NumPy kernel override of
    # its class), else None.
    local = _cfg_local.__dict__
    if local:
        if local.get("debug", _cfg_global.debug):
            return None
        backprop = local.get("enable_backprop", _cfg_global.enable_backprop)
    elif _cfg_global.debug:
        return None
    else:
        backprop = _cfg_global.enable_backprop
    if _fh_local.__dict__.get("function_hooks"):
        return None
    if _kernel_overrides:
        # _overrides_numpy(type(node)) written out: a call is 2 % of an op.
        by_backend = _class_kernels.get(type(node))
        if by_backend is None:
            by_backend = _dispatch.kernels_of(type(node))
        if by_backend and "numpy" in by_backend:
            return None
    return backprop


def _grads_of_targets(func, gxs, target_indexes):
    # backward may return one gradient per input instead of one per target.
    if len(gxs) == len(func.inputs):
        return tuple(map(gxs.__getitem__, target_indexes))
    raise ValueError(
        f"number of gradients returned by {func.label}.backward is "
        f"incorrect: {len(gxs)} (expected {len(target_indexes)} or "
        f"{len(func.inputs)})"
    )


class FunctionNode:
    """Function node of the computational graph (Chainer 7 semantics).

    Subclasses implement :meth:`forward` on arrays and :meth:`backward` on
    Variables, so the backward computation is itself differentiable (double
    backprop). Call :meth:`apply` to run the function on Variables or arrays.

    Attributes:
        inputs (tuple of VariableNode): Input nodes (set by :meth:`apply`
            when a graph is built).
        outputs (tuple of weakref to VariableNode): Output nodes.
        rank (int): Topological ordinal used by backprop.
    """

    inputs = None
    outputs = None
    rank = 0
    stack = None
    lazy_grad_sum = False
    _input_indexes_to_retain = None
    _output_indexes_to_retain = None
    _retained_output_data = None
    _local_function_hooks = None
    _is_chainerx_fallback_mode = False

    # -- metadata ---------------------------------------------------------
    @property
    def local_function_hooks(self):
        """Ordered dict of hooks registered on this node only."""
        if self._local_function_hooks is None:
            self._local_function_hooks = collections.OrderedDict()
        return self._local_function_hooks

    @property
    def label(self) -> str:
        """Short name of the function (its class name by default)."""
        return type(self).__name__

    @property
    def output_data(self):
        """Tuple of retained output arrays (None for outputs not retained)."""
        data = self._retained_output_data
        if data is None:
            raise RuntimeError(
                "retained output data is gone: call retain_outputs in forward"
            )
        n_outputs = len(self.outputs)
        if n_outputs == 1 == len(data):
            # One output, retained (the common case, read by backward).
            return data
        out_data = [None] * n_outputs
        for index, array in zip(self._output_indexes_to_retain, data, strict=True):
            out_data[index] = array
        return tuple(out_data)

    @property
    def chainerx_device(self):
        """ChainerX device; always None (ChainerX is not supported)."""
        return None

    @property
    def input_layouts(self):
        return (None,) * len(self.inputs or ())

    @property
    def output_layouts(self):
        return (None,) * len(self.outputs or ())

    # -- application ------------------------------------------------------
    def apply(self, inputs):
        """Computes output variables and grows the computational graph.

        Args:
            inputs: Tuple of input :class:`~chainer.Variable` or arrays.

        Returns:
            tuple of Variable: The outputs. If backprop is enabled, this node
            becomes their creator (even if no input requires a gradient); they
            require a gradient if some input does.
        """
        # Phases: unpack inputs, check types, forward, record the graph; what
        # most calls need runs inline, the rest in the methods named below.
        input_nodes = []
        in_data = []
        requires_grad = False
        foreign = False  # any input that is not a plain NumPy array
        for x in inputs:
            if isinstance(x, _Variable):
                input_nodes.append(x._node)
                data = x._data
                if x._requires_grad:
                    requires_grad = True
            elif x is None or type(x) is _ndarray:
                # A plain NumPy array (labels, constants) gets a graph node
                # only: the Variable that would wrap it dies with this call
                # anyway. None (an absent gradient given to a gradient
                # function) reaches forward as None.
                input_nodes.append(_array_node(x))
                data = x
            else:
                v = variable_module.as_variable(x)
                input_nodes.append(v._node)
                data = v._data
            if type(data) is not _ndarray:
                foreign = True
            in_data.append(data)
        in_data = tuple(in_data)
        # The three flags, read straight from the thread-local dict with the
        # global values as fallback: this runs for every op.
        local = _cfg_local.__dict__
        if local:
            type_check_on = local.get("type_check", _cfg_global.type_check)
            enable_backprop = local.get("enable_backprop", _cfg_global.enable_backprop)
            debug = local.get("debug", _cfg_global.debug)
        else:
            type_check_on = _cfg_global.type_check
            enable_backprop = _cfg_global.enable_backprop
            debug = _cfg_global.debug

        check = type(self).check_type_forward
        if type_check_on and check is not _no_type_check:
            # The check's own predicate may vouch for the inputs (see
            # type_check.fast_path); else it runs in light mode.
            fast = getattr(check, "_fast_type_check", None)
            if fast is None or not fast(self, in_data):
                in_data = self._check_types(in_data, foreign)
                foreign = False  # _check_types has checked the devices
        if foreign:
            self._check_devices(in_data)

        hooks = _fh_local.__dict__.get("function_hooks")
        if self._local_function_hooks:
            hooks = collections.OrderedDict(hooks or ())
            hooks.update(self._local_function_hooks)
        if hooks:
            for hook in hooks.values():
                hook.forward_preprocess(self, in_data)
        kernel = None
        if _kernel_overrides and in_data:
            by_backend = _class_kernels.get(type(self))
            if by_backend is None:
                by_backend = _dispatch.kernels_of(type(self))
            if by_backend:
                x0 = in_data[0]
                kernel = by_backend.get(
                    "numpy" if type(x0) is _ndarray else _backend_name(x0)
                )
        outputs = self.forward(in_data) if kernel is None else kernel(self, in_data)
        if type(outputs) is not tuple:
            outputs = self._output_tuple(outputs)
        for y in outputs:
            if type(y) is not _ndarray:
                outputs = tuple(map(_as_output_array, outputs))
                break
        if debug:
            self._check_nan("forward", outputs)
        if hooks:
            for hook in hooks.values():
                hook.forward_postprocess(self, in_data)

        if enable_backprop:
            return self._record_graph(
                input_nodes, in_data, outputs, requires_grad, debug
            )
        if len(outputs) == 1:
            return (_make_variable(outputs[0], requires_grad),)
        return tuple([_make_variable(y, requires_grad) for y in outputs])

    def _check_types(self, in_data, foreign):
        # Light mode (see type_check.LightMode), inlined through the
        # thread-local dict: the light type infos of NumPy arrays are the
        # arrays themselves, so the returned tuple goes on to forward. A
        # failure re-runs the check in full mode for the Expect/Actual message.
        in_data = _LightTypes(in_data)
        if foreign:
            self._check_devices(in_data)
        tc_local = _tc_local.__dict__
        prev = tc_local["light_mode"]
        tc_local["light_mode"] = True
        try:
            self.check_type_forward(in_data)
        except Exception:
            tc_local["light_mode"] = prev
            self._check_data_type_full(in_data)
        else:
            tc_local["light_mode"] = prev
        return in_data

    def _output_tuple(self, outputs):
        if isinstance(outputs, tuple):  # e.g. forward returned its inputs
            return tuple(outputs)
        raise TypeError(
            f"{self.label}.forward must return a tuple of arrays, "
            f"got {type(outputs).__name__}"
        )

    def _record_graph(self, input_nodes, in_data, outputs, requires_grad, debug):
        # Makes this node the creator of new output Variables.
        if len(input_nodes) == 1:
            node = input_nodes[0]
            self.inputs = (node,)
            rank = node.rank
        else:
            self.inputs = tuple(input_nodes)
            rank = 0
            for node in input_nodes:
                if node.rank > rank:
                    rank = node.rank
        self.rank = rank
        rank += 1
        if len(outputs) == 1:
            ret = (_make_output(outputs[0], self, rank),)
            self.outputs = (_weakref(ret[0]._node),)
        else:
            ret = tuple([_make_output(y, self, rank) for y in outputs])
            self.outputs = tuple([_weakref(v._node) for v in ret])
        if self._input_indexes_to_retain is not None:
            for index in self._input_indexes_to_retain:
                input_nodes[index].data = in_data[index]
        indexes = self._output_indexes_to_retain
        if indexes is not None:
            for index in indexes:
                ret[index]._node.data = outputs[index]
            self._retained_output_data = (
                (outputs[indexes[0]],)
                if len(indexes) == 1
                else tuple(map(outputs.__getitem__, indexes))
            )
        if not requires_grad:
            # As in Chainer, the graph is recorded whenever backprop is
            # enabled; outputs of inputs that need no gradient need none.
            for v in ret:
                v._requires_grad = v._node._requires_grad = False
        if debug:
            self.stack = traceback.extract_stack()
        return ret

    def _check_devices(self, in_data):
        first = None
        for x in in_data:
            t = type(x)
            if t is _ndarray or x is None:
                continue
            if first is None:
                first = t
            elif t is not first:
                break
        else:
            if first is None:
                return
        from chainer import backend

        devices = {backend.get_device_from_array(x) for x in in_data if x is not None}
        if len(devices) > 1:
            names = ", ".join(sorted(str(d) for d in devices))
            raise TypeError(
                f"{self.label}: incompatible array types or devices mixed in "
                f"the inputs: {names}"
            )

    def _check_data_type_full(self, in_data):
        # Conditions are evaluated eagerly in light mode, so checks written
        # for expressions (x_type.shape[1] on a 1-d input, .eval()) can fail
        # there; the full mode gives the documented result, and the
        # Expect/Actual message when the check really fails.
        in_types = type_check.get_types(in_data, "in_types", False)
        with type_check.get_function_check_context(self):
            self.check_type_forward(in_types)

    def _check_nan(self, where, arrays):
        from chainer import backend

        for arr in arrays:
            if arr is None or getattr(arr, "dtype", None) is None:
                continue
            if arr.dtype.kind != "f":
                continue
            xp = backend.get_array_module(arr)
            if bool(xp.isnan(arr).any()):
                raise RuntimeError(
                    f"NaN is detected on {where} computation of {self.label}"
                )
            if bool(xp.isinf(arr).any()):
                raise RuntimeError(
                    f"Inf is detected on {where} computation of {self.label}"
                )

    # -- to be overridden -------------------------------------------------
    def check_type_forward(self, in_types):
        """Checks input types with :mod:`chainer.utils.type_check` (no-op default)."""

    def check_layout_forward(self, layouts):
        """Checks memory layouts; only the standard layout exists here."""

    def forward(self, inputs):
        """Computes the outputs from input arrays.

        The default dispatches to :meth:`forward_cpu` or :meth:`forward_gpu`
        by the array module of the inputs.

        Args:
            inputs (tuple of :ref:`ndarray`): Input arrays.

        Returns:
            tuple of :ref:`ndarray`: Output arrays.
        """
        from chainer import backend

        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs):
        """Computes outputs on the CPU; override this or :meth:`forward`."""
        raise TypeError(
            f"{self.label} does not implement forward (or forward_cpu) for NumPy"
        )

    def forward_gpu(self, inputs):
        """Computes outputs on a GPU; override this or :meth:`forward`."""
        raise TypeError(
            f"{self.label} does not implement forward (or forward_gpu) for GPU arrays"
        )

    def forward_chainerx(self, inputs):
        """ChainerX forward; ChainerX is not supported, so callers get Fallback."""
        from chainer import Fallback

        return Fallback

    def backward(self, target_input_indexes, grad_outputs):
        """Computes gradients w.r.t. the inputs listed in ``target_input_indexes``.

        Args:
            target_input_indexes (tuple of int): Sorted indexes of the inputs
                that need gradients.
            grad_outputs (tuple of Variable): Gradients of the outputs (None
                for outputs without gradient).

        Returns:
            tuple of Variable: One gradient (or None) per target index, or one
            per input.
        """
        return (None,) * len(target_input_indexes)

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        """Computes gradients and adds them to ``grad_inputs``.

        Override only when fusing the accumulation pays; the default calls
        :meth:`backward` and adds.
        """
        gxs = self.backward(target_input_indexes, grad_outputs)
        if len(gxs) != len(target_input_indexes):
            gxs = _grads_of_targets(self, gxs, target_input_indexes)
        from chainer import primitive_ops

        ret = []
        for gx, g_input in zip(gxs, grad_inputs, strict=True):
            if gx is None:
                ret.append(g_input)
            elif g_input is None:
                ret.append(gx)
            else:
                ret.append(primitive_ops.add(gx, g_input))
        return tuple(ret)

    def defer_input_grad(self, index, reduce, payload):
        """Hands a contribution to a leaf input's gradient to the end of the pass.

        For :meth:`backward_accumulate` overrides of nodes whose input is a
        leaf used many times in one graph (a weight shared by the time steps
        of an RNN): instead of the gradient, the node gives what it is made
        of. At the end of the backward pass, ``reduce`` gets the payloads of
        all the contributions to that leaf and returns their total as one
        array (for a linear layer, one large GEMM instead of one small one per
        time step), which is added to the leaf's ``grad``.

        Args:
            index (int): Which input of this node the contribution is for.
            reduce (callable): ``reduce(payloads) -> array``; the same object
                for every contribution that is to be reduced together.
            payload: What this contribution is made of.

        Returns:
            bool: False if nothing was deferred (not inside a plain backward
            pass, e.g. in ``chainer.grad`` or with double backprop, or the
            input is not a leaf): the caller computes the gradient itself.
        """
        from chainer import _backprop

        return _backprop.defer_leaf_grad(self.inputs[index], reduce, payload)

    def retain_inputs(self, indexes):
        """Lets specified inputs be kept for backward (call inside forward).

        Args:
            indexes (tuple of int): Indexes of inputs to retain.
        """
        self._input_indexes_to_retain = (
            indexes if type(indexes) is tuple else tuple(indexes)
        )

    def retain_outputs(self, indexes):
        """Lets specified outputs be kept for backward (call inside forward).

        Args:
            indexes (tuple of int): Indexes of outputs to retain.
        """
        self._output_indexes_to_retain = (
            indexes if type(indexes) is tuple else tuple(indexes)
        )

    def get_retained_inputs(self):
        """Returns the retained inputs as a tuple of Variables.

        A retained input that had no array (a None input) is None.
        """
        if self._input_indexes_to_retain is None or self.inputs is None:
            return ()
        inputs = self.inputs
        return tuple(
            None if inputs[i].data is None else inputs[i].get_variable()
            for i in self._input_indexes_to_retain
        )

    def get_retained_outputs(self):
        """Returns the retained outputs as a tuple of Variables.

        An output whose Variable was dropped is recreated from the retained
        array and re-linked to this node, so gradients still flow.
        """
        indexes = self._output_indexes_to_retain
        if indexes is None or self.outputs is None:
            return ()
        ret = []
        outputs = list(self.outputs)
        for index, data in zip(indexes, self._retained_output_data, strict=True):
            node = outputs[index]()
            if node is None:
                var = _make_variable(data, True)
                var._node._creator_node = self
                var._node.rank = self.rank + 1
                var._node.data = data
                outputs[index] = weakref.ref(var._node)
            else:
                var = node.get_variable()
            ret.append(var)
        self.outputs = tuple(outputs)
        return tuple(ret)

    def is_elementwise(self) -> bool:
        """Whether the function is elementwise (used by optimizations)."""
        return False

    # -- graph surgery and hooks -----------------------------------------
    def unchain(self):
        """Purges in/out nodes and this node itself from the graph."""
        if self.outputs is not None:
            for ref in self.outputs:
                node = ref()
                if node is not None:
                    node.unchain()
        self.inputs = None
        self.outputs = None

    def add_hook(self, hook, name=None):
        """Registers a function hook on this node.

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
        if name not in self.local_function_hooks:
            raise KeyError(f"Hook {name} does not exist")
        self.local_function_hooks[name].deleted(self)
        del self.local_function_hooks[name]


_no_type_check = FunctionNode.check_type_forward


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    grad_inputs=None,
    set_grad=False,
    retain_grad=False,
    enable_double_backprop=False,
    loss_scale=None,
):
    """Computes the gradients of ``outputs`` w.r.t. ``inputs``.

    Unlike :meth:`Variable.backward`, the gradients are returned and the
    ``grad`` attributes of variables are left alone (unless ``set_grad``).

    Args:
        outputs (tuple or list of Variable): Outputs to differentiate.
        inputs (tuple or list of Variable): Variables to differentiate by.
        grad_outputs (tuple or list of Variable or None): Initial gradients of
            the outputs. A None entry (or None for all) is an array of ones
            shaped like that output, whatever its size.
        grad_inputs (tuple or list of Variable or None): Initial values added
            to the input gradients.
        set_grad (bool): Also store the results in ``inputs[i].grad_var``.
        retain_grad (bool): Keep intermediate gradients.
        enable_double_backprop (bool): Make the results differentiable.
        loss_scale (float): Initial-gradient scaling factor.

    Returns:
        list of Variable: Gradients w.r.t. ``inputs`` (None where unreachable).
    """
    from chainer import _backprop

    return _backprop.grad(
        outputs,
        inputs,
        grad_outputs,
        grad_inputs,
        set_grad,
        retain_grad,
        enable_double_backprop,
        loss_scale,
    )


def static_forward_optimizations(func, inputs):
    """Hook for static-graph optimizations; graphs here are always dynamic."""
    return None
