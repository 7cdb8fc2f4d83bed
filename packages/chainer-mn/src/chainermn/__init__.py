"""ChainerMN: data-parallel (and model-parallel) Chainer training over MPI.

This is ``chainer-mn``, a reimplementation of ChainerMN's API on mpi4py, so
that ChainerMN scripts run unchanged::

    comm = chainermn.create_communicator('flat')
    optimizer = chainermn.create_multi_node_optimizer(
        chainer.optimizers.Adam(), comm)
    train = chainermn.scatter_dataset(train, comm, shuffle=True)

and launch with ``mpiexec -n 2 python train.py``. Importing it does not
initialize MPI; :func:`create_communicator` does.
"""

from chainermn import communicators
from chainermn import datasets
from chainermn import extensions
from chainermn import functions
from chainermn import global_except_hook
from chainermn import iterators
from chainermn import links
from chainermn import optimizers
from chainermn._errors import CommunicationError
from chainermn._errors import CommunicationTimeoutError
from chainermn.communicators import CommunicatorBase
from chainermn.communicators import create_communicator
from chainermn.datasets import create_empty_dataset
from chainermn.datasets import scatter_dataset
from chainermn.datasets import scatter_index
from chainermn.extensions import create_multi_node_checkpointer
from chainermn.extensions import create_multi_node_evaluator
from chainermn.iterators import create_multi_node_iterator
from chainermn.iterators import create_synchronized_iterator
from chainermn.links import MultiNodeChainList
from chainermn.optimizers import create_multi_node_optimizer

__version__ = "7.9.0"

global_except_hook.add_hook_if_enabled()
