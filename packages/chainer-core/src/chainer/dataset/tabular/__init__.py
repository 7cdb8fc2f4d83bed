"""Tabular datasets: column-oriented datasets with views and combinators."""

from chainer.dataset.tabular.delegate_dataset import DelegateDataset
from chainer.dataset.tabular.from_data import from_data
from chainer.dataset.tabular.tabular_dataset import TabularDataset

__all__ = ["DelegateDataset", "TabularDataset", "from_data"]
