"""Re-exports :mod:`chainer.functions.rnn.tree_lstm`, the cell's home since Chainer 7.

Chainer 7 keeps the Tree-LSTM cell under ``chainer.functions.rnn``; this path
stays importable for scripts written against older Chainer versions.
"""

from chainer.functions.rnn.tree_lstm import TreeLSTM
from chainer.functions.rnn.tree_lstm import tree_lstm

__all__ = ["TreeLSTM", "tree_lstm"]
