"""chainer-cpu's entry point module (``chainer.plugins`` name ``cpu``).

It stays tiny: kernels and the node classes they override are named by
``"module:attr"`` strings, so registering imports neither the kernels nor
the catalogue, and nothing touches the BLAS or starts a thread until a
kernel runs (``docs/threads.md``). ``CHAINER_DISABLED_PLUGINS=cpu`` turns
every fast path off; the catalogue's reference implementations then run.
"""

from __future__ import annotations

from chainer import plugins

_CONV = "chainer.functions.connection"
_CORE_CPU = "chainer.utils._parallel"
_FAST = "chainer_cpu"

# (class or core hook, kernel), both as 'module:attr' strings. A subclass
# inherits its base's kernel unless it defines its own forward; the 2-d
# subclasses are listed too, so that plugins.get_kernel() finds them under
# their own names.
_KERNEL_TABLE = (
    (
        f"{_CONV}.convolution_nd:ConvolutionND",
        f"{_FAST}.functions.connection.convolution_nd:convolution",
    ),
    (
        f"{_CONV}.convolution_2d:Convolution2DFunction",
        f"{_FAST}.functions.connection.convolution_nd:convolution",
    ),
    (
        f"{_CONV}.convolution_nd:ConvolutionNDGradW",
        f"{_FAST}.functions.connection.convolution_nd:convolution_grad_weight",
    ),
    (
        f"{_CONV}.deconvolution_nd:DeconvolutionND",
        f"{_FAST}.functions.connection.deconvolution_nd:deconvolution",
    ),
    (
        f"{_CONV}.deconvolution_2d:Deconvolution2DFunction",
        f"{_FAST}.functions.connection.deconvolution_nd:deconvolution",
    ),
    (
        f"{_CONV}.linear:LinearFunction",
        f"{_FAST}.functions.connection.linear:linear",
    ),
    # chainer-core's matrix product (the linear function's backward).
    (
        "chainer.primitive_ops.basic_math:MatMul",
        f"{_FAST}.primitive_ops.basic_math:matmul",
    ),
    # chainer-core's GEMM hook for matrix products inside kernels (the
    # recurrences of the n-step RNNs).
    ("chainer.utils.gemm:matmul", f"{_FAST}._gemm:matmul"),
    ("chainer.utils.gemm:right_operand", f"{_FAST}._gemm:right_operand"),
    ("chainer.utils.gemm:matmuls", f"{_FAST}._gemm:matmuls"),
    # pooling (chainer_cpu/functions/pooling/): rows added below this line.
    (
        "chainer.functions.pooling.max_pooling_nd:MaxPoolingND",
        f"{_FAST}.functions.pooling.max_pooling_nd:max_pooling",
    ),
    (
        "chainer.functions.pooling.max_pooling_2d:MaxPooling2D",
        f"{_FAST}.functions.pooling.max_pooling_nd:max_pooling",
    ),
    (
        "chainer.functions.pooling.max_pooling_nd:MaxPoolingNDGrad",
        f"{_FAST}.functions.pooling.max_pooling_nd:max_pooling_grad",
    ),
    (
        "chainer.functions.pooling.average_pooling_nd:AveragePoolingND",
        f"{_FAST}.functions.pooling.average_pooling_nd:average_pooling",
    ),
    (
        "chainer.functions.pooling.average_pooling_2d:AveragePooling2D",
        f"{_FAST}.functions.pooling.average_pooling_nd:average_pooling",
    ),
    (
        "chainer.functions.pooling.average_pooling_nd:AveragePoolingNDGrad",
        f"{_FAST}.functions.pooling.average_pooling_nd:average_pooling_grad",
    ),
    # normalization (chainer_cpu/functions/normalization/): rows below.
    (
        "chainer.functions.normalization.batch_normalization:BatchNormalization",
        f"{_FAST}.functions.normalization.batch_normalization:batch_normalization",
    ),
    (
        "chainer.functions.normalization.batch_normalization:BatchNormalizationGrad",
        f"{_FAST}.functions.normalization.batch_normalization:batch_normalization_grad",
    ),
    (
        "chainer.functions.normalization.batch_normalization:FixedBatchNormalization",
        f"{_FAST}.functions.normalization.batch_normalization:fixed_batch_normalization",
    ),
    # activation (chainer_cpu/functions/activation/): rows below.
    (
        "chainer.functions.activation.relu:ReLU",
        f"{_FAST}.functions.activation.relu:relu",
    ),
    (
        "chainer.functions.activation.relu:ReLUGrad",
        f"{_FAST}.functions.activation.relu:relu_grad",
    ),
    # loss (chainer_cpu/functions/loss/): rows below.
    (
        "chainer.functions.loss.softmax_cross_entropy:SoftmaxCrossEntropy",
        f"{_FAST}.functions.loss.softmax_cross_entropy:softmax_cross_entropy",
    ),
    # optimizers (chainer_cpu/optimizers/): update rules, kernel(rule, param).
    ("chainer.optimizers.adam:AdamRule", f"{_FAST}.optimizers.adam:adam"),
    ("chainer.optimizers.sgd:SGDRule", f"{_FAST}.optimizers.sgd:sgd"),
    (
        "chainer.optimizers.momentum_sgd:MomentumSGDRule",
        f"{_FAST}.optimizers.sgd:momentum_sgd",
    ),
    # optimizer hooks: chainer-core's hook keys of GradientClipping's passes.
    (
        "chainer.optimizer_hooks.gradient_clipping:sum_squares",
        f"{_FAST}.optimizers.gradient_clipping:sum_squares",
    ),
    (
        "chainer.optimizer_hooks.gradient_clipping:scale",
        f"{_FAST}.optimizers.gradient_clipping:scale",
    ),
    # chainer-core's CPU hook (see chainer.utils._parallel in chainer-core):
    # the set-up of a NumPy training step, and print_runtime_info's line.
    (f"{_CORE_CPU}:engage", f"{_FAST}._parallel:engage"),
    (f"{_CORE_CPU}:describe_threads", f"{_FAST}._parallel:describe"),
)


@plugins.hookimpl
def register_kernels() -> dict[tuple[str, str], str]:
    """Registers chainer-cpu's NumPy kernels.

    Keys name the catalogue FunctionNode class (or chainer-core's CPU hook
    function) as a ``'module:attr'`` string and the ``'numpy'`` backend;
    values name the kernels, imported on their first call.

    Returns:
        dict: ``{('module:Class', 'numpy'): 'chainer_cpu.x:kernel'}``.
    """
    return {(key, "numpy"): kernel for key, kernel in _KERNEL_TABLE}
