"""Re-exports :mod:`chainer.functions.rnn.slstm`, the cell's home since Chainer 7.

Chainer 7 keeps the S-LSTM cell under ``chainer.functions.rnn``; this path
stays importable for scripts written against older Chainer versions.
"""

from chainer.functions.rnn.slstm import SLSTM
from chainer.functions.rnn.slstm import SLSTMGrad
from chainer.functions.rnn.slstm import slstm

__all__ = ["SLSTM", "SLSTMGrad", "slstm"]
