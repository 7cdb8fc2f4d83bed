from chainer import backend
from chainer import link
from chainer import variable


class Parameter(link.Link):
    """Link that just holds a parameter and returns it.

    .. deprecated:: v1.5
       The parameters are stored as variables as of v1.5. Use them directly
       instead.

    Args:
        array (:ref:`ndarray`): Initial parameter array; the link holds this
            array itself (on its device), not a copy.

    Attributes:
        W (~chainer.Parameter): Parameter variable.

    Example:
        >>> import numpy as np
        >>> import chainer.links as L
        >>> link = L.Parameter(np.zeros((2, 3), np.float32))
        >>> link() is link.W
        True
    """

    def __init__(self, array):
        super().__init__()
        with self.init_scope():
            self.W = variable.Parameter(array)
        # The link lives where its array does (a GPU array puts it there).
        self.to_device(backend.get_device_from_array(array))

    def forward(self):
        """Returns the parameter variable.

        Returns:
            ~chainer.Parameter: The parameter ``W`` itself.
        """
        return self.W
