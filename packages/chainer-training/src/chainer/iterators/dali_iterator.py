"""Iterator over the batches of an NVIDIA DALI pipeline (optional)."""

from __future__ import annotations

import importlib.util

from chainer.dataset import iterator


def _dali_available():
    # Looked up at construction, so the module imports without DALI.
    try:
        return importlib.util.find_spec("nvidia.dali") is not None
    except ModuleNotFoundError:  # no ``nvidia`` namespace package at all
        return False


class DaliIterator(iterator.Iterator):
    """(Experimental) Iterator for a DALI pipeline.

    Each ``next`` runs the pipeline once and returns its outputs, one batch
    of ``pipeline.batch_size`` examples. The epoch size is the size the
    pipeline reports for its reader (``pipeline.epoch_size()``), so the
    iterator keeps Chainer's epoch counters (``epoch``, ``epoch_detail``,
    ``is_new_epoch``) like the other iterators.

    It needs NVIDIA DALI (the ``nvidia-dali`` package); without it the
    module still imports but constructing an iterator raises
    :class:`RuntimeError`.

    Args:
        pipeline: DALI pipeline (``nvidia.dali.pipeline.Pipeline``).
        repeat (bool): If ``True``, it infinitely loops over the dataset.
            Otherwise, it stops iteration at the end of the first epoch.

    Attributes:
        pipeline: The pipeline.
        epoch_size (int): Number of examples in one epoch.
    """

    def __init__(self, pipeline, repeat=True):
        if not _dali_available():
            raise RuntimeError(
                "DaliIterator needs NVIDIA DALI, which is not installed: "
                "pip install nvidia-dali (see NVIDIA's DALI documentation "
                "for the package matching your CUDA version)"
            )
        self.pipeline = pipeline
        self._repeat = repeat
        self._built = False
        sizes = pipeline.epoch_size()
        # DALI reports {reader name: size}; the first reader sets the epoch.
        if hasattr(sizes, "values"):
            sizes = next(iter(sizes.values()))
        self.epoch_size = int(sizes)
        if self.epoch_size <= 0:
            raise ValueError(
                f"the DALI pipeline reports an epoch size of {self.epoch_size}; "
                "it must be positive"
            )
        self.reset()

    def __next__(self):
        """Runs the pipeline once and returns its outputs.

        Returns:
            The outputs of ``pipeline.run()``.

        Raises:
            StopIteration: A non-repeating iterator has finished its sweep.
        """
        if not self._repeat and self.epoch > 0:
            raise StopIteration
        self._previous_epoch_detail = self.epoch_detail
        if not self._built:
            self.pipeline.build()
            self._built = True
        batch = self.pipeline.run()
        self.current_position += self.batch_size
        if self.current_position >= self.epoch_size:
            self.current_position -= self.epoch_size
            self.epoch += 1
            self.is_new_epoch = True
        else:
            self.is_new_epoch = False
        return batch

    next = __next__

    @property
    def batch_size(self):
        """int: Number of examples per batch, the pipeline's."""
        return self.pipeline.batch_size

    @property
    def repeat(self):
        """bool: Whether the iterator loops over the dataset forever."""
        return self._repeat

    @property
    def epoch_detail(self):
        """float: Epoch as a float: ``epoch`` plus the fraction done."""
        return self.epoch + self.current_position / self.epoch_size

    @property
    def previous_epoch_detail(self):
        """float: ``epoch_detail`` before the last ``next``, or ``None``."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def reset(self):
        """Resets the counters to the beginning of the first epoch."""
        self.current_position = 0
        self.epoch = 0
        self.is_new_epoch = False
        # A negative value stands for "no batch read yet".
        self._previous_epoch_detail = -1.0

    def serialize(self, serializer):
        """Serializes the position and the epoch counters.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        self.current_position = int(
            serializer("current_position", self.current_position)
        )
        self.epoch = int(serializer("epoch", self.epoch))
        self.is_new_epoch = bool(serializer("is_new_epoch", self.is_new_epoch))
        previous = self.previous_epoch_detail
        previous = serializer(
            "previous_epoch_detail", -1.0 if previous is None else previous
        )
        self._previous_epoch_detail = float(previous)
