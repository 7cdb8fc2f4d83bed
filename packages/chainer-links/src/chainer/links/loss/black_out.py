import numpy

from chainer import link
from chainer import utils
from chainer import variable
from chainer.functions.loss import black_out


class BlackOut(link.Link):
    """BlackOut loss layer.

    It holds the output weight matrix ``W`` of shape ``(len(counts),
    in_size)`` and draws ``sample_size`` negative samples per example from
    the unigram distribution ``counts`` with a
    :class:`~chainer.utils.WalkerAlias` sampler; the loss itself is
    :func:`~chainer.functions.black_out`.

    .. note:: As in Chainer, ``W`` starts filled with NaN: assign its values
        (e.g. ``link.W.array[...] = ...``) before using the link.

    Args:
        in_size (int): Dimension of input vectors.
        counts (sequence of int): Number of occurrences of each word; its
            length is the vocabulary size.
        sample_size (int): Number of negative samples per example.

    Attributes:
        W (~chainer.Parameter): Weight parameter matrix.
        sampler (~chainer.utils.WalkerAlias): Negative sampler; it follows
            the link across devices.
        sample_data (:ref:`ndarray` or None): If set, an integer array of
            shape ``(batch_size, sample_size)`` used as the negative samples
            instead of drawing new ones (for testing).

    .. seealso:: :func:`~chainer.functions.black_out`

    See: `BlackOut: Speeding up Recurrent Neural Network Language Models With
    Very Large Vocabularies <https://arxiv.org/abs/1511.06909>`_
    """

    sample_data = None

    def __init__(self, in_size, counts, sample_size):
        super().__init__()
        vocab_size = len(counts)
        self.sampler = utils.WalkerAlias(numpy.asarray(counts, numpy.float64))
        self.sample_size = sample_size
        with self.init_scope():
            self.W = variable.Parameter(shape=(vocab_size, in_size))

    def device_resident_accept(self, visitor):
        """Moves the parameters and the sampler's tables with the link.

        Args:
            visitor (~chainer.device_resident.DeviceResidentsVisitor):
                Visitor.
        """
        super().device_resident_accept(visitor)
        self.sampler.to_device(self.device)

    def forward(self, x, t):
        """Computes the loss value for given input and ground truth labels.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input vectors of shape
                ``(batch_size, in_size)``.
            t (~chainer.Variable or :ref:`ndarray`): Integer labels of shape
                ``(batch_size,)``.

        Returns:
            ~chainer.Variable: Loss value, averaged over the batch.
        """
        if self.sample_data is not None:
            samples = self.sample_data
        else:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
        return black_out.black_out(x, t, self.W, samples)
