import warnings

import numpy

from chainer import link
from chainer import serializer as serializer_module
from chainer import utils
from chainer.functions.normalization import decorrelated_batch_normalization as dbn


class DecorrelatedBatchNormalization(link.Link):
    """Decorrelated batch normalization layer.

    This link wraps the
    :func:`~chainer.functions.decorrelated_batch_normalization` and
    :func:`~chainer.functions.fixed_decorrelated_batch_normalization`
    functions. It works on outputs of linear or convolution functions.

    It runs in three modes: training mode, fine-tuning mode, and testing
    mode, as :class:`~chainer.links.BatchNormalization` does: training mode
    whitens with batch statistics and keeps moving averages of the mean and
    of the whitening matrix, fine-tuning mode (``finetune=True``) averages
    them cumulatively, and testing mode whitens with the averages.

    See: `Decorrelated Batch Normalization <https://arxiv.org/abs/1804.08450>`_

    Args:
        size (int): Size of channel dimensions; must be divisible by
            ``groups``.
        groups (int): Number of groups to use for group whitening.
        decay (float): Decay rate of moving average which is used during
            training.
        eps (float): Epsilon value for numerical stability.
        dtype (numpy.dtype): Type to use in computing.

    Attributes:
        avg_mean (:ref:`ndarray`): Population mean, shape
            ``(groups, size // groups)`` (persistent).
        avg_projection (:ref:`ndarray`): Population whitening matrices, shape
            ``(groups, size // groups, size // groups)`` (persistent).
        N (int): Count of batches given for fine-tuning (persistent).

    .. seealso::
       :func:`~chainer.functions.decorrelated_batch_normalization`
    """

    def __init__(self, size, groups=16, decay=0.9, eps=2e-05, dtype=numpy.float32):
        super().__init__()
        if size % groups:
            raise ValueError(
                f"size {size} is not divisible by the number of groups {groups}"
            )
        channels = size // groups
        projection = numpy.broadcast_to(
            numpy.eye(channels, dtype=dtype), (groups, channels, channels)
        )
        self.add_persistent("avg_mean", numpy.zeros((groups, channels), dtype))
        self.add_persistent("avg_projection", projection.copy())
        self.add_persistent("N", 0)
        self.decay = decay
        self.eps = eps
        self.groups = groups

    def forward(self, x, **kwargs):
        """Invokes the forward propagation of DecorrelatedBatchNormalization.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input of shape
                ``(n, size, ...)``.
            finetune (bool): In training mode, accumulate the population
                statistics as cumulative averages instead of moving averages.

        Returns:
            ~chainer.Variable: Output, same shape and dtype as ``x``.
        """
        finetune = kwargs.pop("finetune", False)
        if kwargs:
            raise TypeError(
                "forward() got unexpected keyword argument(s) "
                + ", ".join(repr(k) for k in sorted(kwargs))
            )
        if not utils._config_entry("train"):
            return dbn.fixed_decorrelated_batch_normalization(
                x, self.avg_mean, self.avg_projection, groups=self.groups
            )
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        avg_mean, avg_projection = self.avg_mean, self.avg_projection
        if utils._config_entry("in_recomputing"):
            # Extra forward computations must not update the statistics.
            if finetune:
                self.N -= 1
            avg_mean = avg_projection = None
        return dbn.decorrelated_batch_normalization(
            x,
            groups=self.groups,
            eps=self.eps,
            running_mean=avg_mean,
            running_projection=avg_projection,
            decay=decay,
        )

    def serialize(self, serializer):
        """Serializes the statistics; loads those of older Chainer versions too.

        Older Chainer versions kept one ``avg_mean`` of shape ``(size //
        groups,)`` and one ``avg_projection`` for all groups. Such arrays are
        loaded into every group, with a ``UserWarning`` when there are
        several groups.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer object.
        """
        old = {}
        if isinstance(serializer, serializer_module.Deserializer):
            for name in ("avg_mean", "avg_projection"):
                current = self.__dict__[name]
                stored = serializer(name, None)
                if getattr(stored, "shape", None) == current.shape[1:]:
                    # Loaded below into an array of the old shape.
                    old[name] = current
                    self.__dict__[name] = current[0].copy()
        super().serialize(serializer)
        for name, current in old.items():
            current[...] = self.__dict__[name]
            self.__dict__[name] = current
        if old and self.groups != 1:
            warnings.warn(
                "loading statistics saved by an older version of "
                "DecorrelatedBatchNormalization, which kept one set for all "
                f"groups: each of the {self.groups} groups starts from it",
                UserWarning,
                stacklevel=2,
            )

    def start_finetuning(self):
        """Resets the population count for collecting population statistics.

        This method can be skipped if it is the first time to use the
        fine-tuning mode. Otherwise, this method should be called before
        starting the fine-tuning mode again.
        """
        self.N = 0
