"""Serializers: save and load Links, Optimizers and Trainers (NPZ, HDF5).

HDF5 support needs the optional ``h5py`` (``pip install chainer-core[hdf5]``);
it is imported only when an HDF5 function is called.
"""

from chainer.serializers.hdf5 import HDF5Deserializer
from chainer.serializers.hdf5 import HDF5Serializer
from chainer.serializers.hdf5 import load_hdf5
from chainer.serializers.hdf5 import save_hdf5
from chainer.serializers.npz import DictionarySerializer
from chainer.serializers.npz import NpzDeserializer
from chainer.serializers.npz import load_npz
from chainer.serializers.npz import save_npz

__all__ = [
    "DictionarySerializer",
    "HDF5Deserializer",
    "HDF5Serializer",
    "NpzDeserializer",
    "load_hdf5",
    "load_npz",
    "save_hdf5",
    "save_npz",
]
