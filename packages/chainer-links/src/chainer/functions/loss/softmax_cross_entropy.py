import numpy

import chainer
from chainer import backend
from chainer import function_node
from chainer import primitive_ops
from chainer import utils
from chainer import variable
from chainer.functions import _labels
from chainer.functions.activation import softmax
from chainer.functions.evaluation import accuracy
from chainer.utils import type_check

_config = chainer.config
_cfg_local = _config._local
_cfg_global = chainer.global_config
_ndarray = numpy.ndarray
_float16 = numpy.dtype(numpy.float16)
_max_reduce = numpy.maximum.reduce
_add_reduce = numpy.add.reduce
_exp = numpy.exp
_log = numpy.log
_expm1 = numpy.expm1
_divide = numpy.divide
_subtract = numpy.subtract
_empty = numpy.empty
_float32 = numpy.dtype(numpy.float32)
_count_nonzero = numpy.count_nonzero
_array = numpy.array
_new = object.__new__
_make_variable = variable.Variable._make
_check_labels = _labels.check_labels


# Cached read-only 0-d arrays: NumPy 1.x pays for value-based casting when an
# array meets a Python or NumPy scalar, not when it meets a 0-d array of its
# own dtype.
_constants = utils._numpy_constants
_constant = utils._numpy_constant


def _remember(cache, key, value):
    # Stores a computed value in one of the small caches of this module,
    # which are emptied when they grow past 64 entries (shapes and dtypes of
    # a training run are few).
    if len(cache) > 64:
        cache.clear()
    cache[key] = value
    return value


def _row_offsets(xp, n, k, dtype):
    # Flat offsets of the rows of an (n, k) array, in the labels' dtype (so
    # that adding the labels is a same-type op) unless n * k overflows it.
    # (The NumPy path caches them with its other constants.)
    if n * k > numpy.iinfo(dtype).max:
        dtype = numpy.intp
    return xp.arange(0, n * k, k, dtype=dtype)


# Per (x.shape, x.dtype, t.dtype), what the NumPy path needs: row offsets,
# ones of length k (row sums as a dot product: a third of a reduction's cost,
# and float16 accumulated in float32) and ones of length n.
_numpy_consts = {}


def _numpy_constants(key):
    (n, k), dtype, label_dtype = key
    consts = (
        _row_offsets(numpy, n, k, label_dtype),
        numpy.ones(k, dtype),
        numpy.ones(n, dtype),
    )
    return _remember(_numpy_consts, key, consts)


def _label_array(label, dtype):
    array = _constants.get((label, dtype))
    if array is not None:
        return array
    if not isinstance(label, (int, numpy.integer)):
        return label
    info = numpy.iinfo(dtype)
    if not info.min <= label <= info.max:
        # No label of this dtype can equal it: compare as Python ints.
        return label
    return _constant(label, dtype)


def _one(y):
    if type(y) is not numpy.ndarray:
        return y.dtype.type(1)
    return _constant(1, y.dtype)


def _check_class_weight_option(class_weight):
    if class_weight is None:
        return
    if isinstance(class_weight, variable.Variable):
        raise ValueError(
            "class_weight should be a numpy.ndarray or cupy.ndarray, "
            "not a chainer.Variable"
        )
    if class_weight.ndim != 1:
        raise ValueError("class_weight.ndim should be 1")
    if class_weight.dtype.kind != "f":
        raise ValueError("The dtype of class_weight should be 'f'")


def _check_hard_labels(t, k, ignore_label):
    # The labels safe to index x with (ignored ones replaced by 0), and
    # whether none is ignored; raises LabelRangeError for a label that is
    # neither a class nor ignore_label.
    labels = _check_labels(
        "softmax_cross_entropy", t, k, ignore_label, "t", "x.shape[1]"
    )
    return labels, labels is t and not 0 <= ignore_label < k


def _log_softmax(x, xp):
    # Shifting by the maximum keeps exp from overflowing.
    y = x - x.max(axis=1, keepdims=True)
    y -= xp.log(xp.exp(y).sum(axis=1, keepdims=True))
    return y


def _expand(a, ndim):
    # (N, d1, ...) -> (N, 1, d1, ...), which broadcasts against x.
    return a.reshape((*a.shape[:1], 1, *a.shape[1:])) if ndim > 1 else a


_fits = {}


def _hard_labels_fit(node, xs):
    # A type_check.fast_path predicate: float scores (n, k, d...) and integer
    # labels (n, d...), no class weights. The answer is cached per shapes
    # and dtypes (a lookup costs half of reading and comparing them).
    if len(xs) != 2 or node.class_weight is not None:
        return False
    x, t = xs
    key = (x.shape, x.dtype, t.shape, t.dtype)
    fit = _fits.get(key)
    if fit is None:
        fit = _remember(_fits, key, accuracy._scores_and_labels(node, xs))
    return fit


def _fused_rows(x, flat, e, weight, coeff, ones_k, scale_dtype):
    # The fused path on rows of x: e = (softmax(x) - onehot) * coeff (* 0
    # for an ignored label; weight is None or 1/0 per row), computed in e's
    # memory; returns log(softmax(x)) at the labels. flat: the labels as flat
    # indexes into these rows.
    _subtract(x, _max_reduce(x, 1, None, None, True), out=e)
    log_p = e.take(flat)
    _exp(e, out=e)
    s = e.dot(ones_k)
    log_p -= _log(s)
    scale = _divide(coeff, s, dtype=scale_dtype)
    # exp(log_p) - 1 is softmax - 1 at the labels, without cancellation.
    at_labels = _expm1(log_p)
    if weight is not None:
        scale *= weight
        at_labels *= weight
    e *= scale.reshape(len(s), 1)
    at_labels *= coeff
    e.put(flat, at_labels)
    return log_p


class SoftmaxCrossEntropy(function_node.FunctionNode):
    """Softmax cross entropy over axis 1, with hard (int) or soft (float) targets."""

    # Class-level defaults are the constructor's: softmax_cross_entropy
    # builds a node with default options without calling __init__.
    normalize = True
    cache_score = True
    class_weight = None
    ignore_label = -1
    reduce = "mean"
    soft_target_loss = "cross-entropy"
    enable_double_backprop = False
    # Whether the options allow the fused 2-d paths (hard labels, mean).
    _fusable = True
    _y = None
    soft_target = False
    eps = 1e-7
    _coeff = None
    # Set by the NumPy 2-d path: (softmax(x) - onehot(t)) * _coeff, with
    # ignored rows zeroed; the gradient is this times gy. A plain backward
    # hands the array over as the gradient and clears this (a second backward
    # recomputes it from the retained x and t).
    _gx_unit = None
    # Whether forward took forward_fused_numpy (which keeps no softmax).
    _fused_numpy = False
    # Set by the fused 2-d path: the labels with ignored ones replaced by 0,
    # and the per-row weights (None when no label is ignored).
    _labels = None
    _row_weight = None

    def __init__(
        self,
        normalize=True,
        cache_score=True,
        class_weight=None,
        ignore_label=-1,
        reduce="mean",
        soft_target_loss="cross-entropy",
        enable_double_backprop=False,
    ):
        _check_class_weight_option(class_weight)
        if reduce not in ("mean", "no"):
            raise ValueError(
                f"only 'mean' and 'no' are valid for 'reduce', but {reduce!r} is given"
            )
        if soft_target_loss not in ("cross-entropy", "kl-divergence"):
            raise ValueError(
                "soft_target_loss must be 'cross-entropy' or 'kl-divergence'."
            )
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.soft_target_loss = soft_target_loss
        self.enable_double_backprop = enable_double_backprop
        self._fusable = (
            class_weight is None
            and reduce == "mean"
            and bool(cache_score)
            and not enable_double_backprop
        )

    @property
    def coeff(self):
        """Scale of the summed loss: 1 / (count of the rows or valid labels).

        Set by the forward pass (or a kernel override) when ``reduce`` is
        ``'mean'``; the gradient is scaled by ``gy * coeff`` too.
        """
        return self._coeff

    @coeff.setter
    def coeff(self, value):
        self._coeff = value

    @property
    def flat_labels(self):
        """Flat indexes into the ``(n, k)`` softmax at each row's label, or None.

        Set by the fused 2-d paths for backward (see
        :meth:`flat_label_indexes`), ignored labels pointing at class 0.
        """
        return self._labels

    @flat_labels.setter
    def flat_labels(self, value):
        self._labels = value

    @property
    def row_weight(self):
        """Per-row weights of the fused 2-d paths (1 kept, 0 ignored), or None.

        None when no label is ignored.
        """
        return self._row_weight

    @row_weight.setter
    def row_weight(self, value):
        self._row_weight = value

    def check_hard_labels(self, t, k):
        """Checks integer labels against ``k`` classes and ``ignore_label``.

        Args:
            t (:ref:`ndarray`): Integer labels.
            k (int): Number of classes (``x.shape[1]``).

        Returns:
            tuple: ``(labels, plain)``: the labels safe to index with (ignored
            ones replaced by 0) and whether none is ignored.

        Raises:
            ValueError: A label is neither a class nor ``ignore_label``
                (a ``LabelRangeError``, also an ``IndexError``).
        """
        return _check_hard_labels(t, k, self.ignore_label)

    @staticmethod
    def flat_label_indexes(labels, k):
        """Returns ``row * k + label`` for each row of an ``(n, k)`` array.

        Args:
            labels (:ref:`ndarray`): Checked labels, one per row.
            k (int): Number of classes.

        Returns:
            :ref:`ndarray`: Flat indexes, in the labels' integer dtype unless
            ``n * k`` overflows it.
        """
        xp = backend.get_array_module(labels)
        return _row_offsets(xp, len(labels), k, labels.dtype) + labels

    @property
    def y(self):
        """Softmax of ``x`` cached for backward.

        None without ``cache_score`` or with ``enable_double_backprop``. The
        fused NumPy path keeps the gradient instead, so there the softmax is
        computed again from the retained ``x`` on first access (before or
        after backward).
        """
        if self._y is None and self._fused_numpy and self.inputs:
            x = self.inputs[0].data
            if x is not None:
                self._y = numpy.exp(_log_softmax(x, numpy))
        return self._y

    @y.setter
    def y(self, value):
        self._y = value

    @type_check.fast_path(_hard_labels_fit)
    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)
        if type_check.eval(t_type.dtype.kind) == "i":
            type_check.expect(
                t_type.ndim == x_type.ndim - 1,
                x_type.shape[0] == t_type.shape[0],
                x_type.shape[2:] == t_type.shape[1:],
            )
        else:
            # A float t is a soft target: a distribution over axis 1 of x.
            type_check.expect(t_type.dtype.kind == "f")
            type_check.expect(x_type.shape == t_type.shape)
        if self.class_weight is not None:
            n_class = type_check.make_variable(
                len(self.class_weight), "len(class_weight)"
            )
            type_check.expect(x_type.shape[1] == n_class)

    def forward(self, inputs):
        x, t = inputs
        if self.takes_fused_numpy_path(x, t):
            return self.forward_fused_numpy(x, t)
        return self._forward_generic(x, t)

    def takes_fused_numpy_path(self, x, t):
        """Whether :meth:`forward` runs :meth:`forward_fused_numpy` on ``x``, ``t``.

        So it does for the common classifier loss: NumPy arrays, 2-d ``x``,
        integer labels, and the default ``class_weight``, ``reduce`` and
        ``cache_score`` options without double backprop.
        """
        return (
            self._fusable
            and type(x) is _ndarray
            and type(t) is _ndarray
            and x.ndim == 2
            and t.dtype.kind == "i"
        )

    def forward_fused_numpy(self, x, t, run_rows=None):
        """The forward pass of the common classifier loss on NumPy, fused.

        It also finishes the gradient for ``gy = 1``, ``(softmax(x) -
        onehot(t)) * coeff`` with ignored rows zeroed, so that a plain
        backward with ``gy = 1`` computes nothing. The rows are independent:
        ``run_rows(rows, n)`` (default: all rows at once) must call
        ``rows(start, stop)`` once for each range of a partition of
        ``range(n)``, in any order or on several threads at once; a backend
        plugin passes one that splits the work among threads and into
        cache-sized blocks.

        Args:
            x (numpy.ndarray): Scores ``(n, k)``, float16/32/64.
            t (numpy.ndarray): Integer labels ``(n,)``.
            run_rows (callable): See above.

        Returns:
            tuple: The 0-d loss array, of ``x``'s dtype.
        """
        self._input_indexes_to_retain = _X_AND_T
        self._fused_numpy = True
        dtype = x.dtype
        key = (x.shape, dtype, t.dtype)
        offsets, ones_k, ones_n = _numpy_consts.get(key) or _numpy_constants(key)
        n, k = x.shape
        # Labels that are all classes (the usual case with ignore_label -1)
        # need no mask: the check (argmin and argmax of t) tells, at a
        # fraction of the cost of a comparison and a count.
        ignore_label = self.ignore_label
        labels = _check_labels(
            "softmax_cross_entropy", t, k, ignore_label, "t", "x.shape[1]"
        )
        if labels is t and not 0 <= ignore_label < k:
            count = n
            weight = None
        else:
            valid = t != _label_array(ignore_label, t.dtype)
            count = _count_nonzero(valid)
            weight = valid.astype(dtype) if count != n else None
        self._coeff = coeff = 1.0 / max(count if self.normalize else n, 1)
        # float16 rows get their factors in float32 (coeff / s is often below
        # float16's normal range), rounded once in the product.
        scale_dtype = _float32 if dtype is _float16 else dtype
        e = _empty((n, k), dtype)
        if run_rows is None:
            log_p = _fused_rows(
                x, offsets + labels, e, weight, coeff, ones_k, scale_dtype
            )
        else:
            log_p = _empty(n, dtype)

            def rows(start, stop):
                log_p[start:stop] = _fused_rows(
                    x[start:stop],
                    offsets[: stop - start] + labels[start:stop],
                    e[start:stop],
                    None if weight is None else weight[start:stop],
                    coeff,
                    ones_k,
                    scale_dtype,
                )

            run_rows(rows, n)
        self._gx_unit = e
        if weight is None:
            weight = ones_n
        if dtype is _float16:
            # Summed in float32, scaled in Python floats, rounded once.
            if count != n:
                log_p *= weight
            total = float(_add_reduce(log_p, 0, numpy.float32))
        else:
            total = float(log_p.dot(weight))
        return (_array(total * -coeff, dtype),)

    def _forward_generic(self, x, t):
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(x)
        self.soft_target = t.dtype.kind == "f"
        if not self.soft_target:
            labels, plain = _check_hard_labels(t, x.shape[1], self.ignore_label)
            if x.ndim == 2 and self._fusable:
                return self._forward_2d(x, t, xp, labels, plain)
        log_y = _log_softmax(x, xp)
        if self.cache_score and not self.enable_double_backprop:
            self.y = xp.exp(log_y)
        if self.soft_target:
            loss, count = self._soft_target_loss(xp, t, log_y)
        else:
            mask = t != self.ignore_label
            tc = xp.where(mask, t, 0)
            if x.ndim == 2:
                # Plain fancy indexing is much cheaper than take_along_axis.
                log_p = log_y[xp.arange(len(tc)), tc]
            else:
                log_p = xp.take_along_axis(log_y, _expand(tc, x.ndim), axis=1)
                log_p = log_p.reshape(t.shape)
            loss = log_p * -self._instance_weight(xp, t, x.dtype)
            count = int(mask.sum()) if self.normalize else len(x)
        if self.reduce == "no":
            return (loss,)
        self._coeff = 1.0 / max(count, 1)
        # float16 sums are accumulated in float32 to avoid overflow.
        acc = numpy.float32 if x.dtype == numpy.float16 else x.dtype
        return (xp.asarray(loss.sum(dtype=acc) * self._coeff, dtype=x.dtype),)

    def _forward_2d(self, x, t, xp, labels, plain):
        # The common classifier loss on other array types (NumPy arrays take
        # the path in forward), fused: one exp, the softmax kept for
        # backward, flat take/put instead of 2-d fancy indexing, and no
        # per-instance weights unless a label is ignored.
        shifted = x - x.max(axis=1, keepdims=True)
        e = xp.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        n, k = x.shape
        if plain:
            count = n
        else:
            valid = t != self.ignore_label
            count = int(xp.count_nonzero(valid))
        flat = _row_offsets(xp, n, k, labels.dtype) + labels
        log_p = shifted.take(flat)
        log_p -= xp.log(s).reshape(n)
        if count != n:
            self._row_weight = valid.astype(x.dtype)
            log_p *= self._row_weight
        e /= s
        self.y = e
        self._labels = flat
        self._coeff = 1.0 / max(count if self.normalize else n, 1)
        # float16 sums are accumulated in float32 to avoid overflow; the
        # scaling is done in Python floats (float64), then rounded once.
        acc = numpy.float32 if x.dtype == numpy.float16 else x.dtype
        total = float(log_p.sum(dtype=acc))
        return (xp.array(total * -self._coeff, dtype=x.dtype),)

    def _weighted_target(self, t, dtype):
        t = t.astype(dtype, copy=False)
        if self.class_weight is None:
            return t
        w = self.class_weight.astype(dtype, copy=False)
        return t * w.reshape((1, len(w)) + (1,) * (t.ndim - 2))

    def _instance_weight(self, xp, t, dtype):
        # 0 for ignored labels, else 1 or the class weight of the label.
        mask = t != self.ignore_label
        if self.class_weight is None:
            return mask.astype(dtype)
        w = self.class_weight.astype(dtype, copy=False)[xp.where(mask, t, 0)]
        return w * mask

    def _soft_target_loss(self, xp, t, log_y):
        # Soft targets are averaged over all instances whatever `normalize`.
        dtype = log_y.dtype
        terms = self._weighted_target(t, dtype)
        if self.soft_target_loss == "kl-divergence":
            t = t.astype(dtype, copy=False)
            terms = terms * (xp.log(t + dtype.type(self.eps)) - log_y)
        else:
            terms = terms * -log_y
        loss = terms.sum(axis=1)
        return loss, loss.size

    def _target_and_scale(self, xp, t, dtype, ndim, k):
        # dloss/dx = (softmax(x) * s - target) * scale for the unreduced loss.
        if self.soft_target:
            target = self._weighted_target(t, dtype)
            return target.sum(axis=1, keepdims=True), target, None
        labels = xp.arange(k).reshape((1, k) + (1,) * (ndim - 2))
        onehot = (labels == _expand(t, ndim)).astype(dtype)
        return None, onehot, _expand(self._instance_weight(xp, t, dtype), ndim)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        unit = self._gx_unit
        if unit is not None:
            # The NumPy 2-d path. A plain backward pass builds no graph: a
            # gradient node would only be overhead.
            local = _cfg_local.__dict__
            if not local.get("enable_backprop", _cfg_global.enable_backprop):
                # The gradient takes the array over (scaled in place unless
                # gy is 1); a second backward recomputes it.
                self._gx_unit = None
                g = float(gy._data)
                if g != 1.0:
                    # A cached 0-d array: the scale is the same every time.
                    unit *= _constants.get((g, unit.dtype)) or _constant(g, unit.dtype)
                gx = _make_variable(unit, False)
                return (gx,) if len(indexes) == 1 else (gx, None)
        if self.enable_double_backprop:
            x, t = self.get_retained_inputs()
            return self._double_backprop_grad(x, t.array, gy), None
        # Only t's array is needed: no Variable is rebuilt for it.
        x = self.inputs[0].get_variable()
        t = self.inputs[1].data
        y = self._y
        if y is None and unit is None:
            xp = backend.get_array_module(x.array)
            y = xp.exp(_log_softmax(x.array, xp))
        if type(y) is numpy.ndarray and not _config.enable_backprop:
            # A plain backward pass on NumPy builds no graph: the gradient
            # node would only be overhead. (Other backends keep the node, for
            # which a plugin may register a fused kernel.)
            return self._gx_array(y, t, gy._data), None
        # x is an input of the gradient node only so that an attempt to
        # differentiate the gradient reaches it (and is refused).
        grad = SoftmaxCrossEntropyGradNoDoubleBackprop(self, y, t)
        return grad.apply((x, gy))[0], None

    def _gx_array(self, y, t, gy):
        if self._gx_unit is not None:
            return self._gx_unit * gy.dtype.type(float(gy))
        xp = backend.get_array_module(y)
        if self._labels is not None:
            # _labels holds flat indexes into y (see _forward_2d).
            gx = y.copy()
            gx.put(self._labels, y.take(self._labels) - _one(y))
            if self._row_weight is not None:
                gx *= self._row_weight[:, None]
        elif y.ndim == 2 and not self.soft_target:
            # The common case, without a one-hot array.
            gx = y.copy()
            gx[xp.arange(len(t)), xp.where(t != self.ignore_label, t, 0)] -= 1
            gx *= self._instance_weight(xp, t, y.dtype)[:, None]
        else:
            s, target, scale = self._target_and_scale(
                xp, t, y.dtype, y.ndim, y.shape[1]
            )
            gx = y - target if s is None else y * s - target
            if scale is not None:
                gx *= scale
        if self.reduce == "mean":
            if type(gy) is numpy.ndarray:
                # A 0-d array of y's dtype: NumPy 1.x multiplies by a NumPy
                # scalar several times slower.
                gx *= numpy.array(float(gy) * self._coeff, y.dtype)
            else:
                gx *= gy * y.dtype.type(self._coeff)
        else:
            gx *= _expand(gy, y.ndim)
        return gx

    def _double_backprop_grad(self, x, t, gy):
        xp = backend.get_array_module(t)
        s, target, scale = self._target_and_scale(xp, t, x.dtype, x.ndim, x.shape[1])
        y = softmax.softmax(x, axis=1)
        gx = y - target if s is None else y * s - target
        if scale is not None:
            gx = gx * scale
        if self.reduce == "mean":
            return gx * (gy * self._coeff)
        return gx * primitive_ops.reshape(gy, _expand(gy.array, x.ndim).shape)


_X_AND_T = (0, 1)
# softmax_cross_entropy's defaults of normalize, cache_score, ignore_label,
# reduce, enable_double_backprop and soft_target_loss.
_DEFAULT_OPTIONS = (True, True, -1, "mean", False, "cross-entropy")


class SoftmaxCrossEntropyGradNoDoubleBackprop(function_node.FunctionNode):
    """Gradient of SoftmaxCrossEntropy from the cached softmax; not differentiable.

    Inputs ``(x, gy)``, output ``gx``. Built by :class:`SoftmaxCrossEntropy`'s
    backward when double backprop is off; a backend plugin may register a
    fused kernel for it (it reads :attr:`func`, :attr:`y` and the
    documented attributes of ``func``).
    """

    def __init__(self, func, y, t):
        self._func = func
        self._y = y
        self._t = t

    @property
    def func(self):
        """The :class:`SoftmaxCrossEntropy` node whose gradient this computes."""
        return self._func

    @property
    def y(self):
        """The softmax of ``x`` that the forward pass cached."""
        return self._y

    def forward(self, inputs):
        _, gy = inputs
        return (self._func._gx_array(self._y, self._t, gy),)

    def backward(self, indexes, grad_outputs):
        raise RuntimeError(
            "F.softmax_cross_entropy was called with "
            "'enable_double_backprop=False' argument, but double-backprop is "
            "actually being performed. Please specify "
            "'enable_double_backprop=True' explicitly."
        )


def softmax_cross_entropy(
    x,
    t,
    normalize=True,
    cache_score=True,
    class_weight=None,
    ignore_label=-1,
    reduce="mean",
    enable_double_backprop=False,
    soft_target_loss="cross-entropy",
):
    """Computes cross entropy loss for pre-softmax activations.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float unnormalized log
            probabilities of shape ``(N, K)``, or ``(N, K, d_1, ..., d_m)``
            for a cross entropy of the softmax over axis 1 at each position.
        t (~chainer.Variable or :ref:`ndarray`): Either integer labels of
            shape ``(N,)`` or ``(N, d_1, ..., d_m)``, each in ``[0, K)`` or
            equal to ``ignore_label`` (that instance is ignored; any other
            value raises ``ValueError``); or a float soft target of the shape
            of ``x``, a distribution over axis 1.
        normalize (bool): With ``reduce='mean'`` and integer labels, average
            over the non-ignored instances if ``True``, or divide by the
            batch size ``N`` if ``False``. Soft targets always average over
            all instances.
        cache_score (bool): Keep the softmax computed in forward for backward
            (faster, more memory).
        class_weight (:ref:`ndarray`): Constant float weights of shape
            ``(K,)``; ``class_weight[i]`` multiplies the log-softmax output
            ``y[:, i]`` before the loss is taken.
        ignore_label (int): Label value of instances to ignore.
        reduce (str): ``'mean'`` returns the scalar average; ``'no'`` the
            loss of each instance, of shape ``t.shape`` (integer labels) or
            ``x.shape`` without axis 1 (soft targets).
        enable_double_backprop (bool): Make the gradient itself
            differentiable. Without it, backward uses a cached softmax and
            differentiating the gradient raises ``RuntimeError``.
        soft_target_loss (str): ``'cross-entropy'`` or ``'kl-divergence'``
            (the cross entropy minus the entropy of ``t``); used with soft
            targets only.

    Returns:
        ~chainer.Variable: The loss, of ``x``'s dtype.

    .. note:: This function is differentiable only by ``x``.

    Example:
        >>> import numpy as np
        >>> x = np.array([[-1, 0, 1, 2], [2, 0, 1, -1]], np.float32)
        >>> t = np.array([3, 0], np.int32)
        >>> y = softmax_cross_entropy(x, t)
        >>> round(float(y.array), 4)
        0.4402
        >>> softmax_cross_entropy(x, t, reduce='no').array.round(4)
        array([0.4402, 0.4402], dtype=float32)
        >>> round(float(softmax_cross_entropy(x, np.array([3, -1], np.int32)).array), 4)
        0.4402
    """
    if (
        class_weight is None
        and (
            normalize,
            cache_score,
            ignore_label,
            reduce,
            enable_double_backprop,
            soft_target_loss,
        )
        == _DEFAULT_OPTIONS
    ):
        # The defaults are the class attributes: no __init__ frame.
        func = _new(SoftmaxCrossEntropy)
    else:
        func = SoftmaxCrossEntropy(
            normalize,
            cache_score,
            class_weight,
            ignore_label,
            reduce,
            soft_target_loss,
            enable_double_backprop,
        )
    (loss,) = func.apply((x, t))
    return loss
