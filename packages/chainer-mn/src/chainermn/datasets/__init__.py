"""Splitting datasets between the processes of a job."""

from chainermn.datasets.empty_dataset import create_empty_dataset
from chainermn.datasets.scatter_dataset import scatter_dataset
from chainermn.datasets.scatter_dataset import scatter_index
