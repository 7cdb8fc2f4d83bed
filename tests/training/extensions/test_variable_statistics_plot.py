import functools
import os
import struct
import sys
import warnings

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import training
from chainer.training import extensions
from chainer.training.extensions import variable_statistics_plot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _needs_matplotlib():
    pytest.importorskip(
        "matplotlib",
        reason="matplotlib is not installed (VariableStatisticsPlot cannot draw)",
    )


def _png_size(path):
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    return struct.unpack(">II", data[16:24])


def _make(*args, **kwargs):
    # For tests of the statistics alone, which need no matplotlib.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return extensions.VariableStatisticsPlot(*args, **kwargs)


@pytest.fixture
def make_trainer(mock_trainer):
    """``mock_trainer`` of 2 epochs of 3 iterations."""
    return functools.partial(mock_trainer, stop=(2, "epoch"), iter_per_epoch=3)


def test_png_of_a_link(tmp_path, make_trainer):
    _needs_matplotlib()
    link = L.Linear(3, 2)
    link.cleargrads()
    link.W.grad = numpy.ones_like(link.W.array)
    link.b.grad = numpy.zeros_like(link.b.array)
    trainer = make_trainer()
    trainer.extend(extensions.VariableStatisticsPlot(link))
    trainer.run()
    assert os.listdir(tmp_path) == ["statistics.png"]
    _png_size(tmp_path / "statistics.png")


def test_variables_filename_and_figsize(tmp_path, make_trainer):
    _needs_matplotlib()
    v = chainer.Variable(numpy.arange(10, dtype=numpy.float32))
    trainer = make_trainer(stop=(1, "epoch"))
    trainer.extend(
        extensions.VariableStatisticsPlot(
            [v], filename="v.png", figsize=(4, 3), report_grad=False, marker="o"
        )
    )
    trainer.extend(
        extensions.VariableStatisticsPlot(
            v, file_name="w.png", plot_std=False, percentile_sigmas=50
        )
    )
    trainer.run()
    assert _png_size(tmp_path / "v.png") == (400, 300)  # 100 dpi
    _png_size(tmp_path / "w.png")


def test_only_percentiles_or_only_moments(tmp_path, make_trainer):
    _needs_matplotlib()
    v = chainer.Variable(numpy.arange(10, dtype=numpy.float32))
    trainer = make_trainer(stop=(1, "epoch"))
    trainer.extend(
        extensions.VariableStatisticsPlot(
            v, plot_mean=False, plot_std=False, filename="p.png", grid=False
        )
    )
    trainer.extend(
        extensions.VariableStatisticsPlot(v, percentile_sigmas=(), filename="m.png")
    )
    trainer.run()
    assert sorted(os.listdir(tmp_path)) == ["m.png", "p.png"]


def test_sampled_statistics_values():
    v = chainer.Variable(numpy.arange(11, dtype=numpy.float32))
    ext = _make(v, percentile_sigmas=(0, 50, 100), report_grad=False)
    stats = ext._statistics()
    numpy.testing.assert_allclose(
        stats, [[5.0, numpy.std(numpy.arange(11)), 0.0, 5.0, 10.0]], rtol=1e-6
    )


def test_uninitialized_values_give_nan():
    link = L.Linear(None, 2)  # W is uninitialized, b is zero without a grad
    ext = _make(link.W, percentile_sigmas=(50,))
    assert numpy.isnan(ext._statistics()).all()
    ext = _make(link, percentile_sigmas=(50,))
    stats = ext._statistics()
    numpy.testing.assert_array_equal(stats[0], [0, 0, 0])
    assert numpy.isnan(stats[1]).all()


def test_reservoir_keeps_a_bounded_uniform_sample():
    numpy.random.seed(0)
    reservoir = variable_statistics_plot.Reservoir(5, (1, 1))
    for i in range(100):
        reservoir.add(numpy.full((1, 1), 2 * i), idx=2 * i)
    idxs, data = reservoir.get_data()
    assert len(idxs) == 5
    assert idxs.ndim == 1
    assert data.dtype == numpy.float32
    assert list(idxs) == sorted(idxs)
    numpy.testing.assert_array_equal(data[:, 0, 0], idxs)
    assert reservoir.counter == 100
    assert extensions.variable_statistics_plot.Reservoir is type(reservoir)


def test_reservoir_default_index_is_the_position():
    reservoir = variable_statistics_plot.Reservoir(3, (), dtype=numpy.float64)
    for x in (5.0, 6.0):
        reservoir.add(x)
    idxs, data = reservoir.get_data()
    assert list(idxs) == [0, 1]
    assert list(data) == [5.0, 6.0]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_statistician(dtype):
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 7, 3)).astype(dtype)
    statistician = variable_statistics_plot.Statistician(
        collect_mean=True, collect_std=True, percentile_sigmas=(0.0, 50.0, 100.0)
    )
    stat = statistician(x, axis=None, dtype=x.dtype)
    assert all(v.dtype == dtype for v in stat.values())
    numpy.testing.assert_allclose(stat["mean"], x.mean(), rtol=1e-6)
    numpy.testing.assert_allclose(stat["std"], x.std(), rtol=1e-6)
    numpy.testing.assert_allclose(
        stat["percentile"], [x.min(), numpy.median(x), x.max()], rtol=1e-6
    )
    per_row = statistician(x, axis=0)
    assert per_row["mean"].shape == (7, 3)
    assert per_row["percentile"].shape == (3, 7, 3)
    only_mean = variable_statistics_plot.Statistician(True, False, ())
    assert set(only_mean(x)) == {"mean"}


def test_max_sample_size_bounds_the_samples(make_trainer):
    _needs_matplotlib()
    v = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    ext = extensions.VariableStatisticsPlot(v, max_sample_size=4)
    trainer = make_trainer(stop=(20, "iteration"), iter_per_epoch=10)
    trainer.extend(ext)
    trainer.run()
    idxs, _ = ext._samples.get_data()
    assert len(idxs) == 4
    assert set(idxs) <= set(range(1, 21))


def test_without_matplotlib_warns_and_does_nothing(tmp_path, monkeypatch, make_trainer):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    v = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    with pytest.warns(UserWarning, match="cannot import matplotlib"):
        assert extensions.VariableStatisticsPlot.available() is False
    with pytest.warns(UserWarning, match="cannot import matplotlib"):
        ext = extensions.VariableStatisticsPlot(v)
    trainer = make_trainer()
    trainer.extend(ext)
    trainer.run()
    assert os.listdir(tmp_path) == []


def test_bad_inputs():
    v = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    with pytest.raises(ValueError, match="at least one variable"):
        extensions.VariableStatisticsPlot([])
    with pytest.raises(TypeError, match="targets"):
        extensions.VariableStatisticsPlot("W")
    with pytest.raises(ValueError, match="nothing to plot"):
        extensions.VariableStatisticsPlot(
            v, plot_mean=False, plot_std=False, percentile_sigmas=()
        )
    with pytest.raises(ValueError, match="nothing to plot"):
        extensions.VariableStatisticsPlot(v, report_data=False, report_grad=False)
    with pytest.raises(ValueError, match="percentile_sigmas"):
        extensions.VariableStatisticsPlot(v, percentile_sigmas=(101,))
    with pytest.raises(ValueError, match="max_sample_size"):
        extensions.VariableStatisticsPlot(v, max_sample_size=0)
    with pytest.raises(TypeError, match="'filenam'"):
        extensions.VariableStatisticsPlot(v, filenam="x.png")


def test_default_attributes():
    _needs_matplotlib()
    v = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    ext = extensions.VariableStatisticsPlot(v)
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
