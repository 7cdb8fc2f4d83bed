"""CaffeFunction: runs a network read from a binary ``.caffemodel`` file."""

import functools
import warnings

from chainer import configuration
from chainer import initializer
from chainer import link
from chainer.functions.activation import leaky_relu
from chainer.functions.activation import relu
from chainer.functions.activation import sigmoid
from chainer.functions.activation import softmax
from chainer.functions.activation import tanh
from chainer.functions.array import concat
from chainer.functions.array import reshape
from chainer.functions.array import split_axis
from chainer.functions.loss import softmax_cross_entropy
from chainer.functions.math import maximum
from chainer.functions.noise import dropout
from chainer.functions.normalization import local_response_normalization
from chainer.functions.pooling import average_pooling_2d
from chainer.functions.pooling import max_pooling_2d
from chainer.links.caffe import _protobuf
from chainer.links.connection import convolution_2d
from chainer.links.connection import deconvolution_2d
from chainer.links.connection import linear
from chainer.links.connection import scale
from chainer.links.normalization import batch_normalization

# Enum values of caffe.proto.
_POOL_MAX = 0
_POOL_AVE = 1
_LRN_ACROSS_CHANNELS = 0
_ELTWISE_PROD = 0
_ELTWISE_SUM = 1
_ELTWISE_MAX = 2

# Layers that feed data in from outside the net; the caller passes the blobs.
_INPUT_LAYERS = frozenset(("Data", "Input"))


class CaffeFunction(link.Chain):
    """Caffe emulator based on the model file of Caffe.

    Given a binary protobuf file of a Caffe model, this class loads and
    emulates it on :class:`~chainer.Variable` objects. It supports the
    official reference models provided by BVLC. Layers with parameters
    (Convolution, Deconvolution, InnerProduct, BatchNorm, Scale) become child
    links named after the Caffe layers, so they can be fine-tuned, copied to
    another model or serialized. Both the current (``layer``) and the legacy
    (``layers``, V1) network formats are read; the protobuf library is not
    needed.

    Emulated layer types: Concat, Convolution, Deconvolution, Dropout,
    InnerProduct, LRN (across channels), Pooling (MAX and AVE; global
    pooling), ReLU (leaky when ``negative_slope`` is set), Reshape, BatchNorm,
    Eltwise (PROD, SUM with coefficients, MAX), Scale, Slice, Softmax,
    SoftmaxWithLoss, Split, Sigmoid and TanH. Data and Input layers are
    skipped silently: their blobs are given to :meth:`forward`. Other layers
    are skipped with a warning.

    .. note::
       CaffeFunction skips layers it does not support, layers that have no
       top blobs, and layers whose bottom blobs are not given nor computed.
       Group convolutions use the ``groups`` option of
       :class:`~chainer.links.Convolution2D`, so their weights have Caffe's
       ``(out, in / group, kh, kw)`` shape.

    Example:
        To extract the (unnormalized) log class probability ``fc8`` of
        the BVLC reference CaffeNet from its input blob ``data``::

            func = CaffeFunction('path/to/bvlc_reference_caffenet.caffemodel')
            x = numpy.zeros((10, 3, 227, 227), numpy.float32)  # fill it
            y, = func(inputs={'data': x}, outputs=['fc8'])

        The graph is recorded as in any Chainer forward computation, so one
        can backprop through the pretrained net.

    Args:
        model_path (str): Path to the binary-proto model file of Caffe.

    Attributes:
        forwards (dict): A mapping from layer names to the callables that
            emulate them.
        split_map (dict): A mapping from the top blobs of Split layers to
            the blobs they copy.
        layers (list): ``(layer name, bottom blob names, top blob names)``
            for each emulated layer, in the order of the model file.
    """

    def __init__(self, model_path):
        super().__init__()
        with open(model_path, "rb") as f:
            data = f.read()
        try:
            net = _protobuf.NET_PARAMETER.parse(data)
        except _protobuf.DecodeError as exc:
            raise ValueError(
                f"{model_path} is not a binary Caffe model (NetParameter): {exc}"
            ) from exc

        self.forwards = {}
        self.split_map = {}
        self.layers = []
        if net.layer:
            for layer in net.layer:
                self._setup_layer(layer, layer.type)
        else:
            for layer in net.layers:
                kind = _protobuf.V1_LAYER_TYPES.get(layer.type, layer.type)
                self._setup_layer(layer, kind)

    def forward(self, inputs, outputs, disable=(), **kwargs):
        """Executes a sub-network of the network.

        The network definition is interpreted layer by layer: a layer runs
        when all its bottom blobs are given or have been computed, and its
        outputs are stored under its top blob names.

        Args:
            inputs (dict): Blob names mapped to the :class:`~chainer.Variable`
                objects or arrays to start with (typically ``{'data': x}``).
            outputs (iterable of str): Names of the blobs to return.
            disable (iterable of str): Names of layers to skip.

        Returns:
            tuple: The :class:`~chainer.Variable` of each name in ``outputs``.
            All computed blobs are also kept in the ``variables`` attribute.

        .. note::
           The ``train`` argument of old versions is not supported: use
           ``chainer.using_config('train', ...)``. Dropout and BatchNorm
           layers without ``use_global_stats`` follow that setting.
        """
        if kwargs:
            if "train" in kwargs:
                raise ValueError(
                    "train argument is not supported anymore. Use chainer.using_config"
                )
            raise TypeError(
                "CaffeFunction got unexpected keyword argument(s): "
                + ", ".join(sorted(kwargs))
            )
        variables = dict(inputs)
        disable = set(disable)
        forwards = self.forwards
        for name, bottom, top in self.layers:
            if name in disable or any(blob not in variables for blob in bottom):
                continue
            ys = forwards[name](*[variables[blob] for blob in bottom])
            if not isinstance(ys, (tuple, list)):
                ys = (ys,)
            variables.update(zip(top, ys, strict=False))
        self.variables = variables
        missing = [blob for blob in outputs if blob not in variables]
        if missing:
            raise KeyError(
                f"blob(s) {missing} were neither given nor computed; check the "
                "names against the inputs and the layers' top blobs"
            )
        return tuple(variables[blob] for blob in outputs)

    # -- layer setup -------------------------------------------------------
    def _setup_layer(self, layer, kind):
        if kind in _INPUT_LAYERS:
            return
        setup = _SETUP.get(kind)
        if setup is None:
            warnings.warn(
                f'Skip the layer "{layer.name}", since CaffeFunction does not '
                f"support {kind} layer"
            )
            return
        setup(self, layer)

    def _add_layer(self, layer, forward):
        self.forwards[layer.name] = forward
        bottom = [self.split_map.get(blob, blob) for blob in layer.bottom]
        self.layers.append((layer.name, bottom, list(layer.top)))

    def _add_child(self, layer, child, wrapper=None):
        self.add_link(layer.name, child)
        forward = _ChildCall(self, layer.name)
        self._add_layer(layer, forward if wrapper is None else wrapper(forward))

    def _setup_concat(self, layer):
        param = layer.concat_param
        axis = param.axis
        if not param.has_field("axis") and param.has_field("concat_dim"):
            axis = param.concat_dim
        self._add_layer(layer, _ListCall(concat.concat, axis=axis))

    def _setup_convolution(self, layer):
        param = layer.convolution_param
        blobs = _blobs(layer, 2 if param.bias_term else 1)
        shape = _shape(blobs[0])
        group = param.group
        conv = convolution_2d.Convolution2D(
            shape[1] * group,
            shape[0],
            _kernel(param, shape),
            stride=_pair(param, "stride", 1),
            pad=_pair(param, "pad", 0),
            nobias=not param.bias_term,
            initialW=_Blob(blobs[0], layer.name),
            initial_bias=_Blob(blobs[1], layer.name) if param.bias_term else None,
            dilate=_dilation(param),
            groups=group,
        )
        self._add_child(layer, conv)

    def _setup_deconvolution(self, layer):
        param = layer.convolution_param
        blobs = _blobs(layer, 2 if param.bias_term else 1)
        shape = _shape(blobs[0])
        group = param.group
        deconv = deconvolution_2d.Deconvolution2D(
            shape[0],
            shape[1] * group,
            _kernel(param, shape),
            stride=_pair(param, "stride", 1),
            pad=_pair(param, "pad", 0),
            nobias=not param.bias_term,
            initialW=_Blob(blobs[0], layer.name),
            initial_bias=_Blob(blobs[1], layer.name) if param.bias_term else None,
            dilate=_dilation(param),
            groups=group,
        )
        self._add_child(layer, deconv)

    def _setup_dropout(self, layer):
        ratio = layer.dropout_param.dropout_ratio
        self._add_layer(layer, functools.partial(dropout.dropout, ratio=ratio))

    def _setup_inner_product(self, layer):
        param = layer.inner_product_param
        if param.axis != 1:
            raise RuntimeError("Non-default axis in InnerProduct is not supported")
        blobs = _blobs(layer, 2 if param.bias_term else 1)
        rows, cols = _matrix_shape(blobs[0], layer.name)
        out_size, in_size = (cols, rows) if param.transpose else (rows, cols)
        fc = linear.Linear(
            in_size,
            out_size,
            nobias=not param.bias_term,
            initialW=_Blob(blobs[0], layer.name, transpose=param.transpose),
            initial_bias=_Blob(blobs[1], layer.name) if param.bias_term else None,
        )
        self._add_child(layer, fc)

    def _setup_lrn(self, layer):
        param = layer.lrn_param
        if param.norm_region != _LRN_ACROSS_CHANNELS:
            raise RuntimeError("Within-channel LRN is not supported")
        forward = functools.partial(
            local_response_normalization.local_response_normalization,
            n=param.local_size,
            k=param.k,
            alpha=param.alpha / param.local_size,
            beta=param.beta,
        )
        self._add_layer(layer, forward)

    def _setup_pooling(self, layer):
        param = layer.pooling_param
        if param.pool == _POOL_MAX:
            func = max_pooling_2d.max_pooling_2d
        elif param.pool == _POOL_AVE:
            func = average_pooling_2d.average_pooling_2d
        else:
            raise RuntimeError("Stochastic pooling is not supported")
        stride = _pair(param, "stride", 1)
        pad = _pair(param, "pad", 0)
        ksize = _pair(param, "kernel", 0)
        if param.global_pooling and not ksize:
            forward = _GlobalPooling(func, stride, pad)
        else:
            forward = functools.partial(func, ksize=ksize, stride=stride, pad=pad)
        self._add_layer(layer, forward)

    def _setup_relu(self, layer):
        slope = layer.relu_param.negative_slope
        if slope != 0:
            forward = functools.partial(leaky_relu.leaky_relu, slope=slope)
        else:
            forward = relu.relu
        self._add_layer(layer, forward)

    def _setup_reshape(self, layer):
        param = layer.reshape_param
        if param.axis != 0 or param.num_axes != -1:
            raise RuntimeError("Reshape of a part of the axes is not supported")
        self._add_layer(layer, _Reshape(param.shape.dim))

    def _setup_batchnorm(self, layer):
        param = layer.batch_norm_param
        blobs = _blobs(layer, 2)
        mean = _data(blobs[0])
        var = _data(blobs[1])
        if len(blobs) >= 3:
            # Caffe stores running sums and their weight: divide them out
            # (https://github.com/BVLC/caffe/issues/4885); a zero weight
            # means empty statistics.
            factor = float(_data(blobs[2])[0])
            factor = 0.0 if factor == 0 else 1.0 / factor
            mean = mean * factor
            var = var * factor
        bn = batch_normalization.BatchNormalization(
            mean.size,
            decay=param.moving_average_fraction,
            eps=param.eps,
            use_gamma=False,
            use_beta=False,
        )
        bn.avg_mean[...] = mean
        bn.avg_var[...] = var
        wrapper = _TestMode if param.use_global_stats else None
        self._add_child(layer, bn, wrapper)

    def _setup_eltwise(self, layer):
        param = layer.eltwise_param
        operation = param.operation
        if operation not in (_ELTWISE_PROD, _ELTWISE_SUM, _ELTWISE_MAX):
            raise ValueError(f"Invalid EltwiseParameter.EltwiseOp value: {operation}")
        coeffs = [float(c) for c in param.coeff] or None
        if coeffs is not None and len(coeffs) != len(layer.bottom):
            raise ValueError(
                f'Eltwise layer "{layer.name}" has {len(coeffs)} coefficients '
                f"for {len(layer.bottom)} bottom blobs"
            )
        self._add_layer(layer, _Eltwise(operation, coeffs))

    def _setup_scale(self, layer):
        param = layer.scale_param
        if len(layer.bottom) == 1:
            # The scale is a learnt parameter W (and the bias follows it).
            blobs = _blobs(layer, 2 if param.bias_term else 1)
            W_shape = tuple(_shape(blobs[0]))
            func = scale.Scale(param.axis, W_shape, param.bias_term)
            _Blob(blobs[0], layer.name)(func.W.array)
            if param.bias_term:
                _Blob(blobs[1], layer.name)(func.bias.b.array)
        else:
            # The scale is the second bottom blob.
            blobs = _blobs(layer, 1 if param.bias_term else 0)
            bias_shape = tuple(_shape(blobs[0])) if param.bias_term else None
            func = scale.Scale(
                param.axis, bias_term=param.bias_term, bias_shape=bias_shape
            )
            if param.bias_term:
                _Blob(blobs[0], layer.name)(func.bias.b.array)
        self._add_child(layer, func)

    def _setup_slice(self, layer):
        param = layer.slice_param
        if param.has_field("axis"):
            axis = param.axis
        elif param.has_field("slice_dim"):
            axis = param.slice_dim
        else:
            axis = 1
        sections = list(param.slice_point) or len(layer.top)
        forward = functools.partial(
            split_axis.split_axis, indices_or_sections=sections, axis=axis
        )
        self._add_layer(layer, forward)

    def _setup_softmax(self, layer):
        axis = layer.softmax_param.axis
        self._add_layer(layer, functools.partial(softmax.softmax, axis=axis))

    def _setup_softmax_with_loss(self, layer):
        if layer.softmax_param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        self._add_layer(layer, softmax_cross_entropy.softmax_cross_entropy)

    def _setup_sigmoid(self, layer):
        self._add_layer(layer, sigmoid.sigmoid)

    def _setup_tanh(self, layer):
        self._add_layer(layer, tanh.tanh)

    def _setup_split(self, layer):
        source = self.split_map.get(layer.bottom[0], layer.bottom[0])
        for top in layer.top:
            self.split_map[top] = source


_SETUP = {
    "BatchNorm": CaffeFunction._setup_batchnorm,
    "Concat": CaffeFunction._setup_concat,
    "Convolution": CaffeFunction._setup_convolution,
    "Deconvolution": CaffeFunction._setup_deconvolution,
    "Dropout": CaffeFunction._setup_dropout,
    "Eltwise": CaffeFunction._setup_eltwise,
    "InnerProduct": CaffeFunction._setup_inner_product,
    "LRN": CaffeFunction._setup_lrn,
    "Pooling": CaffeFunction._setup_pooling,
    "ReLU": CaffeFunction._setup_relu,
    "Reshape": CaffeFunction._setup_reshape,
    "Scale": CaffeFunction._setup_scale,
    "Sigmoid": CaffeFunction._setup_sigmoid,
    "Slice": CaffeFunction._setup_slice,
    "Softmax": CaffeFunction._setup_softmax,
    "SoftmaxWithLoss": CaffeFunction._setup_softmax_with_loss,
    "Split": CaffeFunction._setup_split,
    "TanH": CaffeFunction._setup_tanh,
}


# -- blobs and parameters ---------------------------------------------------


def _blobs(layer, count):
    blobs = layer.blobs
    if len(blobs) < count:
        raise ValueError(
            f'Caffe layer "{layer.name}" has {len(blobs)} parameter blob(s), '
            f"{count} expected: is the file a trained .caffemodel?"
        )
    return blobs


def _data(blob):
    data = blob.data
    return data if len(data) else blob.double_data


def _shape(blob):
    dims = blob.shape.dim
    if dims:
        return list(dims)
    # Legacy 4-D blobs: num, channels, height, width.
    return [blob.num, blob.channels, blob.height, blob.width]


def _matrix_shape(blob, name):
    dims = blob.shape.dim
    if len(dims) == 2:
        return dims[0], dims[1]
    if dims and len(dims) != 4:
        raise RuntimeError(
            f'{len(dims)}-dimensional weight of layer "{name}" is not supported'
        )
    if dims:
        return dims[2], dims[3]
    return blob.height, blob.width


class _Blob(initializer.Initializer):
    """Fills an array with the data of a Caffe blob."""

    def __init__(self, blob, layer_name, transpose=False):
        super().__init__()
        self.data = _data(blob)
        self.layer_name = layer_name
        self.transpose = transpose

    def __call__(self, array):
        data = self.data
        if data.size != array.size:
            raise ValueError(
                f'Caffe blob of layer "{self.layer_name}" has {data.size} '
                f"values, but its parameter has shape {array.shape}"
            )
        if self.transpose:
            data = data.reshape(array.shape[::-1]).T
        array[...] = data.reshape(array.shape)


def _pair(param, name, default):
    # Caffe gives sizes as `<name>_h` and `<name>_w`, or as one value (a
    # repeated field in ConvolutionParameter, a scalar in PoolingParameter).
    if getattr(param, name + "_h") > 0 or getattr(param, name + "_w") > 0:
        return getattr(param, name + "_h"), getattr(param, name + "_w")
    value = getattr(param, name + "_size" if name == "kernel" else name)
    if not isinstance(value, list):
        return value
    if not value:
        return default
    if len(value) == 1:
        return value[0]
    return tuple(value)


def _kernel(param, weight_shape):
    ksize = _pair(param, "kernel", None)
    return tuple(weight_shape[2:]) if ksize is None else ksize


def _dilation(param):
    dilation = list(param.dilation)
    if not dilation:
        return 1
    return dilation[0] if len(dilation) == 1 else tuple(dilation)


# -- forward callables --------------------------------------------------------


class _ChildCall:
    """Calls the child link of the CaffeFunction at call time."""

    __slots__ = ("caffe_func", "name")

    def __init__(self, caffe_func, name):
        self.caffe_func = caffe_func
        self.name = name

    def __call__(self, *xs):
        return getattr(self.caffe_func, self.name)(*xs)


class _TestMode:
    """Runs a layer in test mode (BatchNorm with ``use_global_stats``)."""

    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func

    def __call__(self, x):
        with configuration.using_config("train", False):
            return self.func(x)


class _ListCall:
    """Passes all bottom blobs to ``func`` as one list (concat)."""

    __slots__ = ("func", "kwargs")

    def __init__(self, func, **kwargs):
        self.func = func
        self.kwargs = kwargs

    def __call__(self, *xs):
        return self.func(xs, **self.kwargs)


class _GlobalPooling:
    """Pools over the whole feature map, whatever its size."""

    __slots__ = ("func", "pad", "stride")

    def __init__(self, func, stride, pad):
        self.func = func
        self.stride = stride
        self.pad = pad

    def __call__(self, x):
        return self.func(x, x.shape[2:], stride=self.stride, pad=self.pad)


class _Reshape:
    """Caffe's reshape: a 0 copies the input's dimension, -1 is inferred."""

    __slots__ = ("dims",)

    def __init__(self, dims):
        self.dims = tuple(dims)

    def __call__(self, x):
        in_shape = x.shape
        shape = tuple(in_shape[i] if d == 0 else d for i, d in enumerate(self.dims))
        return reshape.reshape(x, shape)


class _Eltwise:
    """Elementwise product, (weighted) sum or maximum of the bottom blobs."""

    __slots__ = ("coeffs", "operation")

    def __init__(self, operation, coeffs):
        self.operation = operation
        self.coeffs = coeffs

    def __call__(self, *xs):
        operation = self.operation
        if operation == _ELTWISE_SUM and self.coeffs is not None:
            xs = [x * c for x, c in zip(xs, self.coeffs, strict=True)]
        y = xs[0]
        for x in xs[1:]:
            if operation == _ELTWISE_PROD:
                y = y * x
            elif operation == _ELTWISE_SUM:
                y = y + x
            else:
                y = maximum.maximum(y, x)
        return y
