"""Re-exports :mod:`chainer.functions.rnn.lstm`, the cell's home since Chainer 7.

Chainer 7 keeps the LSTM cell under ``chainer.functions.rnn``; this path stays
importable for scripts written against older Chainer versions.
"""

from chainer.functions.rnn.lstm import LSTM
from chainer.functions.rnn.lstm import LSTMGrad
from chainer.functions.rnn.lstm import lstm

__all__ = ["LSTM", "LSTMGrad", "lstm"]
