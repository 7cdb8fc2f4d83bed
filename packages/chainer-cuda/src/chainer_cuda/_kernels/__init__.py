"""chainer-cuda's fused CUDA kernels (private).

:mod:`.sources` holds the CUDA code as strings (importable without CuPy);
:mod:`.activation`, :mod:`.lstm`, :mod:`.softmax`, :mod:`.normalization`,
:mod:`.convolution`, :mod:`.pooling` and :mod:`.optimizers` hold the kernel
overrides that ``chainer_cuda._plugin.register_kernels`` names. Those import
CuPy, and are only imported when a CuPy array reaches an overridden node or
update rule.
"""
