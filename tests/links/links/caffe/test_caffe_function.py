import struct

import numpy
import pytest

import chainer
from chainer import functions as F
from chainer import links as L
from chainer import testing
from chainer.links.caffe import caffe_function
from chainer.serializers import npz

# -- a tiny protobuf wire encoder for caffe.proto messages -----------------------


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _vint(number, value):
    return _varint(number << 3) + _varint(int(value))


def _f32(number, value):
    return _varint(number << 3 | 5) + struct.pack("<f", value)


def _length(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _packed(number, values):
    return _length(number, b"".join(_varint(v) for v in values))


def _blob(array, legacy=False):
    array = numpy.asarray(array, numpy.float32)
    if legacy:
        dims = (1,) * (4 - array.ndim) + array.shape
        head = b"".join(_vint(i, d) for i, d in enumerate(dims, 1))
    else:
        head = _length(7, _packed(1, array.shape))
    return head + _length(5, array.astype("<f4").tobytes())


def _layer(name, kind, bottom=(), top=(), blobs=(), params=b""):
    msg = _length(1, name) + _length(2, kind)
    msg += b"".join(_length(3, b) for b in bottom)
    msg += b"".join(_length(4, t) for t in top)
    msg += b"".join(_length(7, _blob(b)) for b in blobs)
    return _length(100, msg + params)


_V1_TYPES = {
    "Convolution": 4,
    "ReLU": 18,
    "Pooling": 17,
    "InnerProduct": 14,
    "Softmax": 20,
    "Data": 5,
    "Accuracy": 1,
}
_V1_PARAM_FIELDS = {106: 10, 121: 19, 117: 17, 123: 30, 125: 39}


def _v1_layer(name, kind, bottom=(), top=(), blobs=(), params=()):
    msg = _length(4, name) + _vint(5, _V1_TYPES[kind])
    msg += b"".join(_length(2, b) for b in bottom)
    msg += b"".join(_length(3, t) for t in top)
    msg += b"".join(_length(6, _blob(b, legacy=True)) for b in blobs)
    msg += b"".join(_length(_V1_PARAM_FIELDS[f], p) for f, p in params)
    return _length(2, msg)


def _conv_param(num_output, kernel, stride=None, pad=None, bias_term=None, **kw):
    msg = _vint(1, num_output) + _packed(4, [kernel])
    if stride is not None:
        msg += _packed(6, [stride])
    if pad is not None:
        msg += _packed(3, [pad])
    if bias_term is not None:
        msg += _vint(2, bias_term)
    if "group" in kw:
        msg += _vint(5, kw["group"])
    if "dilation" in kw:
        msg += _packed(18, [kw["dilation"]])
    return msg


def _pool_param(pool, kernel=None, stride=None, pad=None, global_pooling=False):
    msg = _vint(1, pool)
    if kernel is not None:
        msg += _vint(2, kernel)
    if stride is not None:
        msg += _vint(3, stride)
    if pad is not None:
        msg += _vint(4, pad)
    if global_pooling:
        msg += _vint(12, 1)
    return msg


def _write(tmp_path, *layers, name="net.caffemodel"):
    path = tmp_path / name
    path.write_bytes(_length(1, "net") + b"".join(layers))
    return str(path)


def _rand(*shape):
    return numpy.random.uniform(-1, 1, shape).astype(numpy.float32)


# -- conv -> relu -> pool -> fc -> softmax ---------------------------------------


def _simple_weights():
    return _rand(4, 3, 3, 3), _rand(4), _rand(5, 64), _rand(5)


def _simple_reference(x, W1, b1, W2, b2):
    conv = L.Convolution2D(3, 4, 3, pad=1, initialW=W1, initial_bias=b1)
    fc = L.Linear(64, 5, initialW=W2, initial_bias=b2)
    h = F.max_pooling_2d(F.relu(conv(x)), 2, stride=2)
    return F.softmax(fc(h)), fc(h)


def _simple_net_v2(tmp_path, W1, b1, W2, b2):
    return _write(
        tmp_path,
        _layer("input", "Input", top=["data"]),
        _layer(
            "conv1",
            "Convolution",
            ["data"],
            ["conv1"],
            [W1, b1],
            _length(106, _conv_param(4, 3, stride=1, pad=1)),
        ),
        _layer("relu1", "ReLU", ["conv1"], ["conv1"]),
        _layer(
            "pool1",
            "Pooling",
            ["conv1"],
            ["pool1"],
            params=_length(121, _pool_param(0, 2, 2)),
        ),
        _layer(
            "fc", "InnerProduct", ["pool1"], ["fc"], [W2, b2], _length(117, _vint(1, 5))
        ),
        _layer("prob", "Softmax", ["fc"], ["prob"]),
    )


def test_conv_relu_pool_fc_softmax(tmp_path):
    weights = _simple_weights()
    path = _simple_net_v2(tmp_path, *weights)
    func = caffe_function.CaffeFunction(path)
    x = _rand(2, 3, 8, 8)
    prob, fc = func(inputs={"data": x}, outputs=["prob", "fc"])
    expected_prob, expected_fc = _simple_reference(x, *weights)
    testing.assert_allclose(prob.array, expected_prob.array, atol=1e-5, rtol=1e-5)
    testing.assert_allclose(fc.array, expected_fc.array, atol=1e-5, rtol=1e-5)
    assert isinstance(func.conv1, L.Convolution2D)
    assert isinstance(func.fc, L.Linear)
    numpy.testing.assert_array_equal(func.conv1.W.array, weights[0])
    numpy.testing.assert_array_equal(func.fc.b.array, weights[3])
    assert sorted(func.forwards) == ["conv1", "fc", "pool1", "prob", "relu1"]
    assert func.layers[0] == ("conv1", ["data"], ["conv1"])
    assert set(func.variables) == {"data", "conv1", "pool1", "fc", "prob"}
    # The graph is an ordinary one: gradients reach the Caffe weights.
    F.sum(fc * fc).backward()
    assert func.conv1.W.grad is not None
    assert func.conv1.W.grad.shape == (4, 3, 3, 3)


def test_legacy_v1_format(tmp_path):
    W1, b1, W2, b2 = _simple_weights()
    path = _write(
        tmp_path,
        _v1_layer("data", "Data", top=["data", "label"]),
        _v1_layer(
            "conv1",
            "Convolution",
            ["data"],
            ["conv1"],
            [W1, b1],
            [(106, _conv_param(4, 3, pad=1))],
        ),
        _v1_layer("relu1", "ReLU", ["conv1"], ["conv1"]),
        _v1_layer(
            "pool1",
            "Pooling",
            ["conv1"],
            ["pool1"],
            params=[(121, _pool_param(0, 2, 2))],
        ),
        _v1_layer(
            "fc", "InnerProduct", ["pool1"], ["fc"], [W2, b2], [(117, _vint(1, 5))]
        ),
        _v1_layer("prob", "Softmax", ["fc"], ["prob"]),
    )
    func = caffe_function.CaffeFunction(path)
    x = _rand(2, 3, 8, 8)
    (prob,) = func(inputs={"data": x}, outputs=["prob"])
    expected, _ = _simple_reference(x, W1, b1, W2, b2)
    testing.assert_allclose(prob.array, expected.array, atol=1e-5, rtol=1e-5)


# -- split, concat, eltwise ------------------------------------------------------


def test_split_concat_eltwise(tmp_path):
    Wa, ba, Wb = _rand(2, 3, 1, 1), _rand(2), _rand(2, 3, 3, 3)
    eltwise = 110
    path = _write(
        tmp_path,
        _layer("split", "Split", ["data"], ["data_a", "data_b"]),
        _layer(
            "conva",
            "Convolution",
            ["data_a"],
            ["a"],
            [Wa, ba],
            _length(106, _conv_param(2, 1)),
        ),
        _layer(
            "convb",
            "Convolution",
            ["data_b"],
            ["b"],
            [Wb],
            _length(106, _conv_param(2, 3, pad=1, bias_term=0)),
        ),
        _layer("cat", "Concat", ["a", "b"], ["cat"]),
        _layer(
            "cat0", "Concat", ["a", "b"], ["cat0"], params=_length(104, _vint(2, 0))
        ),
        _layer(
            "sum",
            "Eltwise",
            ["a", "b"],
            ["sum"],
            params=_length(eltwise, _length(2, struct.pack("<2f", 0.5, 2.0))),
        ),
        _layer("plain_sum", "Eltwise", ["a", "b", "a"], ["plain_sum"]),
        _layer(
            "prod",
            "Eltwise",
            ["a", "b"],
            ["prod"],
            params=_length(eltwise, _vint(1, 0)),
        ),
        _layer(
            "max", "Eltwise", ["a", "b"], ["max"], params=_length(eltwise, _vint(1, 2))
        ),
    )
    func = caffe_function.CaffeFunction(path)
    assert func.split_map == {"data_a": "data", "data_b": "data"}
    x = _rand(2, 3, 5, 5)
    outs = func(
        inputs={"data": x}, outputs=["cat", "cat0", "sum", "plain_sum", "prod", "max"]
    )
    a = F.convolution_2d(x, Wa, ba).array
    b = F.convolution_2d(x, Wb, pad=1).array
    expected = [
        numpy.concatenate([a, b], axis=1),
        numpy.concatenate([a, b], axis=0),
        0.5 * a + 2.0 * b,
        a + b + a,
        a * b,
        numpy.maximum(a, b),
    ]
    for out, exp in zip(outs, expected, strict=True):
        testing.assert_allclose(out.array, exp, atol=1e-5, rtol=1e-5)


# -- batch normalization and scale -----------------------------------------------


@pytest.mark.parametrize("use_global_stats", [True, False])
def test_batchnorm_scale(tmp_path, use_global_stats):
    mean, var = _rand(3) * 4, numpy.abs(_rand(3)) * 4 + 1
    gamma, beta = _rand(3), _rand(3)
    bn_param = _vint(1, use_global_stats) + _f32(3, 1e-3)
    path = _write(
        tmp_path,
        _layer(
            "bn",
            "BatchNorm",
            ["data"],
            ["bn"],
            [mean, var, numpy.array([2.0])],
            _length(139, bn_param),
        ),
        _layer(
            "scale",
            "Scale",
            ["bn"],
            ["scale"],
            [gamma, beta],
            _length(142, _vint(4, 1)),
        ),
        _layer("scale2", "Scale", ["data", "w"], ["scale2"]),
        _layer(
            "scale3",
            "Scale",
            ["data", "w"],
            ["scale3"],
            [beta],
            _length(142, _vint(4, 1)),
        ),
    )
    func = caffe_function.CaffeFunction(path)
    numpy.testing.assert_allclose(func.bn.avg_mean, mean / 2, rtol=1e-6)
    numpy.testing.assert_allclose(func.bn.avg_var, var / 2, rtol=1e-6)
    x = _rand(4, 3, 2, 2)
    w = _rand(3)
    with chainer.using_config("train", False):
        (y_test,) = func(inputs={"data": x}, outputs=["scale"])
    with chainer.using_config("train", True):
        y_train, y2, y3 = func(
            inputs={"data": x, "w": w}, outputs=["scale", "scale2", "scale3"]
        )
    c = (slice(None), None, None)
    global_stats = (x - (mean / 2)[c]) / numpy.sqrt((var / 2)[c] + 1e-3)
    expected_test = global_stats * gamma[c] + beta[c]
    testing.assert_allclose(y_test.array, expected_test, atol=1e-4, rtol=1e-4)
    if use_global_stats:
        testing.assert_allclose(y_train.array, expected_test, atol=1e-4, rtol=1e-4)
    else:
        mu = x.mean(axis=(0, 2, 3), keepdims=True)
        sigma2 = x.var(axis=(0, 2, 3), keepdims=True)
        batch = (x - mu) / numpy.sqrt(sigma2 + 1e-3)
        expected = batch * gamma[c] + beta[c]
        testing.assert_allclose(y_train.array, expected, atol=1e-4, rtol=1e-4)
    testing.assert_allclose(y2.array, x * w[c], atol=1e-6, rtol=1e-6)
    testing.assert_allclose(y3.array, x * w[c] + beta[c], atol=1e-6, rtol=1e-6)


# -- the other layer types ---------------------------------------------------------


def test_other_layers(tmp_path):
    Wd, bd = _rand(4, 3, 2, 2), _rand(3)
    W_fc = _rand(5, 16)
    lrn = _vint(1, 3) + _f32(2, 0.3) + _f32(3, 0.75) + _f32(5, 2.0)
    slice_param = _packed(2, [1, 3])
    reshape_param = _length(1, _packed(1, [0, -1]))
    path = _write(
        tmp_path,
        _layer("lrn", "LRN", ["data"], ["lrn"], params=_length(118, lrn)),
        _layer(
            "drop", "Dropout", ["data"], ["drop"], params=_length(108, _f32(1, 0.3))
        ),
        _layer("sig", "Sigmoid", ["data"], ["sig"]),
        _layer("tanh", "TanH", ["data"], ["tanh"]),
        _layer("leaky", "ReLU", ["data"], ["leaky"], params=_length(123, _f32(1, 0.1))),
        _layer(
            "slice",
            "Slice",
            ["data"],
            ["s1", "s2", "s3"],
            params=_length(126, slice_param),
        ),
        _layer(
            "flat", "Reshape", ["data"], ["flat"], params=_length(133, reshape_param)
        ),
        _layer(
            "deconv",
            "Deconvolution",
            ["data"],
            ["deconv"],
            [Wd, bd],
            _length(106, _conv_param(3, 2, stride=2)),
        ),
        _layer(
            "ave",
            "Pooling",
            ["data"],
            ["ave"],
            params=_length(121, _pool_param(1, 2, 2)),
        ),
        _layer(
            "gmax",
            "Pooling",
            ["data"],
            ["gmax"],
            params=_length(121, _pool_param(0, global_pooling=True)),
        ),
        _layer(
            "fc_t",
            "InnerProduct",
            ["data"],
            ["fc_t"],
            [W_fc.T.copy()],
            _length(117, _vint(1, 5) + _vint(2, 0) + _vint(6, 1)),
        ),
        _layer("loss", "SoftmaxWithLoss", ["fc_t", "label"], ["loss"]),
        _layer("softmax", "Softmax", ["data"], ["softmax"]),
    )
    func = caffe_function.CaffeFunction(path)
    x = _rand(2, 4, 2, 2) * 2
    t = numpy.array([1, 3], numpy.int32)
    names = [
        "lrn", "drop", "sig", "tanh", "leaky", "s1", "s2", "s3", "flat", "deconv",
        "ave", "gmax", "fc_t", "loss", "softmax",
    ]  # fmt: skip
    with chainer.using_config("train", False):
        ys = func(inputs={"data": x, "label": t}, outputs=names)
    outs = dict(zip(names, ys, strict=True))
    sq = numpy.pad(x * x, ((0, 0), (1, 1), (0, 0), (0, 0)))
    window = sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]
    deconv = numpy.einsum("ncij,cokl->noikjl", x, Wd).reshape(2, 3, 4, 4)
    logits = x.reshape(2, 16) @ W_fc.T
    log_p = logits - numpy.log(numpy.exp(logits).sum(axis=1, keepdims=True))
    expected = {
        "lrn": x / (2.0 + 0.1 * window) ** 0.75,
        "drop": x,
        "sig": 1 / (1 + numpy.exp(-x)),
        "tanh": numpy.tanh(x),
        "leaky": numpy.where(x > 0, x, 0.1 * x),
        "s1": x[:, :1],
        "s2": x[:, 1:3],
        "s3": x[:, 3:],
        "flat": x.reshape(2, 16),
        "deconv": deconv + bd[:, None, None],
        "ave": x.mean(axis=(2, 3), keepdims=True),
        "gmax": x.max(axis=(2, 3), keepdims=True),
        "fc_t": logits,
        "loss": -log_p[numpy.arange(2), t].mean(),
        "softmax": numpy.exp(x) / numpy.exp(x).sum(axis=1, keepdims=True),
    }
    for name, value in expected.items():
        testing.assert_allclose(outs[name].array, value, atol=1e-5, rtol=1e-4)


def test_dropout_follows_train_mode(tmp_path):
    path = _write(
        tmp_path,
        _layer(
            "drop", "Dropout", ["data"], ["drop"], params=_length(108, _f32(1, 0.5))
        ),
    )
    func = caffe_function.CaffeFunction(path)
    x = numpy.ones((100, 10), numpy.float32)
    with chainer.using_config("train", True):
        (y,) = func(inputs={"data": x}, outputs=["drop"])
    assert set(numpy.unique(y.array)) == {0.0, 2.0}


def test_group_and_dilated_convolution(tmp_path):
    W, b = _rand(4, 2, 3, 3), _rand(4)
    Wd = _rand(2, 4, 3, 3)
    path = _write(
        tmp_path,
        _layer(
            "group",
            "Convolution",
            ["data"],
            ["group"],
            [W, b],
            _length(106, _conv_param(4, 3, pad=1, group=2)),
        ),
        _layer(
            "dilated",
            "Convolution",
            ["data"],
            ["dilated"],
            [Wd],
            _length(106, _conv_param(2, 3, pad=2, bias_term=0, dilation=2)),
        ),
    )
    func = caffe_function.CaffeFunction(path)
    # As in Chainer, the group convolution is a dense one whose weight holds
    # the groups on its block diagonal.
    dense = func.group.W.array
    assert dense.shape == (4, 4, 3, 3)
    numpy.testing.assert_array_equal(dense[:2, :2], W[:2])
    numpy.testing.assert_array_equal(dense[2:, 2:], W[2:])
    assert not dense[:2, 2:].any()
    assert not dense[2:, :2].any()
    x = _rand(2, 4, 6, 6)
    group, dilated = func(inputs={"data": x}, outputs=["group", "dilated"])
    expected = numpy.concatenate(
        [
            F.convolution_2d(x[:, :2], W[:2], b[:2], pad=1).array,
            F.convolution_2d(x[:, 2:], W[2:], b[2:], pad=1).array,
        ],
        axis=1,
    )
    testing.assert_allclose(group.array, expected, atol=1e-5, rtol=1e-5)
    # A 3x3 kernel dilated by 2 is a 5x5 kernel with holes.
    W5 = numpy.zeros((2, 4, 5, 5), numpy.float32)
    W5[:, :, ::2, ::2] = Wd
    expected = F.convolution_2d(x, W5, pad=2).array
    testing.assert_allclose(dilated.array, expected, atol=1e-5, rtol=1e-5)


# -- interpreter behaviour and errors ---------------------------------------------


def test_unsupported_layers_warn_and_data_layers_are_silent(tmp_path):
    path = _write(
        tmp_path,
        _layer("data", "Data", top=["data", "label"]),
        _layer("input", "Input", top=["data"]),
        _layer("acc", "Accuracy", ["data", "label"], ["acc"]),
        _layer("relu", "ReLU", ["data"], ["relu"]),
    )
    with pytest.warns(UserWarning, match='Skip the layer "acc".*Accuracy'):
        func = caffe_function.CaffeFunction(path)
    assert list(func.forwards) == ["relu"]


def test_v1_unsupported_layer_warns(tmp_path):
    path = _write(tmp_path, _v1_layer("acc", "Accuracy", ["a", "b"], ["acc"]))
    with pytest.warns(UserWarning, match='Skip the layer "acc"'):
        caffe_function.CaffeFunction(path)


def test_disable_and_incomplete_bottoms(tmp_path):
    path = _write(
        tmp_path,
        _layer("relu", "ReLU", ["data"], ["relu"]),
        _layer("sig", "Sigmoid", ["relu"], ["sig"]),
        _layer("tanh", "TanH", ["other"], ["tanh"]),
    )
    func = caffe_function.CaffeFunction(path)
    x = _rand(2, 3)
    (relu,) = func(inputs={"data": x}, outputs=["relu"], disable=["sig"])
    testing.assert_allclose(relu.array, numpy.maximum(x, 0))
    assert "sig" not in func.variables
    assert "tanh" not in func.variables
    with pytest.raises(KeyError, match="sig"):
        func(inputs={"data": x}, outputs=["sig"], disable=["sig"])


def test_old_arguments_are_rejected(tmp_path):
    path = _write(tmp_path, _layer("relu", "ReLU", ["data"], ["relu"]))
    func = caffe_function.CaffeFunction(path)
    x = _rand(2, 3)
    with pytest.raises(ValueError, match="train argument is not supported"):
        func(inputs={"data": x}, outputs=["relu"], train=False)
    with pytest.raises(TypeError, match="unexpected keyword"):
        func(inputs={"data": x}, outputs=["relu"], foo=1)


def test_not_a_caffemodel(tmp_path):
    path = tmp_path / "bad.caffemodel"
    path.write_bytes(b"\xff" * 20)
    with pytest.raises(ValueError, match="not a binary Caffe model"):
        caffe_function.CaffeFunction(str(path))
    with pytest.raises(FileNotFoundError):
        caffe_function.CaffeFunction(str(tmp_path / "missing.caffemodel"))


def test_layer_without_weights(tmp_path):
    path = _write(
        tmp_path,
        _layer(
            "conv",
            "Convolution",
            ["data"],
            ["conv"],
            params=_length(106, _conv_param(4, 3)),
        ),
    )
    with pytest.raises(ValueError, match='layer "conv" has 0 parameter blob'):
        caffe_function.CaffeFunction(path)


def test_weights_of_wrong_size(tmp_path):
    path = _write(
        tmp_path,
        _layer(
            "fc",
            "InnerProduct",
            ["data"],
            ["fc"],
            [_rand(5, 4), _rand(3)],
            _length(117, _vint(1, 5)),
        ),
    )
    with pytest.raises(ValueError, match='blob of layer "fc" has 3 values'):
        caffe_function.CaffeFunction(path)


@pytest.mark.parametrize(
    ("kind", "field", "param", "match"),
    [
        ("LRN", 118, _vint(4, 1), "Within-channel LRN"),
        ("Pooling", 121, _vint(1, 2), "Stochastic pooling"),
        ("InnerProduct", 117, _vint(5, 2), "Non-default axis"),
        ("SoftmaxWithLoss", 125, _vint(2, 2), "non-channel axis"),
        ("Softmax", 125, _vint(2, 0), "non-channel axis"),
    ],
)
def test_unsupported_configurations(tmp_path, kind, field, param, match):
    blobs = [_rand(2, 3), _rand(2)] if kind == "InnerProduct" else []
    path = _write(
        tmp_path, _layer("l", kind, ["data"], ["l"], blobs, _length(field, param))
    )
    with pytest.raises(RuntimeError, match=match):
        caffe_function.CaffeFunction(path)


def test_serialization_round_trip(tmp_path):
    weights = _simple_weights()
    path = _simple_net_v2(tmp_path, *weights)
    func = caffe_function.CaffeFunction(path)
    func.conv1.W.array[...] = 3.0
    saved = str(tmp_path / "func.npz")
    npz.save_npz(saved, func)
    other = caffe_function.CaffeFunction(path)
    npz.load_npz(saved, other)
    numpy.testing.assert_array_equal(other.conv1.W.array, 3.0)
    numpy.testing.assert_array_equal(other.fc.W.array, weights[2])


def test_layers_call_the_current_chainer_functions(tmp_path, monkeypatch):
    path = _write(
        tmp_path,
        _layer("relu", "ReLU", ["data"], ["relu"]),
        _layer(
            "pool",
            "Pooling",
            ["relu"],
            ["pool"],
            params=_length(121, _pool_param(0, 2, 2)),
        ),
    )
    func = caffe_function.CaffeFunction(path)
    calls = []

    def fake_relu(x):
        calls.append(("relu", x.shape))
        return F.identity(x)

    def fake_pool(x, ksize, stride=None, pad=0):
        calls.append(("max_pooling_2d", ksize, stride, pad))
        return F.identity(x)

    monkeypatch.setattr(chainer.functions, "relu", fake_relu)
    monkeypatch.setattr(chainer.functions, "max_pooling_2d", fake_pool)
    func(inputs={"data": _rand(1, 1, 4, 4)}, outputs=["pool"])
    assert calls == [("relu", (1, 1, 4, 4)), ("max_pooling_2d", 2, 2, 0)]


def test_eltwise_coefficients_are_checked_when_the_layer_runs(tmp_path):
    eltwise = _vint(1, 1) + _f32(2, 1.0) + _f32(2, 2.0)
    path = _write(
        tmp_path,
        _layer(
            "sum", "Eltwise", ["a", "b", "c"], ["sum"], params=_length(110, eltwise)
        ),
    )
    func = caffe_function.CaffeFunction(path)
    inputs = {name: _rand(2, 3) for name in "abc"}
    with pytest.raises(AssertionError, match="2 coefficients for 3 bottom blobs"):
        func(inputs=inputs, outputs=["sum"])


def test_batchnorm_is_called_without_finetuning(tmp_path, monkeypatch):
    mean, var = _rand(3), numpy.abs(_rand(3)) + 0.5
    path = _write(tmp_path, _layer("bn", "BatchNorm", ["data"], ["bn"], [mean, var]))
    func = caffe_function.CaffeFunction(path)
    seen = []
    forward = L.BatchNormalization.forward

    def spy(self, x, **kwargs):
        seen.append(kwargs)
        return forward(self, x, **kwargs)

    monkeypatch.setattr(L.BatchNormalization, "forward", spy)
    with chainer.using_config("train", False):
        func(inputs={"data": _rand(2, 3)}, outputs=["bn"])
    assert seen == [{"finetune": False}]
