import numpy
import pytest

from chainer import testing
from chainer.functions.loss import discriminative_loss as dl
from chainer.utils import type_check


def _norm(v, p):
    return numpy.abs(v).sum() if p == 1 else numpy.sqrt((v * v).sum())


def _expected(emb, labels, delta_v, delta_d, n_inst, p, alpha, beta, gamma):
    emb = emb.astype(numpy.float64)
    n_batch = emb.shape[0]
    means = numpy.zeros((n_inst, n_batch, emb.shape[1]))
    for c in range(n_inst):
        for b in range(n_batch):
            pixels = emb[b][:, labels[b] == c + 1]
            if pixels.size:
                means[c, b] = pixels.mean(axis=1)
    l_reg = sum(_norm(means[c, b], p) for c in range(n_inst) for b in range(n_batch))
    l_reg /= n_inst * n_batch
    l_var = 0.0
    for c in range(n_inst):
        total = 0.0
        count = 0
        for b in range(n_batch):
            for h, w in zip(*numpy.nonzero(labels[b] == c + 1), strict=True):
                d = _norm(means[c, b] - emb[b, :, h, w], p)
                total += max(d - delta_v, 0) ** 2
                count += 1
        l_var += total / max(count, 1)
    l_var /= n_inst
    l_dist = 0.0
    pairs = 0
    for a in range(n_inst):
        for c in range(a + 1, n_inst):
            pairs += 1
            for b in range(n_batch):
                d = _norm(means[a, b] - means[c, b], p)
                l_dist += max(2 * delta_d - d, 0) ** 2
    l_dist /= max(pairs * n_batch, 1)
    loss = alpha * l_var + beta * l_dist + gamma * l_reg
    return loss, l_var, l_dist, l_reg


def _distances_clear_of_zero(emb, labels, n_inst, low=0.05):
    # The L2 norm is not differentiable at 0 (there its gradient is taken as
    # 0); inputs keep every distance either exactly 0 or clear of it.
    emb = emb.astype(numpy.float64)
    dists = []
    for b in range(emb.shape[0]):
        means = [numpy.zeros(emb.shape[1])]
        for c in range(n_inst):
            pixels = emb[b][:, labels[b] == c + 1]
            if pixels.size:
                mean = pixels.mean(axis=1)
                means.append(mean)
                dists.extend(numpy.linalg.norm(pixels - mean[:, None], axis=0))
        dists.extend(
            numpy.linalg.norm(m - n)
            for i, m in enumerate(means)
            for n in means[i + 1 :]
        )
    return all(d < 1e-12 or d > low for d in dists)


@testing.parameterize(
    *testing.product(
        {
            "shape": [(2, 3, 4, 5), (1, 2, 3, 3), (2, 1, 2, 3)],
            "norm": [1, 2],
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestDiscriminativeLoss(testing.FunctionTestCase):
    delta_v = 0.3
    delta_d = 1.5
    alpha = 1.0
    beta = 0.5
    gamma = 0.01
    dodge_nondifferentiable = True

    def setUp(self):
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        b, c, h, w = self.shape
        # Label c + 1 is never used when there is room: an absent instance.
        top = c if c > 1 else c + 1
        self.labels = numpy.random.randint(0, top, (b, h, w)).astype(numpy.int32)

    def generate_inputs(self):
        while True:
            emb = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
            if _distances_clear_of_zero(emb, self.labels, self.shape[1]):
                return (emb,)

    def forward(self, inputs, device):
        (emb,) = inputs
        return dl.discriminative_margin_based_clustering_loss(
            emb,
            device.send(self.labels),
            self.delta_v,
            self.delta_d,
            self.shape[1],
            self.norm,
            self.alpha,
            self.beta,
            self.gamma,
        )

    def forward_expected(self, inputs):
        (emb,) = inputs
        values = _expected(
            emb,
            self.labels,
            self.delta_v,
            self.delta_d,
            self.shape[1],
            self.norm,
            self.alpha,
            self.beta,
            self.gamma,
        )
        return tuple(numpy.asarray(v, dtype=self.dtype) for v in values)


def _inputs():
    emb = numpy.zeros((2, 3, 4, 4), numpy.float32)
    labels = numpy.zeros((2, 4, 4), numpy.int32)
    return emb, labels


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"norm": 3}, "norm"), ({"max_embedding_dim": 0}, "positive")],
)
def test_invalid_options(kwargs, match):
    emb, labels = _inputs()
    options = {"max_embedding_dim": 3, **kwargs}
    with pytest.raises(ValueError, match=match):
        dl.discriminative_margin_based_clustering_loss(emb, labels, 0.5, 1.5, **options)


@pytest.mark.parametrize(
    ("emb", "labels"),
    [
        (numpy.zeros((2, 4, 4, 4), "f"), numpy.zeros((2, 4, 4), "i")),
        (numpy.zeros((2, 3, 4, 4), "i"), numpy.zeros((2, 4, 4), "i")),
        (numpy.zeros((2, 3, 16), "f"), numpy.zeros((2, 16), "i")),
        (numpy.zeros((2, 3, 4, 4), "f"), numpy.zeros((2, 4, 5), "i")),
        (numpy.zeros((2, 3, 4, 4), "f"), numpy.zeros((2, 4, 4), "f")),
    ],
)
def test_invalid_inputs(emb, labels):
    with pytest.raises(type_check.InvalidType):
        dl.discriminative_margin_based_clustering_loss(emb, labels, 0.5, 1.5, 3)
