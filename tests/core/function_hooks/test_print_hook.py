import io

import pytest

from chainer import function_hooks


def test_forward_report(square, x):
    out = io.StringIO()
    with function_hooks.PrintHook(file=out):
        square(x)
    lines = out.getvalue().splitlines()
    assert lines[0] == "function\t_Square"
    assert lines[1] == "input data"
    text = out.getvalue()
    assert "- shape: (3,)" in text
    assert "- dtype: float32" in text
    assert "mean=2.00000000" in text
    assert "output gradient" not in text


def test_backward_report(square, x):
    y = square(x)
    y.grad = y.array.copy()
    out = io.StringIO()
    with function_hooks.PrintHook(file=out):
        y.backward()
    text = out.getvalue()
    assert "function\t_Square" in text
    assert "output gradient" in text
    # The output gradient's statistics: mean of [1, 4, 9].
    assert "- grad: mean=4.66666" in text


def test_end_and_flush(square, x):
    class File(io.StringIO):
        flushes = 0

        def flush(self):
            self.flushes += 1

    out = File()
    with function_hooks.PrintHook(end="|", file=out, flush=True):
        square(x)
    assert out.getvalue().startswith("function\t_Square|input data|")
    assert out.flushes >= 1


def test_local_hook_on_one_node(square, x):
    out = io.StringIO()
    hook = function_hooks.PrintHook(file=out)
    y = square(x)
    y.creator_node.add_hook(hook)
    y.grad = y.array.copy()
    y.backward()
    assert "function\t_Square" in out.getvalue()


def test_sep_is_deprecated():
    with pytest.warns(DeprecationWarning, match="sep"):
        function_hooks.PrintHook(sep=",")


def test_bad_file():
    with pytest.raises(TypeError, match="file"):
        function_hooks.PrintHook(file=3)
