"""GEMM with accumulation (``C = A @ B + beta * C``) through NumPy's own OpenBLAS.

``numpy.matmul`` always overwrites its output; a convolution computed as a
sum of one GEMM per kernel tap (see ``conv._shift_forward``) needs the
BLAS's ``beta``. NumPy's wheels link OpenBLAS and export its CBLAS
interface (``scipy_cblas_sgemm64_`` from NumPy 2.0, ``cblas_sgemm64_`` in
1.x); :func:`gemm_function` finds it among the libraries mapped into this
process, checks it against ``numpy.matmul`` once, and returns a caller for
it, or ``None`` wherever that fails (other BLAS builds, other systems):
callers then take their NumPy-only path.
"""

import ctypes
import glob
import os

import numpy

_ROW_MAJOR = 101
_NO_TRANS = 111
_TRANS = 112

_PREFIXES = ("scipy_cblas_", "cblas_")
_SUFFIXES = ("64_", "")

_cache: dict = {}


def _library_paths():
    # NumPy's OpenBLAS: in the process's mapped libraries (Linux) or in the
    # library folder of NumPy's wheel.
    root = os.path.dirname(os.path.dirname(os.path.abspath(numpy.__file__)))
    paths = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) == 6:
                    path = fields[5].strip()
                    name = os.path.basename(path).lower()
                    if "openblas" in name and path.startswith(root + os.sep):
                        paths.append(path)
    except OSError:
        pass
    for folder in ("numpy.libs", os.path.join("numpy", ".dylibs")):
        paths += glob.glob(os.path.join(root, folder, "*openblas*"))
    unique = []
    for path in paths:
        if path not in unique:
            unique.append(path)
    return unique


def _libraries():
    # NumPy's OpenBLAS libraries, loaded (once per process).
    if "libraries" not in _cache:
        libraries = []
        for path in _library_paths():
            try:
                libraries.append(ctypes.CDLL(path))
            except OSError:
                continue
        _cache["libraries"] = libraries
    return _cache["libraries"]


def _bind(lib, letter):
    # The CBLAS ?gemm of ``lib`` with its integer width, or None.
    for prefix in _PREFIXES:
        for suffix in _SUFFIXES:
            fn = getattr(lib, f"{prefix}{letter}gemm{suffix}", None)
            if fn is None:
                continue
            integer = ctypes.c_int64 if suffix == "64_" else ctypes.c_int
            real = ctypes.c_float if letter == "s" else ctypes.c_double
            ptr = ctypes.c_void_p
            fn.argtypes = (
                ctypes.c_int, ctypes.c_int, ctypes.c_int, integer, integer, integer,
                real, ptr, integer, ptr, integer, real, ptr, integer,
            )  # fmt: skip
            fn.restype = None
            return fn
    return None


def _make_caller(fn):
    def gemm(
        m, n, k, a, lda, b, ldb, beta, c, ldc, a_offset=0, b_offset=0, transb=False
    ):
        # Row-major C[m, n] = A[m, k] @ op(B) + beta * C; arrays given as
        # C-contiguous NumPy buffers, offsets in elements.
        fn(
            _ROW_MAJOR, _NO_TRANS, _TRANS if transb else _NO_TRANS, m, n, k, 1.0,
            a.ctypes.data + a_offset * a.itemsize, lda,
            b.ctypes.data + b_offset * b.itemsize, ldb,
            beta, c.ctypes.data, ldc,
        )  # fmt: skip

    return gemm


def _verified(gemm, dtype):
    # One small product with accumulation, against numpy.matmul.
    rng = numpy.random.RandomState(0)
    a = rng.standard_normal((3, 4)).astype(dtype)
    b = rng.standard_normal((4, 5)).astype(dtype)
    c = rng.standard_normal((3, 5)).astype(dtype)
    expected = a @ b + c
    gemm(3, 5, 4, a, 4, b, 5, 1.0, c, 5)
    return numpy.allclose(c, expected, rtol=1e-4, atol=1e-4)


def gemm_function(dtype):
    """Returns an accumulating GEMM for ``dtype`` (float32 or float64), or None.

    The caller is ``gemm(m, n, k, a, lda, b, ldb, beta, c, ldc, a_offset=0,
    b_offset=0, transb=False)`` on C-contiguous NumPy buffers ``a``, ``b``
    and ``c`` of ``dtype`` (row-major, leading dimensions and offsets in
    elements): ``C = A @ op(B) + beta * C``. The caller must keep every
    element it names inside the buffers.
    """
    dtype = numpy.dtype(dtype)
    if dtype not in _cache:
        _cache[dtype] = _find(dtype)
    return _cache[dtype]


def _find(dtype):
    letter = {numpy.dtype(numpy.float32): "s", numpy.dtype(numpy.float64): "d"}.get(
        dtype
    )
    if letter is None:
        return None
    for lib in _libraries():
        fn = _bind(lib, letter)
        if fn is None:
            continue
        gemm = _make_caller(fn)
        if _verified(gemm, dtype):
            return gemm
    return None


class OpenBLASThreads:
    """The thread controls of NumPy's OpenBLAS.

    ``num_threads()`` and ``set_num_threads(n)`` are OpenBLAS's own (the
    count applies to every thread of the process). ``set_idle_spin(e)``
    makes an idle worker thread spin ``2 ** e`` CPU cycles before it sleeps
    (OpenBLAS's ``OPENBLAS_THREAD_TIMEOUT``, read at start-up, 2 ** 28 by
    default, about 0.1 s): it has OpenBLAS read its environment again with
    that variable set (then puts the variable back) and stops its workers,
    which the next threaded call starts anew. Call it only while no other
    thread runs a BLAS call.
    """

    def __init__(self, get, set_, read_env, shutdown, timeout):
        self._get = get
        self._set = set_
        self._read_env = read_env
        self._shutdown = shutdown
        self._timeout = timeout

    def num_threads(self):
        return int(self._get())

    def set_num_threads(self, n):
        self._set(int(n))

    def idle_spin(self):
        """The exponent OpenBLAS uses (0 where it keeps its built-in default)."""
        return int(self._timeout())

    def set_idle_spin(self, exponent):
        # OpenBLAS keeps what it reads; the variable itself is put back, so
        # that child processes start with their own defaults.
        name = "OPENBLAS_THREAD_TIMEOUT"
        before = os.environ.get(name)
        os.environ[name] = str(int(exponent))
        try:
            self._read_env()
        finally:
            if before is None:
                del os.environ[name]
            else:
                os.environ[name] = before
        self._shutdown()


_GET_NAMES = (
    "scipy_openblas_get_num_threads64_",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)
_SET_NAMES = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_PARALLEL_NAMES = (
    "scipy_openblas_get_parallel64_",
    "openblas_get_parallel64_",
    "openblas_get_parallel",
)
_PTHREADS = 1  # openblas_get_parallel(): 0 sequential, 1 pthreads, 2 OpenMP


def openblas_threads():
    """Returns :class:`OpenBLASThreads` for NumPy's OpenBLAS, or None.

    None where NumPy's BLAS is not an OpenBLAS with a pthreads thread pool
    that exports these functions (other BLAS libraries, OpenBLAS built
    sequential or with OpenMP, other systems).
    """
    if "threads" not in _cache:
        _cache["threads"] = _find_threads()
    return _cache["threads"]


def _first(lib, names):
    for name in names:
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn
    return None


def _find_threads():
    for lib in _libraries():
        parallel = _first(lib, _PARALLEL_NAMES)
        if parallel is None:
            continue
        parallel.restype = ctypes.c_int
        parallel.argtypes = ()
        if parallel() != _PTHREADS:
            # A sequential build has no threads to control; an OpenMP one
            # sets its count per calling thread.
            continue
        get = _first(lib, _GET_NAMES)
        set_ = _first(lib, _SET_NAMES)
        read_env = getattr(lib, "openblas_read_env", None)
        shutdown = getattr(lib, "blas_thread_shutdown_", None)
        timeout = getattr(lib, "openblas_thread_timeout", None)
        if None in (get, set_, read_env, shutdown, timeout):
            continue
        get.restype = ctypes.c_int
        get.argtypes = ()
        set_.restype = None
        set_.argtypes = (ctypes.c_int,)
        read_env.restype = None
        read_env.argtypes = ()
        shutdown.restype = ctypes.c_int
        shutdown.argtypes = ()
        timeout.restype = ctypes.c_int
        timeout.argtypes = ()
        return OpenBLASThreads(get, set_, read_env, shutdown, timeout)
    return None


_CONFIG_NAMES = (
    "scipy_openblas_get_config64_",
    "openblas_get_config64_",
    "openblas_get_config",
)
_CORENAME_NAMES = (
    "scipy_openblas_get_corename64_",
    "openblas_get_corename64_",
    "openblas_get_corename",
)


def describe():
    """Names NumPy's BLAS in one line, without threadpoolctl.

    For an OpenBLAS found in this process: its build configuration, the
    kernel set it chose for this CPU, its threading model and thread count.
    Elsewhere the BLAS name NumPy's build reports, or ``"unknown"``.

    Returns:
        str: For example ``"OpenBLAS 0.3.31 ... Haswell (pthreads, 2 threads)"``.
    """
    for lib in _libraries():
        config = _first(lib, _CONFIG_NAMES)
        if config is None:
            continue
        config.restype = ctypes.c_char_p
        config.argtypes = ()
        text = (config() or b"OpenBLAS").decode(errors="replace").strip()
        corename = _first(lib, _CORENAME_NAMES)
        if corename is not None:
            corename.restype = ctypes.c_char_p
            corename.argtypes = ()
            core = (corename() or b"").decode(errors="replace").strip()
            if core and core.lower() not in text.lower():
                text += f" core={core}"
        parallel = _first(lib, _PARALLEL_NAMES)
        get = _first(lib, _GET_NAMES)
        if parallel is not None and get is not None:
            parallel.restype = get.restype = ctypes.c_int
            parallel.argtypes = get.argtypes = ()
            model = {0: "sequential", 1: "pthreads", 2: "OpenMP"}.get(
                parallel(), "unknown threading"
            )
            text += f" ({model}, {get()} threads)"
        return text
    return _numpy_blas_name()


def _numpy_blas_name():
    # The BLAS that NumPy's build reports (no OpenBLAS found in the process).
    try:
        info = numpy.show_config(mode="dicts")
        blas = info["Build Dependencies"]["blas"]
        return f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()
    except Exception:  # older NumPy: no mode="dicts"; a name is all we want
        return "unknown"
