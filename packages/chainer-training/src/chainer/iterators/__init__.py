"""Dataset iterators yielding minibatches (provided by ``chainer-training``)."""

from chainer.training import _lazy

_NAMES = {
    "DaliIterator": "dali_iterator",
    "SerialIterator": "serial_iterator",
    "MultiprocessIterator": "multiprocess_iterator",
    "MultithreadIterator": "multithread_iterator",
    "OrderSampler": "order_samplers",
    "ShuffleOrderSampler": "order_samplers",
}

__getattr__, __dir__, __all__ = _lazy.attach(__name__, _NAMES)
