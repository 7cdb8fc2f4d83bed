import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import n_step_gru
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _sigmoid(x):
    return 0.5 * numpy.tanh(0.5 * x) + 0.5


def _gru_step(x, h, w, b):
    # Chainer's W0..W5 roles.
    r = _sigmoid(x @ w[0].T + b[0] + h @ w[3].T + b[3])
    z = _sigmoid(x @ w[1].T + b[1] + h @ w[4].T + b[4])
    h_bar = numpy.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
    return ((1 - z) * h_bar + z * h,)


@pytest.fixture
def gru(nstep):
    return nstep(n_weights=6)


@testing.parameterize(
    *testing.product(
        {
            "n_layers": [1, 2],
            "bidirectional": [False, True],
            "batches": [(3, 2, 2, 1), (2,)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestNStepGRU(testing.FunctionTestCase):
    @pytest.fixture(autouse=True)
    def _helpers(self, gru):
        self.gru = gru

    def setUp(self):
        self.n_dir = 2 if self.bidirectional else 1
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-2}

    def generate_inputs(self):
        return self.gru.inputs(self.n_layers, self.n_dir, self.batches, self.dtype)

    def forward(self, inputs, device):
        hx, ws, bs, xs = self.gru.split(inputs, self.n_layers, self.n_dir)
        f = n_step_gru.n_step_bigru if self.bidirectional else n_step_gru.n_step_gru
        hy, ys = f(self.n_layers, 0.0, hx, ws, bs, xs)
        return (hy, *ys)

    def forward_expected(self, inputs):
        hx, ws, bs, xs = self.gru.split(inputs, self.n_layers, self.n_dir)
        hy, ys = self.gru.reference(
            _gru_step, self.n_layers, [hx], ws, bs, xs, self.bidirectional
        )
        return tuple(a.astype(self.dtype) for a in (hy, *ys))


def test_rows_beyond_the_longest_batch_pass_through(gru):
    hx, ws, bs, xs = gru.random_case(n_dir=2, batches=(2, 1), hx_batch=3)
    hy, ys = n_step_gru.n_step_bigru(2, 0.0, hx, ws, bs, xs)
    ref_hy, ref_ys = gru.reference(_gru_step, 2, [hx], ws, bs, xs, True)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-12)
    numpy.testing.assert_array_equal(hy.array[:, 2:], hx[:, 2:])
    for y, r in zip(ys, ref_ys, strict=True):
        numpy.testing.assert_allclose(y.array, r, rtol=1e-12)


def test_dropout_backward_with_fixed_masks(gru):
    hx, ws, bs, xs = gru.random_case(n_dir=2)
    n_flat = 2 * 2 * 12

    def func(*inputs):
        numpy.random.seed(5)  # the same masks in every evaluation
        ws_, bs_ = gru.unflatten(inputs[1 : 1 + n_flat], 4)
        with chainer.using_config("train", True):
            hy, ys = n_step_gru.n_step_bigru(
                2, 0.3, inputs[0], ws_, bs_, inputs[1 + n_flat :]
            )
        return (hy, *ys)

    inputs = (hx, *gru.flatten(ws, bs), *xs)
    outs = func(*inputs)
    ref_hy, _ = gru.reference(_gru_step, 2, [hx], ws, bs, xs, True)
    assert not numpy.allclose(outs[0].array[2:], ref_hy[2:])
    numpy.testing.assert_allclose(outs[0].array[:2], ref_hy[:2])
    gys = tuple(numpy.random.uniform(-1, 1, o.shape) for o in outs)
    gradient_check.check_backward(func, inputs, gys, atol=1e-5, rtol=1e-4)


class TestBadInputs:
    def test_hx_units(self, gru):
        hx, ws, bs, xs = gru.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_gru.n_step_gru(2, 0.0, hx[:, :, :1], ws, bs, xs)

    def test_bias_shape(self, gru):
        hx, ws, bs, xs = gru.random_case()
        bs[1][5] = bs[1][5][:1]
        with pytest.raises(type_check.InvalidType, match=r"bs\[1\]\[5\]"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs)

    def test_upper_layer_input_size(self, gru):
        hx, ws, bs, xs = gru.random_case(n_dir=2)
        ws[2][0] = ws[2][0][:, :2]  # needs 2 * n_units inputs
        with pytest.raises(type_check.InvalidType):
            n_step_gru.n_step_bigru(2, 0.0, hx, ws, bs, xs)

    def test_integer_inputs(self, gru):
        hx, ws, bs, xs = gru.random_case()
        xs = [x.astype(numpy.int32) for x in xs]
        with pytest.raises(type_check.InvalidType):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs)

    def test_structure(self, gru):
        hx, ws, bs, xs = gru.random_case()
        with pytest.raises(ValueError, match="bs"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs[0], xs)
        with pytest.raises(TypeError, match="xs"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs[0])
        with pytest.raises(ValueError, match="n_layers"):
            n_step_gru.n_step_gru(0, 0.0, hx, ws, bs, xs)

    def test_removed_arguments(self, gru):
        hx, ws, bs, xs = gru.random_case()
        with pytest.raises(ValueError, match="using_config"):
            n_step_gru.n_step_gru(2, 0.0, hx, ws, bs, xs, train=False)
