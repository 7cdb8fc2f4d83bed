"""Export of a computational graph in Caffe's format (prototxt + caffemodel)."""

import os

import numpy

import chainer
from chainer import function_hook
from chainer import variable
from chainer.links.caffe.protobuf3 import caffe_pb2 as caffe_pb
from chainer.utils import atomic_file

PROTOTXT_NAME = "chainer_model.prototxt"
CAFFEMODEL_NAME = "chainer_model.caffemodel"


class _InputRecorder(function_hook.FunctionHook):
    """Records the input arrays of every function node the model applies."""

    name = "CaffeExporterInputRecorder"

    def __init__(self):
        self.inputs = {}

    def forward_preprocess(self, function, in_data):
        self.inputs[function] = tuple(in_data)


def _sorted_nodes(outputs):
    """The function nodes creating ``outputs``, each after those it reads."""
    order = []
    done = set()
    stack = []
    for out in reversed(outputs):
        if out.creator_node is not None:
            stack.append((out.creator_node, False))
    while stack:
        node, expanded = stack.pop()
        if node in done:
            continue
        if expanded:
            done.add(node)
            order.append(node)
            continue
        stack.append((node, True))
        for input_node in reversed(node.inputs):
            creator = input_node.creator_node
            if creator is not None and creator not in done:
                stack.append((creator, False))
    return order


def _pair(values, what, node):
    values = tuple(int(v) for v in values)
    if len(values) != 2:
        raise ValueError(
            f"cannot export {type(node).__name__}: its {what} {values} is not 2-d"
        )
    return values


def _conv_outsize(size, k, s, p, cover_all):
    if cover_all:
        return (size + 2 * p - k + s - 1) // s + 1
    return (size + 2 * p - k) // s + 1


def _pool_outsize(size, k, s, p):
    # Caffe's pooling rounds up, but drops a last window that starts in the
    # padding.
    out = -(-(size + 2 * p - k) // s) + 1
    if p and (out - 1) * s >= size + p:
        out -= 1
    return out


class _Converter:
    """Turns the function nodes of a graph into Caffe layers."""

    def __init__(self, net, recorded):
        self.net = net
        self.recorded = recorded
        self.blob_names = {}  # VariableNode -> name of the Caffe blob
        self.counts = {}

    # -- names and data
    def layer_name(self, node):
        kind = type(node).__name__
        count = self.counts.get(kind, 0) + 1
        self.counts[kind] = count
        return f"{kind}-{count}"

    def bottom(self, node, index):
        input_node = node.inputs[index]
        name = self.blob_names.get(input_node)
        if name is None:
            raise ValueError(
                f"cannot export {type(node).__name__}: its input {index} "
                f"({input_node.label}) is neither an argument of the model nor "
                "computed by an exported layer"
            )
        return name

    def array(self, node, index):
        data = self.recorded.get(node)
        if data is None:
            raise ValueError(
                f"cannot export {type(node).__name__}: it was not applied while "
                "the model ran"
            )
        return chainer.backend.CpuDevice().send(data[index])

    def out_shape(self, node):
        out = node.outputs[0]()  # a VariableNode
        return None if out is None or out.shape is None else tuple(out.shape)

    def add_layer(self, name, kind, bottoms, top=None):
        layer = self.net.layer.add()
        layer.name = name
        layer.type = kind
        layer.bottom.extend(bottoms)
        layer.top.append(top or name)
        layer.phase = caffe_pb.TEST
        return layer

    @staticmethod
    def add_blob(layer, array, shape=None):
        array = numpy.asarray(array)
        blob = layer.blobs.add()
        blob.shape.dim.extend(array.shape if shape is None else shape)
        blob.data[:] = array.ravel()

    # -- conversion
    def convert(self, node):
        for cls in type(node).__mro__:
            method = getattr(self, "_convert_" + cls.__name__, None)
            if method is not None:
                name = self.layer_name(node)
                method(node, name)
                self.blob_names[node.outputs[0]()] = name
                return
        raise ValueError(
            f"cannot export {type(node).__name__} ({node.label}): Caffe export "
            "supports linear, convolution_2d, deconvolution_2d, "
            "max_pooling_2d, average_pooling_2d, batch_normalization (test "
            "mode), local_response_normalization, relu, leaky_relu, sigmoid, "
            "tanh, softmax, concat, reshape, dropout and add"
        )

    def _weights(self, node, name, kind):
        W = self.array(node, 1)
        has_bias = len(node.inputs) == 3
        layer = self.add_layer(name, kind, [self.bottom(node, 0)])
        return layer, W, self.array(node, 2) if has_bias else None

    def _convert_LinearFunction(self, node, name):
        layer, W, b = self._weights(node, name, "InnerProduct")
        param = layer.inner_product_param
        param.num_output = W.shape[0]
        param.bias_term = b is not None
        self.add_blob(layer, W)
        if b is not None:
            self.add_blob(layer, b)

    def _conv_param(self, node, layer, W, b, num_output):
        kh, kw = _pair(W.shape[2:], "kernel", node)
        sy, sx = _pair(node.stride, "stride", node)
        ph, pw = _pair(node.pad, "pad", node)
        dy, dx = _pair(node.dilate, "dilation", node)
        param = layer.convolution_param
        param.num_output = num_output
        param.bias_term = b is not None
        param.kernel_h, param.kernel_w = kh, kw
        param.stride_h, param.stride_w = sy, sx
        param.pad_h, param.pad_w = ph, pw
        if (dy, dx) != (1, 1):
            if dy != dx:
                raise ValueError(
                    f"cannot export {type(node).__name__}: Caffe's dilation is "
                    f"the same on both axes, got {(dy, dx)}"
                )
            param.dilation.append(dy)
        param.group = int(node.groups)
        return (kh - 1) * dy + 1, (kw - 1) * dx + 1, (sy, sx), (ph, pw)

    def _convert_Convolution2DFunction(self, node, name):
        layer, W, b = self._weights(node, name, "Convolution")
        kh, kw, stride, pad = self._conv_param(node, layer, W, b, W.shape[0])
        x = self.array(node, 0)
        expected = tuple(
            _conv_outsize(size, k, s, p, False)
            for size, k, s, p in zip(x.shape[2:], (kh, kw), stride, pad, strict=True)
        )
        self._check_spatial(node, expected)
        self.add_blob(layer, W)
        if b is not None:
            self.add_blob(layer, b)

    def _convert_Deconvolution2DFunction(self, node, name):
        layer, W, b = self._weights(node, name, "Deconvolution")
        num_output = W.shape[1] * int(node.groups)
        kh, kw, stride, pad = self._conv_param(node, layer, W, b, num_output)
        x = self.array(node, 0)
        expected = tuple(
            s * (size - 1) + k - 2 * p
            for size, k, s, p in zip(x.shape[2:], (kh, kw), stride, pad, strict=True)
        )
        self._check_spatial(node, expected)
        self.add_blob(layer, W)
        if b is not None:
            self.add_blob(layer, b)

    def _check_spatial(self, node, expected):
        shape = self.out_shape(node)
        if shape is not None and tuple(shape[2:]) != tuple(expected):
            raise ValueError(
                f"cannot export {type(node).__name__}: its output size "
                f"{shape[2:]} differs from the {expected} Caffe computes "
                "(check cover_all or outsize)"
            )

    def _pooling(self, node, name, method):
        layer = self.add_layer(name, "Pooling", [self.bottom(node, 0)])
        kh, kw = _pair(node.ksize, "ksize", node)
        sy, sx = _pair(node.stride, "stride", node)
        ph, pw = _pair(node.pad, "pad", node)
        param = layer.pooling_param
        param.pool = method
        param.kernel_h, param.kernel_w = kh, kw
        param.stride_h, param.stride_w = sy, sx
        param.pad_h, param.pad_w = ph, pw
        x = self.array(node, 0)
        expected = tuple(
            _pool_outsize(size, k, s, p)
            for size, k, s, p in zip(
                x.shape[2:], (kh, kw), (sy, sx), (ph, pw), strict=True
            )
        )
        self._check_spatial(node, expected)

    def _convert_MaxPooling2D(self, node, name):
        self._pooling(node, name, caffe_pb.PoolingParameter.MAX)

    def _convert_AveragePooling2D(self, node, name):
        self._pooling(node, name, caffe_pb.PoolingParameter.AVE)

    def _convert_FixedBatchNormalization(self, node, name):
        x, gamma, beta, mean, var = (self.array(node, i) for i in range(5))
        if gamma.ndim != 1 or x.ndim < 2 or gamma.shape[0] != x.shape[1]:
            raise ValueError(
                "cannot export FixedBatchNormalization: Caffe normalizes over "
                "the channel axis (axis 1) only"
            )
        bn_name = name + "_bn"
        layer = self.add_layer(bn_name, "BatchNorm", [self.bottom(node, 0)])
        param = layer.batch_norm_param
        param.use_global_stats = True
        param.eps = float(node.eps)
        self.add_blob(layer, mean)
        self.add_blob(layer, var)
        self.add_blob(layer, numpy.ones(1, numpy.float32))  # the scale factor
        layer = self.add_layer(name, "Scale", [bn_name])
        layer.scale_param.axis = 1
        layer.scale_param.bias_term = True
        self.add_blob(layer, gamma)
        self.add_blob(layer, beta)

    def _convert_LocalResponseNormalization(self, node, name):
        layer = self.add_layer(name, "LRN", [self.bottom(node, 0)])
        param = layer.lrn_param
        param.norm_region = caffe_pb.LRNParameter.ACROSS_CHANNELS
        param.local_size = int(node.n)
        param.k = float(node.k)
        param.alpha = float(node.alpha) * int(node.n)
        param.beta = float(node.beta)

    def _convert_ReLU(self, node, name):
        self.add_layer(name, "ReLU", [self.bottom(node, 0)])

    def _convert_LeakyReLU(self, node, name):
        layer = self.add_layer(name, "ReLU", [self.bottom(node, 0)])
        layer.relu_param.negative_slope = float(node.slope)

    def _convert_Sigmoid(self, node, name):
        self.add_layer(name, "Sigmoid", [self.bottom(node, 0)])

    def _convert_Tanh(self, node, name):
        self.add_layer(name, "TanH", [self.bottom(node, 0)])

    def _convert_Softmax(self, node, name):
        x = self.array(node, 0)
        if node.axis % x.ndim != 1:
            raise ValueError(
                "cannot export Softmax: Caffe's softmax runs along axis 1, got "
                f"axis {node.axis}"
            )
        self.add_layer(name, "Softmax", [self.bottom(node, 0)])

    def _convert_Concat(self, node, name):
        bottoms = [self.bottom(node, i) for i in range(len(node.inputs))]
        layer = self.add_layer(name, "Concat", bottoms)
        layer.concat_param.axis = int(node.axis)

    def _convert_Reshape(self, node, name):
        shape = tuple(int(d) for d in node.shape)
        if 0 in shape:
            raise ValueError(
                "cannot export Reshape to a shape with a zero dimension: Caffe "
                "reads 0 as 'copy the input dimension'"
            )
        layer = self.add_layer(name, "Reshape", [self.bottom(node, 0)])
        layer.reshape_param.shape.dim.extend(shape)

    def _convert_Dropout(self, node, name):
        layer = self.add_layer(name, "Dropout", [self.bottom(node, 0)])
        layer.dropout_param.dropout_ratio = float(node.dropout_ratio)

    def _convert_Add(self, node, name):
        bottoms = [self.bottom(node, i) for i in range(len(node.inputs))]
        shapes = {tuple(self.array(node, i).shape) for i in range(len(bottoms))}
        if len(shapes) != 1:
            raise ValueError(
                f"cannot export an addition with broadcasting (shapes {shapes}): "
                "Caffe's Eltwise layer adds blobs of one shape"
            )
        layer = self.add_layer(name, "Eltwise", bottoms)
        layer.eltwise_param.operation = caffe_pb.EltwiseParameter.SUM


def _write_atomically(path, data, mode):
    encoding = "utf-8" if mode == "w" else None
    with atomic_file.open_atomic(path, mode, encoding=encoding) as f:
        f.write(data)


def export(model, args, directory=None, export_params=True, graph_name="Graph"):
    """(Experimental) Exports a computational graph in Caffe's format.

    The model is run once on ``args`` in test mode
    (``chainer.config.train`` False) with backprop enabled, and the graph of
    its outputs becomes a Caffe network: ``chainer_model.prototxt`` (the
    network in text format) and, when ``export_params`` is True,
    ``chainer_model.caffemodel`` (the network with its weights, binary).
    The input blobs are named ``data`` (then ``data_1``, ``data_2``...) and
    each layer's top blob is named after the layer, so the output of the
    last layer is ``net.layer[-1].name``. Files are written atomically.

    Supported functions: :func:`~chainer.functions.linear`,
    :func:`~chainer.functions.convolution_2d`,
    :func:`~chainer.functions.deconvolution_2d`,
    :func:`~chainer.functions.max_pooling_2d`,
    :func:`~chainer.functions.average_pooling_2d`,
    :func:`~chainer.functions.batch_normalization` (in test mode, as a
    BatchNorm and a Scale layer),
    :func:`~chainer.functions.local_response_normalization`,
    :func:`~chainer.functions.relu`, :func:`~chainer.functions.leaky_relu`,
    :func:`~chainer.functions.sigmoid`, :func:`~chainer.functions.tanh`,
    :func:`~chainer.functions.softmax` (along axis 1),
    :func:`~chainer.functions.concat`, :func:`~chainer.functions.reshape`,
    :func:`~chainer.functions.dropout` and :func:`~chainer.functions.add`
    (``+`` of variables of one shape). Other functions raise ValueError.

    Args:
        model (callable): The model, typically a :class:`~chainer.Chain`;
            it is called as ``model(*args)`` and returns a
            :class:`~chainer.Variable` or a list/tuple of them.
        args (list or tuple of ~chainer.Variable): Its inputs (arrays are
            accepted too).
        directory (str): Directory to write the files in (it must exist);
            if None, nothing is written.
        export_params (bool): Whether to write the caffemodel with the
            weights; if False only the prototxt is written.
        graph_name (str): The ``name`` of the Caffe network.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.functions as F
        >>> import chainer.links as L
        >>> from chainer.exporters import caffe
        >>> class Model(chainer.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = L.Convolution2D(None, 1, 1, 1, 0)
        ...             self.b2 = L.BatchNormalization(1)
        ...             self.l3 = L.Linear(None, 1)
        ...
        ...     def forward(self, x):
        ...         h = F.relu(self.l1(x))
        ...         h = self.b2(h)
        ...         return self.l3(h)
        ...
        >>> x = chainer.Variable(np.zeros((1, 10, 10, 10), np.float32))
        >>> caffe.export(Model(), [x], None, True, 'test')
    """
    if not isinstance(args, (tuple, list)):
        raise TypeError(
            f"args must be a list or tuple of Variables, not {type(args).__name__}"
        )
    if not args:
        raise ValueError("args must hold at least one input of the model")
    inputs = [
        x if isinstance(x, variable.Variable) else variable.Variable(x) for x in args
    ]

    recorder = _InputRecorder()
    with (
        chainer.using_config("train", False),
        chainer.force_backprop_mode(),
        recorder,
    ):
        outputs = model(*inputs)
    if isinstance(outputs, variable.Variable):
        outputs = [outputs]
    if not isinstance(outputs, (tuple, list)) or not all(
        isinstance(y, variable.Variable) for y in outputs
    ):
        raise TypeError(
            "the model must return a Variable or a list/tuple of Variables to "
            f"be exported, got {type(outputs).__name__}"
        )

    net = caffe_pb.NetParameter()
    net.name = graph_name
    input_layer = net.layer.add()
    input_layer.name = "data"
    input_layer.type = "Input"
    converter = _Converter(net, recorder.inputs)
    for i, x in enumerate(inputs):
        blob = "data" if i == 0 else f"data_{i}"
        input_layer.top.append(blob)
        input_layer.input_param.shape.add().dim.extend(x.shape)
        converter.blob_names[x.node] = blob
    for node in _sorted_nodes(outputs):
        converter.convert(node)
    for y in outputs:
        if y.node not in converter.blob_names:
            raise ValueError("an output of the model is not computed from args")

    if directory is None:
        return
    definition = caffe_pb.NetParameter()
    definition.CopyFrom(net)
    for layer in definition.layer:
        layer.ClearField("blobs")
        layer.ClearField("phase")
    _write_atomically(os.path.join(directory, PROTOTXT_NAME), str(definition), "w")
    if export_params:
        _write_atomically(
            os.path.join(directory, CAFFEMODEL_NAME), net.SerializeToString(), "wb"
        )
