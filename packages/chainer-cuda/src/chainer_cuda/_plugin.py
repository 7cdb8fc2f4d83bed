"""chainer-cuda's entry point module (``chainer.plugins`` name ``cuda``).

It stays tiny: the backend is named by a ``"module:attr"`` string, so neither
CuPy nor the device module is imported until a GPU device is asked for.
"""

from __future__ import annotations

import importlib.util

from chainer import plugins


@plugins.hookimpl
def register_backends() -> dict[str, dict]:
    """Registers the ``'@cupy'`` backend and declares CuPy's array type.

    It is registered whether or not CUDA is usable, so that asking for a GPU
    device without one gives chainer-cuda's error naming what is missing. The
    array type is declared as a string (``cupy.ndarray`` has ``__module__``
    ``'cupy'``), so that looking up the owner of an unknown type imports
    neither CuPy nor the device module unless the type is CuPy's.

    Returns:
        dict: ``{'cupy': {'device': 'chainer_cuda._device:GpuDevice',
        'array_types': ['cupy:ndarray']}}``.
    """
    return {
        "cupy": {
            "device": "chainer_cuda._device:GpuDevice",
            "array_types": ["cupy:ndarray"],
        }
    }


_ACTIVATION = "chainer.functions.activation"
_OPTIMIZERS = "chainer.optimizers"
_SCE = "chainer.functions.loss.softmax_cross_entropy"
_BN = "chainer.functions.normalization.batch_normalization"
_CONV = "chainer.functions.connection"
_POOL = "chainer.functions.pooling"
_KERNELS = "chainer_cuda._kernels"

# (catalogue class, kernel), both as 'module:attr' strings: nothing is imported
# at registration (the keys are matched as strings along each node class's
# MRO, by the module that defines the class), and the entries of a missing
# chainer-links (chainer.functions) are left out by register_kernels. A
# subclass inherits its base's kernel unless it defines its own forward; the
# 2-d subclasses of the N-d nodes are still listed, so that
# plugins.get_kernel() finds them under their own names.
_KERNEL_TABLE = (
    (f"{_ACTIVATION}.relu:ReLU", f"{_KERNELS}.activation:relu"),
    (f"{_ACTIVATION}.relu:ReLUGrad", f"{_KERNELS}.activation:relu_grad"),
    (f"{_ACTIVATION}.sigmoid:Sigmoid", f"{_KERNELS}.activation:sigmoid"),
    (f"{_ACTIVATION}.tanh:Tanh", f"{_KERNELS}.activation:tanh"),
    (f"{_ACTIVATION}.clipped_relu:ClippedReLU", f"{_KERNELS}.activation:clipped_relu"),
    (f"{_ACTIVATION}.leaky_relu:LeakyReLU", f"{_KERNELS}.activation:leaky_relu"),
    (f"{_ACTIVATION}.elu:ELU", f"{_KERNELS}.activation:elu"),
    (f"{_ACTIVATION}.softplus:Softplus", f"{_KERNELS}.activation:softplus"),
    (f"{_ACTIVATION}.hard_sigmoid:HardSigmoid", f"{_KERNELS}.activation:hard_sigmoid"),
    (f"{_ACTIVATION}.swish:Swish", f"{_KERNELS}.activation:swish"),
    (f"{_ACTIVATION}.prelu:PReLUFunction", f"{_KERNELS}.activation:prelu"),
    # The cell is defined in chainer.functions.rnn.lstm (activation.lstm
    # re-exports it): keys name the defining module.
    ("chainer.functions.rnn.lstm:LSTM", f"{_KERNELS}.lstm:lstm_forward"),
    ("chainer.functions.rnn.lstm:LSTMGrad", f"{_KERNELS}.lstm:lstm_backward"),
    (f"{_ACTIVATION}.softmax:Softmax", f"{_KERNELS}.softmax:softmax"),
    (f"{_ACTIVATION}.log_softmax:LogSoftmax", f"{_KERNELS}.softmax:log_softmax"),
    (f"{_SCE}:SoftmaxCrossEntropy", f"{_KERNELS}.softmax:softmax_cross_entropy"),
    (
        f"{_SCE}:SoftmaxCrossEntropyGradNoDoubleBackprop",
        f"{_KERNELS}.softmax:softmax_cross_entropy_grad",
    ),
    (f"{_BN}:BatchNormalization", f"{_KERNELS}.normalization:batch_normalization"),
    (
        f"{_BN}:BatchNormalizationGrad",
        f"{_KERNELS}.normalization:batch_normalization_grad",
    ),
    (
        f"{_BN}:FixedBatchNormalization",
        f"{_KERNELS}.normalization:fixed_batch_normalization",
    ),
    (f"{_CONV}.convolution_nd:ConvolutionND", f"{_KERNELS}.convolution:convolution"),
    (
        f"{_CONV}.convolution_2d:Convolution2DFunction",
        f"{_KERNELS}.convolution:convolution",
    ),
    (
        f"{_CONV}.convolution_nd:ConvolutionNDGradW",
        f"{_KERNELS}.convolution:convolution_grad_weight",
    ),
    (
        f"{_CONV}.deconvolution_nd:DeconvolutionND",
        f"{_KERNELS}.convolution:deconvolution",
    ),
    (
        f"{_CONV}.deconvolution_2d:Deconvolution2DFunction",
        f"{_KERNELS}.convolution:deconvolution",
    ),
    (f"{_POOL}.max_pooling_nd:MaxPoolingND", f"{_KERNELS}.pooling:max_pooling"),
    (f"{_POOL}.max_pooling_2d:MaxPooling2D", f"{_KERNELS}.pooling:max_pooling"),
    (
        f"{_POOL}.max_pooling_nd:MaxPoolingNDGrad",
        f"{_KERNELS}.pooling:max_pooling_grad",
    ),
    (
        f"{_POOL}.max_pooling_nd:MaxPoolingNDWithIndexes",
        f"{_KERNELS}.pooling:max_pooling_with_indexes",
    ),
    (
        f"{_POOL}.average_pooling_nd:AveragePoolingND",
        f"{_KERNELS}.pooling:average_pooling",
    ),
    (
        f"{_POOL}.average_pooling_2d:AveragePooling2D",
        f"{_KERNELS}.pooling:average_pooling",
    ),
    (
        f"{_POOL}.average_pooling_nd:AveragePoolingNDGrad",
        f"{_KERNELS}.pooling:average_pooling_grad",
    ),
    (f"{_OPTIMIZERS}.sgd:SGDRule", f"{_KERNELS}.optimizers:sgd"),
    (
        f"{_OPTIMIZERS}.momentum_sgd:MomentumSGDRule",
        f"{_KERNELS}.optimizers:momentum_sgd",
    ),
    (f"{_OPTIMIZERS}.nesterov_ag:NesterovAGRule", f"{_KERNELS}.optimizers:nesterov_ag"),
    (f"{_OPTIMIZERS}.adam:AdamRule", f"{_KERNELS}.optimizers:adam"),
    (f"{_OPTIMIZERS}.rmsprop:RMSpropRule", f"{_KERNELS}.optimizers:rmsprop"),
    (f"{_OPTIMIZERS}.ada_grad:AdaGradRule", f"{_KERNELS}.optimizers:ada_grad"),
    (f"{_OPTIMIZERS}.ada_delta:AdaDeltaRule", f"{_KERNELS}.optimizers:ada_delta"),
    (
        f"{_OPTIMIZERS}.corrected_momentum_sgd:CorrectedMomentumSGDRule",
        f"{_KERNELS}.optimizers:corrected_momentum_sgd",
    ),
    (
        f"{_OPTIMIZERS}.rmsprop_graves:RMSpropGravesRule",
        f"{_KERNELS}.optimizers:rmsprop_graves",
    ),
    (f"{_OPTIMIZERS}.smorms3:SMORMS3Rule", f"{_KERNELS}.optimizers:smorms3"),
    (f"{_OPTIMIZERS}.msvag:MSVAGRule", f"{_KERNELS}.optimizers:msvag"),
)


@plugins.hookimpl
def register_kernels() -> dict[tuple[str, str], str]:
    """Registers chainer-cuda's fused kernels for CuPy arrays.

    Keys name the catalogue FunctionNode or optimizer update rule class as a
    ``'module:Class'`` string; values name the kernels in
    ``chainer_cuda._kernels``, imported (with CuPy) on their first call. The
    catalogue's entries are left out when chainer-links (the subpackage
    ``chainer.functions``) is not installed; nothing is imported to find out.

    Returns:
        dict: ``{('module:Class', 'cupy'): 'chainer_cuda._kernels.x:kernel'}``.
    """
    installed: dict[str, bool] = {}
    table = {}
    for node, kernel in _KERNEL_TABLE:
        package = ".".join(node.partition(":")[0].split(".")[:2])
        if package not in installed:
            installed[package] = _is_installed(package)
        if installed[package]:
            table[(node, "cupy")] = kernel
    return table


def _is_installed(package: str) -> bool:
    # ``chainer`` is imported already; finding a subpackage's spec imports
    # nothing more (chainer is shipped in pieces: chainer.functions comes
    # with chainer-links).
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False
