"""Iterators that keep the processes of a job in step."""

from chainermn.iterators.multi_node_iterator import create_multi_node_iterator
from chainermn.iterators.synchronized_iterator import create_synchronized_iterator
