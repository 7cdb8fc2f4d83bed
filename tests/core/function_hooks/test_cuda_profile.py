import pytest

from chainer import function_hook
from chainer import function_hooks
from chainer.backends import cuda


@pytest.mark.skipif(cuda.available, reason="checks the behaviour without CUDA")
def test_needs_cuda():
    with pytest.raises(RuntimeError, match="CUDA"), function_hooks.CUDAProfileHook():
        pass
    assert "CUDAProfileHook" not in function_hook.get_function_hooks()
