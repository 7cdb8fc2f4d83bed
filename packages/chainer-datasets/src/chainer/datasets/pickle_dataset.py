"""A dataset stored as a sequence of pickles in one file.

Unpickling runs code chosen by whoever wrote the file: open only pickle
datasets that you wrote yourself or otherwise trust.
"""

import io
import os
import pickle
import threading

from chainer.dataset import dataset_mixin
from chainer.utils import atomic_file

# Readers whose ``fileno`` is the file that holds the pickles, so records can
# be read with ``os.pread`` (a GzipFile's fileno, say, is the compressed file).
_PLAIN_FILES = (io.BufferedReader, io.BufferedRandom, io.FileIO)


def _check_protocol(protocol):
    if (
        isinstance(protocol, bool)
        or not isinstance(protocol, int)
        or not -1 <= protocol <= pickle.HIGHEST_PROTOCOL
    ):
        raise ValueError(
            f"protocol must be an integer from 0 to {pickle.HIGHEST_PROTOCOL} "
            f"(or -1 for the highest), got {protocol!r}"
        )


class PickleDatasetWriter:
    """Writer of a pickle dataset: appends one pickled example per call.

    The file it writes is the concatenation of the examples' pickles, the
    format :class:`PickleDataset` reads (and Chainer's). Each example is
    pickled completely before anything is written, so an example that cannot
    be pickled leaves the file as it was.

    Example:
        >>> import io
        >>> from chainer.datasets import PickleDataset, PickleDatasetWriter
        >>> buffer = io.BytesIO()
        >>> writer = PickleDatasetWriter(buffer)
        >>> for example in [(1, "a"), (2, "b")]:
        ...     writer.write(example)
        >>> PickleDataset(buffer)[1]
        (2, 'b')

    Args:
        writer: Binary file object to write to (anything with ``write``).
        protocol (int): Pickle protocol (default: the highest, 5).
    """

    def __init__(self, writer, protocol=pickle.HIGHEST_PROTOCOL):
        if not callable(getattr(writer, "write", None)):
            raise TypeError(
                f"writer must be a binary file object, got {type(writer).__name__}"
            )
        _check_protocol(protocol)
        self._writer = writer
        self._protocol = protocol

    def write(self, x):
        """Appends an example.

        Args:
            x: The example; any picklable object.
        """
        self._writer.write(pickle.dumps(x, protocol=self._protocol))

    def flush(self):
        """Flushes the underlying file object."""
        self._writer.flush()

    def close(self):
        """Closes the underlying file object."""
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is not None and isinstance(self._writer, _AtomicFile):
            self._writer.discard()
        else:
            self.close()


class PickleDataset(dataset_mixin.DatasetMixin):
    """Dataset of the pickled examples in a file, read on access.

    At construction the reader is scanned once to record where each pickle
    starts; an example is unpickled each time it is read, so the file may be
    larger than memory. The file may be read concurrently from threads and
    from forked processes (e.g. by
    :class:`~chainer.iterators.MultiprocessIterator`): plain files are read
    with ``os.pread``, which leaves the file offset shared with forked
    processes untouched, and other readers are read under a lock.

    .. warning::
        Unpickling runs code chosen by whoever wrote the file, and this
        dataset unpickles every example of the file. Use it only on files
        you made (e.g. with :class:`PickleDatasetWriter`) or otherwise
        trust, never on data downloaded from an untrusted source.

    Example:
        >>> import io, pickle
        >>> from chainer.datasets import PickleDataset
        >>> buffer = io.BytesIO(pickle.dumps("a") + pickle.dumps([1, 2]))
        >>> dataset = PickleDataset(buffer)
        >>> len(dataset), dataset[1]
        (2, [1, 2])

    Args:
        reader: Seekable binary file object holding a sequence of pickles.
    """

    def __init__(self, reader):
        seekable = getattr(reader, "seekable", None)
        if not callable(getattr(reader, "read", None)) or seekable is None:
            raise TypeError(
                f"reader must be a binary file object, got {type(reader).__name__}"
            )
        if not seekable():
            raise ValueError(
                "reader must support random access (seek), but "
                f"{type(reader).__name__}.seekable() is false"
            )
        if not isinstance(reader.read(0), bytes):
            raise ValueError("reader must be opened in binary mode ('rb')")
        self._reader = reader
        self._lock = threading.Lock()
        self._fd = reader.fileno() if isinstance(reader, _PLAIN_FILES) else None
        self._bounds = self._scan(reader)

    @staticmethod
    def _scan(reader):
        # Record offsets: bounds[i] and bounds[i + 1] delimit the i-th pickle.
        reader.seek(0)
        bounds = [0]
        while reader.read(1):
            reader.seek(bounds[-1])
            try:
                pickle.load(reader)
            except (EOFError, pickle.UnpicklingError) as e:
                raise ValueError(
                    f"the pickle at byte offset {bounds[-1]} (example "
                    f"{len(bounds) - 1}) is truncated or corrupt: {e}"
                ) from e
            except Exception as e:
                e.add_note(
                    f"while reading the pickle at byte offset {bounds[-1]} "
                    f"(example {len(bounds) - 1})"
                )
                raise
            bounds.append(reader.tell())
        return bounds

    def __len__(self):
        return len(self._bounds) - 1

    def get_example(self, index):
        """Returns the index-th example, unpickled from the file.

        Args:
            index (int): Index of the example.

        Returns:
            The unpickled example.
        """
        length = len(self._bounds) - 1
        if index < 0:
            index += length
        if index < 0 or index >= length:
            raise IndexError(
                f"index {index - length if index < 0 else index} is out of range "
                f"for PickleDataset of length {length}"
            )
        start = self._bounds[index]
        size = self._bounds[index + 1] - start
        if getattr(self._reader, "closed", False):
            # Checked first: the descriptor number of a closed file may
            # already belong to another file.
            raise ValueError("cannot read from a PickleDataset whose reader is closed")
        if self._fd is not None:
            data = os.pread(self._fd, size, start)
        else:
            with self._lock:
                self._reader.seek(start)
                data = self._reader.read(size)
        return pickle.loads(data)

    def close(self):
        """Closes the underlying file object."""
        self._reader.close()
        self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def __getstate__(self):
        # A plain file travels as its path (spawned worker processes reopen
        # it); other readers are pickled as they are (io.BytesIO can be).
        state = self.__dict__.copy()
        del state["_lock"]
        state["_fd"] = None
        if self._fd is not None:
            name = self._reader.name
            if not isinstance(name, (str, bytes, os.PathLike)):
                raise TypeError(
                    "cannot pickle a PickleDataset over a file opened from a file "
                    "descriptor; open the file by its path"
                )
            state["_reader"] = None
            state["_path"] = name
        return state

    def __setstate__(self, state):
        path = state.pop("_path", None)
        self.__dict__.update(state)
        self._lock = threading.Lock()
        if path is not None:
            self._reader = open(path, "rb")  # noqa: SIM115
            self._fd = self._reader.fileno()


class _AtomicFile:
    """Binary file written under a temporary name, renamed into place on close.

    Readers never see a half-written file; :meth:`discard` drops it instead.
    The rules are those of :mod:`chainer.utils.atomic_file`.
    """

    def __init__(self, path):
        self.name = path
        try:
            self._atomic = atomic_file.AtomicFile(path)
            self._file = open(self._atomic.path, "wb")  # noqa: SIM115
        except OSError as e:
            if hasattr(self, "_atomic"):
                self._atomic.discard()
            e.add_note(f"while opening {path!r} for writing")
            raise

    def write(self, data):
        return self._file.write(data)

    def tell(self):
        return self._file.tell()

    def flush(self):
        self._file.flush()

    @property
    def closed(self):
        return self._file.closed

    def close(self):
        if self._file.closed:
            return
        try:
            self._file.close()  # flushes: a full disk fails here
        except BaseException:
            self._atomic.discard()
            raise
        self._atomic.commit()

    def discard(self):
        if self._file.closed:
            return
        self._file.close()
        self._atomic.discard()

    def __del__(self):
        # Never closed: the file was not finished, so it does not appear.
        try:
            self.discard()
        except Exception:
            pass


def open_pickle_dataset(path):
    """Opens a pickle dataset file for reading.

    The returned dataset is a context manager that closes the file on exit.

    .. warning::
        Reading the dataset unpickles its content, which can run arbitrary
        code: open only files you made or trust.

    Example:
        >>> import os, tempfile
        >>> from chainer.datasets import open_pickle_dataset
        >>> from chainer.datasets import open_pickle_dataset_writer
        >>> temp = tempfile.TemporaryDirectory()
        >>> path = os.path.join(temp.name, "data.pkl")
        >>> with open_pickle_dataset_writer(path) as writer:
        ...     writer.write({"x": 1})
        >>> with open_pickle_dataset(path) as dataset:
        ...     print(dataset[0])
        {'x': 1}
        >>> temp.cleanup()

    Args:
        path (str): Path of the file.

    Returns:
        PickleDataset: The dataset.
    """
    reader = open(path, "rb")  # noqa: SIM115
    try:
        return PickleDataset(reader)
    except BaseException:
        reader.close()
        raise


def open_pickle_dataset_writer(path, protocol=pickle.HIGHEST_PROTOCOL):
    """Opens a file to write a pickle dataset.

    The examples go to a temporary file beside ``path``, which replaces
    ``path`` when the writer is closed. Until then, readers see the old file
    (if any); if the ``with`` block of the writer raises, or the writer is
    never closed, ``path`` is left untouched.

    Args:
        path (str): Path of the file to write.
        protocol (int): Pickle protocol (default: the highest, 5).

    Returns:
        PickleDatasetWriter: The writer, a context manager that closes (and
        so publishes) the file on exit.
    """
    _check_protocol(protocol)
    return PickleDatasetWriter(_AtomicFile(os.fspath(path)), protocol=protocol)
