"""Gradient bookkeeping of one backprop step (``chainer._backprop_utils``).

Chainer's backprop keeps, for each input node of a function, a *list* of
gradient Variables: with eager summation the list holds at most one entry,
with ``chainer.config.lazy_grad_sum`` the entries are summed only when the
gradient is needed. :func:`backprop_step` runs a function's backward and
appends the results; libraries that drive backprop themselves use it.
(``Variable.backward`` and ``chainer.grad`` here run their own, faster loop
in :mod:`chainer._backprop` with the same semantics.)
"""

from __future__ import annotations

import shutil
import traceback

from chainer import variable


def _reduce(grad_list):
    # Sums the list in place to one entry and returns it (None if empty).
    if not grad_list:
        return None
    if len(grad_list) >= 2:
        from chainer import primitive_ops

        grad_list[:] = [primitive_ops.add(*grad_list)]
    return grad_list[0]


def _pure(grad):
    return [] if grad is None else [grad]


def _pop_or_none(grad_list):
    return grad_list.pop() if grad_list else None


def _grad_var_from_alive_node(node):
    # The gradient of the node's variable (taken from it), if it is alive.
    var = node.get_variable_or_none()
    if var is None:
        return None
    gv = var.grad_var
    var.grad_var = None
    return gv


class GradTable:
    """Maps nodes to lists of gradient Variables during backprop.

    Args:
        accumulate_grad_inputs (bool): If True, a leaf node seen for the first
            time starts from the gradient its variable already holds.
    """

    def __init__(self, accumulate_grad_inputs=False):
        self.grads = {}
        self._load_if_new = accumulate_grad_inputs

    def __setitem__(self, node, grad):
        assert node is not None
        self.grads[node] = _pure(grad)

    def accumulate(self, node, grad):
        """Appends ``grad`` to the list of ``node``."""
        self.get_as_list(node).append(grad)

    def get_as_list(self, node):
        """Returns the (mutable) list of gradients of ``node``."""
        assert node is not None
        grads = self.grads
        if node not in grads:
            if self._load_if_new and node.creator_node is None:
                grads[node] = _pure(node.grad_var)
            else:
                grads[node] = []
        return grads[node]

    def pop(self, node):
        """Removes ``node`` and returns its summed gradient (or None)."""
        if node is None:
            return None
        grads = self.grads
        if node in grads:
            return _reduce(grads.pop(node))
        if self._load_if_new:
            return node.grad_var
        return None

    def assert_no_grads(self):
        """Asserts that every list is empty."""
        for gx in self.grads.values():
            assert gx == []


def _error(func, message):
    return f"{message} (function {func.label})"


def _check_count(func, gxs, target_input_indexes):
    n_inputs = len(func.inputs)
    if len(gxs) == n_inputs:
        return tuple(gxs[i] for i in target_input_indexes)
    if len(gxs) == len(target_input_indexes):
        return tuple(gxs)
    msg = "number of gradients returned from backward is incorrect: "
    if n_inputs == len(target_input_indexes):
        msg += f"{len(gxs)} != expected {n_inputs}"
    else:
        msg += f"{len(gxs)} != expected {n_inputs} or {len(target_input_indexes)}"
    raise ValueError(_error(func, msg))


def _check_grad(func, i, gx, node_x, g_input_list):
    if gx.shape != node_x.shape:
        raise ValueError(
            _error(
                func,
                "shape of gradients returned from backward is incorrect: "
                f"input-index={i}, actual {gx.shape} != expected {node_x.shape}",
            )
        )
    if g_input_list:
        g_input = g_input_list[0]
        if gx.shape != g_input.shape:
            raise ValueError(
                _error(
                    func,
                    "shape of gradients returned from backward is incorrect: "
                    f"input-index={i}, actual {gx.shape} != expected "
                    f"{g_input.shape}",
                )
            )
        if gx.dtype != g_input.dtype:
            raise ValueError(
                _error(
                    func,
                    "dtype of gradients returned from backward is incorrect: "
                    f"input-index={i}, actual {gx.dtype} != expected "
                    f"{g_input.dtype}",
                )
            )


def backprop_step(func, target_input_indexes, grad_outputs, grad_inputs, is_debug):
    """Runs the backward of one FunctionNode and collects the input gradients.

    Args:
        func (~chainer.FunctionNode): The function whose backward runs.
        target_input_indexes (tuple of int): Sorted indexes of the inputs that
            need gradients (at least one).
        grad_outputs (tuple of Variable): Gradients w.r.t. the outputs (None
            where not given).
        grad_inputs (dict): Maps each input node of ``func`` to the list of
            its gradient Variables so far; the new gradients are appended
            (and summed unless ``func.lazy_grad_sum``).
        is_debug (bool): Whether to check types, shapes and NaNs.
    """
    from chainer import function_node

    if is_debug:
        assert isinstance(target_input_indexes, tuple)
        assert target_input_indexes == tuple(sorted(target_input_indexes))
        assert isinstance(grad_outputs, tuple)
    default_accumulate = function_node.FunctionNode.backward_accumulate
    if type(func).backward_accumulate is not default_accumulate:
        grad_inputs_tuple = tuple(
            _pop_or_none(grad_inputs[func.inputs[i]]) for i in target_input_indexes
        )
        try:
            gxs = func.backward_accumulate(
                target_input_indexes, grad_outputs, grad_inputs_tuple
            )
        except Exception as e:
            _reraise_with_stack(func, e)
    else:
        try:
            gxs = func.backward(target_input_indexes, grad_outputs)
        except Exception as e:
            _reraise_with_stack(func, e)
        if is_debug:
            for gx in gxs:
                if not (gx is None or isinstance(gx, variable.Variable)):
                    raise ValueError(
                        _error(
                            func,
                            "type of gradients returned from backward is "
                            f"incorrect: {type(gx)} != expected "
                            f"{variable.Variable}",
                        )
                    )
        gxs = _check_count(func, gxs, target_input_indexes)

    for i, gx in zip(target_input_indexes, gxs, strict=True):
        if gx is None or gx.raw_array is None:
            continue
        node_x = func.inputs[i]
        g_input_list = grad_inputs[node_x]
        if is_debug:
            _check_grad(func, i, gx, node_x, g_input_list)
        g_input_list.append(gx)
    del gxs

    if is_debug:
        from chainer import backend

        for grads in grad_inputs.values():
            for gx in grads:
                arr = gx.array
                if arr.dtype.kind not in "fc":
                    continue
                if bool(backend.get_array_module(arr).isnan(arr).any()):
                    raise RuntimeError(
                        f"NaN is detected on backward computation of {func.label}"
                    )

    if not getattr(func, "lazy_grad_sum", False):
        for gx in grad_inputs.values():
            _reduce(gx)


def _get_columns():
    # The terminal width.
    return shutil.get_terminal_size().columns


def _reraise_with_stack(func, e):
    # Re-raises ``e`` with the stack where ``func`` was called appended
    # (debug mode records it).
    stack = getattr(func, "stack", None)
    if stack is not None:
        additional = "\n{}\nStacktrace of the function is below:\n{}".format(
            "-" * _get_columns(), "".join(traceback.format_list(stack[:-1]))
        )
        if e.args:
            e.args = (str(e.args[0]) + additional, *e.args[1:])
        else:
            e.args = (additional,)
    raise e
