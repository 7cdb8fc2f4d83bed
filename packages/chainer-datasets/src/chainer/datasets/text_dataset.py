"""A dataset of the lines of text files, read on access."""

import codecs
import locale
import os
import threading

import numpy

from chainer.dataset import dataset_mixin

_NEWLINES = (None, "", "\n", "\r", "\r\n")
_CHUNK = 1 << 20
_LF = 0x0A
_CR = 0x0D


def _per_file(name, value, n_paths):
    if value is None or isinstance(value, str):
        return [value] * n_paths
    values = list(value)
    if len(values) != n_paths:
        raise ValueError(
            f"{name} must be a string or a list with one entry per path: got "
            f"{len(values)} entries for {n_paths} paths"
        )
    return values


def _splits_bytewise(encoding):
    # Line ends can be found in the raw bytes when the codec writes CR and LF
    # as the single ASCII bytes, never uses those bytes inside a character and
    # keeps no state across lines (UTF-8, Latin-1, Shift_JIS, GBK... but not
    # UTF-16/32, UTF-7, the ISO-2022 family or a codec that writes a BOM).
    name = codecs.lookup(encoding).name
    if name.startswith(("utf-7", "utf_7", "iso2022", "iso-2022", "hz")):
        return False
    try:
        return "a\r\n".encode(encoding) == b"a\r\n"
    except UnicodeError:
        return False


def _line_bounds(path, newline):
    """Byte offsets of line starts, plus the file size, as an int64 array."""
    ends = []
    pos = 0
    cr_pending = False  # the previous chunk ended with CR
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            buf = numpy.frombuffer(chunk, dtype=numpy.uint8)
            lf = buf == _LF
            cr = buf == _CR
            if newline == "\n":
                stops = lf
            elif newline == "\r":
                stops = cr
            else:
                # Universal newlines (None or ""), or CRLF only: an LF ends a
                # line when it follows a CR (CRLF) or, in universal mode, on
                # its own; a lone CR ends one in universal mode.
                cr_before = numpy.zeros_like(lf)
                cr_before[1:] = cr[:-1]
                cr_before[0] = cr_pending
                if newline == "\r\n":
                    stops = lf & cr_before
                else:
                    stops = lf.copy()
                    lone_cr = cr.copy()
                    lone_cr[:-1] &= ~lf[1:]
                    lone_cr[-1] = False  # decided by the next chunk
                    stops |= lone_cr
                    if cr_pending and not lf[0]:
                        ends.append(numpy.array([pos], dtype=numpy.int64))
            ends.append(numpy.flatnonzero(stops).astype(numpy.int64) + (pos + 1))
            cr_pending = bool(cr[-1])
            pos += len(chunk)
    if cr_pending and newline in (None, ""):
        ends.append(numpy.array([pos], dtype=numpy.int64))
    bounds = numpy.concatenate([numpy.zeros(1, dtype=numpy.int64), *ends])
    if bounds[-1] != pos:
        bounds = numpy.append(bounds, pos)  # a last line without a line end
    return bounds


class _ByteLines:
    """Lines of one file located by byte offsets, read with ``os.pread``.

    ``pread`` leaves the shared file offset alone, so threads and forked
    processes read concurrently without locks.
    """

    def __init__(self, path, encoding, errors, newline):
        self._path = path
        self._encoding = encoding
        self._errors = errors
        self._translate = newline is None
        self._bounds = _line_bounds(path, newline)
        self._fd = None
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._bounds) - 1

    def read(self, line):
        fd = self._fd
        if fd is None:
            with self._lock:
                if self._fd is None:
                    self._fd = os.open(self._path, os.O_RDONLY)
                fd = self._fd
        start = int(self._bounds[line])
        size = int(self._bounds[line + 1]) - start
        text = os.pread(fd, size, start).decode(self._encoding, self._errors)
        if self._translate:
            if text.endswith("\r\n"):
                text = text[:-2] + "\n"
            elif text.endswith("\r"):
                text = text[:-1] + "\n"
        return text

    def close(self):
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_fd"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()


class _TextLines:
    """Lines of one file located by text-mode ``tell`` positions.

    Used for codecs whose line ends cannot be found in the raw bytes. The file
    is reopened in a forked child, whose inherited handle shares its offset
    with the parent.
    """

    def __init__(self, path, encoding, errors, newline):
        self._path = path
        self._options = {"encoding": encoding, "errors": errors, "newline": newline}
        self._file = None
        self._pid = None
        self._lock = threading.Lock()
        with self._open() as f:
            positions = [0]
            while f.readline():
                positions.append(f.tell())
        self._positions = positions

    def _open(self):
        return open(self._path, **self._options)

    def __len__(self):
        return len(self._positions) - 1

    def read(self, line):
        with self._lock:
            if self._file is None or self._pid != os.getpid():
                self._file = self._open()
                self._pid = os.getpid()
            self._file.seek(self._positions[line])
            return self._file.readline()

    def close(self):
        with self._lock:
            f, self._file = self._file, None
            if f is not None:
                f.close()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_file"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()


class TextDataset(dataset_mixin.DatasetMixin):
    """Dataset of the lines of one or more text files.

    With one file, the ``i``-th example is the file's ``i``-th line, a string
    that keeps its line end (as :meth:`io.TextIOBase.readline` returns it).
    With several files, read in parallel, it is the tuple of their ``i``-th
    lines; the files must have the same number of lines. Lines are not kept in
    memory: the dataset records where each line starts and reads it on access,
    so huge corpora take little memory. The dataset can be read from threads
    and from forked processes (e.g. by
    :class:`~chainer.iterators.MultiprocessIterator`) and can be pickled.

    Example:
        >>> import pathlib, tempfile
        >>> from chainer.datasets import TextDataset
        >>> temp = tempfile.TemporaryDirectory()
        >>> folder = pathlib.Path(temp.name)
        >>> _ = (folder / "en.txt").write_text("Hello\\nGood night\\n")
        >>> _ = (folder / "fr.txt").write_text("Bonjour\\nBonne nuit\\n")
        >>> dataset = TextDataset([str(folder / "en.txt"), str(folder / "fr.txt")])
        >>> dataset[1]
        ('Good night\\n', 'Bonne nuit\\n')
        >>> dataset.close()
        >>> temp.cleanup()

    Args:
        paths (str or list of str): Path of a text file, or a list of paths of
            files read in parallel.
        encoding (str or list of str): Encoding of the files, as for
            :func:`open` (``None``: the locale's encoding); a list gives one
            per path.
        errors (str or list of str): How decoding errors are handled, as for
            :func:`open` (``None``: ``'strict'``); a list gives one per path.
        newline (str or list of str): Line end mode, as for :func:`open`
            (``None``: universal newlines, translated to ``'\\n'``); a list
            gives one per path.
        filter_func (callable): If given, only the lines for which
            ``filter_func(line)`` (one file) or ``filter_func(line_0, line_1,
            ...)`` (several files) is true are examples. It is called once per
            line at construction.
    """

    def __init__(
        self, paths, encoding=None, errors=None, newline=None, filter_func=None
    ):
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        elif isinstance(paths, (bytes, bytearray)) or not hasattr(paths, "__iter__"):
            raise TypeError(
                f"paths must be a path or a list of paths, got {type(paths).__name__}"
            )
        paths = [os.fspath(path) for path in paths]
        if not paths:
            raise ValueError("TextDataset needs at least one text file, got no paths")
        n_paths = len(paths)
        encodings = _per_file("encoding", encoding, n_paths)
        errors = _per_file("errors", errors, n_paths)
        newlines = _per_file("newline", newline, n_paths)
        if filter_func is not None and not callable(filter_func):
            raise TypeError(
                f"filter_func must be callable, got {type(filter_func).__name__}"
            )

        files = []
        options = []
        for path, enc, err, nl in zip(paths, encodings, errors, newlines, strict=True):
            if nl not in _NEWLINES:
                raise ValueError(
                    f"newline must be None, '', '\\n', '\\r' or '\\r\\n', got {nl!r}"
                )
            enc = locale.getpreferredencoding(False) if enc is None else enc
            codecs.lookup(enc)  # LookupError names an unknown encoding
            err = "strict" if err is None else err
            codecs.lookup_error(err)  # LookupError names an unknown handler
            kind = _ByteLines if _splits_bytewise(enc) else _TextLines
            files.append(kind(path, enc, err, nl))
            options.append({"encoding": enc, "errors": err, "newline": nl})
        for path, f in zip(paths, files, strict=True):
            if len(f) != len(files[0]):
                raise ValueError(
                    "the files of a TextDataset must have the same number of "
                    f"lines, but {paths[0]!r} has {len(files[0])} lines and "
                    f"{path!r} has {len(f)}"
                )
        self._paths = paths
        self._files = files
        self._closed = False
        self._lines = None  # line numbers of the examples; None: all lines
        if filter_func is not None:
            self._lines = self._filter(filter_func, options)

    def _filter(self, filter_func, options):
        handles = []
        try:
            for path, option in zip(self._paths, options, strict=True):
                handles.append(open(path, **option))  # noqa: SIM115
            kept = [
                number
                for number, lines in enumerate(zip(*handles, strict=True))
                if filter_func(*lines)
            ]
        finally:
            for handle in handles:
                handle.close()
        return numpy.asarray(kept, dtype=numpy.int64)

    def __len__(self):
        if self._lines is None:
            return len(self._files[0])
        return len(self._lines)

    def get_example(self, idx):
        """Returns the idx-th example.

        Args:
            idx (int): Index of the example; negative values count from the
                end.

        Returns:
            str or tuple of str: The line (one file) or the tuple of lines
            (several files), line ends included.
        """
        length = len(self)
        if idx < 0:
            idx += length
        if idx < 0 or idx >= length:
            raise IndexError(
                f"index {idx - length if idx < 0 else idx} is out of range for "
                f"TextDataset of length {length}"
            )
        line = idx if self._lines is None else int(self._lines[idx])
        if len(self._files) == 1:
            return self._read(0, line)
        return tuple([self._read(k, line) for k in range(len(self._files))])

    def _read(self, k, line):
        if getattr(self, "_closed", False):
            raise ValueError(
                f"I/O operation on a closed TextDataset (of {self._paths[k]!r})"
            )
        try:
            return self._files[k].read(line)
        except UnicodeDecodeError as e:
            e.add_note(f"while reading line {line} of {self._paths[k]!r}")
            raise

    def close(self):
        """Closes all the text files.

        The dataset cannot be read afterwards: indexing it raises
        :class:`ValueError`. Files are also closed when the dataset is
        garbage collected, so calling this is seldom needed. Every file is
        closed even if closing one of them fails; the first error is then
        raised.
        """
        self._closed = True
        error = None
        for f in self._files:
            try:
                f.close()
            except Exception as e:
                if error is None:
                    error = e
        if error is not None:
            raise error

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
