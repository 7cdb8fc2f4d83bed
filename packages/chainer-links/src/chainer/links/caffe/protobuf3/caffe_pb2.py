"""Message classes of Caffe's ``caffe.proto``, without the protobuf library.

The classes mirror those ``protoc`` generates from ``caffe.proto`` (same
names, field names, field numbers and defaults) for the messages that
describe a network and its weights: :class:`NetParameter`,
:class:`LayerParameter` (and the legacy :class:`V1LayerParameter`),
:class:`BlobProto`, :class:`BlobShape` and the parameter messages of the
common layers. They support what generated classes do: construction with
keyword arguments, field access and presence (``HasField``), repeated fields
(``add``, ``append``, ``extend``, slicing), ``SerializeToString``,
``ParseFromString``, ``CopyFrom``, ``MergeFrom`` and the text format of
prototxt files (``str(message)``). Fields of ``caffe.proto`` missing here
are kept as unknown fields when a file is read and written back unchanged.

Example:
    >>> from chainer.links.caffe.protobuf3 import caffe_pb2
    >>> net = caffe_pb2.NetParameter(name='tiny')
    >>> layer = net.layer.add(name='relu1', type='ReLU')
    >>> layer.bottom.append('data')
    >>> data = net.SerializeToString()
    >>> caffe_pb2.NetParameter.FromString(data).layer[0].type
    'ReLU'
"""

from chainer.links.caffe._protobuf import DecodeError
from chainer.links.caffe._protobuf import EnumType
from chainer.links.caffe._protobuf import Message
from chainer.links.caffe._protobuf import message_class
from chainer.links.caffe._protobuf import optional
from chainer.links.caffe._protobuf import repeated

__all__ = [
    "TEST",
    "TRAIN",
    "AccuracyParameter",
    "ArgMaxParameter",
    "BatchNormParameter",
    "BiasParameter",
    "BlobProto",
    "BlobProtoVector",
    "BlobShape",
    "ConcatParameter",
    "ConvolutionParameter",
    "CropParameter",
    "DataParameter",
    "Datum",
    "DecodeError",
    "DropoutParameter",
    "ELUParameter",
    "EltwiseParameter",
    "EmbedParameter",
    "ExpParameter",
    "FillerParameter",
    "FlattenParameter",
    "InnerProductParameter",
    "InputParameter",
    "LRNParameter",
    "LayerParameter",
    "LogParameter",
    "LossParameter",
    "Message",
    "NetParameter",
    "NetState",
    "NetStateRule",
    "PReLUParameter",
    "ParamSpec",
    "Phase",
    "PoolingParameter",
    "PowerParameter",
    "ReLUParameter",
    "ReshapeParameter",
    "ScaleParameter",
    "SigmoidParameter",
    "SliceParameter",
    "SoftmaxParameter",
    "TanHParameter",
    "ThresholdParameter",
    "TileParameter",
    "TransformationParameter",
    "V1LayerParameter",
]

_M = __name__

Phase = EnumType("Phase", {"TRAIN": 0, "TEST": 1})
TRAIN = Phase.TRAIN
TEST = Phase.TEST


def _engine():
    return EnumType("Engine", {"DEFAULT": 0, "CAFFE": 1, "CUDNN": 2})


BlobShape = message_class(
    "BlobShape", {1: repeated("dim", "int64", packed=True)}, module=_M
)

BlobProto = message_class(
    "BlobProto",
    {
        7: optional("shape", BlobShape),
        5: repeated("data", "float", packed=True),
        6: repeated("diff", "float", packed=True),
        8: repeated("double_data", "double", packed=True),
        9: repeated("double_diff", "double", packed=True),
        1: optional("num", "int32"),
        2: optional("channels", "int32"),
        3: optional("height", "int32"),
        4: optional("width", "int32"),
    },
    module=_M,
)

BlobProtoVector = message_class(
    "BlobProtoVector", {1: repeated("blobs", BlobProto)}, module=_M
)

Datum = message_class(
    "Datum",
    {
        1: optional("channels", "int32"),
        2: optional("height", "int32"),
        3: optional("width", "int32"),
        4: optional("data", "bytes"),
        5: optional("label", "int32"),
        6: repeated("float_data", "float"),
        7: optional("encoded", "bool"),
    },
    module=_M,
)

_VarianceNorm = EnumType("VarianceNorm", {"FAN_IN": 0, "FAN_OUT": 1, "AVERAGE": 2})
FillerParameter = message_class(
    "FillerParameter",
    {
        1: optional("type", "string", "constant"),
        2: optional("value", "float"),
        3: optional("min", "float"),
        4: optional("max", "float", 1.0),
        5: optional("mean", "float"),
        6: optional("std", "float", 1.0),
        7: optional("sparse", "int32", -1),
        8: optional("variance_norm", _VarianceNorm),
    },
    enums=(_VarianceNorm,),
    module=_M,
)

NetState = message_class(
    "NetState",
    {
        1: optional("phase", Phase, TEST),
        2: optional("level", "int32"),
        3: repeated("stage", "string"),
    },
    module=_M,
)

NetStateRule = message_class(
    "NetStateRule",
    {
        1: optional("phase", Phase),
        2: optional("min_level", "int32"),
        3: optional("max_level", "int32"),
        4: repeated("stage", "string"),
        5: repeated("not_stage", "string"),
    },
    module=_M,
)

_DimCheckMode = EnumType("DimCheckMode", {"STRICT": 0, "PERMISSIVE": 1})
ParamSpec = message_class(
    "ParamSpec",
    {
        1: optional("name", "string"),
        2: optional("share_mode", _DimCheckMode),
        3: optional("lr_mult", "float", 1.0),
        4: optional("decay_mult", "float", 1.0),
    },
    enums=(_DimCheckMode,),
    module=_M,
)

TransformationParameter = message_class(
    "TransformationParameter",
    {
        1: optional("scale", "float", 1.0),
        2: optional("mirror", "bool"),
        3: optional("crop_size", "uint32"),
        4: optional("mean_file", "string"),
        5: repeated("mean_value", "float"),
        6: optional("force_color", "bool"),
        7: optional("force_gray", "bool"),
    },
    module=_M,
)

_NormalizationMode = EnumType(
    "NormalizationMode", {"FULL": 0, "VALID": 1, "BATCH_SIZE": 2, "NONE": 3}
)
LossParameter = message_class(
    "LossParameter",
    {
        1: optional("ignore_label", "int32"),
        3: optional("normalization", _NormalizationMode, 1),
        2: optional("normalize", "bool"),
    },
    enums=(_NormalizationMode,),
    module=_M,
)

AccuracyParameter = message_class(
    "AccuracyParameter",
    {
        1: optional("top_k", "uint32", 1),
        2: optional("axis", "int32", 1),
        3: optional("ignore_label", "int32"),
    },
    module=_M,
)

ArgMaxParameter = message_class(
    "ArgMaxParameter",
    {
        1: optional("out_max_val", "bool"),
        2: optional("top_k", "uint32", 1),
        3: optional("axis", "int32"),
    },
    module=_M,
)

BatchNormParameter = message_class(
    "BatchNormParameter",
    {
        1: optional("use_global_stats", "bool"),
        2: optional("moving_average_fraction", "float", 0.999),
        3: optional("eps", "float", 1e-5),
    },
    module=_M,
)

BiasParameter = message_class(
    "BiasParameter",
    {
        1: optional("axis", "int32", 1),
        2: optional("num_axes", "int32", 1),
        3: optional("filler", FillerParameter),
    },
    module=_M,
)

ConcatParameter = message_class(
    "ConcatParameter",
    {2: optional("axis", "int32", 1), 1: optional("concat_dim", "uint32", 1)},
    module=_M,
)

_ConvEngine = _engine()
ConvolutionParameter = message_class(
    "ConvolutionParameter",
    {
        1: optional("num_output", "uint32"),
        2: optional("bias_term", "bool", True),
        3: repeated("pad", "uint32"),
        4: repeated("kernel_size", "uint32"),
        6: repeated("stride", "uint32"),
        18: repeated("dilation", "uint32"),
        9: optional("pad_h", "uint32"),
        10: optional("pad_w", "uint32"),
        11: optional("kernel_h", "uint32"),
        12: optional("kernel_w", "uint32"),
        13: optional("stride_h", "uint32"),
        14: optional("stride_w", "uint32"),
        5: optional("group", "uint32", 1),
        7: optional("weight_filler", FillerParameter),
        8: optional("bias_filler", FillerParameter),
        15: optional("engine", _ConvEngine),
        16: optional("axis", "int32", 1),
        17: optional("force_nd_im2col", "bool"),
    },
    enums=(_ConvEngine,),
    module=_M,
)

CropParameter = message_class(
    "CropParameter",
    {1: optional("axis", "int32", 2), 2: repeated("offset", "uint32")},
    module=_M,
)

_DB = EnumType("DB", {"LEVELDB": 0, "LMDB": 1})
DataParameter = message_class(
    "DataParameter",
    {
        1: optional("source", "string"),
        4: optional("batch_size", "uint32"),
        7: optional("rand_skip", "uint32"),
        8: optional("backend", _DB),
        2: optional("scale", "float", 1.0),
        3: optional("mean_file", "string"),
        5: optional("crop_size", "uint32"),
        6: optional("mirror", "bool"),
        9: optional("force_encoded_color", "bool"),
        10: optional("prefetch", "uint32", 4),
    },
    enums=(_DB,),
    module=_M,
)

DropoutParameter = message_class(
    "DropoutParameter", {1: optional("dropout_ratio", "float", 0.5)}, module=_M
)

_EltwiseOp = EnumType("EltwiseOp", {"PROD": 0, "SUM": 1, "MAX": 2})
EltwiseParameter = message_class(
    "EltwiseParameter",
    {
        1: optional("operation", _EltwiseOp, 1),
        2: repeated("coeff", "float"),
        3: optional("stable_prod_grad", "bool", True),
    },
    enums=(_EltwiseOp,),
    module=_M,
)

ELUParameter = message_class(
    "ELUParameter", {1: optional("alpha", "float", 1.0)}, module=_M
)

EmbedParameter = message_class(
    "EmbedParameter",
    {
        1: optional("num_output", "uint32"),
        2: optional("input_dim", "uint32"),
        3: optional("bias_term", "bool", True),
        4: optional("weight_filler", FillerParameter),
        5: optional("bias_filler", FillerParameter),
    },
    module=_M,
)


def _base_scale_shift():
    # Fields of ExpParameter and LogParameter: y = f(shift + scale * x).
    return {
        1: optional("base", "float", -1.0),
        2: optional("scale", "float", 1.0),
        3: optional("shift", "float", 0.0),
    }


ExpParameter = message_class("ExpParameter", _base_scale_shift(), module=_M)

FlattenParameter = message_class(
    "FlattenParameter",
    {1: optional("axis", "int32", 1), 2: optional("end_axis", "int32", -1)},
    module=_M,
)

InnerProductParameter = message_class(
    "InnerProductParameter",
    {
        1: optional("num_output", "uint32"),
        2: optional("bias_term", "bool", True),
        3: optional("weight_filler", FillerParameter),
        4: optional("bias_filler", FillerParameter),
        5: optional("axis", "int32", 1),
        6: optional("transpose", "bool"),
    },
    module=_M,
)

InputParameter = message_class(
    "InputParameter", {1: repeated("shape", BlobShape)}, module=_M
)

LogParameter = message_class("LogParameter", _base_scale_shift(), module=_M)

_NormRegion = EnumType("NormRegion", {"ACROSS_CHANNELS": 0, "WITHIN_CHANNEL": 1})
_LRNEngine = _engine()
LRNParameter = message_class(
    "LRNParameter",
    {
        1: optional("local_size", "uint32", 5),
        2: optional("alpha", "float", 1.0),
        3: optional("beta", "float", 0.75),
        4: optional("norm_region", _NormRegion),
        5: optional("k", "float", 1.0),
        6: optional("engine", _LRNEngine),
    },
    enums=(_NormRegion, _LRNEngine),
    module=_M,
)

_PoolMethod = EnumType("PoolMethod", {"MAX": 0, "AVE": 1, "STOCHASTIC": 2})
_PoolEngine = _engine()
PoolingParameter = message_class(
    "PoolingParameter",
    {
        1: optional("pool", _PoolMethod),
        4: optional("pad", "uint32"),
        9: optional("pad_h", "uint32"),
        10: optional("pad_w", "uint32"),
        2: optional("kernel_size", "uint32"),
        5: optional("kernel_h", "uint32"),
        6: optional("kernel_w", "uint32"),
        3: optional("stride", "uint32", 1),
        7: optional("stride_h", "uint32"),
        8: optional("stride_w", "uint32"),
        11: optional("engine", _PoolEngine),
        12: optional("global_pooling", "bool"),
    },
    enums=(_PoolMethod, _PoolEngine),
    module=_M,
)

PowerParameter = message_class(
    "PowerParameter",
    {
        1: optional("power", "float", 1.0),
        2: optional("scale", "float", 1.0),
        3: optional("shift", "float", 0.0),
    },
    module=_M,
)

PReLUParameter = message_class(
    "PReLUParameter",
    {1: optional("filler", FillerParameter), 2: optional("channel_shared", "bool")},
    module=_M,
)

_ReLUEngine = _engine()
ReLUParameter = message_class(
    "ReLUParameter",
    {1: optional("negative_slope", "float", 0.0), 2: optional("engine", _ReLUEngine)},
    enums=(_ReLUEngine,),
    module=_M,
)

ReshapeParameter = message_class(
    "ReshapeParameter",
    {
        1: optional("shape", BlobShape),
        2: optional("axis", "int32", 0),
        3: optional("num_axes", "int32", -1),
    },
    module=_M,
)

ScaleParameter = message_class(
    "ScaleParameter",
    {
        1: optional("axis", "int32", 1),
        2: optional("num_axes", "int32", 1),
        3: optional("filler", FillerParameter),
        4: optional("bias_term", "bool"),
        5: optional("bias_filler", FillerParameter),
    },
    module=_M,
)


def _engine_only(name):
    # A parameter message whose only field is the engine (Sigmoid, TanH).
    engine = _engine()
    return message_class(
        name, {1: optional("engine", engine)}, enums=(engine,), module=_M
    )


SigmoidParameter = _engine_only("SigmoidParameter")

SliceParameter = message_class(
    "SliceParameter",
    {
        3: optional("axis", "int32", 1),
        2: repeated("slice_point", "uint32"),
        1: optional("slice_dim", "uint32", 1),
    },
    module=_M,
)

_SoftmaxEngine = _engine()
SoftmaxParameter = message_class(
    "SoftmaxParameter",
    {1: optional("engine", _SoftmaxEngine), 2: optional("axis", "int32", 1)},
    enums=(_SoftmaxEngine,),
    module=_M,
)

TanHParameter = _engine_only("TanHParameter")

ThresholdParameter = message_class(
    "ThresholdParameter", {1: optional("threshold", "float", 0.0)}, module=_M
)

TileParameter = message_class(
    "TileParameter",
    {1: optional("axis", "int32", 1), 2: optional("tiles", "int32")},
    module=_M,
)

LayerParameter = message_class(
    "LayerParameter",
    {
        1: optional("name", "string"),
        2: optional("type", "string"),
        3: repeated("bottom", "string"),
        4: repeated("top", "string"),
        10: optional("phase", Phase),
        5: repeated("loss_weight", "float"),
        6: repeated("param", ParamSpec),
        7: repeated("blobs", BlobProto),
        11: repeated("propagate_down", "bool"),
        8: repeated("include", NetStateRule),
        9: repeated("exclude", NetStateRule),
        100: optional("transform_param", TransformationParameter),
        101: optional("loss_param", LossParameter),
        102: optional("accuracy_param", AccuracyParameter),
        103: optional("argmax_param", ArgMaxParameter),
        139: optional("batch_norm_param", BatchNormParameter),
        141: optional("bias_param", BiasParameter),
        104: optional("concat_param", ConcatParameter),
        106: optional("convolution_param", ConvolutionParameter),
        144: optional("crop_param", CropParameter),
        107: optional("data_param", DataParameter),
        108: optional("dropout_param", DropoutParameter),
        110: optional("eltwise_param", EltwiseParameter),
        140: optional("elu_param", ELUParameter),
        137: optional("embed_param", EmbedParameter),
        111: optional("exp_param", ExpParameter),
        135: optional("flatten_param", FlattenParameter),
        117: optional("inner_product_param", InnerProductParameter),
        143: optional("input_param", InputParameter),
        134: optional("log_param", LogParameter),
        118: optional("lrn_param", LRNParameter),
        121: optional("pooling_param", PoolingParameter),
        122: optional("power_param", PowerParameter),
        131: optional("prelu_param", PReLUParameter),
        123: optional("relu_param", ReLUParameter),
        133: optional("reshape_param", ReshapeParameter),
        142: optional("scale_param", ScaleParameter),
        124: optional("sigmoid_param", SigmoidParameter),
        125: optional("softmax_param", SoftmaxParameter),
        126: optional("slice_param", SliceParameter),
        127: optional("tanh_param", TanHParameter),
        128: optional("threshold_param", ThresholdParameter),
        138: optional("tile_param", TileParameter),
    },
    module=_M,
)

_LayerType = EnumType(
    "LayerType",
    {
        "NONE": 0,
        "ABSVAL": 35,
        "ACCURACY": 1,
        "ARGMAX": 30,
        "BNLL": 2,
        "CONCAT": 3,
        "CONTRASTIVE_LOSS": 37,
        "CONVOLUTION": 4,
        "DATA": 5,
        "DECONVOLUTION": 39,
        "DROPOUT": 6,
        "DUMMY_DATA": 32,
        "EUCLIDEAN_LOSS": 7,
        "ELTWISE": 25,
        "EXP": 38,
        "FLATTEN": 8,
        "HDF5_DATA": 9,
        "HDF5_OUTPUT": 10,
        "HINGE_LOSS": 28,
        "IM2COL": 11,
        "IMAGE_DATA": 12,
        "INFOGAIN_LOSS": 13,
        "INNER_PRODUCT": 14,
        "LRN": 15,
        "MEMORY_DATA": 29,
        "MULTINOMIAL_LOGISTIC_LOSS": 16,
        "MVN": 34,
        "POOLING": 17,
        "POWER": 26,
        "RELU": 18,
        "SIGMOID": 19,
        "SIGMOID_CROSS_ENTROPY_LOSS": 27,
        "SILENCE": 36,
        "SOFTMAX": 20,
        "SOFTMAX_LOSS": 21,
        "SPLIT": 22,
        "SLICE": 33,
        "TANH": 23,
        "WINDOW_DATA": 24,
        "THRESHOLD": 31,
    },
)
_V1DimCheckMode = EnumType("DimCheckMode", {"STRICT": 0, "PERMISSIVE": 1})
V1LayerParameter = message_class(
    "V1LayerParameter",
    {
        2: repeated("bottom", "string"),
        3: repeated("top", "string"),
        4: optional("name", "string"),
        32: repeated("include", NetStateRule),
        33: repeated("exclude", NetStateRule),
        5: optional("type", _LayerType),
        6: repeated("blobs", BlobProto),
        1001: repeated("param", "string"),
        1002: repeated("blob_share_mode", _V1DimCheckMode),
        7: repeated("blobs_lr", "float"),
        8: repeated("weight_decay", "float"),
        35: repeated("loss_weight", "float"),
        27: optional("accuracy_param", AccuracyParameter),
        23: optional("argmax_param", ArgMaxParameter),
        9: optional("concat_param", ConcatParameter),
        10: optional("convolution_param", ConvolutionParameter),
        11: optional("data_param", DataParameter),
        12: optional("dropout_param", DropoutParameter),
        24: optional("eltwise_param", EltwiseParameter),
        41: optional("exp_param", ExpParameter),
        17: optional("inner_product_param", InnerProductParameter),
        18: optional("lrn_param", LRNParameter),
        19: optional("pooling_param", PoolingParameter),
        21: optional("power_param", PowerParameter),
        30: optional("relu_param", ReLUParameter),
        38: optional("sigmoid_param", SigmoidParameter),
        39: optional("softmax_param", SoftmaxParameter),
        31: optional("slice_param", SliceParameter),
        37: optional("tanh_param", TanHParameter),
        25: optional("threshold_param", ThresholdParameter),
        36: optional("transform_param", TransformationParameter),
        42: optional("loss_param", LossParameter),
    },
    enums=(_LayerType, _V1DimCheckMode),
    module=_M,
)

NetParameter = message_class(
    "NetParameter",
    {
        1: optional("name", "string"),
        3: repeated("input", "string"),
        8: repeated("input_shape", BlobShape),
        4: repeated("input_dim", "int32"),
        5: optional("force_backward", "bool"),
        6: optional("state", NetState),
        7: optional("debug_info", "bool"),
        100: repeated("layer", LayerParameter),
        2: repeated("layers", V1LayerParameter),
    },
    module=_M,
)
