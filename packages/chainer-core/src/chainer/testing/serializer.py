"""Save-and-load round trips for serializer tests."""

from __future__ import annotations

import os
import tempfile


def save_and_load(src, dst, filename, saver, loader):
    """Saves ``src`` to a file and loads it into ``dst``.

    Args:
        src: Object to save (a Link, an Optimizer...).
        dst: Object to load into.
        filename (str): File to use.
        saver (callable): ``saver(filename, src)``.
        loader (callable): ``loader(filename, dst)``.
    """
    saver(filename, src)
    loader(filename, dst)


def _round_trip(src, dst, suffix, saver_name, loader_name):
    from chainer import serializers

    with tempfile.TemporaryDirectory() as tmpdir:
        path = os.path.join(tmpdir, "object" + suffix)
        save_and_load(
            src,
            dst,
            path,
            getattr(serializers, saver_name),
            getattr(serializers, loader_name),
        )


def save_and_load_npz(src, dst):
    """Saves ``src`` in NPZ format to a temporary file and loads it into ``dst``.

    Args:
        src: Object to save.
        dst: Object to load into.
    """
    _round_trip(src, dst, ".npz", "save_npz", "load_npz")


def save_and_load_hdf5(src, dst):
    """Saves ``src`` in HDF5 format to a temporary file and loads it into ``dst``.

    Needs h5py.

    Args:
        src: Object to save.
        dst: Object to load into.
    """
    _round_trip(src, dst, ".h5", "save_hdf5", "load_hdf5")
