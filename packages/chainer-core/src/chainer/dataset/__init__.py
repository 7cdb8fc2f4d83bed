"""Dataset abstraction: dataset mixins, iterators, converters and downloads."""

from chainer.dataset import tabular
from chainer.dataset.convert import ConcatWithAsyncTransfer
from chainer.dataset.convert import Converter
from chainer.dataset.convert import concat_examples
from chainer.dataset.convert import converter
from chainer.dataset.convert import to_device
from chainer.dataset.dataset_mixin import DatasetMixin
from chainer.dataset.download import cache_or_load_file
from chainer.dataset.download import cached_download
from chainer.dataset.download import get_dataset_directory
from chainer.dataset.download import get_dataset_root
from chainer.dataset.download import set_dataset_root
from chainer.dataset.iterator import Iterator
from chainer.dataset.tabular.tabular_dataset import TabularDataset

__all__ = [
    "ConcatWithAsyncTransfer",
    "Converter",
    "DatasetMixin",
    "Iterator",
    "TabularDataset",
    "cache_or_load_file",
    "cached_download",
    "concat_examples",
    "converter",
    "get_dataset_directory",
    "get_dataset_root",
    "set_dataset_root",
    "tabular",
    "to_device",
]
