"""Optimizers (gradient methods) of Chainer."""

from chainer.optimizers import ada_delta
from chainer.optimizers import ada_grad
from chainer.optimizers import adam
from chainer.optimizers import corrected_momentum_sgd
from chainer.optimizers import momentum_sgd
from chainer.optimizers import msvag
from chainer.optimizers import nesterov_ag
from chainer.optimizers import rmsprop
from chainer.optimizers import rmsprop_graves
from chainer.optimizers import sgd
from chainer.optimizers import smorms3

AdaDelta = ada_delta.AdaDelta
AdaGrad = ada_grad.AdaGrad
Adam = adam.Adam
AdamW = adam.AdamW
AMSGrad = adam.AMSGrad
AdaBound = adam.AdaBound
AMSBound = adam.AMSBound
CorrectedMomentumSGD = corrected_momentum_sgd.CorrectedMomentumSGD
MomentumSGD = momentum_sgd.MomentumSGD
MSVAG = msvag.MSVAG
NesterovAG = nesterov_ag.NesterovAG
RMSprop = rmsprop.RMSprop
RMSpropGraves = rmsprop_graves.RMSpropGraves
SGD = sgd.SGD
SMORMS3 = smorms3.SMORMS3

__all__ = [
    "MSVAG",
    "SGD",
    "SMORMS3",
    "AMSBound",
    "AMSGrad",
    "AdaBound",
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "AdamW",
    "CorrectedMomentumSGD",
    "MomentumSGD",
    "NesterovAG",
    "RMSprop",
    "RMSpropGraves",
]
