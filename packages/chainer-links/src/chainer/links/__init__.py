"""Collection of parameterized layers (``chainer.links``, usually ``L``).

Names not defined here are looked up in the plugin registry, so links that
third-party distributions register through the ``chainer.plugins`` entry
point appear as ``L.<name>``.
"""

# --- generated re-exports (scripts/gen_catalogue_init.py) ---
from chainer import _links_names
from chainer.links.activation.maxout import Maxout
from chainer.links.activation.prelu import PReLU
from chainer.links.activation.simplified_dropconnect import SimplifiedDropconnect
from chainer.links.activation.swish import Swish
from chainer.links.connection.bias import Bias
from chainer.links.connection.bilinear import Bilinear
from chainer.links.connection.convolution_2d import Convolution2D
from chainer.links.connection.convolution_nd import Convolution1D
from chainer.links.connection.convolution_nd import Convolution3D
from chainer.links.connection.convolution_nd import ConvolutionND
from chainer.links.connection.deconvolution_2d import Deconvolution2D
from chainer.links.connection.deconvolution_nd import Deconvolution1D
from chainer.links.connection.deconvolution_nd import Deconvolution3D
from chainer.links.connection.deconvolution_nd import DeconvolutionND
from chainer.links.connection.deformable_convolution_2d import DeformableConvolution2D
from chainer.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D
from chainer.links.connection.dilated_convolution_2d import DilatedConvolution2D
from chainer.links.connection.embed_id import EmbedID
from chainer.links.connection.highway import Highway
from chainer.links.connection.inception import Inception
from chainer.links.connection.inceptionbn import InceptionBN
from chainer.links.connection.linear import Linear
from chainer.links.connection.local_convolution_2d import LocalConvolution2D
from chainer.links.connection.mlp_convolution_2d import MLPConvolution2D
from chainer.links.connection.parameter import Parameter
from chainer.links.connection.scale import Scale
from chainer.links.loss.black_out import BlackOut
from chainer.links.loss.crf1d import CRF1d
from chainer.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from chainer.links.loss.negative_sampling import NegativeSampling
from chainer.links.model.classifier import Classifier
from chainer.links.model.vision.googlenet import GoogLeNet
from chainer.links.model.vision.resnet import ResNet50Layers
from chainer.links.model.vision.resnet import ResNet101Layers
from chainer.links.model.vision.resnet import ResNet152Layers
from chainer.links.model.vision.vgg import VGG16Layers
from chainer.links.model.vision.vgg import VGG19Layers
from chainer.links.normalization.batch_normalization import BatchNormalization
from chainer.links.normalization.batch_renormalization import BatchRenormalization
from chainer.links.normalization.decorrelated_batch_normalization import (
    DecorrelatedBatchNormalization,
)
from chainer.links.normalization.group_normalization import GroupNormalization
from chainer.links.normalization.layer_normalization import LayerNormalization
from chainer.links.rnn.gru import GRU
from chainer.links.rnn.gru import StatefulGRU
from chainer.links.rnn.gru import StatelessGRU
from chainer.links.rnn.lstm import LSTM
from chainer.links.rnn.lstm import StatelessLSTM
from chainer.links.rnn.mgu import StatefulMGU
from chainer.links.rnn.mgu import StatelessMGU
from chainer.links.rnn.n_step_gru import NStepBiGRU
from chainer.links.rnn.n_step_gru import NStepGRU
from chainer.links.rnn.n_step_lstm import NStepBiLSTM
from chainer.links.rnn.n_step_lstm import NStepLSTM
from chainer.links.rnn.n_step_rnn import NStepBiRNNReLU
from chainer.links.rnn.n_step_rnn import NStepBiRNNTanh
from chainer.links.rnn.n_step_rnn import NStepRNNReLU
from chainer.links.rnn.n_step_rnn import NStepRNNTanh
from chainer.links.rnn.peephole import StatefulPeepholeLSTM
from chainer.links.rnn.tree_lstm import ChildSumTreeLSTM
from chainer.links.rnn.tree_lstm import NaryTreeLSTM
from chainer.links.rnn.zoneoutlstm import StatefulZoneoutLSTM
from chainer.links.theano.theano_function import TheanoFunction
from chainer.utils import lazy_namespace as _lazy_namespace

__all__ = list(_links_names.LINKS)
__getattr__, __dir__ = _lazy_namespace.attach(__name__, plugin_kind="links")
# --- end of generated re-exports ---
