import numpy
import pytest

import chainer
from chainer import initializers
from chainer import testing
from chainer.links.connection import inceptionbn
from chainer.utils import type_check


def _conv(x, W, stride=1, pad=0):
    x = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out_c, _, k, _ = W.shape
    h = (x.shape[2] - k) // stride + 1
    w = (x.shape[3] - k) // stride + 1
    y = numpy.zeros((len(x), out_c, h, w))
    for i in range(h):
        for j in range(w):
            patch = x[:, :, i * stride : i * stride + k, j * stride : j * stride + k]
            y[:, :, i, j] = numpy.einsum("ncpq,ocpq->no", patch, W)
    return y


def _bn_relu(h):
    # Training-mode batch normalization with gamma 1 and beta 0, then ReLU.
    mean = h.mean(axis=(0, 2, 3), keepdims=True)
    var = h.var(axis=(0, 2, 3), keepdims=True)
    return numpy.maximum((h - mean) / numpy.sqrt(var + 2e-5), 0)


def _pool(x, pooltype, stride):
    fill = -numpy.inf if pooltype == "max" else 0
    xp = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=fill)
    h = (x.shape[2] - 1) // stride + 1
    w = (x.shape[3] - 1) // stride + 1
    y = numpy.zeros((*x.shape[:2], h, w))
    for i in range(h):
        for j in range(w):
            win = xp[:, :, i * stride : i * stride + 3, j * stride : j * stride + 3]
            y[:, :, i, j] = (
                win.max(axis=(2, 3)) if pooltype == "max" else win.mean(axis=(2, 3))
            )
    return y


def _expected(link, x):
    s = link.stride
    x = x.astype(numpy.float64)
    outs = []
    if link.out1 > 0:
        outs.append(_bn_relu(_conv(x, link.conv1.W.array)))
    h3 = _bn_relu(_conv(x, link.proj3.W.array))
    outs.append(_bn_relu(_conv(h3, link.conv3.W.array, s, 1)))
    h33 = _bn_relu(_conv(x, link.proj33.W.array))
    h33 = _bn_relu(_conv(h33, link.conv33a.W.array, 1, 1))
    outs.append(_bn_relu(_conv(h33, link.conv33b.W.array, s, 1)))
    p = _pool(x, link.pooltype, s)
    if link.proj_pool is not None:
        p = _bn_relu(_conv(p, link.poolp.W.array))
    outs.append(p)
    return numpy.concatenate(outs, axis=1)


@testing.parameterize(
    *testing.product(
        {
            "config": [(1, 1, 1), (0, None, 2), (0, 2, 2), (0, None, 1)],
            "pooltype": ["max", "avg"],
            "dtype": [numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestInceptionBN(testing.LinkTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float32:
            self.check_forward_options = {"atol": 1e-4, "rtol": 1e-3}
            # Float64 numerical gradients against float32 parameters.
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-3}
        else:
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-4}

    def generate_params(self):
        return (initializers.Normal(dtype=self.dtype),)

    def create_link(self, inits):
        (conv_init,) = inits
        out1, proj_pool, stride = self.config
        return inceptionbn.InceptionBN(
            2,
            out1,
            2,
            1,
            1,
            2,
            self.pooltype,
            proj_pool,
            stride,
            conv_init,
            dtype=self.dtype,
        )

    def generate_inputs(self):
        # Distinct values keep the max pooling away from ties.
        x = numpy.random.permutation(3 * 2 * 5 * 5).reshape(3, 2, 5, 5) / 50.0
        return (x.astype(self.dtype),)

    def forward_expected(self, link, inputs):
        return (_expected(link, inputs[0]).astype(self.dtype),)


def test_structure():
    link = inceptionbn.InceptionBN(3, 4, 2, 5, 3, 6, "max", proj_pool=7)
    assert link.conv1.W.shape == (4, 3, 1, 1)
    assert link.proj3.W.shape == (2, 3, 1, 1)
    assert link.conv3.W.shape == (5, 2, 3, 3)
    assert link.proj33.W.shape == (3, 3, 1, 1)
    assert link.conv33a.W.shape == (6, 3, 3, 3)
    assert link.conv33b.W.shape == (6, 6, 3, 3)
    assert link.poolp.W.shape == (7, 3, 1, 1)
    for name in ("conv1", "proj3", "conv3", "proj33", "conv33a", "conv33b", "poolp"):
        assert getattr(link, name).b is None
    for name, size in (
        ("conv1n", 4),
        ("proj3n", 2),
        ("conv3n", 5),
        ("proj33n", 3),
        ("conv33an", 6),
        ("conv33bn", 6),
        ("poolpn", 7),
    ):
        assert getattr(link, name).avg_mean.shape == (size,)
    y = link(numpy.random.uniform(-1, 1, (2, 3, 4, 4)).astype(numpy.float32))
    assert y.shape == (2, 22, 4, 4)


def test_without_optional_paths():
    link = inceptionbn.InceptionBN(3, 0, 2, 5, 3, 6, "avg", stride=2)
    assert not hasattr(link, "conv1")
    assert not hasattr(link, "poolp")
    y = link(numpy.random.uniform(-1, 1, (2, 3, 5, 5)).astype(numpy.float32))
    assert y.shape == (2, 14, 3, 3)


def test_dtype_of_batch_normalization():
    link = inceptionbn.InceptionBN(2, 0, 2, 2, 2, 2, "max", dtype=numpy.float16)
    assert link.proj3n.gamma.dtype == numpy.float16
    assert link.proj3n.avg_var.dtype == numpy.float16


def test_test_mode_uses_running_statistics():
    link = inceptionbn.InceptionBN(2, 1, 1, 1, 1, 1, "max", proj_pool=1)
    x = numpy.random.uniform(-1, 1, (4, 2, 3, 3)).astype(numpy.float32)
    link(x)
    assert not numpy.allclose(link.proj3n.avg_mean, 0)
    with chainer.using_config("train", False):
        y1 = link(x[:2]).array
        y2 = link(x).array[:2]
    numpy.testing.assert_allclose(y1, y2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "chainer_error"),
    [
        ({"pooltype": "min"}, NotImplementedError),
        ({"out1": 1, "proj_pool": None}, AssertionError),
        ({"out1": 1, "proj_pool": 2, "stride": 2}, AssertionError),
    ],
)
def test_invalid_arguments(kwargs, chainer_error):
    # A ValueError, and also the exception Chainer raises there.
    args = {"out1": 0, "proj_pool": None, "stride": 1, "pooltype": "max"}
    args.update(kwargs)
    with pytest.raises(ValueError) as info:
        inceptionbn.InceptionBN(2, proj3=1, out3=1, proj33=1, out33=1, **args)
    assert isinstance(info.value, chainer_error)


def test_wrong_input_channels():
    link = inceptionbn.InceptionBN(3, 0, 1, 1, 1, 1, "max")
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 2, 4, 4), numpy.float32))


def test_serialization_round_trip():
    src = inceptionbn.InceptionBN(2, 1, 1, 1, 1, 1, "max", proj_pool=1)
    src(numpy.random.uniform(-1, 1, (3, 2, 3, 3)).astype(numpy.float32))
    dst = inceptionbn.InceptionBN(2, 1, 1, 1, 1, 1, "max", proj_pool=1)
    testing.save_and_load_npz(src, dst)
    src_state = dict(src.namedparams())
    for name, p in dst.namedparams():
        numpy.testing.assert_array_equal(p.array, src_state[name].array, err_msg=name)
    numpy.testing.assert_array_equal(dst.proj3n.avg_mean, src.proj3n.avg_mean)
    numpy.testing.assert_array_equal(dst.conv33bn.avg_var, src.conv33bn.avg_var)
    assert dst.poolpn.N == src.poolpn.N
