"""A dataset that applies a function to the examples of another dataset."""

from chainer.dataset import dataset_mixin


class TransformDataset(dataset_mixin.DatasetMixin):
    """Dataset that transforms the examples of a base dataset on access.

    ``transform`` is called with one example of the base dataset each time an
    example is read, and its return value is the example of this dataset; no
    example is computed ahead. Slices and index lists return lists of
    transformed examples. Random augmentation therefore draws anew on every
    access.

    Example:
        >>> from chainer.datasets import TransformDataset
        >>> dataset = TransformDataset([1, 2, 3], lambda x: x * 10)
        >>> dataset[0], dataset[1:]
        (10, [20, 30])

    Args:
        dataset: The base dataset; its length is the length of this dataset.
        transform (callable): Function that takes an example of the base
            dataset and returns the transformed example.
    """

    def __init__(self, dataset, transform):
        if not callable(transform):
            raise TypeError(
                f"transform must be callable, got {type(transform).__name__}"
            )
        self._dataset = dataset
        self._transform = transform

    def __len__(self):
        return len(self._dataset)

    def get_example(self, i):
        """Returns the transformed i-th example.

        Args:
            i (int): Index of the example in the base dataset.

        Returns:
            What ``transform`` returns for the base dataset's ``i``-th example.
        """
        return self._transform(self._dataset[i])
