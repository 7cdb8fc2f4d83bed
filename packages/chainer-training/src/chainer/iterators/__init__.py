"""Dataset iterators yielding minibatches (provided by ``chainer-training``)."""

from chainer.utils import lazy_namespace as _lazy_namespace

_NAMES = {
    "DaliIterator": "dali_iterator",
    "SerialIterator": "serial_iterator",
    "MultiprocessIterator": "multiprocess_iterator",
    "MultithreadIterator": "multithread_iterator",
    "OrderSampler": "order_samplers",
    "ShuffleOrderSampler": "order_samplers",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = _lazy_namespace.attach(__name__, _NAMES)
