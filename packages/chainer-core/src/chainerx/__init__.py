"""``chainerx`` without ChainerX: the module Chainer 7 has when ChainerX is not built.

ChainerX is Chainer 7's optional C++ array backend. Chainer's wheel always
ships this Python package; when the native part is not built,
:func:`is_available` is False and :class:`ndarray` is a class that no object
can be an instance of. Chainer 7's own code and scripts written for it rely on
exactly that: ``import chainerx`` at the top of the examples,
``if chainerx.is_available():``, ``device.xp is chainerx``,
``isinstance(x, chainerx.ndarray)``. This Chainer has no ChainerX, so this
package provides those names and nothing else; asking for any other name
raises an ``AttributeError`` that says ChainerX is not available. ChainerX
device specifiers (``'native'``, ``'native:0'``, ``'cuda:0'``) given to
``chainer.get_device`` raise a ``RuntimeError`` naming ChainerX; use
``'@numpy'`` or ``'@cupy:N'`` instead.
"""

_available = False


class ndarray:
    """Dummy class for type testing: ChainerX arrays cannot be created here."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "chainerx is not available. ChainerX (Chainer's C++ array backend) "
            "is not part of this Chainer: use NumPy or CuPy arrays instead."
        )


def is_available():
    """Returns whether ChainerX is available: always False here.

    Returns:
        bool: ``False``.
    """
    return _available


def __getattr__(name):
    raise AttributeError(
        f"module 'chainerx' has no attribute {name!r}: ChainerX is not "
        "available in this Chainer (chainerx.is_available() is False); use "
        "NumPy ('@numpy') or CuPy ('@cupy:N') devices instead"
    )
