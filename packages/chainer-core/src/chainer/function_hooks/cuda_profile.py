"""``CUDAProfileHook``: marks each function as an NVTX range for profilers."""

from __future__ import annotations

from chainer import function_hook
from chainer.backends import cuda
from chainer.utils import install_hint


class CUDAProfileHook(function_hook.FunctionHook):
    """Function hook that marks forward and backward of each function for
    CUDA profilers (nvprof, Nsight Systems).

    Each call is wrapped in an NVTX range named ``'<label>.forward'`` or
    ``'<label>.backward'``. It needs CUDA: without CuPy and a GPU, creating
    the hook (and so entering it) raises ``RuntimeError``.
    """

    name = "CUDAProfileHook"

    def __init__(self):
        if not cuda.available:
            raise RuntimeError(
                "CUDAProfileHook needs CUDA, which is not available: on a machine "
                "with an NVIDIA GPU, install the chainer-cuda distribution with "
                f"CuPy: {install_hint.install_hint('chainer-cuda', 'cuda12')}"
            )
        nvtx = getattr(cuda.cupy.cuda, "nvtx", None)
        if nvtx is None or not getattr(nvtx, "available", True):
            raise RuntimeError("CUDAProfileHook needs NVTX support in CuPy")
        self._nvtx = nvtx

    def forward_preprocess(self, function, in_data):
        """Opens the forward range of ``function``."""
        self._nvtx.RangePush(function.label + ".forward")

    def forward_postprocess(self, function, in_data):
        """Closes the forward range."""
        self._nvtx.RangePop()

    def backward_preprocess(self, function, in_data, out_grad):
        """Opens the backward range of ``function``."""
        self._nvtx.RangePush(function.label + ".backward")

    def backward_postprocess(self, function, in_data, out_grad):
        """Closes the backward range."""
        self._nvtx.RangePop()
