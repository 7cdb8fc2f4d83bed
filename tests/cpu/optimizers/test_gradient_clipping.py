"""chainer-cpu's kernels of GradientClipping's two passes, split among the team."""

import numpy
import pytest

import chainer
from chainer import optimizer_hooks
from chainer import plugins
from chainer.optimizer_hooks import gradient_clipping as core_clipping
from chainer_cpu.optimizers import gradient_clipping as cpu_clipping


def test_registered_for_numpy(cpu_plugin):
    assert plugins.get_kernel(core_clipping.SUM_SQUARES_KEY[0], "numpy") is (
        cpu_clipping.sum_squares
    )
    assert plugins.get_kernel(core_clipping.SCALE_KEY[0], "numpy") is (
        cpu_clipping.scale
    )


@pytest.mark.parametrize("parts", [1, 2, 3, 5])
@pytest.mark.parametrize("sizes", [[100], [7, 0, 300, 1, 64], [0, 0], [5000, 3]])
def test_plan_covers_every_element_once(sizes, parts):
    pieces = cpu_clipping.plan(sizes, parts)
    assert len(pieces) <= parts
    seen = [numpy.zeros(n, int) for n in sizes]
    for part in pieces:
        assert part
        for index, start, stop in part:
            assert 0 <= start < stop <= sizes[index]
            seen[index][start:stop] += 1
    for counts in seen:
        assert (counts == 1).all()
    if sum(sizes) >= 16 * parts * 10:
        # Ranges of nearly equal length (cut on multiples of 16 elements).
        lengths = [sum(e - s for _, s, e in part) for part in pieces]
        assert len(lengths) == parts
        assert max(lengths) - min(lengths) <= 16 * 2


def _arrays(dtype):
    rng = numpy.random.RandomState(0)
    return [
        rng.standard_normal((300, 70)).astype(dtype),
        rng.standard_normal(33).astype(dtype),
        rng.standard_normal((40, 50)).astype(dtype).T,  # not C-contiguous
        numpy.zeros((0, 3), dtype),
        rng.standard_normal((2, 3, 4)).astype(dtype),
    ]


@pytest.fixture(params=[1, 2, 3])
def team_of(request, cpu_team, monkeypatch):
    """A team of 1, 2 or 3 threads that splits even small sets of arrays."""
    cpu_team(request.param)
    monkeypatch.setattr(cpu_clipping, "PARALLEL_MIN", 0)
    return request.param


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_sum_squares_per_array(team_of, dtype):
    arrays = _arrays(dtype)
    sums = cpu_clipping.sum_squares(arrays)
    assert len(sums) == len(arrays)
    for a, value in zip(arrays, sums, strict=True):
        assert type(value) is float
        expected = float((a.astype(numpy.float64) ** 2).sum())
        # float32 ranges accumulate in float32 (BLAS sdot).
        rel = 1e-5 if dtype == numpy.float32 else 1e-12
        assert value == pytest.approx(expected, rel=rel)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_scale_equals_numpy_in_place(team_of, dtype):
    arrays = _arrays(dtype)
    expected = [a.copy() for a in arrays]
    for e in expected:
        e *= 0.37
    cpu_clipping.scale(arrays, 0.37)
    for a, e in zip(arrays, expected, strict=True):
        assert a.dtype == e.dtype
        numpy.testing.assert_array_equal(a, e)


def test_one_team_run_per_pass(cpu_team, team_runs, monkeypatch):
    # All arrays together: one run of the team's width per pass, however
    # many arrays; below PARALLEL_MIN elements, none.
    cpu_team(2)
    arrays = [numpy.ones(1000, numpy.float32) for _ in range(10)]
    monkeypatch.setattr(cpu_clipping, "PARALLEL_MIN", 10000)
    assert cpu_clipping.sum_squares(arrays) == [1000.0] * 10
    cpu_clipping.scale(arrays, 0.5)
    assert team_runs == [2, 2]
    team_runs.clear()
    monkeypatch.setattr(cpu_clipping, "PARALLEL_MIN", 10001)
    cpu_clipping.scale(arrays, 2.0)
    assert team_runs == [1]  # one part: run on the calling thread
    assert all((a == 1.0).all() for a in arrays)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_hook_with_the_plugin_matches_the_reference(
    cpu_plugin, team_of, monkeypatch, dtype
):
    # The whole hook on a link with float16/32/64, contiguous and strided
    # gradients and a loss scale: the same gradients with the plugin's passes
    # and with chainer-core's own.
    def clipped(with_plugin):
        link = chainer.Link()
        rng = numpy.random.RandomState(1)
        with link.init_scope():
            for i, a in enumerate(_arrays(dtype)):
                setattr(link, f"p{i}", chainer.Parameter(a.copy()))
        for param in link.params():
            param.grad = rng.standard_normal(param.shape).astype(dtype)
        link.p2.grad = numpy.asfortranarray(link.p2.grad)
        link.p1._loss_scale = 4.0
        optimizer = chainer.optimizers.SGD(lr=0.0).setup(link)
        if not with_plugin:
            monkeypatch.setattr(core_clipping._dispatch, "core_hook", lambda key: None)
        optimizer_hooks.GradientClipping(3.0)(optimizer)
        monkeypatch.undo()
        return {name: p.grad for name, p in link.namedparams()}

    expected = clipped(False)
    got = clipped(True)
    eps = numpy.finfo(dtype).eps
    for name, g in got.items():
        numpy.testing.assert_allclose(g, expected[name], rtol=4 * eps, atol=0)
