"""Numerical gradient checking (``chainer.gradient_check``).

:func:`check_backward` compares the gradient computed by backprop with a
finite-difference estimate. Like Chainer 7 it does so along one random
direction in the joint space of all inputs and parameters: the analytic
directional derivative ``sum(gx * d)`` against the numerical derivative of
``sum(y * gy)`` at ``x + t * d``. That needs only two (or five) extra forward
passes whatever the input size, and a wrong gradient in any element changes
the projection for almost every direction.
"""

from __future__ import annotations

import copy
import io

import numpy

import chainer
from chainer import backend
from chainer import configuration
from chainer import variable
from chainer.testing import array as array_module


class NondifferentiableError(Exception):
    """Raised by :func:`numerical_grad` at a point where ``f`` has a kink or jump.

    Tests that sample random inputs catch it and draw new inputs
    (``dodge_nondifferentiable`` in :class:`chainer.testing.FunctionTestCase`).
    """


class _InvalidEps(ValueError, AssertionError):
    # A ValueError, and an AssertionError as Chainer raises for a step that is
    # not positive.
    pass


def assert_allclose(x, y, atol=1e-5, rtol=1e-4, verbose=True):
    """Asserts that ``x`` and ``y`` are equal within tolerances.

    Same as :func:`chainer.testing.assert_allclose`.

    Args:
        x: Actual array or scalar.
        y: Expected array or scalar.
        atol (float): Absolute tolerance.
        rtol (float): Relative tolerance.
        verbose (bool): Whether conflicting values are printed.
    """
    array_module.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose)


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_array(x):
    return backend.is_array_supported(x) or (
        hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "__array__")
    )


def _to_float64(y):
    if y is None:
        return None
    if isinstance(y, variable.Variable):
        y = y.array
    if numpy.isscalar(y):
        return numpy.float64(y)
    return y.astype(numpy.float64)


# ---------------------------------------------------------------------------
# numerical_grad
# ---------------------------------------------------------------------------


def _eval_at(f, x, index, value, n_out):
    x[index] = value
    ys = _as_tuple(f())
    if len(ys) != n_out:
        raise ValueError(
            f"numerical_grad: f returned {len(ys)} outputs but "
            f"{n_out} grad_outputs were given"
        )
    return [_to_float64(y) for y in ys]


def _nondiff_error(header, i_in, x_ind, orig, i_out, yss, extra):
    s = io.StringIO()
    s.write("Tried to compute the numeric gradient on a non-differentiable point.\n\n")
    s.write(f"{header}\ni_in: {i_in}\nx_ind: {x_ind}\norigin: {orig}\n")
    s.write(f"output index: {i_out}\n\nValues:\n")
    for ys in yss:
        s.write(f"{ys[i_out]}\n")
    s.write(extra)
    return NondifferentiableError(s.getvalue())


def _check_differentiable(xp, yss, i_in, x_ind, orig, diff_atol, diff_rtol):
    # A change of finiteness between sample points, or a bad quadratic fit
    # through the five samples, reveals a kink or a jump.
    outs = [i for i, y in enumerate(yss[0]) if y is not None and y.size]
    if not outs:
        return
    for i_out in outs:
        finite = [xp.isfinite(ys[i_out]) for ys in yss]
        if any(bool((finite[0] != fin).any()) for fin in finite[1:]):
            raise _nondiff_error(
                "Finiteness changes around the point.",
                i_in,
                x_ind,
                orig,
                i_out,
                yss,
                "",
            )
        if not all(bool(fin.all()) for fin in finite):
            # Consistently non-finite (e.g. log at x < 0): not a kink.
            return
    n = len(yss)
    for i_out in outs:
        samples = backend.CpuDevice().send(xp.stack([ys[i_out].ravel() for ys in yss]))
        _, (residuals, _, _, _) = numpy.polynomial.polynomial.polyfit(
            numpy.arange(n), samples, deg=2, full=True
        )
        if residuals.size == 0:
            continue
        res = numpy.sqrt(residuals / n)
        spread = samples.max(axis=0) - samples.min(axis=0)
        bad = (diff_atol + diff_rtol * spread < res) & (spread != 0)
        if bad.any():
            raise _nondiff_error(
                "Quadratic fit error is too large.",
                i_in,
                x_ind,
                orig,
                i_out,
                yss,
                f"Fitting error:\n{res.reshape(yss[0][i_out].shape)}\n",
            )


def numerical_grad(
    f,
    inputs,
    grad_outputs,
    eps=1e-3,
    detect_nondifferentiable=False,
    diff_atol=0,
    diff_rtol=1e-2,
    center_outputs=None,
):
    """Computes numerical gradient by finite differences.

    For each element of each input, ``f`` is evaluated with the element
    shifted by ``-eps`` and ``+eps`` (central difference, error of second
    order in ``eps``), and the differences of the outputs are weighted by
    ``grad_outputs``; the result is the gradient of ``sum(y * gy)``.

    Args:
        f (callable): Function with no arguments that runs the forward
            computation and returns a tuple of output arrays (Variables are
            accepted and unwrapped). It must read the arrays in ``inputs``,
            which are modified in place while it runs.
        inputs (tuple of arrays): Float arrays treated as inputs.
        grad_outputs (tuple of arrays or scalars): Output gradients; a
            ``None`` entry ignores that output.
        eps (float): Step of the finite differences.
        detect_nondifferentiable (bool): If ``True``, ``f`` is evaluated at
            five points instead of two, non-differentiable points raise
            :class:`NondifferentiableError`, and the estimate becomes
            accurate to the fourth order in ``eps``.
        diff_atol (float): Absolute tolerance of the quadratic fitting error
            used for non-differentiability detection.
        diff_rtol (float): Tolerance of the fitting error relative to the
            spread of the output values.
        center_outputs (tuple of arrays or None): Outputs of ``f`` at
            ``inputs``, reused by non-differentiability detection instead of
            evaluating ``f`` there.

    Returns:
        tuple: Numerical gradient arrays with the shapes and dtypes of
        ``inputs``.
    """
    if not eps > 0:
        raise _InvalidEps(f"numerical_grad: eps must be positive, got {eps}")
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("numerical_grad: inputs must be a tuple or a list of arrays")
    if not isinstance(grad_outputs, (tuple, list)):
        raise TypeError(
            "numerical_grad: grad_outputs must be a tuple or a list of arrays"
        )
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if not _is_array(x):
            raise TypeError(
                f"numerical_grad: inputs[{i}] must be an array, not {type(x).__name__}"
            )
        if x.dtype.kind != "f":
            raise TypeError(
                f"numerical_grad: inputs[{i}] must have a float dtype, got {x.dtype}"
            )
    grad_outputs = tuple(_to_float64(g) for g in grad_outputs)
    arrays = [
        a for a in inputs + grad_outputs if a is not None and not numpy.isscalar(a)
    ]
    xp = backend.get_array_module(*arrays) if arrays else numpy
    if len({backend.get_array_module(a) for a in arrays}) > 1:
        raise ValueError("numerical_grad: do not mix arrays of different devices")

    n_out = len(grad_outputs)
    ys0 = None
    if detect_nondifferentiable:
        if center_outputs is None:
            ys0 = [_to_float64(y) for y in _as_tuple(f())]
        else:
            ys0 = [_to_float64(y) for y in _as_tuple(center_outputs)]
        if len(ys0) != n_out:
            raise ValueError(
                f"numerical_grad: f returned {len(ys0)} outputs but "
                f"{n_out} grad_outputs were given"
            )

    grads = [xp.zeros(x.shape, numpy.float64) for x in inputs]
    with configuration.using_config("type_check", False):
        for i_in, (x, gx) in enumerate(zip(inputs, grads, strict=True)):
            for x_ind in numpy.ndindex(x.shape):
                orig = x[x_ind].copy()
                try:
                    if detect_nondifferentiable:
                        yss = [
                            _eval_at(f, x, x_ind, orig - eps, n_out),
                            _eval_at(f, x, x_ind, orig - eps * 0.5, n_out),
                            ys0,
                            _eval_at(f, x, x_ind, orig + eps * 0.5, n_out),
                            _eval_at(f, x, x_ind, orig + eps, n_out),
                        ]
                    else:
                        yss = [
                            _eval_at(f, x, x_ind, orig - eps, n_out),
                            _eval_at(f, x, x_ind, orig + eps, n_out),
                        ]
                finally:
                    x[x_ind] = orig
                if detect_nondifferentiable:
                    _check_differentiable(
                        xp, yss, i_in, x_ind, orig, diff_atol, diff_rtol
                    )
                gx[x_ind] += _directional_difference(yss, grad_outputs, eps)
    return tuple(
        g.astype(x.dtype, copy=False) for g, x in zip(grads, inputs, strict=True)
    )


def _directional_difference(yss, grad_outputs, eps):
    total = 0.0
    for i_out, gy in enumerate(grad_outputs):
        if gy is None or yss[0][i_out] is None:
            continue
        y_shape = yss[0][i_out].shape
        if not numpy.isscalar(gy) and gy.shape != y_shape:
            raise ValueError(
                f"numerical_grad: grad_outputs[{i_out}] has shape {gy.shape} "
                f"but the output has shape {y_shape}"
            )
        if len(yss) == 2:
            diff = (yss[1][i_out] - yss[0][i_out]) / (2 * eps)
        else:
            # Five-point stencil with step eps / 2.
            y_m2, y_m1, _, y_p1, y_p2 = (ys[i_out] for ys in yss)
            diff = (-y_p2 + 8 * y_p1 - 8 * y_m1 + y_m2) / (6 * eps)
        total += (diff * gy).sum()
    return total


# ---------------------------------------------------------------------------
# check_backward
# ---------------------------------------------------------------------------


def _clear_grads(xs):
    for x in xs:
        if x is not None:
            x.grad_var = None


def _check_outputs(ys):
    for i, y in enumerate(ys):
        if y is not None and not isinstance(y, variable.Variable):
            raise TypeError(
                "func must return a Variable or a tuple of Variables; "
                f"output {i} is {type(y).__name__}"
            )


def _format_arrays(f, title, arrays):
    for i, a in enumerate(arrays):
        f.write(f"{title}[{i}]:\n{a}\n")


def _node_caller(node):
    # A FunctionNode instance is checked through apply; each call applies a
    # fresh copy, so the graph of one call keeps its own node.
    def call(*xs):
        return copy.copy(node).apply(xs)

    return call


class _CheckBackward:
    """The check run by :func:`check_backward` (one instance per call)."""

    def __init__(
        self,
        func,
        x_data,
        y_grad,
        params,
        eps,
        atol,
        rtol,
        no_grads,
        dtype,
        detect_nondifferentiable,
    ):
        if isinstance(func, chainer.FunctionNode):
            func = _node_caller(func)
        if not callable(func):
            raise TypeError(f"func must be callable, not {type(func).__name__}")
        x_data = tuple(
            numpy.asarray(x) if isinstance(x, numpy.generic) else x
            for x in _as_tuple(x_data)
        )
        for i, x in enumerate(x_data):
            if x is not None and not _is_array(x):
                raise TypeError(f"x_data[{i}] must be an array, not {type(x).__name__}")
        if y_grad is not None:
            y_grad = _as_tuple(y_grad)
            for i, gy in enumerate(y_grad):
                if gy is not None and not _is_array(gy):
                    raise TypeError(
                        f"y_grad[{i}] must be an array or None, not {type(gy).__name__}"
                    )
        params = _as_tuple(params)
        for i, p in enumerate(params):
            if not isinstance(p, variable.Variable):
                raise TypeError(
                    f"params[{i}] must be a Variable, not {type(p).__name__}"
                )
        if dtype is not None and numpy.dtype(dtype).kind != "f":
            raise ValueError(f"dtype must be a float type or None, got {dtype}")
        if not eps > 0:
            raise _InvalidEps(f"eps must be positive, got {eps}")
        if no_grads is None:
            no_grads = [x is None or x.dtype.kind != "f" for x in x_data]
        else:
            no_grads = list(no_grads)
            if len(no_grads) != len(x_data):
                raise ValueError(
                    "Length of no_grads param and xs should be same.\n"
                    f"Actual: {len(no_grads)} != {len(x_data)}"
                )
            for i, (x, skip) in enumerate(zip(x_data, no_grads, strict=True)):
                if not skip and (x is None or x.dtype.kind != "f"):
                    raise ValueError(
                        f"no_grads[{i}] is False but x_data[{i}] is not a float "
                        "array; its gradient cannot be checked"
                    )
        self.func = func
        self.x_data = x_data
        self.y_grad = y_grad
        self.params = params
        self.eps = eps
        self.atol = atol
        self.rtol = rtol
        self.no_grads = no_grads
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        self.detect_nondifferentiable = detect_nondifferentiable

    def run(self):
        with configuration.using_config("type_check", False):
            self._run()

    def _run(self):
        xs = [
            None
            if x is None
            else variable.Variable(x, requires_grad=x.dtype.kind == "f")
            for x in self.x_data
        ]
        _clear_grads(self.params)
        ys = _as_tuple(self.func(*xs))
        _check_outputs(ys)
        # func may run backward itself; start from clean gradients.
        _clear_grads(xs)
        _clear_grads(self.params)

        y_grad = self._resolve_y_grad(ys)
        pairs = [
            (y, gy)
            for y, gy in zip(ys, y_grad, strict=True)
            if y is not None and gy is not None
        ]
        if pairs:
            chainer.backward([y for y, _ in pairs], [gy for _, gy in pairs])

        for i, (x, skip) in enumerate(zip(xs, self.no_grads, strict=True)):
            if skip and x is not None and x.grad is not None:
                raise RuntimeError(
                    f"backward computed a gradient of input {i}, which "
                    "no_grads marks as having none"
                )
        targets = [x for x, skip in zip(xs, self.no_grads, strict=True) if not skip]
        targets += list(self.params)
        for p in self.params:
            if p.array is None:
                raise ValueError(
                    f"parameter {p.name!r} has no data after the forward pass"
                )
        self._check_grad_types(targets)
        directions = self._sample_directions(targets)
        gx_backward = 0.0
        for v, d in zip(targets, directions, strict=True):
            if v.grad is not None:
                gx_backward += float((v.grad.astype(numpy.float64) * d).sum())
        gx_numeric = self._numeric_directional(directions, y_grad)
        self._compare(gx_numeric, gx_backward, directions, y_grad)

    def _resolve_y_grad(self, ys):
        if self.y_grad is None:
            if not (len(ys) == 1 and ys[0] is not None and ys[0].shape == ()):
                shapes = ", ".join(str(None if y is None else y.shape) for y in ys)
                raise ValueError(
                    "y_grad argument cannot be omitted if the target function "
                    "is not a loss function, which has a single output with "
                    f"shape ().\nActual output shapes: {shapes}"
                )
            xp = backend.get_array_module(ys[0].array)
            return (xp.ones_like(ys[0].array),)
        if len(ys) != len(self.y_grad):
            raise ValueError(
                "Upstream gradients must contain equally many elements as "
                f"number of output elements.\nActual: {len(ys)} != "
                f"{len(self.y_grad)}"
            )
        for i, (y, gy) in enumerate(zip(ys, self.y_grad, strict=True)):
            if y is not None and gy is not None and y.shape != gy.shape:
                raise ValueError(
                    f"y_grad[{i}] has shape {gy.shape} but output {i} has "
                    f"shape {y.shape}"
                )
        return self.y_grad

    def _check_grad_types(self, targets):
        for i, v in enumerate(targets):
            g = v.grad
            if g is None:
                continue
            if g.shape != v.shape or g.dtype != v.dtype:
                raise AssertionError(
                    f"gradient of target {i} has shape {g.shape} and dtype "
                    f"{g.dtype}; expected shape {v.shape} and dtype {v.dtype}"
                )

    @staticmethod
    def _sample_unit_vector(size, xp):
        """Random unit vector of ``size`` float64 elements on ``xp``'s device.

        Drawn from NumPy's global RNG (so :func:`~chainer.testing.fix_random`
        repeats it) close to uniformly on the sphere, with no element smaller
        in magnitude than ``0.1 / sqrt(size)``: every element takes part in
        the check.
        """
        if size == 0:
            return xp.zeros((0,), numpy.float64)
        z = numpy.random.normal(size=size)
        norm = numpy.sqrt(numpy.square(z).sum())
        if norm == 0:
            z = numpy.ones(size)
            norm = numpy.sqrt(size)
        # Lifting small elements to 0.2 * (their RMS) changes the direction
        # little and keeps each normalized element above 0.1 / sqrt(size).
        floor = 0.2 * norm / numpy.sqrt(size)
        z = numpy.where(z < 0, -1.0, 1.0) * numpy.maximum(numpy.abs(z), floor)
        z /= numpy.sqrt(numpy.square(z).sum())
        return xp.asarray(z)

    def _sample_directions(self, targets):
        arrays = [v.array for v in targets]
        xp = backend.get_array_module(*arrays) if arrays else numpy
        # One unit vector over all the elements: the size of the difference
        # error does not depend on the number of inputs.
        sizes = [a.size for a in arrays]
        vector = self._sample_unit_vector(sum(sizes), xp)
        directions = []
        offset = 0
        for a, n in zip(arrays, sizes, strict=True):
            directions.append(vector[offset : offset + n].reshape(a.shape))
            offset += n
        return directions

    def _numeric_directional(self, directions, y_grad):
        dtype = self.dtype
        base_xs = [
            x
            if (x is None or dtype is None or x.dtype.kind != "f")
            else x.astype(dtype)
            for x in self.x_data
        ]
        originals = [p.array for p in self.params]
        base_params = [
            p if dtype is None or p.dtype.kind != "f" else p.astype(dtype)
            for p in originals
        ]
        xp = backend.get_array_module(*directions) if directions else numpy
        delta = xp.zeros((), numpy.float64)

        def perturb(data, direction):
            out = (data.astype(numpy.float64) + delta * direction).astype(data.dtype)
            return xp.asarray(out)

        def g():
            xs = []
            j = 0
            for x, skip in zip(base_xs, self.no_grads, strict=True):
                if x is None:
                    xs.append(None)
                    continue
                if not skip:
                    x = perturb(x, directions[j])
                    j += 1
                xs.append(variable.Variable(x, requires_grad=x.dtype.kind == "f"))
            for p, data in zip(self.params, base_params, strict=True):
                p.array = perturb(data, directions[j])
                j += 1
            _clear_grads(self.params)
            ys = _as_tuple(self.func(*xs))
            _check_outputs(ys)
            return tuple(None if y is None else y.array for y in ys)

        try:
            (gx,) = numerical_grad(
                g,
                (delta,),
                y_grad,
                eps=self.eps,
                detect_nondifferentiable=self.detect_nondifferentiable,
            )
        finally:
            for p, data in zip(self.params, originals, strict=True):
                p.array = data
        return float(gx)

    def _compare(self, gx_numeric, gx_backward, directions, y_grad):
        try:
            array_module.assert_allclose(
                gx_numeric, gx_backward, atol=self.atol, rtol=self.rtol
            )
        except AssertionError as e:
            f = io.StringIO()
            f.write(
                f"check_backward failed (eps={self.eps} atol={self.atol} "
                f"rtol={self.rtol})\n"
            )
            _format_arrays(f, "inputs", self.x_data)
            _format_arrays(f, "grad_outputs", y_grad)
            _format_arrays(f, "directions", directions)
            f.write(f"gradients (numeric):  {gx_numeric}\n")
            f.write(f"gradients (backward): {gx_backward}\n\n")
            f.write("x: numeric gradient, y: backward gradient\n")
            f.write(str(e))
            raise AssertionError(f.getvalue()) from None


def check_backward(
    func,
    x_data,
    y_grad,
    params=(),
    eps=1e-3,
    atol=1e-5,
    rtol=1e-4,
    no_grads=None,
    dtype=None,
    detect_nondifferentiable=False,
):
    """Tests the backward procedure of a function against numerical gradients.

    ``func`` is called on Variables wrapping ``x_data``; the outputs are
    backpropagated with ``y_grad``. The gradients of the inputs (and of
    ``params``) are projected on a random unit direction and compared with the
    numerical directional derivative of ``sum(y * y_grad)`` computed by
    :func:`numerical_grad`. Integer inputs are not checked.

    Args:
        func (callable or ~chainer.FunctionNode): Function taking Variables
            and returning a Variable or a tuple of Variables (a FunctionNode
            wrapper, a Link...), or a FunctionNode instance, which is applied
            to the inputs. It is called several times and must be
            deterministic.
        x_data (array or tuple of arrays): Inputs of ``func``.
        y_grad (array or tuple of arrays or None): Gradients of the outputs;
            ``None`` for a loss function with one output of shape ``()``. A
            ``None`` entry ignores that output.
        params (Variable or tuple of Variables): Parameters (e.g. of a Link)
            whose gradients are checked too.
        eps (float): Step of the finite differences.
        atol (float): Absolute tolerance of the comparison.
        rtol (float): Relative tolerance of the comparison.
        no_grads (list of bool): Whether to skip each input; defaults to
            skipping non-float inputs. Same length as ``x_data``.
        dtype (dtype): If given, float inputs and parameters are cast to it
            for the numerical gradient (e.g. ``numpy.float64`` to test
            float16 functions accurately).
        detect_nondifferentiable (bool): Raise
            :class:`NondifferentiableError` at a non-differentiable point.

    Raises:
        AssertionError: If the gradients do not match.
    """
    _CheckBackward(
        func,
        x_data,
        y_grad,
        params,
        eps,
        atol,
        rtol,
        no_grads,
        dtype,
        detect_nondifferentiable,
    ).run()


def check_double_backward(
    func,
    x_data,
    y_grad,
    x_grad_grad,
    params=(),
    params_grad_grad=(),
    eps=1e-3,
    atol=1e-4,
    rtol=1e-3,
    no_grads=None,
    dtype=None,
    detect_nondifferentiable=False,
):
    """Tests the second-order gradient (double backprop) of a function.

    The first-order gradients ``gx`` of ``func`` (computed by backprop with
    ``enable_double_backprop=True``) are treated as a function of the inputs
    and of ``y_grad``, and :func:`check_backward` is run on it with
    ``x_grad_grad`` as its upstream gradients.

    Args:
        func (callable): Function taking Variables and returning Variables.
        x_data (array or tuple of arrays): Inputs of ``func``.
        y_grad (array or tuple of arrays): Gradients of the outputs.
        x_grad_grad (array or tuple of arrays): Upstream gradients of the
            first-order gradients of the float inputs.
        params (Variable or tuple of Variables): Parameters whose gradients
            are differentiated too.
        params_grad_grad (array or tuple of arrays): Upstream gradients of the
            parameters' first-order gradients.
        eps (float): Step of the finite differences.
        atol (float): Absolute tolerance.
        rtol (float): Relative tolerance.
        no_grads (list of bool): Inputs to skip: one flag per element of
            ``x_data``, or per element of ``x_data + y_grad``.
        dtype (dtype): Float dtype for the numerical gradient.
        detect_nondifferentiable (bool): Raise
            :class:`NondifferentiableError` at a non-differentiable point.

    Raises:
        AssertionError: If the second-order gradients do not match.
    """
    x_data = _as_tuple(x_data)
    y_grad = _as_tuple(y_grad)
    x_grad_grad = _as_tuple(x_grad_grad)
    params = _as_tuple(params)
    params_grad_grad = _as_tuple(params_grad_grad)
    n_x = len(x_data)
    first_order_no_grads = [x is None or x.dtype.kind != "f" for x in x_data]
    n_gx = first_order_no_grads.count(False)
    if len(x_grad_grad) != n_gx:
        raise ValueError(
            f"x_grad_grad must have one entry per float input ({n_gx}), "
            f"got {len(x_grad_grad)}"
        )
    if len(params_grad_grad) != len(params):
        raise ValueError(
            f"params_grad_grad must have one entry per parameter "
            f"({len(params)}), got {len(params_grad_grad)}"
        )
    if no_grads is not None:
        no_grads = list(no_grads)
        if len(no_grads) == n_x:
            no_grads += [g is None or g.dtype.kind != "f" for g in y_grad]

    def first_order_grad(*inputs):
        xs = inputs[:n_x]
        gys = inputs[n_x:]
        ys = _as_tuple(func(*xs))
        _check_outputs(ys)
        if len(ys) != len(gys):
            raise ValueError(
                f"func returned {len(ys)} outputs but y_grad has {len(gys)} entries"
            )
        pairs = [(y, gy) for y, gy in zip(ys, gys, strict=True) if y is not None]
        pairs = [(y, gy) for y, gy in pairs if not (gy is None and y.size != 1)]
        if pairs:
            chainer.backward(
                [y for y, _ in pairs],
                [gy for _, gy in pairs],
                enable_double_backprop=True,
            )
        gxs = []
        for i, (skip, x) in enumerate(zip(first_order_no_grads, xs, strict=True)):
            if skip:
                if x is not None and x.grad_var is not None and x.dtype.kind != "f":
                    raise RuntimeError(
                        f"input [{i}]: a gradient was calculated for a non-float input"
                    )
                continue
            gxs.append(x.grad_var)
        return tuple(gxs + [p.grad_var for p in params])

    try:
        check_backward(
            first_order_grad,
            x_data + y_grad,
            x_grad_grad + params_grad_grad,
            params=params,
            eps=eps,
            atol=atol,
            rtol=rtol,
            no_grads=no_grads,
            dtype=dtype,
            detect_nondifferentiable=detect_nondifferentiable,
        )
    except AssertionError as e:
        f = io.StringIO()
        f.write(f"check_double_backward failed (eps={eps} atol={atol} rtol={rtol})\n")
        _format_arrays(f, "input", x_data)
        _format_arrays(f, "grad_output", y_grad)
        _format_arrays(f, "grad_grad_input", x_grad_grad)
        _format_arrays(f, "grad_grad_param", params_grad_grad)
        f.write("\n")
        f.write(str(e))
        raise AssertionError(f.getvalue()) from e
