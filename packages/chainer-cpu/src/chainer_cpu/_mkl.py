"""Intel oneMKL's GEMM, for chainer-cpu's ``mkl`` extra.

``pip install chainer-cpu[mkl]`` installs the ``mkl`` wheel from PyPI, which
ships oneMKL's single dynamic library ``libmkl_rt`` and no Python module.
:func:`gemm_function` finds that library among the wheel's files, selects
its sequential threading layer (the threads that run MKL's GEMMs are
chainer-cpu's team, see :mod:`chainer_cpu._gemm`, so that no third thread
pool competes with OpenBLAS's and the team's for the cores), checks its
``cblas_?gemm`` against ``numpy.matmul`` once and returns a caller for it
(:func:`axpby_function` does the same for ``cblas_?axpby``, which the SGD
kernels use, and :func:`packed_functions` for the packed-B GEMM of
repeated products). Wherever any of that fails the result is None and
:attr:`problem` says why.
"""

import ctypes
import re

import numpy

from chainer.utils import install_hint
from chainer_cpu import _machine

_ROW_MAJOR = 101
_NO_TRANS = 111
_TRANS = 112
_SEQUENTIAL = 1  # MKL_THREADING_SEQUENTIAL
_LP64 = 0  # MKL_INTERFACE_LP64: 32-bit integers
#: The largest dimension or leading dimension the LP64 interface takes.
INT_MAX = 2**31 - 1

_cache: dict = {}

#: Why MKL is not in use (None while it is, or before the first look).
problem = None


def _library_paths():
    # libmkl_rt among the files of the installed ``mkl`` distribution (the
    # wheel puts it in the environment's lib folder, Library/bin on Windows).
    return _machine.installed_libraries(
        ("mkl",), r"(lib)?mkl_rt\.(so(\.\d+)*|\d+\.dll|dll|\d*\.?dylib)"
    )


def library():
    """Loads ``libmkl_rt`` with its sequential threading layer, or returns None.

    Returns:
        ctypes.CDLL or None: The library; None where the ``mkl`` wheel is not
        installed, does not load, or was loaded before with another threading
        layer (by another library in this process). :attr:`problem` then says
        which.
    """
    if "library" not in _cache:
        _cache["library"] = _load()
    return _cache["library"]


def _load():
    global problem
    paths = _library_paths()
    if not paths:
        problem = "the mkl package is not installed; install it with: " + (
            install_hint.install_hint("chainer-cpu", "mkl")
        )
        return None
    errors = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        lib.MKL_Set_Threading_Layer.argtypes = (ctypes.c_int,)
        lib.MKL_Set_Threading_Layer.restype = ctypes.c_int
        lib.MKL_Set_Interface_Layer.argtypes = (ctypes.c_int,)
        lib.MKL_Set_Interface_Layer.restype = ctypes.c_int
        layer = lib.MKL_Set_Threading_Layer(_SEQUENTIAL)
        interface = lib.MKL_Set_Interface_Layer(_LP64)
        if layer != _SEQUENTIAL or interface != _LP64:
            # Layers are fixed at MKL's first call; another library chose.
            problem = (
                f"{path} was set up by another library (threading layer "
                f"{layer}, interface {interface}); chainer-cpu needs the "
                "sequential layer"
            )
            return None
        problem = None
        return lib
    problem = "libmkl_rt does not load: " + "; ".join(errors)
    return None


def version():
    """oneMKL's version (such as ``"2026.2"``), or None without a usable library."""
    lib = library()
    if lib is None:
        return None
    buf = ctypes.create_string_buffer(256)
    lib.MKL_Get_Version_String.argtypes = (ctypes.c_char_p, ctypes.c_int)
    lib.MKL_Get_Version_String.restype = None
    lib.MKL_Get_Version_String(buf, len(buf))
    text = buf.value.decode(errors="replace").strip()
    # "Intel(R) oneAPI Math Kernel Library Version 2026.2-Product Build ..."
    found = re.search(r"Version ([0-9][0-9.]*)", text)
    return found.group(1) if found else text


def gemm_function(dtype):
    """Returns MKL's GEMM for ``dtype`` (float32 or float64), or None.

    The caller is ``gemm(transa, transb, m, n, k, a, lda, b, ldb, c, ldc,
    beta=0.0)`` with data pointers ``a``, ``b``, ``c`` (ints) of row-major
    matrices of ``dtype`` and leading dimensions in elements:
    ``C[m, n] = op(A) @ op(B) + beta * C``, where ``op`` transposes when its
    flag is true. Every argument must fit the 32-bit interface
    (:data:`INT_MAX`). It runs on the calling thread only.
    """
    dtype = numpy.dtype(dtype)
    if dtype not in _cache:
        _cache[dtype] = _find(dtype)
    return _cache[dtype]


_LETTERS = {numpy.dtype(numpy.float32): "s", numpy.dtype(numpy.float64): "d"}


def _routine(dtype, name):
    # (cblas_?<name> for dtype, the ctypes type of its reals), or None.
    letter = _LETTERS.get(dtype)
    lib = library() if letter is not None else None
    if lib is None:
        return None
    real = ctypes.c_float if letter == "s" else ctypes.c_double
    return getattr(lib, f"cblas_{letter}{name}"), real


def _disagrees(fn, reference):
    global problem
    problem = f"{fn.__name__} of {library()._name} disagrees with {reference}"


def _find(dtype):
    found = _routine(dtype, "gemm")
    if found is None:
        return None
    fn, real = found
    integer = ctypes.c_int
    ptr = ctypes.c_void_p
    fn.argtypes = (
        integer, integer, integer, integer, integer, integer, real, ptr, integer,
        ptr, integer, real, ptr, integer,
    )  # fmt: skip
    fn.restype = None
    flags = (_NO_TRANS, _TRANS)

    def gemm(transa, transb, m, n, k, a, lda, b, ldb, c, ldc, beta=0.0):
        fn(
            _ROW_MAJOR, flags[transa], flags[transb], m, n, k, 1.0, a, lda, b, ldb,
            beta, c, ldc,
        )  # fmt: skip

    if not _verified(gemm, dtype):
        _disagrees(fn, "numpy.matmul")
        return None
    return gemm


def axpby_function(dtype):
    """Returns MKL's ``cblas_?axpby`` for ``dtype`` (float32 or float64), or None.

    The caller is ``axpby(n, a, x, b, y)`` with data pointers ``x`` and ``y``
    (ints) of ``n`` contiguous elements of ``dtype``: ``y = a * x + b * y``
    in one pass over both, on the calling thread. ``n`` must fit the 32-bit
    interface (:data:`INT_MAX`). The multiply-adds may be fused, so results
    can differ from NumPy's two roundings by one unit in the last place.
    """
    dtype = numpy.dtype(dtype)
    key = ("axpby", dtype)
    if key not in _cache:
        _cache[key] = _find_axpby(dtype)
    return _cache[key]


def _find_axpby(dtype):
    found = _routine(dtype, "axpby")
    if found is None:
        return None
    fn, real = found
    fn.argtypes = (ctypes.c_int, real, ctypes.c_void_p, ctypes.c_int, real)
    fn.argtypes += (ctypes.c_void_p, ctypes.c_int)
    fn.restype = None

    def axpby(n, a, x, b, y):
        fn(n, a, x, 1, b, y, 1)

    rng = numpy.random.RandomState(0)
    x, y = rng.standard_normal((2, 37)).astype(dtype)
    expected = 0.5 * x - 2.0 * y
    axpby(37, 0.5, x.ctypes.data, -2.0, y.ctypes.data)
    if not numpy.allclose(y, expected, rtol=1e-5, atol=1e-5):
        _disagrees(fn, "NumPy")
        return None
    return axpby


def packed_functions(dtype):
    """Returns MKL's packed-B GEMM for ``dtype`` (float32 or float64), or None.

    A pair ``(pack, compute)`` of callers of ``cblas_?gemm_pack`` and
    ``cblas_?gemm_compute``, for products ``A @ op(B)`` whose ``B`` is used
    many times (a recurrent weight): ``pack(transb, m, n, k, b, ldb)``
    copies the row-major ``(k, n)`` matrix ``op(B)`` at pointer ``b`` into
    MKL's packed format for products of about ``m`` rows and returns the
    buffer (a NumPy array to keep alive); ``compute(transa, m, n, k, a, lda,
    packed, c, ldc, beta=0.0)`` then computes ``C = op(A) @ op(B) + beta *
    C`` for any ``m`` without packing ``B`` again. The ``m`` given to
    ``pack`` does not change the buffer's size, but it does the products'
    speed: ``(20, 650) @ (650, 2600)`` 0.64 ms on a buffer packed for one
    row, 0.56 for 20 (one thread, 2-vCPU Xeon, oneMKL 2026.2). Checked
    against NumPy once; on the calling thread only.
    """
    dtype = numpy.dtype(dtype)
    key = ("packed", dtype)
    if key not in _cache:
        _cache[key] = _find_packed(dtype)
    return _cache[key]


_PACKED = 151  # CblasPacked
_B_MATRIX = 162  # CblasBMatrix


def _find_packed(dtype):
    found = _routine(dtype, "gemm_pack")
    if found is None:
        return None
    fn_pack, real = found
    fn_size = _routine(dtype, "gemm_pack_get_size")[0]
    fn_compute = _routine(dtype, "gemm_compute")[0]
    integer = ctypes.c_int
    ptr = ctypes.c_void_p
    fn_size.argtypes = (integer, integer, integer, integer)
    fn_size.restype = ctypes.c_size_t
    fn_pack.argtypes = (
        integer, integer, integer, integer, integer, integer, real, ptr, integer, ptr,
    )  # fmt: skip
    fn_pack.restype = None
    fn_compute.argtypes = (
        integer, integer, integer, integer, integer, integer, ptr, integer, ptr,
        integer, real, ptr, integer,
    )  # fmt: skip
    fn_compute.restype = None
    flags = (_NO_TRANS, _TRANS)

    def pack(transb, m, n, k, b, ldb):
        # Products of any m may use the buffer (checked in _verified_packed,
        # which computes with several m from one buffer).
        m = max(1, m)
        nbytes = fn_size(_B_MATRIX, m, n, k)
        buffer = numpy.empty(nbytes // dtype.itemsize + 1, dtype)
        fn_pack(
            _ROW_MAJOR, _B_MATRIX, flags[transb], m, n, k, 1.0, b, ldb,
            buffer.ctypes.data,
        )  # fmt: skip
        return buffer

    def compute(transa, m, n, k, a, lda, packed, c, ldc, beta=0.0):
        fn_compute(
            _ROW_MAJOR, flags[transa], _PACKED, m, n, k, a, lda, packed.ctypes.data,
            max(1, n), beta, c, ldc,
        )  # fmt: skip

    if not _verified_packed(pack, compute, dtype):
        _disagrees(fn_compute, "numpy.matmul")
        return None
    return pack, compute


def _verified_packed(pack, compute, dtype):
    # A transposed B packed once, products of several m (one accumulated).
    rng = numpy.random.RandomState(1)
    b = rng.standard_normal((7, 5)).astype(dtype)  # op(B) = b.T: (5, 7)
    packed = pack(True, 20, 7, 5, b.ctypes.data, 5)
    for m, beta in ((1, 0.0), (3, 1.0), (40, 0.0)):
        a = rng.standard_normal((m, 5)).astype(dtype)
        c = rng.standard_normal((m, 7)).astype(dtype)
        expected = a @ b.T + beta * c
        compute(False, m, 7, 5, a.ctypes.data, 5, packed, c.ctypes.data, 7, beta)
        if not numpy.allclose(c, expected, rtol=1e-4, atol=1e-4):
            return False
    return True


def _verified(gemm, dtype):
    # Both transposes and an accumulation, against numpy.matmul.
    rng = numpy.random.RandomState(0)
    a = rng.standard_normal((4, 3)).astype(dtype)
    b = rng.standard_normal((5, 4)).astype(dtype)
    c = rng.standard_normal((3, 5)).astype(dtype)
    expected = a.T @ b.T + c
    gemm(True, True, 3, 5, 4, a.ctypes.data, 3, b.ctypes.data, 4, c.ctypes.data, 5, 1.0)
    return bool(numpy.allclose(c, expected, rtol=1e-4, atol=1e-4))
