import threading
import warnings

import numpy
import pytest

import chainer
from chainer import utils


def test_walker_alias_distribution():
    numpy.random.seed(1)
    sampler = utils.WalkerAlias([1.0, 0.0, 3.0])
    samples = sampler.sample((4, 20000))
    assert samples.shape == (4, 20000)
    assert samples.dtype == numpy.int32
    freq = numpy.bincount(samples.ravel(), minlength=3) / samples.size
    numpy.testing.assert_allclose(freq, [0.25, 0.0, 0.75], atol=0.01)


def test_walker_alias_devices():
    sampler = utils.WalkerAlias([0.5, 0.5]).to_cpu()
    assert sampler.device == chainer.get_device("@numpy")
    assert not sampler.use_gpu


@pytest.mark.parametrize(
    "probs", [[], [[0.5, 0.5]], [0.5, -0.1], [0.0, 0.0], [numpy.nan, 1.0]]
)
def test_walker_alias_bad_probs(probs):
    with pytest.raises(ValueError, match="probs"):
        utils.WalkerAlias(probs)


def test_experimental_warns_unless_disabled(monkeypatch):
    with pytest.warns(FutureWarning, match="my_api is experimental"):
        utils.experimental("my_api")
    monkeypatch.setattr(chainer, "disable_experimental_feature_warning", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.experimental("my_api")


def test_force_array_and_type():
    assert isinstance(utils.force_array(numpy.float32(1)), numpy.ndarray)
    assert utils.force_array(numpy.ones(2), numpy.float32).dtype == numpy.float32
    assert utils.force_type(numpy.float16, 1.5).dtype == numpy.float16
    assert utils.size_of_shape((2, 3, 4)) == 24


def test_config_entry_reads_like_chainer_config():
    assert utils._config_entry("train") is chainer.config.train
    with chainer.using_config("train", False):
        assert utils._config_entry("train") is False
        seen = []
        # Another thread sees the global value, not this thread's override.
        thread = threading.Thread(
            target=lambda: seen.append(utils._config_entry("train"))
        )
        thread.start()
        thread.join()
        assert seen == [chainer.global_config.train]
    with chainer.using_config("my_entry", 3):
        assert utils._config_entry("my_entry") == 3
    with pytest.raises(AttributeError):
        utils._config_entry("no_such_entry")


def test_numpy_constant_is_cached_and_read_only():
    a = utils._numpy_constant(0.5, numpy.dtype(numpy.float32))
    assert a.shape == ()
    assert a.dtype == numpy.float32
    assert float(a) == 0.5
    assert utils._numpy_constant(0.5, numpy.dtype(numpy.float32)) is a
    with pytest.raises(ValueError, match="read-only"):
        a[...] = 1
