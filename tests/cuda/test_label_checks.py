"""Out-of-range labels raise on CuPy arrays too: the fused kernel and the xp paths.

On a GPU an out-of-range index reads or writes device memory without an
error, so every label-taking function checks its labels (one reduction and
one synchronisation) before using them. Run with
``python -m pytest -m gpu tests/cuda/test_label_checks.py``.
"""

import numpy
import pytest

import chainer.functions as F
from chainer import function_node
from chainer import plugins
from chainer.functions.loss import softmax_cross_entropy as sce

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"normalize": False},
        {"ignore_label": 2},
        {"reduce": "no"},
        {"cache_score": False},
        {"enable_double_backprop": True},
        {"class_weight": numpy.ones(3, numpy.float32)},
    ],
)
@pytest.mark.parametrize(("label", "shown"), [(3, "3"), (-2, "-2"), (1000, "1000")])
def test_softmax_cross_entropy_on_gpu(gpu, monkeypatch, kwargs, label, shown):
    key = (sce.SoftmaxCrossEntropy, "cupy")
    kernel = plugins.get_kernel(*key)
    calls = []

    def counting(*args):
        calls.append(args)
        return kernel(*args)

    monkeypatch.setitem(function_node._kernel_overrides, key, counting)
    if "class_weight" in kwargs:
        kwargs = {"class_weight": gpu.asarray(kwargs["class_weight"])}
    x = gpu.asarray(numpy.zeros((4, 3), numpy.float32))
    ignored = kwargs.get("ignore_label", -1)
    t = gpu.asarray(numpy.array([0, ignored, label, 1], numpy.int32))
    with pytest.raises(ValueError, match=rf"softmax_cross_entropy: t\[2\] = {shown} "):
        F.softmax_cross_entropy(x, t, **kwargs)
    assert len(calls) == 1


def test_softmax_cross_entropy_kernel_on_valid_labels(gpu):
    x = gpu.asarray(numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32))
    for t in ([0, 2, 1, 1], [0, -1, 2, 1]):
        t = numpy.array(t, numpy.int32)
        expected = F.softmax_cross_entropy(x.get(), t).array
        actual = F.softmax_cross_entropy(x, gpu.asarray(t)).array
        numpy.testing.assert_allclose(actual.get(), expected, rtol=1e-6)


def _cases(cp):
    f32 = numpy.float32
    zeros = cp.zeros
    return [
        (
            "accuracy",
            lambda t: F.accuracy(zeros((3, 3), f32), t),
            [0, 3, 1],
        ),
        (
            "select_item",
            lambda t: F.select_item(zeros((3, 3), f32), t),
            [0, -1, 1],
        ),
        ("hinge", lambda t: F.hinge(zeros((3, 3), f32), t), [0, 3, 1]),
        (
            "embed_id",
            lambda t: F.embed_id(t, zeros((3, 2), f32), ignore_label=-1),
            [0, -2, 1],
        ),
        (
            "negative_sampling",
            lambda t: F.negative_sampling(
                zeros((3, 2), f32),
                t,
                zeros((3, 2), f32),
                lambda shape: cp.zeros(shape, numpy.int32),
                2,
            ),
            [0, 3, -1],
        ),
        (
            "black_out",
            lambda t: F.black_out(
                zeros((3, 2), f32), t, zeros((3, 2), f32), cp.zeros((3, 2), numpy.int32)
            ),
            [0, 3, 1],
        ),
        (
            "classification_summary",
            lambda t: F.classification_summary(zeros((3, 3), f32), t, label_num=3),
            [0, 3, 1],
        ),
    ]


@pytest.mark.parametrize("index", range(7))
def test_label_taking_functions_on_gpu(gpu, index):
    name, call, labels = _cases(gpu)[index]
    t = gpu.asarray(numpy.array(labels, numpy.int32))
    arg = "x" if name == "embed_id" else "t"
    with pytest.raises(ValueError, match=rf"{name}: {arg}\[1\] = {labels[1]} "):
        call(t)


def test_crf1d_and_ctc_on_gpu(gpu):
    f32 = numpy.float32
    cost = gpu.zeros((3, 3), f32)
    xs = [gpu.zeros((2, 3), f32), gpu.zeros((1, 3), f32)]
    ys = [
        gpu.asarray(numpy.array([0, 1], numpy.int32)),
        gpu.asarray(numpy.array([3], numpy.int32)),
    ]
    with pytest.raises(ValueError, match=r"crf1d: ys\[1\]\[0\] = 3 "):
        F.crf1d(cost, xs, ys)
    xs = [gpu.zeros((2, 3), f32) for _ in range(4)]
    t = gpu.asarray(numpy.array([[1, 2], [1, 3]], numpy.int32))
    with pytest.raises(ValueError, match=r"classification: t\[1, 1\] = 3 "):
        F.connectionist_temporal_classification(xs, t, 0)
