from chainer import initializers
from chainer import link
from chainer import variable
from chainer.functions.connection import embed_id


class EmbedID(link.Link):
    """Efficient linear layer for one-hot input.

    This is a link that wraps the :func:`~chainer.functions.embed_id`
    function. It holds the ID (word) embedding matrix ``W`` as a parameter.

    Args:
        in_size (int): Number of different identifiers (a.k.a. vocabulary
            size).
        out_size (int): Size of the embedding vector.
        initialW (:ref:`initializer <initializer>`): Initializer of the
            embedding matrix, of shape ``(in_size, out_size)`` when it is an
            array. If ``None``, the matrix is drawn from the standard normal
            distribution.
        ignore_label (int or None): If an int, the output rows for IDs equal
            to it are zero.

    .. seealso:: :func:`~chainer.functions.embed_id`

    Attributes:
        W (~chainer.Parameter): Embedding parameter matrix.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> W = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]], np.float32)
        >>> link = L.EmbedID(3, 3, initialW=W)
        >>> link(np.array([2, 1], np.int32)).array
        array([[2., 2., 2.],
               [1., 1., 1.]], dtype=float32)
    """

    ignore_label = None

    def __init__(self, in_size, out_size, initialW=None, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label
        if initialW is None:
            initialW = initializers.Normal(1.0)
        with self.init_scope():
            self.W = variable.Parameter(initialW, (in_size, out_size))

    @classmethod
    def from_params(cls, W, ignore_label=None):
        """Initializes an :class:`EmbedID` from a given embedding matrix.

        Args:
            W (:ref:`ndarray`): Embedding matrix of shape ``(in_size,
                out_size)``.
            ignore_label (int or None): As in the constructor.

        Returns:
            EmbedID: A link whose ``W`` holds a copy of ``W``.
        """
        in_size, out_size = W.shape
        return cls(
            in_size,
            out_size,
            initialW=initializers.Constant(W),
            ignore_label=ignore_label,
        )

    def forward(self, x):
        """Extracts the word embedding of the given IDs.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Signed integer array of
                IDs, ``ndim >= 1``.

        Returns:
            ~chainer.Variable: Embeddings of shape ``x.shape + (out_size,)``.
        """
        return embed_id.embed_id(x, self.W, ignore_label=self.ignore_label)
