"""Dataset classes and getters (provided by the ``chainer-datasets`` distribution).

Names are resolved at first use, so ``import chainer.datasets`` imports no
dataset module. A name that is not built in is looked up among the datasets
that plugins register through the ``chainer.plugins`` entry point.
"""

from chainer.utils import lazy_namespace as _lazy_namespace

_NAMES = {
    "ConcatenatedDataset": "concatenated_dataset",
    "DictDataset": "dict_dataset",
    "ImageDataset": "image_dataset",
    "LabeledImageDataset": "image_dataset",
    "LabeledZippedImageDataset": "image_dataset",
    "MultiZippedImageDataset": "image_dataset",
    "ZippedImageDataset": "image_dataset",
    "PickleDataset": "pickle_dataset",
    "PickleDatasetWriter": "pickle_dataset",
    "open_pickle_dataset": "pickle_dataset",
    "open_pickle_dataset_writer": "pickle_dataset",
    "SubDataset": "sub_dataset",
    "get_cross_validation_datasets": "sub_dataset",
    "get_cross_validation_datasets_random": "sub_dataset",
    "split_dataset": "sub_dataset",
    "split_dataset_n": "sub_dataset",
    "split_dataset_n_random": "sub_dataset",
    "split_dataset_random": "sub_dataset",
    "TextDataset": "text_dataset",
    "TransformDataset": "transform_dataset",
    "TupleDataset": "tuple_dataset",
    "get_cifar10": "cifar",
    "get_cifar100": "cifar",
    "get_fashion_mnist": "fashion_mnist",
    "get_fashion_mnist_labels": "fashion_mnist",
    "get_kuzushiji_mnist": "kuzushiji_mnist",
    "get_kuzushiji_mnist_labels": "kuzushiji_mnist",
    "get_mnist": "mnist",
    "get_ptb_words": "ptb",
    "get_ptb_words_vocabulary": "ptb",
    "get_svhn": "svhn",
}

# Chainer 7's dataset modules, reachable as attributes of the package
# (``chainer.datasets.image_dataset.available``) as its import made them.
_SUBMODULES = frozenset(
    (
        "cifar",
        "concatenated_dataset",
        "dict_dataset",
        "fashion_mnist",
        "image_dataset",
        "kuzushiji_mnist",
        "mnist",
        "pickle_dataset",
        "ptb",
        "sub_dataset",
        "svhn",
        "text_dataset",
        "transform_dataset",
        "tuple_dataset",
    )
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = _lazy_namespace.attach(
    __name__, _NAMES, _SUBMODULES, plugin_kind="datasets"
)
