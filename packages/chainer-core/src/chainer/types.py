"""Type aliases for annotations of Chainer's API (``chainer.types``).

They are for static type checkers and documentation; nothing checks them at
run time. Names of other modules appear as strings, so importing this module
imports none of them.
"""

from __future__ import annotations

import numbers
import typing as tp
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

    import chainerx
    import numpy

    from chainer import backend
    from chainer.backends import cuda

#: A shape: a tuple of ints.
Shape = tp.Tuple[int, ...]  # noqa: UP006

#: A shape argument: an int or a sequence of ints.
ShapeSpec = tp.Union[int, tp.Sequence[int]]  # noqa: UP007

#: A dtype argument (anything ``numpy.dtype`` accepts).
DTypeSpec = tp.Union[tp.Any]  # noqa: UP007

#: The array types of :func:`chainer.get_array_types`.
NdArray = tp.Union["numpy.ndarray", "cuda.ndarray", "chainerx.ndarray"]

#: An array module (``numpy``, ``cupy``...).
Xp = tp.Union[tp.Any]  # noqa: UP007


class AbstractInitializer(tp.Protocol):
    """Protocol of initializers: a :class:`chainer.Initializer`, or a callable
    that fills an array in place (for static type checkers).
    """

    dtype: DTypeSpec | None

    def __call__(self, array: NdArray) -> None:
        pass


#: The scalar types :func:`numpy.isscalar` accepts.
ScalarValue = tp.Union["numpy.generic", bytes, str, memoryview, numbers.Number]

#: What ``initializer``/``initialW`` arguments accept.
InitializerSpec = tp.Union[AbstractInitializer, ScalarValue, "numpy.ndarray"]

#: The device specifiers :func:`chainer.get_device` accepts.
DeviceSpec = tp.Union[
    "backend.Device",
    "chainerx.Device",
    "cuda.Device",
    str,
    tp.Tuple[str, int],  # noqa: UP006
    "ModuleType",
    tp.Tuple["ModuleType", int],  # noqa: UP006
]

#: Device arguments of the deprecated ``chainer.cuda.get_device``.
CudaDeviceSpec = tp.Union["cuda.Device", int, "numpy.integer"]
