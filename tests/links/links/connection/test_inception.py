import numpy
import pytest

from chainer import initializers
from chainer import testing
from chainer.links.connection import inception
from chainer.utils import type_check


def _conv(x, W, b, pad=0):
    x = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out_c, _, k, _ = W.shape
    h, w = x.shape[2] - k + 1, x.shape[3] - k + 1
    y = numpy.zeros((len(x), out_c, h, w))
    for i in range(h):
        for j in range(w):
            y[:, :, i, j] = numpy.einsum(
                "ncpq,ocpq->no", x[:, :, i : i + k, j : j + k], W
            )
    return y + b[None, :, None, None]


def _max_pool3(x):
    x = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-numpy.inf)
    h, w = x.shape[2] - 2, x.shape[3] - 2
    y = numpy.full((*x.shape[:2], h, w), -numpy.inf)
    for p in range(3):
        for q in range(3):
            y = numpy.maximum(y, x[:, :, p : p + h, q : q + w])
    return y


def _relu(x):
    return numpy.maximum(x, 0)


def _expected(link, x):
    def c(layer, h, pad=0):
        return _conv(h, layer.W.array, layer.b.array, pad)

    x = x.astype(numpy.float64)
    out1 = c(link.conv1, x)
    out3 = c(link.conv3, _relu(c(link.proj3, x)), 1)
    out5 = c(link.conv5, _relu(c(link.proj5, x)), 2)
    pool = c(link.projp, _max_pool3(x))
    return _relu(numpy.concatenate([out1, out3, out5, pool], axis=1))


@testing.parameterize(*testing.product({"dtype": [numpy.float32, numpy.float64]}))
@testing.inject_backend_tests(None, [{}])
class TestInception(testing.LinkTestCase):
    def setUp(self):
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_forward_options = {"atol": 1e-5, "rtol": 1e-4}

    def generate_params(self):
        return (
            initializers.Normal(dtype=self.dtype),
            initializers.Normal(0.5, dtype=self.dtype),
        )

    def create_link(self, inits):
        conv_init, bias_init = inits
        return inception.Inception(2, 2, 2, 1, 1, 2, 1, conv_init, bias_init)

    def generate_inputs(self):
        # Distinct values keep the max pooling away from ties.
        x = numpy.random.permutation(2 * 2 * 4 * 4).reshape(2, 2, 4, 4) / 10.0
        return (x.astype(self.dtype),)

    def forward_expected(self, link, inputs):
        return (_expected(link, inputs[0]).astype(self.dtype),)


def test_structure_and_shape():
    link = inception.Inception(3, 4, 2, 5, 2, 6, 7)
    assert link.conv1.W.shape == (4, 3, 1, 1)
    assert link.proj3.W.shape == (2, 3, 1, 1)
    assert link.conv3.W.shape == (5, 2, 3, 3)
    assert link.proj5.W.shape == (2, 3, 1, 1)
    assert link.conv5.W.shape == (6, 2, 5, 5)
    assert link.projp.W.shape == (7, 3, 1, 1)
    y = link(numpy.random.uniform(-1, 1, (2, 3, 5, 6)).astype(numpy.float32))
    assert y.shape == (2, 22, 5, 6)
    assert (y.array >= 0).all()


def test_lazy_input_channels():
    link = inception.Inception(None, 1, 1, 1, 1, 1, 1)
    assert link(numpy.zeros((1, 4, 3, 3), numpy.float32)).shape == (1, 4, 3, 3)
    assert link.conv1.W.shape == (1, 4, 1, 1)


def test_initializers():
    link = inception.Inception(
        2, 1, 1, 1, 1, 1, 1, conv_init=initializers.One(), bias_init=3.0
    )
    for _, layer in link.namedlinks(skipself=True):
        numpy.testing.assert_array_equal(layer.W.array, numpy.ones(layer.W.shape))
        numpy.testing.assert_array_equal(layer.b.array, numpy.full(layer.b.shape, 3))


def test_wrong_input_channels():
    link = inception.Inception(3, 1, 1, 1, 1, 1, 1)
    with pytest.raises(type_check.InvalidType):
        link(numpy.zeros((1, 2, 4, 4), numpy.float32))


def test_serialization_round_trip():
    src = inception.Inception(3, 1, 2, 1, 2, 1, 1)
    dst = inception.Inception(3, 1, 2, 1, 2, 1, 1)
    testing.save_and_load_npz(src, dst)
    for (name, p), (_, q) in zip(
        sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
    ):
        numpy.testing.assert_array_equal(q.array, p.array, err_msg=name)
