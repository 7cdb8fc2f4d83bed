import numpy

import chainer
from chainer import initializers
from chainer import link
from chainer import utils
from chainer import variable
from chainer.functions.loss import negative_sampling


class NegativeSampling(link.Link):
    """Negative sampling loss layer.

    It holds the weight matrix ``W`` of shape ``(len(counts), in_size)`` as
    a parameter (initialized with zeros) and a
    :class:`~chainer.utils.WalkerAlias` sampler that draws negative examples
    from the unigram distribution raised to ``power``,
    :math:`P(w) \\propto c(w)^{\\alpha}`. The loss is computed by
    :func:`~chainer.functions.negative_sampling`.

    Args:
        in_size (int): Dimension of input vectors.
        counts (sequence of int): Number of occurrences of each word; its
            length is the vocabulary size.
        sample_size (int): Number of negative samples per example.
        power (float): Power :math:`\\alpha` applied to the counts.
        dtype (numpy.dtype): Type of the weight; ``None`` means
            :func:`chainer.get_dtype`.

    Attributes:
        W (~chainer.Parameter): Weight parameter matrix.
        sampler (~chainer.utils.WalkerAlias): Negative sampler; it follows
            the link across devices.

    .. seealso:: :func:`~chainer.functions.negative_sampling`

    See: `Distributed Representations of Words and Phrases and their
    Compositionality <https://arxiv.org/abs/1310.4546>`_

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> loss = L.NegativeSampling(3, [5, 2, 1], 2)
        >>> x = np.ones((2, 3), np.float32)
        >>> t = np.array([0, 1], np.int32)
        >>> round(float(loss(x, t).array), 4)  # W is zero: 2 * 3 * log(2)
        4.1589
    """

    def __init__(self, in_size, counts, sample_size, power=0.75, dtype=None):
        super().__init__()
        dtype = chainer.get_dtype(dtype)
        vocab_size = len(counts)
        self.sample_size = sample_size
        probs = numpy.power(numpy.asarray(counts, numpy.float64), power)
        self.sampler = utils.WalkerAlias(probs)
        with self.init_scope():
            self.W = variable.Parameter(initializers.Zero(dtype), (vocab_size, in_size))

    def device_resident_accept(self, visitor):
        """Moves the parameter and the sampler's tables with the link.

        Args:
            visitor (~chainer.device_resident.DeviceResidentsVisitor):
                Visitor.
        """
        super().device_resident_accept(visitor)
        self.sampler.to_device(self.device)

    def forward(self, x, t, reduce="sum", **kwargs):
        """Computes the loss value for given input and ground truth labels.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input vectors of shape
                ``(batch_size, in_size)``.
            t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
                ``(batch_size,)``; ``-1`` marks an example to ignore.
            reduce (str): ``'sum'`` or ``'no'``, as in
                :func:`~chainer.functions.negative_sampling`.
            return_samples (bool): Keyword only. If ``True``, the samples
                drawn are returned too.

        Returns:
            ~chainer.Variable or tuple: The loss, or ``(loss, samples)`` with
            ``return_samples=True``; ``samples`` is an integer array of shape
            ``(batch_size, sample_size + 1)`` whose first column is ``t``.
        """
        return negative_sampling.negative_sampling(
            x, t, self.W, self.sampler.sample, self.sample_size, reduce, **kwargs
        )
