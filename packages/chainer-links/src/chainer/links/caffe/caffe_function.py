"""CaffeFunction: runs a network read from a binary ``.caffemodel`` file."""

import warnings

import numpy

from chainer import configuration
from chainer import functions
from chainer import initializer
from chainer import link
from chainer.links.caffe.protobuf3 import caffe_pb2 as caffe_pb
from chainer.links.connection import convolution_2d
from chainer.links.connection import deconvolution_2d
from chainer.links.connection import linear
from chainer.links.connection import scale
from chainer.links.normalization import batch_normalization

# Enum values of caffe.proto.
_POOL_MAX = caffe_pb.PoolingParameter.MAX
_POOL_AVE = caffe_pb.PoolingParameter.AVE
_LRN_ACROSS_CHANNELS = caffe_pb.LRNParameter.ACROSS_CHANNELS
_ELTWISE_PROD = caffe_pb.EltwiseParameter.PROD
_ELTWISE_SUM = caffe_pb.EltwiseParameter.SUM
_ELTWISE_MAX = caffe_pb.EltwiseParameter.MAX
_ENGINE_CAFFE = caffe_pb.SoftmaxParameter.CAFFE
_ENGINE_CUDNN = caffe_pb.SoftmaxParameter.CUDNN

# V1LayerParameter.LayerType values mapped to the type strings of the current
# format.
_V1_LAYER_TYPES = {
    caffe_pb.V1LayerParameter.CONCAT: "Concat",
    caffe_pb.V1LayerParameter.CONVOLUTION: "Convolution",
    caffe_pb.V1LayerParameter.DATA: "Data",
    caffe_pb.V1LayerParameter.DECONVOLUTION: "Deconvolution",
    caffe_pb.V1LayerParameter.DROPOUT: "Dropout",
    caffe_pb.V1LayerParameter.ELTWISE: "Eltwise",
    caffe_pb.V1LayerParameter.INNER_PRODUCT: "InnerProduct",
    caffe_pb.V1LayerParameter.LRN: "LRN",
    caffe_pb.V1LayerParameter.POOLING: "Pooling",
    caffe_pb.V1LayerParameter.RELU: "ReLU",
    caffe_pb.V1LayerParameter.SIGMOID: "Sigmoid",
    caffe_pb.V1LayerParameter.SOFTMAX: "Softmax",
    caffe_pb.V1LayerParameter.SOFTMAX_LOSS: "SoftmaxWithLoss",
    caffe_pb.V1LayerParameter.SPLIT: "Split",
    caffe_pb.V1LayerParameter.SLICE: "Slice",
    caffe_pb.V1LayerParameter.TANH: "TanH",
}

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
       As in Chainer, a group convolution becomes an ordinary
       :class:`~chainer.links.Convolution2D` (or Deconvolution2D) whose
       weight ``W`` has the full ``(out, in, kh, kw)`` shape, with the
       weights of each group on its block diagonal and zeros elsewhere.
       The layers call the functions and links through
       ``chainer.functions`` and ``chainer.links`` when they run.

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
        net = caffe_pb.NetParameter()
        try:
            net.MergeFromString(data)
        except caffe_pb.DecodeError as exc:
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
                kind = _V1_LAYER_TYPES.get(layer.type, layer.type)
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
        if not param.HasField("axis") and param.HasField("concat_dim"):
            axis = param.concat_dim
        self._add_layer(layer, _ListCall("concat", axis=axis))

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
            initialW=_GroupedBlob(blobs[0], layer.name, group),
            initial_bias=_Blob(blobs[1], layer.name) if param.bias_term else None,
            dilate=_dilation(param),
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
            initialW=_GroupedBlob(blobs[0], layer.name, group),
            initial_bias=_Blob(blobs[1], layer.name) if param.bias_term else None,
            dilate=_dilation(param),
        )
        self._add_child(layer, deconv)

    def _setup_dropout(self, layer):
        ratio = layer.dropout_param.dropout_ratio
        self._add_layer(layer, _Call("dropout", ratio=ratio))

    def _setup_inner_product(self, layer):
        param = layer.inner_product_param
        if param.axis != 1:
            raise RuntimeError("Non-default axis in InnerProduct is not supported")
        if layer.blobs:
            _matrix_shape(layer.blobs[0], layer.name)
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
        forward = _Call(
            "local_response_normalization",
            n=param.local_size,
            k=param.k,
            alpha=param.alpha / param.local_size,
            beta=param.beta,
        )
        self._add_layer(layer, forward)

    def _setup_pooling(self, layer):
        param = layer.pooling_param
        if param.pool == _POOL_MAX:
            func = "max_pooling_2d"
        elif param.pool == _POOL_AVE:
            func = "average_pooling_2d"
        else:
            raise RuntimeError("Stochastic pooling is not supported")
        stride = _pair(param, "stride", 1)
        pad = _pair(param, "pad", 0)
        ksize = _pair(param, "kernel", 0)
        if param.global_pooling and not ksize:
            forward = _GlobalPooling(func, stride, pad)
        else:
            forward = _Pooling(func, ksize, stride, pad)
        self._add_layer(layer, forward)

    def _setup_relu(self, layer):
        slope = layer.relu_param.negative_slope
        forward = _Call("leaky_relu", slope=slope) if slope != 0 else _Call("relu")
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
        if param.use_global_stats:
            self._add_child(layer, bn, _TestMode)
        else:
            self._add_child(layer, bn, _NoFinetune)

    def _setup_eltwise(self, layer):
        param = layer.eltwise_param
        operation = param.operation
        if operation not in (_ELTWISE_PROD, _ELTWISE_SUM, _ELTWISE_MAX):
            raise ValueError(f"Invalid EltwiseParameter.EltwiseOp value: {operation}")
        coeffs = [float(c) for c in param.coeff] or None
        self._add_layer(layer, _Eltwise(layer.name, operation, coeffs))

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
        if param.HasField("axis"):
            axis = param.axis
        elif param.HasField("slice_dim"):
            axis = param.slice_dim
        else:
            axis = 1
        sections = list(param.slice_point) or len(layer.top)
        forward = _Call("split_axis", indices_or_sections=sections, axis=axis)
        self._add_layer(layer, forward)

    def _setup_softmax(self, layer):
        param = layer.softmax_param
        if param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        forward = _Call("softmax")
        if param.engine == _ENGINE_CAFFE:
            forward = _WithCudnn(forward, "never")
        elif param.engine == _ENGINE_CUDNN:
            forward = _WithCudnn(forward, "always")
        self._add_layer(layer, forward)

    def _setup_softmax_with_loss(self, layer):
        if layer.softmax_param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        self._add_layer(layer, _Call("softmax_cross_entropy"))

    def _setup_sigmoid(self, layer):
        self._add_layer(layer, _Call("sigmoid"))

    def _setup_tanh(self, layer):
        self._add_layer(layer, _Call("tanh"))

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
    return numpy.asarray(data if len(data) else blob.double_data)


def _shape(blob):
    dims = list(blob.shape.dim)
    if dims:
        return dims
    # Legacy 4-D blobs: num, channels, height, width.
    return [blob.num, blob.channels, blob.height, blob.width]


def _matrix_shape(blob, name):
    dims = list(blob.shape.dim)
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


class _GroupedBlob(initializer.Initializer):
    """Fills a dense convolution weight with the blob of a group convolution.

    Caffe stores ``group`` blocks of shape ``(out / group, in / group, kh,
    kw)``; they go on the block diagonal of the ``(out, in, kh, kw)`` weight
    (``(in, out, kh, kw)`` for a deconvolution), the rest is zero.
    """

    def __init__(self, blob, layer_name, group):
        super().__init__()
        self.data = _data(blob)
        self.layer_name = layer_name
        self.group = group

    def __call__(self, array):
        group = self.group
        n_rows, n_cols = array.shape[:2]
        rows, cols = n_rows // group, n_cols // group
        block_shape = (rows, cols, *array.shape[2:])
        size = group * int(numpy.prod(block_shape))
        if self.data.size != size:
            raise ValueError(
                f'Caffe blob of layer "{self.layer_name}" has {self.data.size} '
                f"values, but {group} group(s) of shape {block_shape} need {size}"
            )
        blocks = self.data.reshape((group, *block_shape))
        array[...] = 0
        for g in range(group):
            array[g * rows : (g + 1) * rows, g * cols : (g + 1) * cols] = blocks[g]


def _pair(param, name, default):
    # Caffe gives sizes as `<name>_h` and `<name>_w`, or as one value (a
    # repeated field in ConvolutionParameter, a scalar in PoolingParameter).
    if getattr(param, name + "_h") > 0 or getattr(param, name + "_w") > 0:
        return getattr(param, name + "_h"), getattr(param, name + "_w")
    value = getattr(param, name + "_size" if name == "kernel" else name)
    if isinstance(value, int):
        return value
    value = list(value)
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

    def __call__(self, *xs, **kwargs):
        return getattr(self.caffe_func, self.name)(*xs, **kwargs)


class _Call:
    """Calls ``chainer.functions.<name>`` with fixed keyword arguments.

    The function is looked up when the layer runs, so it is always the
    current attribute of ``chainer.functions``.
    """

    __slots__ = ("kwargs", "name")

    def __init__(self, name, **kwargs):
        self.name = name
        self.kwargs = kwargs

    def __call__(self, *xs):
        return getattr(functions, self.name)(*xs, **self.kwargs)


class _Pooling:
    """Calls a pooling function with the window size as positional argument."""

    __slots__ = ("ksize", "name", "pad", "stride")

    def __init__(self, name, ksize, stride, pad):
        self.name = name
        self.ksize = ksize
        self.stride = stride
        self.pad = pad

    def __call__(self, x):
        func = getattr(functions, self.name)
        return func(x, self.ksize, stride=self.stride, pad=self.pad)


class _WithCudnn:
    """Runs a layer with ``chainer.config.use_cudnn`` set (Caffe's ``engine``)."""

    __slots__ = ("func", "use_cudnn")

    def __init__(self, func, use_cudnn):
        self.func = func
        self.use_cudnn = use_cudnn

    def __call__(self, x):
        with configuration.using_config("use_cudnn", self.use_cudnn):
            return self.func(x)


class _NoFinetune:
    """Calls a BatchNormalization link with ``finetune=False``."""

    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func

    def __call__(self, x):
        return self.func(x, finetune=False)


class _TestMode:
    """Runs a layer in test mode (BatchNorm with ``use_global_stats``)."""

    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func

    def __call__(self, x):
        with configuration.using_config("train", False):
            return self.func(x, finetune=False)


class _ListCall:
    """Passes all bottom blobs to ``chainer.functions.<name>`` as one tuple."""

    __slots__ = ("kwargs", "name")

    def __init__(self, name, **kwargs):
        self.name = name
        self.kwargs = kwargs

    def __call__(self, *xs):
        return getattr(functions, self.name)(xs, **self.kwargs)


class _GlobalPooling:
    """Pools over the whole feature map, whatever its size."""

    __slots__ = ("name", "pad", "stride")

    def __init__(self, name, stride, pad):
        self.name = name
        self.stride = stride
        self.pad = pad

    def __call__(self, x):
        func = getattr(functions, self.name)
        return func(x, x.shape[2:], stride=self.stride, pad=self.pad)


class _Reshape:
    """Caffe's reshape: a 0 copies the input's dimension, -1 is inferred."""

    __slots__ = ("dims",)

    def __init__(self, dims):
        self.dims = tuple(dims)

    def __call__(self, x):
        in_shape = x.shape
        shape = [in_shape[i] if d == 0 else d for i, d in enumerate(self.dims)]
        return functions.reshape(x, shape=shape)


class _Eltwise:
    """Elementwise product, (weighted) sum or maximum of the bottom blobs."""

    __slots__ = ("coeffs", "name", "operation")

    def __init__(self, name, operation, coeffs):
        self.name = name
        self.operation = operation
        self.coeffs = coeffs

    def __call__(self, *xs):
        operation = self.operation
        coeffs = self.coeffs
        if operation == _ELTWISE_SUM and coeffs is not None:
            if len(coeffs) != len(xs):
                # An AssertionError, as in Chainer; the file may hold such a
                # layer as long as it is not run.
                raise AssertionError(
                    f'Eltwise layer "{self.name}" has {len(coeffs)} coefficients '
                    f"for {len(xs)} bottom blobs"
                )
            xs = [x * c for x, c in zip(xs, coeffs, strict=True)]
        y = xs[0]
        for x in xs[1:]:
            if operation == _ELTWISE_PROD:
                y = y * x
            elif operation == _ELTWISE_SUM:
                y = y + x
            else:
                y = functions.maximum(y, x)
        return y
