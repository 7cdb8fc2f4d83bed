"""chainer_cpu._layout's batch-innermost pad, on one thread and on a team."""

import numpy
import pytest

from chainer_cpu import _layout


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("pval", [0, -numpy.inf])
@pytest.mark.parametrize("layout", ["c_order", "batch_innermost"])
def test_pad_batch_innermost(cpu_team, monkeypatch, threads, pval, layout):
    team = cpu_team(threads)
    monkeypatch.setattr(_layout, "PARALLEL_COPY_BYTES", 1)
    x = numpy.random.default_rng(0).standard_normal((3, 5, 4, 6))
    if layout == "batch_innermost":
        x = numpy.ascontiguousarray(x.transpose(1, 2, 3, 0)).transpose(3, 0, 1, 2)
    buf = _layout.pad_batch_innermost(x, (1, 0), (2, 1), pval)
    assert buf.flags.c_contiguous
    expected = numpy.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=pval)
    numpy.testing.assert_array_equal(buf.transpose(3, 0, 1, 2), expected)
    if team is not None:
        assert team.helpers
