"""The backprop engine behind ``Variable.backward``, ``chainer.backward`` and
``chainer.grad``."""

from __future__ import annotations

import contextlib
import heapq
import threading
import warnings
import weakref

import numpy

from chainer import backend
from chainer import configuration
from chainer import function_hook
from chainer import function_node as function_node_module
from chainer import variable as variable_module

_config = configuration.config
_Variable = variable_module.Variable
_ndarray = numpy.ndarray
_default_accumulate = function_node_module.FunctionNode.backward_accumulate


def _add(a, b, double=None):
    if a is None:
        return b
    if b is None:
        return a
    if double is None:
        double = _config.enable_backprop
    if double and (
        a._node._creator_node
        or b._node._creator_node
        or a._requires_grad
        or b._requires_grad
    ):
        from chainer import primitive_ops

        return primitive_ops.add(a, b)
    total = a._data + b._data
    if isinstance(total, numpy.generic):  # NumPy returns scalars for 0-d sums
        total = numpy.asarray(total)
    return _Variable._make(total, False)


def _as_grad_var(func, gx):
    if type(gx) is _ndarray:
        return _Variable._make(gx, False)
    if gx is None or isinstance(gx, _Variable):
        return gx
    if not variable_module._is_array(gx):
        raise TypeError(
            f"{func.label}.backward must return Variables or arrays, got "
            f"{type(gx).__name__}"
        )
    return _Variable._make(gx, False)


def _check_grad(func, node, gx):
    data = gx._data
    if data.shape != node.shape:
        raise ValueError(
            f"shape of data and grad mismatch (function {func.label})\n"
            f"{node.shape} != {data.shape}"
        )
    if data.dtype != node.dtype:
        raise TypeError(
            f"dtype of data and grad mismatch (function {func.label})\n"
            f"{node.dtype} != {data.dtype}"
        )


def _check_grads(func, gxs, target_indexes):
    """Returns what ``func.backward`` gave as one checked Variable (or None)
    per target index; wrong counts, types, shapes and dtypes raise."""
    if type(gxs) is not tuple:
        gxs = tuple(gxs)
    if len(gxs) != len(target_indexes):
        gxs = function_node_module._grads_of_targets(func, gxs, target_indexes)
    inputs = func.inputs
    checked = []
    for i, gx in zip(target_indexes, gxs):  # noqa: B905 (count checked above)
        if gx is not None:
            if type(gx) is not _Variable:
                gx = _as_grad_var(func, gx)
            node = inputs[i]
            data = gx._data
            # (Identical dtype objects skip the rich comparison.)
            if data.shape != node.shape or (
                data.dtype is not node.dtype and data.dtype != node.dtype
            ):
                _check_grad(func, node, gx)
        checked.append(gx)
    return checked


def _backprop(outputs, grad_outputs, retain_grad, loss_scale, targets=None):
    """Propagates gradients from ``outputs`` through the graph.

    Args:
        outputs: Output Variables.
        grad_outputs: Their initial gradient Variables (None entries skipped).
        retain_grad: Keep gradients of intermediate variables.
        loss_scale: Recorded on leaf variables receiving gradients.
        targets: If given, a dict ``{node: None}`` of nodes whose total
            gradients are collected into it (and leaf ``grad``s are left
            alone); else leaf gradients are accumulated into ``grad_var``.
    """
    summed = {}  # leaf gradients this pass allocated as sums
    # Contributions to leaf gradients that nodes chose to defer to the end of
    # a plain backward pass (see defer_leaf_grad).
    deferred = None
    if targets is None and not _config.enable_backprop:
        deferred = _Deferred(summed, loss_scale)
    prev = _pass_local.deferred
    _pass_local.deferred = deferred
    try:
        _propagate(outputs, grad_outputs, retain_grad, loss_scale, targets, summed)
        if deferred is not None:
            deferred.finish()
    finally:
        _pass_local.deferred = prev


def _propagate(outputs, grad_outputs, retain_grad, loss_scale, targets, summed):
    # Phases per node: take the output gradients, run backward (the common
    # node inline, the rest in _backward_node), route the input gradients.
    grads = {}  # node -> accumulated gradient Variable of non-leaf nodes
    owned = {}  # arrays held by leaves or outputs: see _leaf_grad
    seen = set()  # creators ever scheduled
    # Nodes run by rank, highest first, then in the order they became ready:
    # the outputs' creators from `starts` (see _seed), later ones from `heap`,
    # except that a node ready while nothing else waits skips the heap in
    # `ready` (a chain of ops never touches the heap).
    starts = _seed(outputs, grad_outputs, grads, owned, seen, targets)
    heap = []
    ready = None
    counter = len(starts)
    global_hooks = function_hook._thread_local.__dict__.get("function_hooks")
    debug = _config.debug
    double = _config.enable_backprop
    plain = not (global_hooks or debug)
    while heap or ready is not None or starts:
        if ready is not None:
            func = ready
            ready = None
        elif starts and (not heap or starts[-1] < heap[0]):
            func = starts.pop()[2]
        else:
            func = heapq.heappop(heap)[2]

        refs = func.outputs
        if len(refs) == 1:
            n = refs[0]()
            g = None if n is None else grads.pop(n, None)
            if g is None:
                continue
            if retain_grad:
                _retain(n, g)
            out_grads = (g,)
        else:
            out_grads = _take_grads(refs, grads, retain_grad)
            if out_grads is None:
                continue

        inputs = func.inputs
        if len(inputs) == 1:
            target_indexes = _FIRST if inputs[0]._requires_grad else ()
        elif len(inputs) == 2:
            target_indexes = _OF_TWO[
                inputs[0]._requires_grad + 2 * inputs[1]._requires_grad
            ]
        else:
            target_indexes = tuple(
                [i for i, x in enumerate(inputs) if x._requires_grad]
            )
        if not target_indexes:
            continue
        try:
            if (
                plain
                and not func._local_function_hooks
                and type(func).backward_accumulate is _default_accumulate
            ):
                # The fast path: no hooks, no debug checks, plain backward. A
                # tuple of one gradient per target, each a Variable of its
                # input's shape and dtype (or None), needs no more checks;
                # all else gets them.
                accumulate = False
                gxs = func.backward(target_indexes, out_grads)
                if type(gxs) is not tuple or len(gxs) != len(target_indexes):
                    gxs = _check_grads(func, gxs, target_indexes)
                else:
                    for i, gx in zip(target_indexes, gxs):  # noqa: B905
                        if gx is not None and (
                            type(gx) is not _Variable
                            or gx._data.shape != inputs[i].shape
                            or gx._data.dtype is not inputs[i].dtype
                        ):
                            gxs = _check_grads(func, gxs, target_indexes)
                            break
            else:
                accumulate = type(func).backward_accumulate is not _default_accumulate
                gxs = _backward_node(
                    func,
                    target_indexes,
                    out_grads,
                    accumulate,
                    grads,
                    targets,
                    global_hooks,
                    debug,
                )
        except Exception as e:
            _add_call_site(e, func)
            raise
        del out_grads

        for i, gx in zip(target_indexes, gxs):  # noqa: B905 (counts checked)
            if gx is None:
                continue
            node = inputs[i]
            creator = node._creator_node
            if creator is None:
                if targets is None:
                    _to_leaf(node, gx, accumulate, owned, summed, loss_scale, double)
                elif node in targets:
                    _to_target(targets, node, gx, accumulate, double)
                continue
            if targets is not None and node in targets:
                _to_target(targets, node, gx, accumulate, double)
            old = None if accumulate and targets is None else grads.get(node)
            grads[node] = gx if old is None else _add(old, gx, double)
            if creator in seen:
                continue
            seen.add(creator)
            if ready is None and not heap and not starts:
                ready = creator
            else:
                counter = _push(heap, counter, ready, creator)
                ready = None


_FIRST = (0,)
# Target indexes of a two-input node by requires_grad of input 0 + 2 * input 1.
_OF_TWO = ((), _FIRST, (1,), (0, 1))


def _push(heap, counter, ready, creator):
    # Both wait in the heap now (see _propagate); returns the next counter.
    if ready is not None:
        heapq.heappush(heap, (-ready.rank, counter, ready))
        counter += 1
    heapq.heappush(heap, (-creator.rank, counter, creator))
    return counter + 1


def _add_call_site(e, func):
    # In debug mode a node keeps the stack of its creation.
    if func.stack is not None:
        where = "".join(func.stack.format()[-6:-1])
        e.add_note(f"(function {func.label} was called at:\n{where})")


def _seed(outputs, grad_outputs, grads, owned, seen, targets):
    """Puts the outputs' initial gradients in place; returns their creators.

    The creators come as ``(-rank, order, node)`` sorted so that the first
    one to run is the last item.
    """
    starts = []
    for y, gy in zip(outputs, grad_outputs, strict=True):
        if gy is None:
            continue
        _own(owned, gy._data)
        node = y._node
        if targets is not None and node in targets:
            targets[node] = _add(targets[node], gy)
        creator = node._creator_node
        if creator is None:
            if targets is None and gy is not y._grad_var:
                # A leaf among the outputs receives its upstream gradient.
                y._grad_var = _add(y._grad_var, gy)
            continue
        old = grads.get(node)
        grads[node] = gy if old is None else _add(old, gy)
        if creator not in seen:
            seen.add(creator)
            starts.append((-creator.rank, len(starts), creator))
    starts.sort(reverse=True)
    return starts


def _retain(node, g):
    # retain_grad: an intermediate variable keeps the gradient it received.
    var = node._variable()
    if var is not None:
        var._grad_var = g


def _take_grads(outputs, grads, retain_grad):
    """Takes a node's output gradients out of ``grads`` (None if it has none)."""
    out_grads = []
    any_grad = False
    for ref in outputs:
        n = ref()
        g = None if n is None else grads.pop(n, None)
        if g is not None:
            any_grad = True
            if retain_grad:
                _retain(n, g)
        out_grads.append(g)
    return tuple(out_grads) if any_grad else None


def _backward_node(
    func, target_indexes, out_grads, accumulate, grads, targets, global_hooks, debug
):
    """Runs the backward of a node with hooks, debug checks or its own
    ``backward_accumulate``; returns the checked gradients of the targets."""
    hooks = list(global_hooks.values()) if global_hooks else []
    if func._local_function_hooks:
        hooks.extend(func._local_function_hooks.values())
    if hooks:
        in_data = tuple(x.data for x in func.inputs)
        out_grad_data = tuple(None if g is None else g._data for g in out_grads)
        for hook in hooks:
            hook.backward_preprocess(func, in_data, out_grad_data)
    if accumulate:
        in_grads = tuple(
            [_current_grad(func.inputs[i], grads, targets) for i in target_indexes]
        )
        gxs = func.backward_accumulate(target_indexes, out_grads, in_grads)
    else:
        gxs = func.backward(target_indexes, out_grads)
    gxs = _check_grads(func, gxs, target_indexes)
    if hooks:
        for hook in hooks:
            hook.backward_postprocess(func, in_data, out_grad_data)
    if debug:
        func._check_nan("backward", [gx._data for gx in gxs if gx is not None])
    return gxs


def _to_target(targets, node, gx, accumulate, double):
    # chainer.grad collects the total gradient of each of its inputs.
    targets[node] = gx if accumulate else _add(targets[node], gx, double)


def _to_leaf(node, gx, accumulate, owned, summed, loss_scale, double):
    """Adds ``gx`` to the ``grad_var`` of the leaf variable of ``node``."""
    var = node._variable()
    if var is None:
        return
    var._loss_scale = loss_scale
    old = var._grad_var
    if accumulate and old is not None and gx._data is old._data:
        # backward_accumulate added into the leaf's own array.
        var._grad_var = gx
    elif old is None or accumulate:
        var._grad_var = _leaf_grad(gx, owned, double)
    else:
        _add_to_leaf(var, old, gx, summed, double)


class _PassLocal(threading.local):
    deferred = None


_pass_local = _PassLocal()


class _Deferred:
    """Leaf-gradient contributions deferred to the end of one backward pass."""

    def __init__(self, summed, loss_scale):
        self._summed = summed
        self._loss_scale = loss_scale
        self._entries = {}  # (node, reduce) -> payloads

    def add(self, node, reduce, payload):
        key = (node, reduce)
        payloads = self._entries.get(key)
        if payloads is None:
            self._entries[key] = [payload]
        else:
            payloads.append(payload)

    def finish(self):
        entries, self._entries = self._entries, {}
        for (node, reduce), payloads in entries.items():
            var = node._variable()
            if var is None:
                continue
            total = _Variable._make(reduce(payloads), False)
            var._loss_scale = self._loss_scale
            old = var._grad_var
            if old is None:
                var._grad_var = total
                _own(self._summed, total._data)
            else:
                _add_to_leaf(var, old, total, self._summed, False)


def defer_leaf_grad(node, reduce, payload):
    """Defers a contribution to the gradient of a leaf to the end of the pass.

    A node whose input is a leaf used many times in one graph (a weight shared
    by the time steps of an RNN) can hand over what its gradient is made of
    instead of the gradient: at the end of the backward pass, ``reduce`` gets
    the payloads of all the contributions to that leaf and returns their total
    as one array (for a linear layer, one large GEMM instead of one small one
    per time step). The total is added to the leaf's ``grad``.

    Args:
        node (VariableNode): The leaf's node (it must have no creator).
        reduce (callable): ``reduce(payloads) -> array``; the same object for
            every contribution that is to be reduced together.
        payload: What this contribution is made of.

    Returns:
        bool: False if nothing was deferred (not inside a plain backward pass,
        e.g. in ``chainer.grad`` or with double backprop, or the node is not a
        leaf): the caller computes its gradient itself.
    """
    deferred = _pass_local.deferred
    if deferred is None or node._creator_node is not None:
        return False
    deferred.add(node, reduce, payload)
    return True


def _leaf_grad(gx, owned, double):
    """Returns the gradient to store on a leaf, copied where sharing would hurt.

    Outside double backprop, a gradient array is copied when another leaf (or an output)
    already holds the same array, e.g. both inputs of ``a + b``, so in-place
    updates of one gradient never change another. Strided views (through
    transposes) are stored C-contiguous: optimizers' elementwise updates run
    about twice as fast on them.
    """
    if double and (gx._requires_grad or gx._node._creator_node is not None):
        return gx  # part of a double-backprop graph: keep its identity
    data = gx._data
    if _holds(owned, data):
        data = data.copy()
    elif data.ndim > 1 and not data.flags.c_contiguous:
        data = backend.get_array_module(data).ascontiguousarray(data)
    else:
        _own(owned, data)
        return gx
    _own(owned, data)
    return _Variable._make(data, False)


def _holds(owned, data):
    ref = owned.get(id(data))
    return ref is not None and ref() is data


def _add_to_leaf(var, old, gx, summed, double):
    # A sum this pass made for this leaf alone (a weight shared by many time
    # steps) takes further contributions in place instead of a new array
    # each; gradients reaching here have the leaf's shape and dtype.
    if not double and _holds(summed, old._data):
        old._data += gx._data
        return
    var._grad_var = _add(old, gx, double)
    if not double:
        _own(summed, var._grad_var._data)


def _own(owned, data):
    # Weak references: an id alone could be reused by a new array once the
    # old one is freed, and that array would then be copied for nothing.
    try:
        owned[id(data)] = weakref.ref(data)
    except TypeError:  # an array type without weak references stays alive
        owned[id(data)] = lambda: data


def _current_grad(node, grads, targets):
    if targets is not None:
        return targets.get(node) if node in targets else grads.get(node)
    if node._creator_node is None:
        var = node._variable()
        return None if var is None else var._grad_var
    return grads.get(node)


def _initial_grad(y, loss_scale):
    gv = y._grad_var
    if gv is None:
        if y._data is None:
            raise ValueError("cannot run backward from a variable without data")
        # An empty variable (ChainerMN's delegate variables) has an empty
        # initial gradient: nothing to choose.
        if y._data.size > 1:
            return None
        xp = y.xp
        g = xp.ones_like(y._data)
        if loss_scale is not None:
            g *= loss_scale
        gv = _Variable._make(g, False)
        y._grad_var = gv
    return gv


@contextlib.contextmanager
def _backward_mode(enable_double_backprop):
    # Ops applied inside backward get their inputs from the graph itself
    # (checked shapes and dtypes), so their type checks are skipped.
    with (
        configuration.using_config("enable_backprop", enable_double_backprop),
        configuration.using_config("type_check", False),
    ):
        yield


def backward_from_variable(y, retain_grad, enable_double_backprop, loss_scale):
    if y._node._creator_node is None:
        return
    gy = _initial_grad(y, loss_scale)
    if gy is None:
        # As in Chainer: a variable of several elements without a gradient
        # has nothing to propagate.
        return
    with _backward_mode(enable_double_backprop):
        _backprop([y], [gy], retain_grad, loss_scale)


def backward(outputs, grad_outputs=None, **kwargs):
    """Runs backprop from several output variables at once.

    Unlike :meth:`Variable.backward`, it never makes up an initial gradient:
    an output without one is skipped.

    Args:
        outputs (tuple or list of Variable): Output variables.
        grad_outputs (tuple or list of Variable or None): Their gradients
            (a None entry skips that output). If None, each output's
            ``grad_var`` is taken (and cleared from the output); an output
            without one, or given twice, is skipped with a ``RuntimeWarning``.
        enable_double_backprop (bool): Keyword only; build the backward graph.
    """
    enable_double_backprop = kwargs.pop("enable_double_backprop", False)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {sorted(kwargs)}")
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(
            f"outputs must be a tuple or a list, not {type(outputs).__name__}"
        )
    for y in outputs:
        if not isinstance(y, _Variable):
            raise TypeError(f"each output must be a Variable, not {type(y).__name__}")
    if grad_outputs is None:
        grad_outputs = []
        for y in outputs:
            gv = y._grad_var
            if gv is None:
                warnings.warn(
                    "outputs contains a Variable without grad, or duplicate "
                    "outputs; it is skipped: chainer.backward does not set a "
                    "default grad",
                    RuntimeWarning,
                    stacklevel=2,
                )
            # Taken from the output, so a duplicate finds none.
            y._grad_var = None
            grad_outputs.append(gv)
    elif not isinstance(grad_outputs, (tuple, list)):
        raise TypeError(
            "grad_outputs must be None, a tuple or a list, "
            f"not {type(grad_outputs).__name__}"
        )
    elif len(grad_outputs) != len(outputs):
        raise ValueError(
            "grad_outputs must be of the same length as outputs: "
            f"{len(grad_outputs)} != {len(outputs)}"
        )
    ys = []
    gys = []
    for y, gy in zip(outputs, grad_outputs, strict=True):
        if gy is None:
            continue
        if not isinstance(gy, _Variable):
            gy = _Variable._make(gy, False)
        ys.append(y)
        gys.append(gy)
    if not ys:
        return
    with _backward_mode(enable_double_backprop):
        _backprop(ys, gys, False, None)


def grad(
    outputs,
    inputs,
    grad_outputs,
    grad_inputs,
    set_grad,
    retain_grad,
    enable_double_backprop,
    loss_scale,
):
    for name, seq in (("outputs", outputs), ("inputs", inputs)):
        if not isinstance(seq, (tuple, list)):
            raise TypeError(f"{name} must be a tuple or a list, not {type(seq)}")
        for v in seq:
            if not isinstance(v, _Variable):
                raise TypeError(f"each of {name} must be a Variable")
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError("grad_outputs must be of the same length as outputs")
    if grad_inputs is not None and len(grad_inputs) != len(inputs):
        raise ValueError("grad_inputs must be of the same length as inputs")
    gys = []
    for y, gy in zip(outputs, grad_outputs, strict=True):
        if gy is None:
            # Unlike Variable.backward, any output is seeded with ones.
            g = y.xp.ones_like(y._data)
            if loss_scale is not None:
                g *= loss_scale
            gy = _Variable._make(g, False)
        elif not isinstance(gy, _Variable):
            gy = _Variable._make(gy, False)
        gys.append(gy)
    targets = {x._node: None for x in inputs}
    if grad_inputs is not None:
        for x, gx in zip(inputs, grad_inputs, strict=True):
            if gx is not None and not isinstance(gx, _Variable):
                gx = _Variable._make(gx, False)
            targets[x._node] = _add(targets[x._node], gx)
    with _backward_mode(enable_double_backprop):
        _backprop(list(outputs), gys, retain_grad, loss_scale, targets)
    ret = [targets[x._node] for x in inputs]
    if set_grad:
        for x, gx in zip(inputs, ret, strict=True):
            x._grad_var = gx
    return ret
