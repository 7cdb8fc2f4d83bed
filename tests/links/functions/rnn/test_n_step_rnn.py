import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing
from chainer.functions.rnn import n_step_rnn
from chainer.utils import type_check

_FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _rnn_step(activation):
    def step(x, h, w, b):
        a = x @ w[0].T + h @ w[1].T + b[0] + b[1]
        return (numpy.tanh(a) if activation == "tanh" else numpy.maximum(a, 0),)

    return step


@pytest.fixture
def rnn(nstep):
    return nstep(n_weights=2)


@testing.parameterize(
    *testing.product(
        {
            "n_layers": [1, 2],
            "bidirectional": [False, True],
            "activation": ["tanh", "relu"],
            "batches": [(3, 2, 2, 1)],
            "dtype": _FLOATS,
        }
    )
)
@testing.inject_backend_tests(None, [{}])
class TestNStepRNN(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    @pytest.fixture(autouse=True)
    def _helpers(self, rnn):
        self.rnn = rnn

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
        return self.rnn.inputs(self.n_layers, self.n_dir, self.batches, self.dtype)

    def forward(self, inputs, device):
        hx, ws, bs, xs = self.rnn.split(inputs, self.n_layers, self.n_dir)
        f = n_step_rnn.n_step_birnn if self.bidirectional else n_step_rnn.n_step_rnn
        hy, ys = f(self.n_layers, 0.0, hx, ws, bs, xs, activation=self.activation)
        return (hy, *ys)

    def forward_expected(self, inputs):
        hx, ws, bs, xs = self.rnn.split(inputs, self.n_layers, self.n_dir)
        hy, ys = self.rnn.reference(
            _rnn_step(self.activation),
            self.n_layers,
            [hx],
            ws,
            bs,
            xs,
            self.bidirectional,
        )
        return tuple(a.astype(self.dtype) for a in (hy, *ys))


def test_default_activation_is_tanh(rnn):
    hx, ws, bs, xs = rnn.random_case()
    hy, ys = n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs)
    ref_hy, ref_ys = rnn.reference(_rnn_step("tanh"), 2, [hx], ws, bs, xs, False)
    numpy.testing.assert_allclose(hy.array, ref_hy, rtol=1e-12)
    assert len(ys) == len(ref_ys)


def test_dropout_backward_with_fixed_masks(rnn):
    hx, ws, bs, xs = rnn.random_case(n_layers=3)
    n_flat = 3 * 4

    def func(*inputs):
        numpy.random.seed(7)  # the same masks in every evaluation
        ws_, bs_ = rnn.unflatten(inputs[1 : 1 + n_flat], 3)
        with chainer.using_config("train", True):
            hy, ys = n_step_rnn.n_step_rnn(
                3, 0.4, inputs[0], ws_, bs_, inputs[1 + n_flat :]
            )
        return (hy, *ys)

    inputs = (hx, *rnn.flatten(ws, bs), *xs)
    outs = func(*inputs)
    ref_hy, _ = rnn.reference(_rnn_step("tanh"), 3, [hx], ws, bs, xs, False)
    assert not numpy.allclose(outs[0].array[1:], ref_hy[1:])
    gys = tuple(numpy.random.uniform(-1, 1, o.shape) for o in outs)
    gradient_check.check_backward(func, inputs, gys, atol=1e-5, rtol=1e-4)


class TestBadInputs:
    def test_activation(self, rnn):
        hx, ws, bs, xs = rnn.random_case()
        with pytest.raises(ValueError, match="activation"):
            n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs, activation="sigmoid")

    def test_hx_dtype(self, rnn):
        hx, ws, bs, xs = rnn.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_birnn(1, 0.0, hx.astype(numpy.float32), ws, bs, xs)

    def test_hx_batch_smaller_than_inputs(self, rnn):
        hx, ws, bs, xs = rnn.random_case()
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_rnn(2, 0.0, hx[:, :2], ws, bs, xs)

    def test_input_feature_size(self, rnn):
        hx, ws, bs, xs = rnn.random_case()
        xs[2] = numpy.zeros((1, 4))
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs)

    def test_weight_ndim(self, rnn):
        hx, ws, bs, xs = rnn.random_case()
        ws[1][1] = ws[1][1][0]
        with pytest.raises(type_check.InvalidType):
            n_step_rnn.n_step_rnn(2, 0.0, hx, ws, bs, xs)

    def test_removed_arguments(self, rnn):
        hx, ws, bs, xs = rnn.random_case()
        with pytest.raises(ValueError, match="using_config"):
            n_step_rnn.n_step_birnn(1, 0.0, hx, ws, bs, xs, use_cudnn=False)
