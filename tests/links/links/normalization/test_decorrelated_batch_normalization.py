import numpy
import pytest

import chainer
from chainer import testing
from chainer.links.normalization import decorrelated_batch_normalization as dbn


def _grouped(x, groups):
    return numpy.moveaxis(x, 1, 0).reshape(groups, x.shape[1] // groups, -1)


def _inv_sqrt(a):
    w, v = numpy.linalg.eigh(a)
    return v @ numpy.diag(w**-0.5) @ v.T


def _whiten(x, groups, mean=None, projection=None, eps=2e-5):
    xg = _grouped(x.astype(numpy.float64), groups)
    if mean is None:
        mean = xg.mean(axis=2)
        xc = xg - mean[:, :, None]
        cov = xc @ xc.transpose(0, 2, 1) / xg.shape[2] + eps * numpy.eye(xg.shape[1])
        projection = numpy.stack([_inv_sqrt(c) for c in cov])
    y = projection @ (xg - mean[:, :, None])
    return numpy.moveaxis(y.reshape((x.shape[1], x.shape[0], *x.shape[2:])), 0, 1)


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "train": [True, False]}
    )
)
@testing.inject_backend_tests(None, [{}])
class TestDecorrelatedBatchNormalization(testing.LinkTestCase):
    def setUp(self):
        tol = {numpy.float16: 2e-2, numpy.float32: 1e-4, numpy.float64: 1e-7}
        self.check_forward_options = {"atol": tol[self.dtype], "rtol": tol[self.dtype]}
        self.check_backward_options = {"atol": 1e-1, "rtol": 1e-1}
        if self.dtype == numpy.float64:
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}

    def before_test(self, test_name):
        config = chainer.using_config("train", self.train)
        config.__enter__()
        self.addCleanup(config.__exit__, None, None, None)

    def generate_params(self):
        return ()

    def create_link(self, initializers):
        link = dbn.DecorrelatedBatchNormalization(4, groups=2, dtype=self.dtype)
        link.avg_mean[...] = numpy.random.uniform(-1, 1, (2, 2))
        link.avg_projection[...] = numpy.random.uniform(-1, 1, (2, 2, 2))
        self._stats = (link.avg_mean.copy(), link.avg_projection.copy())
        return link

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (8, 4, 2)).astype(self.dtype),)

    def forward_expected(self, link, inputs):
        (x,) = inputs
        if self.train:
            y = _whiten(x, 2)
        else:
            mean, projection = (a.astype(numpy.float64) for a in self._stats)
            y = _whiten(x, 2, mean, projection)
        return (y.astype(self.dtype),)


def test_running_statistics_and_finetuning():
    link = dbn.DecorrelatedBatchNormalization(4, groups=2, decay=0.6)
    x = numpy.random.uniform(-1, 1, (8, 4, 2)).astype(numpy.float32)
    link(x)
    xg = _grouped(x.astype(numpy.float64), 2)
    mean = xg.mean(axis=2)
    xc = xg - mean[:, :, None]
    cov = xc @ xc.transpose(0, 2, 1) / 16 + 2e-5 * numpy.eye(2)
    projection = numpy.stack([_inv_sqrt(c) for c in cov])
    numpy.testing.assert_allclose(link.avg_mean, 0.4 * mean, rtol=1e-5, atol=1e-6)
    expected = 0.6 * numpy.eye(2) + 0.4 * projection * 16 / 15
    numpy.testing.assert_allclose(link.avg_projection, expected, rtol=1e-4)
    link(x, finetune=True)
    assert link.N == 1
    numpy.testing.assert_allclose(link.avg_mean, mean, rtol=1e-5, atol=1e-6)
    link.start_finetuning()
    assert link.N == 0


def test_recomputing_leaves_statistics_alone():
    link = dbn.DecorrelatedBatchNormalization(4, groups=2)
    with chainer.using_config("in_recomputing", True):
        link(numpy.random.uniform(-1, 1, (8, 4)).astype(numpy.float32))
    numpy.testing.assert_array_equal(link.avg_mean, 0)


def test_initial_statistics():
    link = dbn.DecorrelatedBatchNormalization(6, groups=3, dtype=numpy.float64)
    assert link.avg_mean.shape == (3, 2)
    assert link.avg_mean.dtype == numpy.float64
    numpy.testing.assert_array_equal(link.avg_projection, [numpy.eye(2)] * 3)
    assert list(link.params()) == []


def test_invalid_arguments():
    with pytest.raises(ValueError, match="divisible"):
        dbn.DecorrelatedBatchNormalization(6, groups=4)
    link = dbn.DecorrelatedBatchNormalization(4, groups=2)
    with pytest.raises(TypeError, match="foo"):
        link(numpy.zeros((3, 4), numpy.float32), foo=1)
    with pytest.raises(chainer.utils.type_check.InvalidType):
        link(numpy.zeros((3, 5), numpy.float32))


def test_serialization_round_trip():
    src = dbn.DecorrelatedBatchNormalization(4, groups=2)
    src(numpy.random.uniform(-1, 1, (8, 4)).astype(numpy.float32), finetune=True)
    dst = dbn.DecorrelatedBatchNormalization(4, groups=2)
    testing.save_and_load_npz(src, dst)
    numpy.testing.assert_array_equal(dst.avg_mean, src.avg_mean)
    numpy.testing.assert_array_equal(dst.avg_projection, src.avg_projection)
    assert dst.N == 1


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
def test_loads_statistics_of_the_old_per_link_format(tmp_path, groups, fmt):
    # Older Chainer saved one mean and projection shared by every group.
    rng = numpy.random.RandomState(0)
    mean = rng.uniform(-1, 1, 3).astype(numpy.float32)
    projection = rng.uniform(0.5, 1, (3, 3)).astype(numpy.float32)
    old = {"avg_mean": mean, "avg_projection": projection, "N": numpy.array(4)}
    link = dbn.DecorrelatedBatchNormalization(3 * groups, groups=groups)
    path = str(tmp_path / f"old.{fmt}")
    if fmt == "npz":
        numpy.savez(path, **old)
        load = chainer.serializers.load_npz
    else:
        h5py = pytest.importorskip("h5py")
        with h5py.File(path, "w") as f:
            for key, value in old.items():
                f.create_dataset(key, data=value)
        load = chainer.serializers.load_hdf5
    if groups == 1:
        load(path, link)
    else:
        with pytest.warns(UserWarning, match="older version"):
            load(path, link)
    assert link.avg_mean.shape == (groups, 3)
    numpy.testing.assert_array_equal(link.avg_mean, numpy.stack([mean] * groups))
    numpy.testing.assert_array_equal(
        link.avg_projection, numpy.stack([projection] * groups)
    )
    assert link.N == 4
    with chainer.using_config("train", False):
        link(numpy.ones((2, 3 * groups), numpy.float32))


def test_catalogue():
    import chainer.links as L

    assert L.DecorrelatedBatchNormalization is dbn.DecorrelatedBatchNormalization
