import itertools
import math

import numpy

import chainer
from chainer import backend
from chainer import function_node
from chainer import variable
from chainer.functions.activation import relu
from chainer.functions.activation import tanh
from chainer.functions.array import concat
from chainer.functions.array import split_axis
from chainer.functions.array import stack
from chainer.functions.noise import _masks
from chainer.utils import gemm
from chainer.utils import type_check

_F32 = numpy.dtype(numpy.float32)


def stacked_rows(xp, parts):
    """The 2-d arrays ``parts`` stacked along the first axis.

    Where they lie one after another in one C-contiguous NumPy buffer (as
    the n-step links lay out the weights that :attr:`BaseNStepRNN.weight_rows`
    names), the result is a view of that buffer; otherwise a new array
    (``xp.concatenate``). A view saves a copy of the layer's weights on
    every forward (about 2 ms for the four ``(650, 650)`` float32 weights
    of an LSTM layer once the update has pushed them out of the caches).

    Args:
        xp (module): NumPy or CuPy.
        parts (sequence of arrays): ``(rows_i, cols)`` arrays of one dtype.

    Returns:
        array: ``(sum(rows_i), cols)``.
    """
    view = _adjacent_rows(parts)
    return xp.concatenate(parts) if view is None else view


def _adjacent_rows(parts):
    # The view of one buffer that holds ``parts`` in order, or None.
    first = parts[0]
    base = getattr(first, "base", None)
    if not isinstance(base, numpy.ndarray) or not base.flags.c_contiguous:
        return None
    cols = first.shape[1:]
    start = address = first.ctypes.data
    for part in parts:
        if (
            not isinstance(part, numpy.ndarray)
            or part.base is not base
            or part.dtype != first.dtype
            or part.shape[1:] != cols
            or not part.flags.c_contiguous
            or part.ctypes.data != address
        ):
            return None
        address += part.nbytes
    start = (start - base.ctypes.data) // first.itemsize
    rows = sum(len(part) for part in parts)
    flat = base.reshape(-1)
    return flat[start : start + rows * math.prod(cols)].reshape((rows, *cols))


class BaseNStepRNN(function_node.FunctionNode):
    """Stacked (bi-directional) recurrent layers over time-major sequences.

    Inputs are ``hx``, ``cx`` (cells with a memory only), the weights of
    every layer and direction flattened in ``ws`` order, the biases likewise,
    then the time steps ``xs[0], xs[1], ...``. Outputs are ``hy``, ``cy``
    (cells with a memory only) and one output per time step.

    Each layer projects all its time steps at once with one GEMM and then
    runs one ``(B_t, N) x (N, G N)`` GEMM plus fused elementwise gate math
    per time step; the batch shrinks as sequences end. The backward pass is
    :class:`BaseNStepRNNGrad`, a few large GEMMs around the same loop.
    Subclasses define the cell: ``n_weights``, ``n_cells`` and the methods
    ``_layer_forward``, ``_layer_backward`` and ``_cell_composed``.
    """

    n_weights = 0
    n_cells = 1
    #: Weight indices that ``_layer_forward`` stacks into one matrix each, in
    #: stacking order (the links lay these weights out adjacently in one
    #: buffer, so that :func:`stacked_rows` is a view).
    weight_rows = ()

    def _stacked_weights(self, xp, w):
        # One matrix per entry of weight_rows (see stacked_rows).
        return [stacked_rows(xp, [w[j] for j in rows]) for rows in self.weight_rows]

    def __init__(self, n_layers, dropout_ratio, use_bi_direction, **kwargs):
        for name in ("train", "use_cudnn"):
            if name in kwargs:
                raise ValueError(
                    f"{name} argument is not supported anymore. "
                    "Use chainer.using_config"
                )
        if kwargs:
            raise TypeError(
                f"got unexpected keyword argument(s): {', '.join(sorted(kwargs))}"
            )
        if not isinstance(n_layers, (int, numpy.integer)) or n_layers < 1:
            raise ValueError(f"n_layers must be a positive integer, got {n_layers!r}")
        if not 0.0 <= dropout_ratio < 1.0:
            raise ValueError(
                f"dropout_ratio must be in the range [0, 1), got {dropout_ratio}"
            )
        self.n_layers = int(n_layers)
        self.dropout_ratio = dropout_ratio
        self.direction = 2 if use_bi_direction else 1
        self._n_params = self.n_layers * self.direction * self.n_weights

    # -- wrappers' entry point ---------------------------------------------
    def apply_sequences(self, hx, cx, ws, bs, xs):
        """Applies the node to ``hx``, ``cx``, nested ``ws``/``bs`` and ``xs``.

        Args:
            hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states.
            cx (~chainer.Variable or :ref:`ndarray` or None): Initial cell
                states (None for cells without memory).
            ws (list of list of ~chainer.Variable): Weights per layer and
                direction.
            bs (list of list of ~chainer.Variable): Biases, as ``ws``.
            xs (list of ~chainer.Variable or :ref:`ndarray`): Time steps.

        Returns:
            tuple: ``(hy, cy, ys)``; ``cy`` is None for cells without memory
            and ``ys`` is a tuple of Variables, one per time step.
        """
        name = type(self).__name__
        n_units = self.n_layers * self.direction
        states = (hx, cx) if self.n_cells == 2 else (hx,)
        for state in states:
            if state is None:
                raise TypeError(f"{name}: hx and cx must be arrays, not None")
        flat = []
        for arg, label in ((ws, "ws"), (bs, "bs")):
            if not isinstance(arg, (list, tuple)) or len(arg) != n_units:
                raise ValueError(
                    f"{name}: {label} must be a list of {n_units} lists "
                    f"(n_layers * {self.direction}), got {_describe(arg)}"
                )
            for i, per_layer in enumerate(arg):
                if (
                    not isinstance(per_layer, (list, tuple))
                    or len(per_layer) != self.n_weights
                ):
                    raise ValueError(
                        f"{name}: {label}[{i}] must be a list of "
                        f"{self.n_weights} arrays, got {_describe(per_layer)}"
                    )
                flat.extend(per_layer)
        if not isinstance(xs, (list, tuple)):
            raise TypeError(
                f"{name}: xs must be a list of arrays (one per time step), "
                f"got {type(xs).__name__}"
            )
        outs = self.apply((*states, *flat, *xs))
        cy = outs[1] if self.n_cells == 2 else None
        return outs[0], cy, outs[self.n_cells :]

    # -- type checks -----------------------------------------------------------
    def _arg_names(self, n_inputs):
        names = ["hx", "cx"][: self.n_cells]
        for label in ("ws", "bs"):
            for k in range(self.n_layers * self.direction):
                names.extend(f"{label}[{k}][{j}]" for j in range(self.n_weights))
        names.extend(f"xs[{t}]" for t in range(n_inputs - len(names)))
        return tuple(names)

    def check_type_forward(self, in_types):
        c = self.n_cells
        n_w = self._n_params
        type_check.expect(in_types.size() > c + 2 * n_w)
        n_inputs = type_check.eval(in_types.size())
        if not type_check.is_light(in_types):
            type_check.argname(in_types, self._arg_names(n_inputs))
        h_type = in_types[0]
        type_check.expect(
            h_type.dtype.kind == "f",
            h_type.ndim == 3,
            h_type.shape[0] == self.n_layers * self.direction,
        )
        if c == 2:
            c_type = in_types[1]
            type_check.expect(
                c_type.dtype == h_type.dtype, c_type.shape == h_type.shape
            )
        x0 = in_types[c + 2 * n_w]
        type_check.expect(
            x0.dtype == h_type.dtype, x0.ndim == 2, x0.shape[0] <= h_type.shape[1]
        )
        prev = x0
        for t in range(c + 2 * n_w + 1, n_inputs):
            x_type = in_types[t]
            type_check.expect(
                x_type.dtype == h_type.dtype,
                x_type.ndim == 2,
                x_type.shape[0] <= prev.shape[0],
                x_type.shape[1] == x0.shape[1],
            )
            prev = x_type
        n = h_type.shape[2]
        half = self.n_weights // 2
        for k in range(self.n_layers * self.direction):
            in_size = x0.shape[1] if k < self.direction else n * self.direction
            for j in range(self.n_weights):
                w_type = in_types[c + k * self.n_weights + j]
                b_type = in_types[c + n_w + k * self.n_weights + j]
                type_check.expect(
                    w_type.dtype == h_type.dtype,
                    w_type.ndim == 2,
                    w_type.shape[0] == n,
                    w_type.shape[1] == (in_size if j < half else n),
                    b_type.dtype == h_type.dtype,
                    b_type.ndim == 1,
                    b_type.shape[0] == n,
                )

    # -- forward -------------------------------------------------------------
    def _unpack(self, inputs):
        c = self.n_cells
        n_w = self._n_params
        nw = self.n_weights
        hx = inputs[0]
        cx = inputs[1] if c == 2 else None
        ws = [inputs[c + k : c + k + nw] for k in range(0, n_w, nw)]
        bs = [inputs[c + n_w + k : c + n_w + k + nw] for k in range(0, n_w, nw)]
        return hx, cx, ws, bs, inputs[c + 2 * n_w :]

    def forward(self, inputs):
        hx, cx, ws, bs, xs = self._unpack(inputs)
        xp = backend.get_array_module(hx)
        self.retain_inputs(tuple(range(len(inputs))))
        self._n_inputs = len(inputs)
        dtype = hx.dtype
        # float16 runs in float32: NumPy has no float16 GEMM and the recurrence
        # would accumulate float16 rounding over the time steps.
        ct = _F32 if dtype == numpy.float16 else dtype
        offsets = [0]
        for x in xs:
            offsets.append(offsets[-1] + len(x))
        self._offsets = offsets
        steps = list(itertools.pairwise(offsets))
        self._steps = (steps, steps[::-1])
        n = hx.shape[2]
        d_n = self.direction * n
        hx = hx.astype(ct, copy=False)
        hy = xp.empty(hx.shape, ct)
        if cx is not None:
            cx = cx.astype(ct, copy=False)
            cy = xp.empty(cx.shape, ct)
        dropout = chainer.config.train and self.dropout_ratio > 0
        self._masks = {}
        self._saved = []
        x = xp.concatenate(xs).astype(ct, copy=False)
        for layer in range(self.n_layers):
            y = xp.empty((offsets[-1], d_n), ct)
            for d in range(self.direction):
                k = layer * self.direction + d
                x_in = x
                if layer and dropout:
                    mask = _masks.keep_mask(xp, x.shape, self.dropout_ratio, ct)
                    self._masks[k] = mask
                    x_in = x * mask
                w = [a.astype(ct, copy=False) for a in ws[k]]
                b = [a.astype(ct, copy=False) for a in bs[k]]
                h, c, saved = self._layer_forward(
                    xp,
                    x_in,
                    hx[k],
                    None if cx is None else cx[k],
                    w,
                    b,
                    self._steps[d],
                    y[:, d * n : (d + 1) * n],
                )
                hy[k] = h
                if cx is not None:
                    cy[k] = c
                self._saved.append(saved)
            x = y
        outs = [hy.astype(dtype, copy=False)]
        if cx is not None:
            outs.append(cy.astype(dtype, copy=False))
        outs.extend(xp.split(x.astype(dtype, copy=False), offsets[1:-1]))
        return tuple(outs)

    # -- backward ------------------------------------------------------------
    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs()
        hx = inputs[0].array
        xp = backend.get_array_module(hx)
        c = self.n_cells
        n = hx.shape[2]
        gouts = []
        for i, g in enumerate(grad_outputs):
            if g is None:
                if i < c:
                    g = xp.zeros(hx.shape, hx.dtype)
                else:
                    s, e = self._offsets[i - c], self._offsets[i - c + 1]
                    g = xp.zeros((e - s, self.direction * n), hx.dtype)
            gouts.append(g)
        return BaseNStepRNNGrad(self, indexes).apply((*inputs, *gouts))

    def _backward_arrays(self, inputs, indexes):
        c = self.n_cells
        n_w = self._n_params
        nw = self.n_weights
        hx = inputs[0]
        xp = backend.get_array_module(hx)
        dtype = hx.dtype
        ct = _F32 if dtype == numpy.float16 else dtype
        gouts = inputs[self._n_inputs :]
        ghy = gouts[0].astype(ct, copy=False)
        gcy = gouts[1].astype(ct, copy=False) if c == 2 else None
        gx = xp.concatenate(gouts[c:]).astype(ct, copy=False)
        x_start = c + 2 * n_w
        need_xs = indexes[-1] >= x_start
        needed = set(indexes)
        n = hx.shape[2]
        ghx = xp.empty(hx.shape, ct)
        gcx = xp.empty(hx.shape, ct) if c == 2 else None
        grads = {}
        for layer in reversed(range(self.n_layers)):
            need_gx = layer > 0 or need_xs
            g_below = None
            for d in range(self.direction):
                k = layer * self.direction + d
                w_ids = range(c + k * nw, c + (k + 1) * nw)
                b_ids = range(c + n_w + k * nw, c + n_w + (k + 1) * nw)
                need_w = not needed.isdisjoint(w_ids) or not needed.isdisjoint(b_ids)
                gx_d, gh, gc, gw, gb = self._layer_backward(
                    xp,
                    self._saved[k],
                    gx[:, d * n : (d + 1) * n],
                    ghy[k],
                    None if gcy is None else gcy[k],
                    self._steps[d],
                    need_gx,
                    need_w,
                )
                ghx[k] = gh
                if c == 2:
                    gcx[k] = gc
                if need_w:
                    grads.update(zip(w_ids, gw, strict=True))
                    grads.update(zip(b_ids, gb, strict=True))
                if need_gx:
                    mask = self._masks.get(k)
                    if mask is not None:
                        gx_d *= mask
                    if g_below is None:
                        g_below = gx_d
                    else:
                        g_below += gx_d
            gx = g_below
        grads[0] = ghx
        if c == 2:
            grads[1] = gcx
        if need_xs:
            pieces = xp.split(gx, self._offsets[1:-1])
            grads.update(enumerate(pieces, x_start))
        return tuple(grads[i].astype(dtype, copy=False) for i in indexes)

    # -- double backward -----------------------------------------------------
    def _double_backward(self, grad_node, indexes, grad_outputs):
        inputs = grad_node.get_retained_inputs()
        # Third-order derivatives need results tied to the graph; second-order
        # ones (the usual case) recompute on fresh leaves, so the nested
        # backprop stays inside this function.
        connected = chainer.config.enable_backprop
        if not connected:
            inputs = tuple(variable.Variable(v.array) for v in inputs)
        fwd_inputs = inputs[: self._n_inputs]
        with chainer.using_config("enable_backprop", True):
            outs = self._composed(fwd_inputs)
            firsts = function_node.grad(
                outs,
                [fwd_inputs[i] for i in grad_node.indexes],
                inputs[self._n_inputs :],
                enable_double_backprop=True,
            )
            pairs = [
                (f, g)
                for f, g in zip(firsts, grad_outputs, strict=True)
                if f is not None and g is not None
            ]
            if not pairs:
                return (None,) * len(indexes)
            return tuple(
                function_node.grad(
                    [f for f, _ in pairs],
                    [inputs[i] for i in indexes],
                    [g for _, g in pairs],
                    enable_double_backprop=connected,
                )
            )

    def _composed(self, inputs):
        # The same computation from differentiable catalogue ops, step by step.
        hx, cx, ws, bs, xs = self._unpack(inputs)
        offsets = self._offsets
        n_steps = len(offsets) - 1
        x = concat.concat(xs, axis=0)
        hy = []
        cy = []
        for layer in range(self.n_layers):
            layer_outs = []
            for d in range(self.direction):
                k = layer * self.direction + d
                mask = self._masks.get(k)
                x_in = x if mask is None else x * mask.astype(x.dtype, copy=False)
                h = hx[k]
                c = None if cx is None else cx[k]
                n_rows = h.shape[0]
                pieces = [None] * n_steps
                order = range(n_steps) if d == 0 else reversed(range(n_steps))
                for t in order:
                    s, e = offsets[t], offsets[t + 1]
                    rows = e - s
                    whole = rows == n_rows
                    h_new, c_new = self._cell_composed(
                        x_in[s:e],
                        h if whole else h[:rows],
                        c if c is None or whole else c[:rows],
                        ws[k],
                        bs[k],
                    )
                    pieces[t] = h_new
                    h = h_new if whole else concat.concat((h_new, h[rows:]), 0)
                    if c is not None:
                        c = c_new if whole else concat.concat((c_new, c[rows:]), 0)
                layer_outs.append(concat.concat(pieces, axis=0))
                hy.append(h)
                cy.append(c)
            x = layer_outs[0] if self.direction == 1 else concat.concat(layer_outs, 1)
        outs = [stack.stack(hy)]
        if cx is not None:
            outs.append(stack.stack(cy))
        outs.extend(split_axis.split_axis(x, offsets[1:-1], axis=0))
        return outs


class BaseNStepRNNGrad(function_node.FunctionNode):
    """Gradients of a :class:`BaseNStepRNN` node (backprop through time).

    A dedicated node: one fused loop over the time steps and a few large
    GEMMs instead of hundreds of small catalogue ops per layer. Measured on
    one CPU thread, a 2-layer NStepLSTM step (B=32, T=25, N=256) takes about
    150 ms forward and backward against 420 ms for Chainer 7's per-step
    composition of linear and lstm, and 0.8 ms against 4-7 ms for B=8,
    T=10, N=16. Its own backward (double backprop) recomputes the layers
    from catalogue ops.
    """

    def __init__(self, fwd, indexes):
        self.fwd = fwd
        self.indexes = indexes

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        return self.fwd._backward_arrays(inputs, self.indexes)

    def backward(self, indexes, grad_outputs):
        return self.fwd._double_backward(self, indexes, grad_outputs)


def _describe(arg):
    if isinstance(arg, (list, tuple)):
        return f"a {type(arg).__name__} of length {len(arg)}"
    return type(arg).__name__


class NStepRNN(BaseNStepRNN):
    """Stacked Elman RNN layers with ``tanh`` or ``relu`` activation."""

    n_weights = 2

    def __init__(self, n_layers, dropout_ratio, use_bi_direction, activation, **kwargs):
        if activation not in ("tanh", "relu"):
            raise ValueError(
                f'Invalid activation: "{activation}". Please select from [tanh, relu]'
            )
        super().__init__(n_layers, dropout_ratio, use_bi_direction, **kwargs)
        self.activation = activation

    def _layer_forward(self, xp, x, h0, c0, w, b, steps, y):
        w_x, w_h = w
        g = gemm.matmul(x, w_x.T)
        g += b[0] + b[1]
        # The recurrent weight multiplies every step: prepared once.
        recurrent = gemm.right_operand(w_h.T, len(steps))
        h = h0.copy()
        h_prev = xp.empty((len(x), h.shape[1]), x.dtype)
        relu_act = self.activation == "relu"
        for s, e in steps:
            rows = e - s
            hp = h[:rows]
            h_prev[s:e] = hp
            gt = g[s:e]
            recurrent(hp, out=gt, accumulate=True)
            if relu_act:
                xp.maximum(gt, 0, out=gt)
            else:
                xp.tanh(gt, out=gt)
            y[s:e] = gt
            h[:rows] = gt
        return h, None, (x, w_x, w_h, g, h_prev)

    def _layer_backward(self, xp, saved, gy, gh, gc, steps, need_gx, need_w):
        x, w_x, w_h, g, h_prev = saved
        relu_act = self.activation == "relu"
        deriv = (g > 0).astype(g.dtype) if relu_act else 1 - g * g
        gh = gh.copy()
        gg = xp.empty_like(g)
        for s, e in reversed(steps):
            rows = e - s
            dh = gy[s:e] + gh[:rows]
            dh *= deriv[s:e]
            gg[s:e] = dh
            gemm.matmul(dh, w_h, out=gh[:rows])
        gx = gemm.matmul(gg, w_x) if need_gx else None
        gw = gb = None
        if need_w:
            gw = tuple(gemm.matmuls([(gg.T, x), (gg.T, h_prev)]))
            gb0 = gg.sum(axis=0)
            gb = (gb0, gb0.copy())
        return gx, gh, None, gw, gb

    def _cell_composed(self, x, h, c, w, b):
        a = x @ w[0].T + h @ w[1].T + b[0] + b[1]
        return (relu.relu(a) if self.activation == "relu" else tanh.tanh(a)), None


def n_step_rnn_base(
    n_layers, dropout_ratio, hx, ws, bs, xs, activation, use_bi_direction, **kwargs
):
    """Base function for stacked uni- and bi-directional Elman RNNs.

    :func:`n_step_rnn` and :func:`n_step_birnn` call it; see them for the
    arguments.

    Args:
        n_layers (int): Number of layers.
        dropout_ratio (float): Dropout ratio of the inputs of layers after
            the first one (training mode only).
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(S, B, N)`` (``(2S, B, N)`` if bi-directional).
        ws (list of list of ~chainer.Variable): Weights, two per layer and
            direction.
        bs (list of list of ~chainer.Variable): Biases, two per layer and
            direction.
        xs (list of ~chainer.Variable): Time-major inputs ``(B_t, I)``.
        activation (str): ``'tanh'`` or ``'relu'``.
        use_bi_direction (bool): Whether the RNN is bi-directional.

    Returns:
        tuple: ``hy`` and ``ys`` (a tuple of Variables, one per time step).
    """
    node = NStepRNN(n_layers, dropout_ratio, use_bi_direction, activation, **kwargs)
    hy, _, ys = node.apply_sequences(hx, None, ws, bs, xs)
    return hy, ys


def n_step_rnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation="tanh", **kwargs):
    """Stacked uni-directional RNN function for sequence inputs.

    Given an initial hidden state :math:`h_0`, input sequences :math:`x`,
    weights :math:`W` and biases :math:`b`, each layer computes for every
    time step :math:`t`

    .. math:: h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)

    where :math:`f` is the activation function (``tanh`` or ``relu``). The
    hidden states of layer :math:`k` are the inputs of layer :math:`k + 1`;
    in training mode (``chainer.config.train``) dropout with
    ``dropout_ratio`` is applied to the inputs of every layer after the
    first. Sequences of different lengths are supported: sort them by length
    in descending order and transpose them with
    :func:`~chainer.functions.transpose_sequence`, so that ``xs[t]`` holds
    the ``t``-th step of every sequence that long.

    Args:
        n_layers (int): Number of layers :math:`S`.
        dropout_ratio (float): Dropout ratio, in ``[0, 1)``.
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(S, B, N)``: ``B`` is the mini-batch size and ``N`` the
            number of hidden units.
        ws (list of list of ~chainer.Variable): ``ws[i]`` holds the two
            weight matrices of layer ``i``; ``ws[i][j]`` is :math:`W_j`.
            ``ws[0][0]`` has shape ``(N, I)``; all others ``(N, N)``.
        bs (list of list of ~chainer.Variable): ``bs[i][j]`` is the bias
            :math:`b_j` of layer ``i``, of shape ``(N,)``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Inputs per time
            step; ``xs[t]`` has shape ``(B_t, I)`` with
            ``xs[t].shape[0] >= xs[t + 1].shape[0]`` and ``B_0 <= B``.
        activation (str): ``'tanh'`` (default) or ``'relu'``.

    Returns:
        tuple: ``(hy, ys)``. ``hy`` is the last hidden state of each sequence
        and layer, of the shape of ``hx``. ``ys`` is a tuple of Variables:
        ``ys[t]`` of shape ``(B_t, N)`` holds the last layer's hidden states
        at time ``t``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> batches = [3, 2, 1]
        >>> in_size, out_size, n_layers = 3, 2, 2
        >>> xs = [np.ones((b, in_size), np.float32) for b in batches]
        >>> hx = np.zeros((n_layers, 3, out_size), np.float32)
        >>> ws = [[np.ones((out_size, in_size), np.float32),
        ...        np.ones((out_size, out_size), np.float32)],
        ...       [np.ones((out_size, out_size), np.float32)] * 2]
        >>> bs = [[np.zeros(out_size, np.float32)] * 2] * n_layers
        >>> hy, ys = F.n_step_rnn(n_layers, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 3, 2), [(3, 2), (2, 2), (1, 2)])
    """
    return n_step_rnn_base(
        n_layers, dropout_ratio, hx, ws, bs, xs, activation, False, **kwargs
    )


def n_step_birnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation="tanh", **kwargs):
    """Stacked bi-directional RNN function for sequence inputs.

    Each layer runs one RNN forward in time and one backward in time, both
    computing

    .. math:: h_t = f(W_0 x_t + W_1 h_{t \\mp 1} + b_0 + b_1)

    with their own weights; the layer's output at time :math:`t` is the
    concatenation :math:`[h^f_t; h^b_t]` of both directions, so layers after
    the first take ``2N`` inputs. Dropout and variable-length sequences
    behave as in :func:`n_step_rnn`.

    Args:
        n_layers (int): Number of layers :math:`S`.
        dropout_ratio (float): Dropout ratio, in ``[0, 1)``.
        hx (~chainer.Variable or :ref:`ndarray`): Initial hidden states of
            shape ``(2S, B, N)``; ``hx[2i]`` is the forward and
            ``hx[2i + 1]`` the backward direction of layer ``i``.
        ws (list of list of ~chainer.Variable): ``2S`` lists of two weights,
            ordered as ``hx``: ``ws[2i + d][j]`` is :math:`W_j` of direction
            ``d`` of layer ``i``. ``ws[0][0]`` and ``ws[1][0]`` have shape
            ``(N, I)``, ``ws[2i + d][0]`` for ``i > 0`` ``(N, 2N)``, the
            others ``(N, N)``.
        bs (list of list of ~chainer.Variable): Biases of shape ``(N,)``,
            ordered as ``ws``.
        xs (list of ~chainer.Variable or :ref:`ndarray`): Inputs per time
            step, ``(B_t, I)``, non-increasing in ``B_t``.
        activation (str): ``'tanh'`` (default) or ``'relu'``.

    Returns:
        tuple: ``(hy, ys)``: ``hy`` has the shape of ``hx``; ``ys[t]`` has
        shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> xs = [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]
        >>> hx = np.zeros((2, 2, 4), np.float32)
        >>> ws = [[np.ones((4, 3), np.float32), np.ones((4, 4), np.float32)]] * 2
        >>> bs = [[np.zeros(4, np.float32)] * 2] * 2
        >>> hy, ys = F.n_step_birnn(1, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 8), (1, 8)])
    """
    return n_step_rnn_base(
        n_layers, dropout_ratio, hx, ws, bs, xs, activation, True, **kwargs
    )
