"""Collection of differentiable functions (``chainer.functions``, usually ``F``).

Names not defined here are looked up in the plugin registry, so functions
that third-party distributions register through the ``chainer.plugins``
entry point appear as ``F.<name>``.
"""

# --- generated re-exports (scripts/gen_catalogue_init.py) ---
from chainer import _links_names
from chainer.functions.activation.clipped_relu import clipped_relu
from chainer.functions.activation.crelu import crelu
from chainer.functions.activation.elu import elu
from chainer.functions.activation.hard_sigmoid import hard_sigmoid
from chainer.functions.activation.leaky_relu import leaky_relu
from chainer.functions.activation.log_softmax import log_softmax
from chainer.functions.activation.maxout import maxout
from chainer.functions.activation.prelu import prelu
from chainer.functions.activation.relu import relu
from chainer.functions.activation.relu6 import relu6
from chainer.functions.activation.rrelu import rrelu
from chainer.functions.activation.selu import selu
from chainer.functions.activation.sigmoid import sigmoid
from chainer.functions.activation.softmax import softmax
from chainer.functions.activation.softplus import softplus
from chainer.functions.activation.swish import swish
from chainer.functions.activation.tanh import tanh
from chainer.functions.array.as_strided import as_strided
from chainer.functions.array.broadcast import broadcast
from chainer.functions.array.broadcast import broadcast_to
from chainer.functions.array.cast import cast
from chainer.functions.array.concat import concat
from chainer.functions.array.copy import copy
from chainer.functions.array.depth2space import depth2space
from chainer.functions.array.diagonal import diagonal
from chainer.functions.array.dstack import dstack
from chainer.functions.array.expand_dims import expand_dims
from chainer.functions.array.flatten import flatten
from chainer.functions.array.flip import flip
from chainer.functions.array.fliplr import fliplr
from chainer.functions.array.flipud import flipud
from chainer.functions.array.get_item import get_item
from chainer.functions.array.hstack import hstack
from chainer.functions.array.im2col import im2col
from chainer.functions.array.moveaxis import moveaxis
from chainer.functions.array.pad import pad
from chainer.functions.array.pad_sequence import pad_sequence
from chainer.functions.array.permutate import permutate
from chainer.functions.array.repeat import repeat
from chainer.functions.array.reshape import reshape
from chainer.functions.array.resize_images import resize_images
from chainer.functions.array.rollaxis import rollaxis
from chainer.functions.array.scatter_add import scatter_add
from chainer.functions.array.select_item import select_item
from chainer.functions.array.separate import separate
from chainer.functions.array.space2depth import space2depth
from chainer.functions.array.spatial_transformer_grid import spatial_transformer_grid
from chainer.functions.array.spatial_transformer_sampler import (
    spatial_transformer_sampler,
)
from chainer.functions.array.split_axis import split_axis
from chainer.functions.array.squeeze import squeeze
from chainer.functions.array.stack import stack
from chainer.functions.array.swapaxes import swapaxes
from chainer.functions.array.tile import tile
from chainer.functions.array.transpose import transpose
from chainer.functions.array.transpose_sequence import transpose_sequence
from chainer.functions.array.vstack import vstack
from chainer.functions.array.where import where
from chainer.functions.connection.bilinear import bilinear
from chainer.functions.connection.convolution_2d import convolution_2d
from chainer.functions.connection.convolution_nd import convolution_1d
from chainer.functions.connection.convolution_nd import convolution_3d
from chainer.functions.connection.convolution_nd import convolution_nd
from chainer.functions.connection.deconvolution_2d import deconvolution_2d
from chainer.functions.connection.deconvolution_nd import deconvolution_1d
from chainer.functions.connection.deconvolution_nd import deconvolution_3d
from chainer.functions.connection.deconvolution_nd import deconvolution_nd
from chainer.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from chainer.functions.connection.depthwise_convolution_2d import (
    depthwise_convolution_2d,
)
from chainer.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from chainer.functions.connection.embed_id import embed_id
from chainer.functions.connection.linear import linear
from chainer.functions.connection.local_convolution_2d import local_convolution_2d
from chainer.functions.connection.shift import shift
from chainer.functions.evaluation.accuracy import accuracy
from chainer.functions.evaluation.binary_accuracy import binary_accuracy
from chainer.functions.evaluation.classification_summary import classification_summary
from chainer.functions.evaluation.classification_summary import f1_score
from chainer.functions.evaluation.classification_summary import precision
from chainer.functions.evaluation.classification_summary import recall
from chainer.functions.evaluation.r2_score import r2_score
from chainer.functions.loss.absolute_error import absolute_error
from chainer.functions.loss.black_out import black_out
from chainer.functions.loss.contrastive import contrastive
from chainer.functions.loss.crf1d import argmax_crf1d
from chainer.functions.loss.crf1d import crf1d
from chainer.functions.loss.cross_covariance import cross_covariance
from chainer.functions.loss.ctc import connectionist_temporal_classification
from chainer.functions.loss.decov import decov
from chainer.functions.loss.discriminative_loss import (
    discriminative_margin_based_clustering_loss,
)
from chainer.functions.loss.hinge import hinge
from chainer.functions.loss.huber_loss import huber_loss
from chainer.functions.loss.mean_absolute_error import mean_absolute_error
from chainer.functions.loss.mean_squared_error import mean_squared_error
from chainer.functions.loss.negative_sampling import negative_sampling
from chainer.functions.loss.sigmoid_cross_entropy import sigmoid_cross_entropy
from chainer.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from chainer.functions.loss.squared_error import squared_error
from chainer.functions.loss.triplet import triplet
from chainer.functions.loss.vae import bernoulli_nll
from chainer.functions.loss.vae import gaussian_kl_divergence
from chainer.functions.loss.vae import gaussian_nll
from chainer.functions.math.arctanh import arctanh
from chainer.functions.math.average import average
from chainer.functions.math.average import mean
from chainer.functions.math.basic_math import absolute
from chainer.functions.math.basic_math import add
from chainer.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from chainer.functions.math.bias import bias
from chainer.functions.math.ceil import ceil
from chainer.functions.math.cholesky import cholesky
from chainer.functions.math.clip import clip
from chainer.functions.math.cumprod import cumprod
from chainer.functions.math.cumsum import cumsum
from chainer.functions.math.det import batch_det
from chainer.functions.math.det import det
from chainer.functions.math.digamma import digamma
from chainer.functions.math.einsum import einsum
from chainer.functions.math.erf import erf
from chainer.functions.math.erfc import erfc
from chainer.functions.math.erfcinv import erfcinv
from chainer.functions.math.erfcx import erfcx
from chainer.functions.math.erfinv import erfinv
from chainer.functions.math.exponential import exp
from chainer.functions.math.exponential import log
from chainer.functions.math.exponential import log2
from chainer.functions.math.exponential import log10
from chainer.functions.math.exponential_m1 import expm1
from chainer.functions.math.fft import fft
from chainer.functions.math.fft import ifft
from chainer.functions.math.fix import fix
from chainer.functions.math.floor import floor
from chainer.functions.math.fmod import fmod
from chainer.functions.math.hyperbolic import cosh
from chainer.functions.math.hyperbolic import sinh
from chainer.functions.math.identity import identity
from chainer.functions.math.inv import batch_inv
from chainer.functions.math.inv import inv
from chainer.functions.math.lgamma import lgamma
from chainer.functions.math.linear_interpolate import linear_interpolate
from chainer.functions.math.log_ndtr import log_ndtr
from chainer.functions.math.logarithm_1p import log1p
from chainer.functions.math.logsumexp import logsumexp
from chainer.functions.math.matmul import batch_matmul
from chainer.functions.math.matmul import matmul
from chainer.functions.math.maximum import maximum
from chainer.functions.math.minimum import minimum
from chainer.functions.math.minmax import argmax
from chainer.functions.math.minmax import argmin
from chainer.functions.math.minmax import max
from chainer.functions.math.minmax import min
from chainer.functions.math.ndtr import ndtr
from chainer.functions.math.ndtri import ndtri
from chainer.functions.math.polygamma import polygamma
from chainer.functions.math.prod import prod
from chainer.functions.math.scale import scale
from chainer.functions.math.sign import sign
from chainer.functions.math.sparse_matmul import sparse_matmul
from chainer.functions.math.sqrt import rsqrt
from chainer.functions.math.sqrt import sqrt
from chainer.functions.math.square import square
from chainer.functions.math.squared_difference import squared_difference
from chainer.functions.math.sum import sum
from chainer.functions.math.sum import sum_to
from chainer.functions.math.tensordot import tensordot
from chainer.functions.math.trigonometric import arccos
from chainer.functions.math.trigonometric import arcsin
from chainer.functions.math.trigonometric import arctan
from chainer.functions.math.trigonometric import arctan2
from chainer.functions.math.trigonometric import cos
from chainer.functions.math.trigonometric import sin
from chainer.functions.math.trigonometric import tan
from chainer.functions.math.zeta import zeta
from chainer.functions.noise.dropout import dropout
from chainer.functions.noise.gaussian import gaussian
from chainer.functions.noise.gumbel_softmax import gumbel_softmax
from chainer.functions.noise.simplified_dropconnect import simplified_dropconnect
from chainer.functions.noise.zoneout import zoneout
from chainer.functions.normalization.batch_normalization import batch_normalization
from chainer.functions.normalization.batch_normalization import (
    fixed_batch_normalization,
)
from chainer.functions.normalization.batch_renormalization import batch_renormalization
from chainer.functions.normalization.batch_renormalization import (
    fixed_batch_renormalization,
)
from chainer.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
)
from chainer.functions.normalization.decorrelated_batch_normalization import (
    fixed_decorrelated_batch_normalization,
)
from chainer.functions.normalization.group_normalization import group_normalization
from chainer.functions.normalization.l2_normalization import normalize
from chainer.functions.normalization.layer_normalization import layer_normalization
from chainer.functions.normalization.local_response_normalization import (
    local_response_normalization,
)
from chainer.functions.pooling.average_pooling_2d import average_pooling_2d
from chainer.functions.pooling.average_pooling_nd import average_pooling_1d
from chainer.functions.pooling.average_pooling_nd import average_pooling_3d
from chainer.functions.pooling.average_pooling_nd import average_pooling_nd
from chainer.functions.pooling.max_pooling_2d import max_pooling_2d
from chainer.functions.pooling.max_pooling_nd import max_pooling_1d
from chainer.functions.pooling.max_pooling_nd import max_pooling_3d
from chainer.functions.pooling.max_pooling_nd import max_pooling_nd
from chainer.functions.pooling.roi_average_align_2d import roi_average_align_2d
from chainer.functions.pooling.roi_average_pooling_2d import roi_average_pooling_2d
from chainer.functions.pooling.roi_max_align_2d import roi_max_align_2d
from chainer.functions.pooling.roi_max_pooling_2d import roi_max_pooling_2d
from chainer.functions.pooling.roi_pooling_2d import roi_pooling_2d
from chainer.functions.pooling.spatial_pyramid_pooling_2d import (
    spatial_pyramid_pooling_2d,
)
from chainer.functions.pooling.unpooling_2d import unpooling_2d
from chainer.functions.pooling.unpooling_nd import unpooling_1d
from chainer.functions.pooling.unpooling_nd import unpooling_3d
from chainer.functions.pooling.unpooling_nd import unpooling_nd
from chainer.functions.pooling.upsampling_2d import upsampling_2d
from chainer.functions.rnn.lstm import lstm
from chainer.functions.rnn.n_step_gru import n_step_bigru
from chainer.functions.rnn.n_step_gru import n_step_gru
from chainer.functions.rnn.n_step_lstm import n_step_bilstm
from chainer.functions.rnn.n_step_lstm import n_step_lstm
from chainer.functions.rnn.n_step_rnn import n_step_birnn
from chainer.functions.rnn.n_step_rnn import n_step_rnn
from chainer.functions.rnn.slstm import slstm
from chainer.functions.rnn.tree_lstm import tree_lstm
from chainer.functions.util.forget import forget
from chainer.utils import lazy_namespace as _lazy_namespace

__all__ = list(_links_names.FUNCTIONS)
__getattr__, __dir__ = _lazy_namespace.attach(__name__, plugin_kind="functions")
# --- end of generated re-exports ---
