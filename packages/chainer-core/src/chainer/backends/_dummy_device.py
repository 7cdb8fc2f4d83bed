"""``DummyDevice``, the ``chainer.backends.cuda`` device that stands for the CPU.

Its own module so that the facade and chainer-cuda's implementation of it
share one object (the facade imports that implementation while it is itself
being imported).
"""


class DummyDeviceType:
    """The type of :data:`DummyDevice`, a device object that stands for the CPU.

    It supports ``with`` and :meth:`use` like ``cupy.cuda.Device`` and does
    nothing.
    """

    id = -1

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return None

    def __int__(self):
        return -1

    def use(self):
        """Does nothing: the CPU needs no selection."""

    def synchronize(self):
        """Does nothing: the CPU has no asynchronous queue."""

    def __eq__(self, other):
        return isinstance(other, DummyDeviceType)

    def __hash__(self):
        return hash(DummyDeviceType)

    def __repr__(self):
        return "DummyDevice"


DummyDevice = DummyDeviceType()
