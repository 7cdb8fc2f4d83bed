import numpy
import pytest

import chainer
from chainer import testing
from chainer.functions.loss import softmax_cross_entropy as sce
from chainer.utils import type_check


def _log_softmax(x):
    x = x.astype(numpy.float64)
    m = x.max(axis=1, keepdims=True)
    return x - m - numpy.log(numpy.exp(x - m).sum(axis=1, keepdims=True))


def _expected_hard(x, t, normalize, class_weight, ignore_label, reduce):
    log_y = numpy.moveaxis(_log_softmax(x), 1, -1).reshape(-1, x.shape[1])
    labels = t.ravel()
    loss = numpy.zeros(len(labels))
    for i, label in enumerate(labels):
        if label == ignore_label:
            continue
        w = 1.0 if class_weight is None else class_weight[label]
        loss[i] = -w * log_y[i, label]
    if reduce == "no":
        return loss.reshape(t.shape)
    count = (labels != ignore_label).sum() if normalize else len(x)
    return loss.sum() / max(count, 1)


def _expected_soft(x, t, class_weight, reduce, soft_target_loss):
    log_y = _log_softmax(x)
    t = t.astype(numpy.float64)
    w = t
    if class_weight is not None:
        w = t * class_weight.reshape((1, -1) + (1,) * (x.ndim - 2))
    if soft_target_loss == "kl-divergence":
        loss = (w * (numpy.log(t + 1e-7) - log_y)).sum(axis=1)
    else:
        loss = -(w * log_y).sum(axis=1)
    return loss if reduce == "no" else loss.mean()


_OPTIONS = [
    {"normalize": True, "ignore": False, "weighted": False, "double": False},
    {"normalize": False, "ignore": True, "weighted": True, "double": True},
    {"normalize": True, "ignore": True, "weighted": False, "double": True},
    {"normalize": True, "ignore": False, "weighted": True, "double": False},
    {"normalize": False, "ignore": False, "weighted": False, "double": True},
    # The fused 2-d path with ignored labels.
    {"normalize": False, "ignore": True, "weighted": False, "double": False},
]


class _Tolerances:
    def setUp(self):
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        if not self.double:
            self.skip_double_backward_test = True


@testing.parameterize(
    *[
        dict(p, **o)
        for p in testing.product(
            {
                "shape": [(4, 3), (3, 4, 2)],
                "reduce": ["mean", "no"],
                "dtype": [numpy.float16, numpy.float32, numpy.float64],
            }
        )
        for o in _OPTIONS
    ]
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSoftmaxCrossEntropy(_Tolerances, testing.FunctionTestCase):
    def generate_inputs(self):
        n, k = self.shape[:2]
        x = numpy.random.uniform(-2, 2, self.shape).astype(self.dtype)
        t_shape = (n, *self.shape[2:])
        t = numpy.random.randint(0, k, t_shape).astype(numpy.int32)
        if self.ignore:
            t.ravel()[::2] = -1
        return x, t

    def _class_weight(self):
        if not self.weighted:
            return None
        return numpy.linspace(0.5, 2.0, self.shape[1]).astype(self.dtype)

    def forward(self, inputs, device):
        x, t = inputs
        cw = self._class_weight()
        if cw is not None:
            cw = device.send(cw)
        loss = sce.softmax_cross_entropy(
            x,
            t,
            normalize=self.normalize,
            class_weight=cw,
            reduce=self.reduce,
            enable_double_backprop=self.double,
        )
        return (loss,)

    def forward_expected(self, inputs):
        x, t = inputs
        loss = _expected_hard(
            x, t, self.normalize, self._class_weight(), -1, self.reduce
        )
        return (numpy.asarray(loss, dtype=self.dtype),)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(4, 3), (3, 4, 2)],
            "reduce": ["mean", "no"],
            "soft_target_loss": ["cross-entropy", "kl-divergence"],
            "weighted": [False, True],
            "double": [False, True],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestSoftTarget(_Tolerances, testing.FunctionTestCase):
    def setUp(self):
        super().setUp()
        # The loss is differentiable by x only, not by the soft target t.
        self.check_backward_options["no_grads"] = [False, True]
        self.check_double_backward_options["no_grads"] = [False, True]

    def generate_inputs(self):
        x = numpy.random.uniform(-2, 2, self.shape).astype(self.dtype)
        t = numpy.random.uniform(0.1, 1, self.shape)
        t /= t.sum(axis=1, keepdims=True)
        return x, t.astype(self.dtype)

    def _class_weight(self):
        if not self.weighted:
            return None
        return numpy.linspace(0.5, 2.0, self.shape[1]).astype(self.dtype)

    def forward(self, inputs, device):
        x, t = inputs
        cw = self._class_weight()
        if cw is not None:
            cw = device.send(cw)
        loss = sce.softmax_cross_entropy(
            x,
            t,
            class_weight=cw,
            reduce=self.reduce,
            enable_double_backprop=self.double,
            soft_target_loss=self.soft_target_loss,
        )
        return (loss,)

    def forward_expected(self, inputs):
        x, t = inputs
        loss = _expected_soft(
            x, t, self._class_weight(), self.reduce, self.soft_target_loss
        )
        return (numpy.asarray(loss, dtype=self.dtype),)


def _inputs(dtype=numpy.float32):
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(dtype)
    t = numpy.array([0, 2, -1, 1], numpy.int32)
    return x, t


@pytest.mark.parametrize("cache_score", [True, False])
def test_cache_score_gives_same_gradient(cache_score):
    x, t = _inputs()
    xv = chainer.Variable(x)
    sce.softmax_cross_entropy(xv, t, cache_score=cache_score).backward()
    ref = chainer.Variable(x)
    sce.softmax_cross_entropy(ref, t, enable_double_backprop=True).backward()
    numpy.testing.assert_allclose(xv.grad, ref.grad, rtol=1e-6)


def test_double_backprop_needs_the_flag():
    x, t = _inputs()
    xv = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(xv, t)
    (gx,) = chainer.grad([loss], [xv], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match="enable_double_backprop=True"):
        chainer.functions.sum(gx * gx).backward()


def test_all_ignored_gives_zero():
    x, _ = _inputs()
    t = numpy.full(4, -1, numpy.int32)
    xv = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(xv, t)
    loss.backward()
    assert float(loss.array) == 0
    assert not xv.grad.any()


def test_custom_ignore_label():
    x, t = _inputs()
    t[2] = 5
    loss = sce.softmax_cross_entropy(x, t, ignore_label=5)
    expected = _expected_hard(x, t, True, None, 5, "mean")
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)


def test_debug_mode_checks_label_range():
    x, t = _inputs()
    t[0] = 3
    with chainer.using_config("debug", True), pytest.raises(ValueError, match="0 <= t"):
        sce.softmax_cross_entropy(x, t)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reduce": "sum"}, "reduce"),
        ({"soft_target_loss": "mse"}, "soft_target_loss"),
        ({"class_weight": numpy.ones((3, 1), "f")}, "ndim"),
        ({"class_weight": numpy.ones(3, "i")}, "dtype"),
        ({"class_weight": chainer.Variable(numpy.ones(3, "f"))}, "Variable"),
    ],
)
def test_invalid_options(kwargs, match):
    x, t = _inputs()
    with pytest.raises(ValueError, match=match):
        sce.softmax_cross_entropy(x, t, **kwargs)


@pytest.mark.parametrize(
    ("x", "t", "kwargs"),
    [
        (numpy.zeros((2, 3), "i"), numpy.zeros(2, "i"), {}),
        (numpy.zeros((2, 3), "f"), numpy.zeros(3, "i"), {}),
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 3), "i"), {}),
        (numpy.zeros((2, 3, 4), "f"), numpy.zeros((2, 5), "i"), {}),
        (numpy.zeros((2, 3), "f"), numpy.zeros((2, 4), "f"), {}),
        (
            numpy.zeros((2, 3), "f"),
            numpy.zeros(2, "i"),
            {"class_weight": numpy.ones(4)},
        ),
    ],
)
def test_invalid_inputs(x, t, kwargs):
    with pytest.raises(type_check.InvalidType):
        sce.softmax_cross_entropy(x, t, **kwargs)


@pytest.mark.parametrize("label_dtype", [numpy.int8, numpy.int16, numpy.int64])
def test_fused_path_with_narrow_labels_matches_the_general_path(label_dtype):
    # 120 x 5 flat offsets overflow int8: the fused path must widen them.
    rng = numpy.random.RandomState(3)
    x = rng.standard_normal((120, 5)).astype(numpy.float32)
    t = rng.randint(0, 5, 120).astype(label_dtype)
    t[::7] = -1
    fused = chainer.Variable(x)
    sce.softmax_cross_entropy(fused, t).backward()
    general = chainer.Variable(x)
    sce.softmax_cross_entropy(general, t, enable_double_backprop=True).backward()
    expected = _expected_hard(x, t, True, None, -1, "mean")
    loss = sce.softmax_cross_entropy(x, t)
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(fused.grad, general.grad, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("ignore_label", [-1, 0, 2, 7])
@pytest.mark.parametrize("normalize", [True, False])
def test_numpy_path_matches_reference_and_general_path(dtype, ignore_label, normalize):
    # With ignore_label -1 no label is ignored (labels above it skip the
    # mask); 0 and 2 are labels present in t; 7 is above every label.
    rng = numpy.random.RandomState(5)
    x = rng.standard_normal((9, 4)).astype(dtype)
    t = numpy.array([0, 2, 1, 3, 2, 0, 1, 3, 2], numpy.int32)
    kwargs = {"ignore_label": ignore_label, "normalize": normalize}
    fused = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(fused, t, **kwargs)
    loss.backward()
    expected = _expected_hard(x, t, normalize, None, ignore_label, "mean")
    half = dtype == numpy.float16
    tol = {"rtol": 1e-2, "atol": 1e-3} if half else {"rtol": 1e-6}
    numpy.testing.assert_allclose(loss.array, expected, **tol)
    assert loss.dtype == dtype
    assert fused.grad.dtype == dtype
    general = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(general, t, enable_double_backprop=True, **kwargs)
    loss.backward()
    tol = {"rtol": 1e-2, "atol": 1e-3} if half else {"rtol": 1e-5, "atol": 1e-7}
    numpy.testing.assert_allclose(fused.grad, general.grad, **tol)


def test_backward_twice_accumulates_the_same_gradient():
    # The gradient is computed from a cached array: it must not be scaled in
    # place.
    x, t = _inputs()
    xv = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(xv, t)
    loss.backward()
    once = xv.grad.copy()
    loss.backward()
    numpy.testing.assert_allclose(xv.grad, 2 * once, rtol=1e-6)
    xv.cleargrad()
    loss.grad = numpy.array(3, numpy.float32)
    loss.backward()
    numpy.testing.assert_allclose(xv.grad, 3 * once, rtol=1e-6)


@pytest.mark.parametrize("labels", [[0, 2, -1, 1], [0, 2, 2, 1]])
def test_first_gradient_is_handed_over_and_the_second_recomputed(labels):
    # A plain backward gives the fused path's cached gradient array away; the
    # user may scale it in place (as gradient clipping does) without changing
    # what a second backward computes.
    x, _ = _inputs()
    t = numpy.array(labels, numpy.int32)
    xv = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(xv, t)
    loss.grad = numpy.array(2, numpy.float32)
    loss.backward()
    once = xv.grad.copy()
    xv.grad *= 0
    loss.backward()
    numpy.testing.assert_allclose(xv.grad, once, rtol=1e-6)
    # The softmax is still there to read after backward.
    y = numpy.exp(x - x.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(loss.creator.y, y, rtol=1e-6)
    expected = _expected_hard(x, t, True, None, -1, "mean")
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-6)


def test_float16_gradient_of_many_classes_is_float64_rounded():
    # Most gradients of 300 rows of 5000 classes are float16 subnormals
    # (steps of 6e-8); each must be within a step of the float64 gradient.
    rng = numpy.random.RandomState(2)
    x = rng.standard_normal((300, 5000)).astype(numpy.float16)
    t = rng.randint(0, 5000, 300).astype(numpy.int32)
    xv = chainer.Variable(x)
    sce.softmax_cross_entropy(xv, t).backward()
    ref = chainer.Variable(x.astype(numpy.float64))
    sce.softmax_cross_entropy(ref, t).backward()
    numpy.testing.assert_allclose(
        xv.grad.astype(numpy.float64), ref.grad, rtol=2e-3, atol=6e-8
    )


def test_gradient_of_a_dropped_input_in_double_backprop_mode():
    # The input Variable is gone by backward: x is retained for the gradient
    # node that refuses double backprop.
    x, t = _inputs()
    xv = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(xv * 1, t)
    (gx,) = chainer.grad([loss], [xv], enable_double_backprop=True)
    ref = chainer.Variable(x)
    sce.softmax_cross_entropy(ref, t).backward()
    numpy.testing.assert_allclose(gx.array, ref.grad, rtol=1e-6)
    with pytest.raises(RuntimeError, match="enable_double_backprop=True"):
        chainer.functions.sum(gx * gx).backward()


def test_empty_batch():
    xv = chainer.Variable(numpy.zeros((0, 3), numpy.float32))
    loss = sce.softmax_cross_entropy(xv, numpy.zeros(0, numpy.int32))
    loss.backward()
    assert float(loss.array) == 0
    assert xv.grad.shape == (0, 3)


def test_default_options_node_matches_constructor_defaults():
    # softmax_cross_entropy with default options builds its node without
    # __init__: the class attributes must be the constructor's defaults.
    built = sce.SoftmaxCrossEntropy()
    x, t = _inputs()
    node = sce.softmax_cross_entropy(chainer.Variable(x), t).creator
    for name in (
        "normalize",
        "cache_score",
        "class_weight",
        "ignore_label",
        "reduce",
        "soft_target_loss",
        "enable_double_backprop",
        "_fusable",
    ):
        assert getattr(node, name) == getattr(built, name), name


class _ArraySubclass(numpy.ndarray):
    pass


@pytest.mark.parametrize("ignore", [False, True])
def test_generic_fused_path_matches_the_numpy_path(ignore):
    # Arrays other than exact NumPy arrays (CuPy's, or a NumPy subclass as
    # here) take the array-module generic 2-d path.
    x, t = _inputs()
    if not ignore:
        t = numpy.array([0, 2, 1, 1], numpy.int32)
    generic = chainer.Variable(x.view(_ArraySubclass))
    loss = sce.softmax_cross_entropy(generic, t)
    assert loss.creator.y is not None  # the generic path caches the softmax
    loss.backward()
    plain = chainer.Variable(x)
    expected = sce.softmax_cross_entropy(plain, t)
    expected.backward()
    numpy.testing.assert_allclose(loss.array, expected.array, rtol=1e-6)
    numpy.testing.assert_allclose(generic.grad, plain.grad, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("cache_score", [True, False])
def test_creator_y_is_the_cached_softmax(cache_score, ignore):
    # Chainer keeps the softmax as ``creator.y`` with cache_score (and no
    # double backprop), and None without it, whichever path ran.
    x, t = _inputs()
    if not ignore:
        t = numpy.array([0, 2, 1, 1], numpy.int32)
    xv = chainer.Variable(x)
    loss = sce.softmax_cross_entropy(xv, t, cache_score=cache_score)
    y = loss.creator.y
    if not cache_score:
        assert y is None
        return
    e = numpy.exp(x - x.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    loss.backward()
    expected = chainer.Variable(x)
    sce.softmax_cross_entropy(expected, t, cache_score=False).backward()
    numpy.testing.assert_allclose(xv.grad, expected.grad, rtol=1e-5, atol=1e-7)


def test_creator_y_is_none_with_double_backprop():
    x, t = _inputs()
    loss = sce.softmax_cross_entropy(
        chainer.Variable(x), t, enable_double_backprop=True
    )
    assert loss.creator.y is None


# Every path checks the labels (issue 21): the fused NumPy path, the generic
# 2-d path (arrays other than exact NumPy ones, as CuPy's without a kernel),
# and the unfused paths that the options select.
_PATHS = {
    "numpy-fused": ({}, False),
    "generic-fused": ({}, True),
    "reduce-no": ({"reduce": "no"}, False),
    "class-weight": ({"class_weight": numpy.ones(3, numpy.float32)}, False),
    "no-cache": ({"cache_score": False}, False),
    "double-backprop": ({"enable_double_backprop": True}, False),
    "not-normalized": ({"normalize": False}, False),
}


@pytest.mark.parametrize("path", sorted(_PATHS))
@pytest.mark.parametrize(("label", "shown"), [(3, "3"), (-2, "-2"), (7, "7")])
def test_out_of_range_label_raises_on_every_path(path, label, shown):
    kwargs, generic = _PATHS[path]
    x, t = _inputs()
    t[1] = label
    if generic:
        x = x.view(_ArraySubclass)
    with pytest.raises(ValueError, match=rf"softmax_cross_entropy: t\[1\] = {shown} "):
        sce.softmax_cross_entropy(x, t, **kwargs)


@pytest.mark.parametrize("path", sorted(_PATHS))
def test_out_of_range_label_among_ignored_ones_raises(path):
    kwargs, generic = _PATHS[path]
    x, t = _inputs()
    t[0] = -1
    t[3] = 3
    if generic:
        x = x.view(_ArraySubclass)
    with pytest.raises(ValueError, match=r"t\[3\] = 3 .* or t == -1 \(ignore_label\)"):
        sce.softmax_cross_entropy(x, t, **kwargs)


def test_out_of_range_label_is_an_index_error_too():
    # NumPy's indexing raised IndexError for a label past the end, as
    # Chainer 7 does outside debug mode; code that catches it still does.
    x, t = _inputs()
    t[0] = 3
    with pytest.raises(IndexError, match="out of range"):
        sce.softmax_cross_entropy(x, t)


def test_minus_one_is_out_of_range_with_another_ignore_label():
    x, t = _inputs()
    t[2] = -1
    with pytest.raises(ValueError, match=r"t\[2\] = -1 "):
        sce.softmax_cross_entropy(x, t, ignore_label=5)


@pytest.mark.parametrize("generic", [False, True])
def test_n_dimensional_labels_are_checked(generic):
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 4)).astype(numpy.float32)
    t = numpy.zeros((2, 4), numpy.int32)
    t[1, 2] = 3
    if generic:
        x = x.view(_ArraySubclass)
    with pytest.raises(ValueError, match=r"t\[1, 2\] = 3 "):
        sce.softmax_cross_entropy(x, t)


@pytest.mark.parametrize("label_dtype", [numpy.int8, numpy.int16, numpy.int64])
def test_labels_of_every_integer_dtype_are_checked(label_dtype):
    x, t = _inputs()
    t = t.astype(label_dtype)
    t[0] = -3
    with pytest.raises(ValueError, match=r"t\[0\] = -3 "):
        sce.softmax_cross_entropy(x, t)
    t[0] = 3
    with pytest.raises(ValueError, match=r"t\[0\] = 3 "):
        sce.softmax_cross_entropy(x, t)


@pytest.mark.parametrize("generic", [False, True])
def test_ignore_label_that_is_a_class_is_still_ignored(generic):
    # All labels are classes here, yet those equal to ignore_label must be
    # masked: the check's "every label in range" is not "none ignored".
    x, _ = _inputs()
    t = numpy.array([0, 1, 2, 1], numpy.int32)
    expected = _expected_hard(x, t, True, None, 1, "mean")
    if generic:
        x = x.view(_ArraySubclass)
    loss = sce.softmax_cross_entropy(x, t, ignore_label=1)
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-5)
