"""Links for models spread over processes (``chainermn.links``).

:class:`MultiNodeChainList` splits a model over processes (model
parallelism), :class:`MultiNodeBatchNormalization` normalizes with the
statistics of every process's batch (data parallelism with small batches),
:func:`create_mnbn_model` puts it into an existing model, and
:func:`create_multi_node_n_step_rnn` passes an RNN's states between
processes.
"""

from chainermn.links.batch_normalization import MultiNodeBatchNormalization
from chainermn.links.create_mnbn_model import create_mnbn_model
from chainermn.links.multi_node_chain_list import MultiNodeChainList
from chainermn.links.n_step_rnn import create_multi_node_n_step_rnn

__all__ = [
    "MultiNodeBatchNormalization",
    "MultiNodeChainList",
    "create_mnbn_model",
    "create_multi_node_n_step_rnn",
]
