"""Intel oneDNN's convolutions, for chainer-cpu's ``onednn`` extra.

``pip install chainer-cpu[onednn]`` installs oneDNN's CPU library
(``libdnnl``, from the ``onednn-cpu-gomp`` wheel; the ``onednn`` and
``onednn-cpu-iomp`` wheels are found too). oneDNN computes a convolution
directly, on its own blocked memory formats, without the patch matrices of
chainer-cpu's own engine: 2-2.5x faster for the VGG-style layers of
``benchmarks/`` on the 2-core Xeon of ``benchmarks/results.md``, format
conversions included.

:func:`forward`, :func:`backward_data` and :func:`backward_weights` run
float32 N-d convolutions (N = 1, 2, 3; strides, padding on both sides,
dilation, groups) through oneDNN's C API with ctypes. NumPy arrays enter and
leave in whatever strides they have: each call converts its operands to the
formats the primitive chose and back (oneDNN's reorders), and keeps the
primitives per shape, strides and parameters. oneDNN's OpenMP threads are
set to the width of chainer-cpu's team before each call.

:func:`batch_normalization` and :func:`batch_normalization_grad` run
float32 training-mode batch normalization on oneDNN for the channels-last
activations the convolutions give (the kernels of
:mod:`chainer_cpu.functions.normalization.batch_normalization` call them):
in the VGG-style step of ``benchmarks/`` 124.6 vs 154.9 ms against
chainer-cpu's NumPy kernels on the same channels-last arrays (``ab_step.py
vgg``, 16 rounds, 15 won).

``CHAINER_CPU_CONV``: ``auto`` (default) uses oneDNN where it is installed
and usable and, per geometry, measured faster than chainer-cpu's own engine
(:func:`pick`); ``numpy`` never uses it; ``onednn`` uses it wherever it
applies (the first convolution raises ``RuntimeError`` saying why it is not
usable). Wherever oneDNN is not used, :attr:`problem` says why.
"""

import collections
import ctypes
import os
import threading
import time

import numpy

from chainer.utils import install_hint
from chainer_cpu import _layout
from chainer_cpu import _machine
from chainer_cpu import _parallel

_ENV = "CHAINER_CPU_CONV"
_DISTRIBUTIONS = ("onednn-cpu-gomp", "onednn-cpu-iomp", "onednn")
_LIBRARY_NAMES = r"libdnnl\.so\.3(\.\d+)*|dnnl\.dll|libdnnl\.3\.dylib"

# oneDNN 3.x C API constants (oneapi/dnnl/dnnl_types.h, dnnl_common_types.h).
_SUCCESS = 0
_CPU = 1
_IN_ORDER = 1
_F32 = 3
_FORMAT_ANY = 1
_FORWARD_TRAINING = 64
_CONVOLUTION_DIRECT = 1
_ARG_SRC = 1
_ARG_DST = 17
_ARG_WEIGHTS = 33
_ARG_BIAS = 41
_ARG_DIFF_SRC = 129
_ARG_DIFF_DST = 145
_ARG_DIFF_WEIGHTS = 161
_ARG_SCRATCHPAD = 80
_ARG_MEAN = 49
_ARG_VARIANCE = 50
_ARG_SCALE = 51
_ARG_SHIFT = 52
_ARG_DIFF_SCALE = 255
_ARG_DIFF_SHIFT = 256
_BACKWARD = 128
_USE_SCALE_AND_SHIFT = 0x2 | 0x4
_QUERY_EXEC_ARG_MD = 255
_QUERY_IMPL_INFO_STR = 8
_SCRATCHPAD_USER = 1
_MAX_NDIMS = 12
#: Alignment of the buffers handed to oneDNN (one cache line).
_ALIGN = 64

_Dims = ctypes.c_int64 * _MAX_NDIMS
_handle = ctypes.c_void_p

#: Memory order of the activations (inputs, outputs and their gradients) that
#: oneDNN's convolutions compute on and hand back: ``"channels_last"``
#: (``(n, *spatial, c)`` in memory) or ``"batch_innermost"`` (``(c, *spatial,
#: n)``, the order of chainer-cpu's own engine, converted to and from
#: oneDNN's blocked formats at each call).
ACTIVATIONS = "channels_last"

_state: dict = {"choice": None, "library": None, "loaded": False}
#: Plans kept (the most recently used; a plan holds oneDNN's generated code
#: for one geometry): inputs of ever new shapes (variable-length sequences)
#: would otherwise grow the cache without bound.
MAX_PLANS = 256
_plans: collections.OrderedDict = collections.OrderedDict()
_any_mds: dict = {}
_lock = threading.Lock()

#: Why oneDNN is not in use (None while it is, or before the first look).
problem = None


class Unsupported(Exception):
    """oneDNN has no primitive for this convolution (the caller falls back)."""


class _Arg(ctypes.Structure):
    _fields_ = (("arg", ctypes.c_int), ("memory", _handle))


def _library_paths():
    return _machine.installed_libraries(_DISTRIBUTIONS, _LIBRARY_NAMES)


def _load():
    global problem
    paths = _library_paths()
    if not paths:
        problem = "oneDNN is not installed; install it with: " + (
            install_hint.install_hint("chainer-cpu", "onednn")
        )
        return None
    errors = []
    for path in paths:
        try:
            lib = _open(path)
            _declare(lib)
            engine = _handle()
            _check(lib.dnnl_engine_create(ctypes.byref(engine), _CPU, 0), "engine")
        except (OSError, AttributeError, RuntimeError) as e:
            errors.append(f"{path}: {e}")
            continue
        lib.chainer_engine = engine
        lib.chainer_threads = None
        problem = None
        return lib
    problem = "oneDNN does not load: " + "; ".join(errors)
    return None


#: Variables by which the user sets how OpenMP's idle threads wait.
_WAIT_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


def _open(path):
    # Loads the library with OpenMP's idle threads sleeping at once unless
    # the user chose otherwise: spinning after each convolution, they took a
    # core from the team's and OpenBLAS's threads in the batch
    # normalization and ReLU kernels that follow (VGG-style step 187-212 ms
    # against 160-162 ms passive, 2-core Xeon). The runtime reads the
    # variable when it loads; the environment is put back afterwards.
    if any(name in os.environ for name in _WAIT_VARS):
        return ctypes.CDLL(path)
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        return ctypes.CDLL(path)
    finally:
        del os.environ["OMP_WAIT_POLICY"]


def _declare(lib):
    # Argument and result types of the functions used (all return a status).
    h, p, i = _handle, ctypes.POINTER, ctypes.c_int
    conv = (_Dims, _Dims, _Dims, _Dims)  # strides, dilates, padding_l, padding_r
    signatures = {
        "dnnl_engine_create": (p(h), i, ctypes.c_size_t),
        "dnnl_stream_create": (p(h), h, ctypes.c_uint),
        "dnnl_stream_wait": (h,),
        "dnnl_memory_desc_create_with_strides": (p(h), i, _Dims, i, _Dims),
        "dnnl_memory_desc_create_with_tag": (p(h), i, _Dims, i, i),
        "dnnl_memory_desc_destroy": (h,),
        "dnnl_memory_desc_clone": (p(h), h),
        "dnnl_memory_create": (p(h), h, h, h),
        "dnnl_memory_destroy": (h,),
        "dnnl_primitive_attr_create": (p(h),),
        "dnnl_primitive_attr_set_scratchpad_mode": (h, i),
        "dnnl_primitive_desc_query": (h, i, i, h),
        "dnnl_primitive_desc_destroy": (h,),
        "dnnl_primitive_create": (p(h), h),
        "dnnl_primitive_execute": (h, h, i, h),
        "dnnl_reorder_primitive_desc_create": (p(h), h, h, h, h, h),
        "dnnl_convolution_forward_primitive_desc_create": (
            (p(h), h, i, i, h, h, h, h, *conv, h)
        ),
        "dnnl_convolution_backward_data_primitive_desc_create": (
            (p(h), h, i, h, h, h, *conv, h, h)
        ),
        "dnnl_convolution_backward_weights_primitive_desc_create": (
            (p(h), h, i, h, h, h, h, *conv, h, h)
        ),
        "dnnl_batch_normalization_forward_primitive_desc_create": (
            (p(h), h, i, h, h, ctypes.c_float, ctypes.c_uint, h)
        ),
        "dnnl_batch_normalization_backward_primitive_desc_create": (
            (p(h), h, i, h, h, h, ctypes.c_float, ctypes.c_uint, h, h)
        ),
    }
    for name, argtypes in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = ctypes.c_int
    for name in ("dnnl_primitive_desc_query_md",):
        fn = getattr(lib, name)
        fn.argtypes = (h, i, i)
        fn.restype = h
    lib.dnnl_memory_desc_get_size.argtypes = (h,)
    lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t
    lib.dnnl_memory_desc_equal.argtypes = (h, h)
    lib.dnnl_memory_desc_equal.restype = ctypes.c_int
    # oneDNN's OpenMP runtime (libgomp or libiomp5, loaded with it).
    lib.omp_set_num_threads.argtypes = (ctypes.c_int,)
    lib.omp_set_num_threads.restype = None


def _check(status, what):
    if status != _SUCCESS:
        raise RuntimeError(f"oneDNN {what} failed with status {status}")


def library():
    """Loads oneDNN (once): the ``ctypes.CDLL``, or None (see :attr:`problem`)."""
    if not _state["loaded"]:
        _state["library"] = _load()
        _state["loaded"] = True
    return _state["library"]


def choice():
    """How float32 convolutions choose their engine (decided once).

    Returns:
        str: ``"race"`` (``CHAINER_CPU_CONV=auto`` with oneDNN usable: per
        geometry, the engine that measured faster, see :func:`pick`),
        ``"onednn"`` (``CHAINER_CPU_CONV=onednn``: oneDNN wherever it applies)
        or ``"numpy"`` (chainer-cpu's own engine).

    Raises:
        RuntimeError: If ``CHAINER_CPU_CONV=onednn`` and oneDNN is not usable.
        ValueError: If ``CHAINER_CPU_CONV`` holds another value.
    """
    chosen = _state["choice"]
    if chosen is None:
        wanted = os.environ.get(_ENV, "auto").strip().lower() or "auto"
        if wanted not in ("auto", "onednn", "numpy"):
            raise ValueError(f"{_ENV} must be auto, onednn or numpy, not {wanted!r}")
        chosen = "numpy"
        if wanted != "numpy":
            if library() is not None:
                chosen = "race" if wanted == "auto" else "onednn"
            elif wanted == "onednn":
                raise RuntimeError(
                    f"{_ENV}=onednn, but oneDNN is not usable: {problem}"
                )
        _state["choice"] = chosen
    return chosen


#: Calls of each engine per geometry before :func:`pick` settles on one; the
#: first call of each (primitive creation, first touch of buffers) does not
#: count.
TRIALS = 3
#: Geometries whose race is remembered (the most recent).
MAX_RACES = 4096
_races: collections.OrderedDict = collections.OrderedDict()
_clock = time.perf_counter


def pick(key, onednn_call, own_call):
    """Runs a convolution on oneDNN or on chainer-cpu's own engine.

    With ``CHAINER_CPU_CONV=onednn`` it is oneDNN. Otherwise (``auto``) the
    first calls for each ``key`` (a geometry: shapes, strides, parameters)
    alternate between the engines, :data:`TRIALS` each, and the faster by
    its best time takes every later call. Neither engine wins everywhere: on
    the 2-core Xeon of ``benchmarks/results.md`` oneDNN ran the VGG-style
    layers 2-2.5x faster, and the LeNet-style ones (1 or 20 input channels,
    5x5 filters on 28x28 and 12x12 images) 1.5-3x slower.

    Args:
        key (tuple): The geometry.
        onednn_call (callable): Runs it on oneDNN; may raise
            :class:`Unsupported`.
        own_call (callable): Runs it on chainer-cpu's own engine.

    Returns:
        The result of the call that ran.
    """
    state = _races.get(key)
    if state == "own":
        return own_call()
    if state == "onednn" or choice() == "onednn":
        try:
            return onednn_call()
        except Unsupported:
            _races[key] = "own"
            return own_call()
    if state is None:
        state = _races[key] = ([], [])
        while len(_races) > MAX_RACES:
            _races.popitem(last=False)
    onednn_times, own_times = state
    use_onednn = len(onednn_times) <= len(own_times)
    start = _clock()
    if use_onednn:
        try:
            result = onednn_call()
        except Unsupported:
            _races[key] = "own"
            return own_call()
        onednn_times.append(_clock() - start)
    else:
        result = own_call()
        own_times.append(_clock() - start)
    if min(len(onednn_times), len(own_times)) >= TRIALS:
        faster = min(onednn_times[1:]) <= min(own_times[1:])
        _races[key] = "onednn" if faster else "own"
    return result


class _Version(ctypes.Structure):
    _fields_ = (
        ("major", ctypes.c_int),
        ("minor", ctypes.c_int),
        ("patch", ctypes.c_int),
        ("hash", ctypes.c_char_p),
    )


def version():
    """oneDNN's version (such as ``"3.2.0"``), or None without a usable library."""
    lib = library()
    if lib is None:
        return None
    lib.dnnl_version.argtypes = ()
    lib.dnnl_version.restype = ctypes.POINTER(_Version)
    v = lib.dnnl_version().contents
    return f"{v.major}.{v.minor}.{v.patch}"


def describe():
    """One line naming the engine of float32 convolutions, for runtime info."""
    try:
        chosen = choice()
    except (RuntimeError, ValueError) as e:
        return f"error: {e}"
    if chosen == "race":
        return f"oneDNN {version()} where it measures faster than chainer-cpu's engine"
    if chosen == "onednn":
        return f"oneDNN {version()}"
    why = f"{_ENV}=numpy" if problem is None else problem
    return f"chainer-cpu's GEMM engine ({why})"


def _dims(values):
    dims = _Dims()
    for k, v in enumerate(values):
        dims[k] = v
    return dims


def _user_md(lib, shape, strides):
    md = _handle()
    _check(
        lib.dnnl_memory_desc_create_with_strides(
            ctypes.byref(md), len(shape), _dims(shape), _F32, _dims(strides)
        ),
        "memory descriptor",
    )
    return md


def _any_md(lib, shape):
    # The descriptor of a float32 tensor of ``shape`` in any format the
    # primitive likes; made once per shape and kept (primitive descriptors
    # copy what they are given).
    md = _any_mds.get(shape)
    if md is None:
        md = _handle()
        _check(
            lib.dnnl_memory_desc_create_with_tag(
                ctypes.byref(md), len(shape), _dims(shape), _F32, _FORMAT_ANY
            ),
            "memory descriptor",
        )
        _any_mds[shape] = md
    return md


def _activation_md(lib, shape):
    # The primitive's descriptor of an activation tensor of ``shape``:
    # channels-last strides (then arrays in that order need no reorder), or
    # any format; made once per shape and kept, as _any_md does.
    if ACTIVATIONS != "channels_last":
        return _any_md(lib, shape)
    key = ("channels_last", shape)
    md = _any_mds.get(key)
    if md is None:
        md = _any_mds[key] = _user_md(lib, shape, _channels_last_strides(shape))
    return md


def _channels_last_strides(shape):
    # Element strides of (n, c, *spatial) stored as (n, *spatial, c).
    strides = [0] * len(shape)
    step = 1
    for axis in (1, *range(len(shape) - 1, 1, -1), 0):
        strides[axis] = step
        step *= shape[axis]
    return tuple(strides)


def _layout_of(a, shape=None):
    # (shape, strides in elements) of a float32 array, as oneDNN reads it.
    shape = a.shape if shape is None else shape
    if shape != a.shape:
        a = a.reshape(shape)
    return tuple(shape), tuple(s // a.itemsize for s in a.strides)


class _Plan:
    # One primitive with the reorders between the user's strides and the
    # formats it chose. ``args`` maps an execute argument to (user md,
    # primitive md, reorder or None, direction 'in' or 'out').

    def __init__(self, lib, pd, user_mds, outputs):
        self.lib = lib
        self.args = {}
        prim = _handle()
        _check(lib.dnnl_primitive_create(ctypes.byref(prim), pd), "primitive")
        self.primitive = prim
        for arg, user in user_mds.items():
            own = _handle()
            _check(
                lib.dnnl_memory_desc_clone(
                    ctypes.byref(own),
                    lib.dnnl_primitive_desc_query_md(pd, _QUERY_EXEC_ARG_MD, arg),
                ),
                "memory descriptor",
            )
            reorder = None
            if not lib.dnnl_memory_desc_equal(user, own):
                src, dst = (own, user) if arg in outputs else (user, own)
                reorder = _reorder(lib, src, dst)
            self.args[arg] = (user, own, reorder, arg in outputs)
        scratch = lib.dnnl_primitive_desc_query_md(
            pd, _QUERY_EXEC_ARG_MD, _ARG_SCRATCHPAD
        )
        self.scratch_md = _handle()
        self.scratch_bytes = 0
        if scratch:
            _check(
                lib.dnnl_memory_desc_clone(ctypes.byref(self.scratch_md), scratch),
                "memory descriptor",
            )
            self.scratch_bytes = lib.dnnl_memory_desc_get_size(self.scratch_md)
        self.scratch_owned = bool(scratch)
        info = ctypes.c_char_p()
        lib.dnnl_primitive_desc_query(
            pd, _QUERY_IMPL_INFO_STR, 0, ctypes.cast(ctypes.byref(info), _handle)
        )
        self.implementation = (info.value or b"").decode(errors="replace")

    def __del__(self):
        # Frees oneDNN's objects once the plan is dropped from the cache and
        # no call holds it (nothing to do when the interpreter is exiting).
        try:
            lib = self.lib
            lib.dnnl_primitive_destroy(self.primitive)
            for user, own, reorder, _ in self.args.values():
                if reorder is not None:
                    lib.dnnl_primitive_destroy(reorder)
                lib.dnnl_memory_desc_destroy(user)
                lib.dnnl_memory_desc_destroy(own)
            if self.scratch_owned:
                lib.dnnl_memory_desc_destroy(self.scratch_md)
        except Exception:  # a half-built plan, or a library unloading
            pass

    def run(self, arrays):
        """Executes the primitive on ``{arg: ndarray}`` (outputs written)."""
        lib = self.lib
        memories = []
        keep = []

        def memory(md, pointer):
            mem = _handle()
            status = lib.dnnl_memory_create(
                ctypes.byref(mem), md, lib.chainer_engine, pointer
            )
            _check(status, "memory")
            memories.append(mem)
            return mem

        def buffer(md):
            size = lib.dnnl_memory_desc_get_size(md)
            raw = numpy.empty(size + _ALIGN, numpy.uint8)
            keep.append(raw)
            return raw.ctypes.data + (-raw.ctypes.data) % _ALIGN

        stream = _stream(lib)
        try:
            args = []
            after = []
            for arg, (user, own, reorder, output) in self.args.items():
                user_mem = memory(user, arrays[arg].ctypes.data)
                if reorder is None:
                    args.append((arg, user_mem))
                    continue
                own_mem = memory(own, buffer(own))
                args.append((arg, own_mem))
                if output:
                    after.append((reorder, own_mem, user_mem))
                else:
                    _execute(
                        lib,
                        stream,
                        reorder,
                        ((_ARG_SRC, user_mem), (_ARG_DST, own_mem)),
                    )
            if self.scratch_bytes:
                scratch = memory(self.scratch_md, buffer(self.scratch_md))
                args.append((_ARG_SCRATCHPAD, scratch))
            _execute(lib, stream, self.primitive, args)
            for reorder, own_mem, user_mem in after:
                _execute(
                    lib, stream, reorder, ((_ARG_SRC, own_mem), (_ARG_DST, user_mem))
                )
            _check(lib.dnnl_stream_wait(stream), "stream wait")
        finally:
            for mem in memories:
                lib.dnnl_memory_destroy(mem)


_streams = threading.local()


def _stream(lib):
    # This thread's oneDNN stream (streams are not shared between threads).
    stream = getattr(_streams, "stream", None)
    if stream is None:
        stream = _handle()
        _check(
            lib.dnnl_stream_create(ctypes.byref(stream), lib.chainer_engine, _IN_ORDER),
            "stream",
        )
        _streams.stream = stream
    return stream


def _execute(lib, stream, primitive, args):
    packed = (_Arg * len(args))(*(_Arg(a, m) for a, m in args))
    _check(
        lib.dnnl_primitive_execute(
            primitive, stream, len(args), ctypes.cast(packed, _handle)
        ),
        "execute",
    )


def _reorder(lib, src, dst):
    pd = _handle()
    _check(
        lib.dnnl_reorder_primitive_desc_create(
            ctypes.byref(pd), src, lib.chainer_engine, dst, lib.chainer_engine, None
        ),
        "reorder",
    )
    prim = _handle()
    try:
        _check(lib.dnnl_primitive_create(ctypes.byref(prim), pd), "reorder")
    finally:
        lib.dnnl_primitive_desc_destroy(pd)
    return prim


def _attr(lib):
    # Attributes of every primitive: the scratchpad comes from the caller, so
    # that calls from several threads never share one.
    attr = getattr(lib, "chainer_attr", None)
    if attr is None:
        attr = _handle()
        _check(lib.dnnl_primitive_attr_create(ctypes.byref(attr)), "attributes")
        _check(
            lib.dnnl_primitive_attr_set_scratchpad_mode(attr, _SCRATCHPAD_USER),
            "attributes",
        )
        lib.chainer_attr = attr
    return attr


def _forward_pd(lib, mds, geometry):
    # A forward-training primitive descriptor on the memory descriptors
    # ``(src, weights, bias or None, dst)``.
    stride, dilate, pad_lo, pad_hi = geometry
    pd = _handle()
    status = lib.dnnl_convolution_forward_primitive_desc_create(
        ctypes.byref(pd), lib.chainer_engine, _FORWARD_TRAINING, _CONVOLUTION_DIRECT,
        *mds, _dims(stride), _dims(dilate), _dims(pad_lo), _dims(pad_hi), _attr(lib),
    )  # fmt: skip
    if status != _SUCCESS:
        raise Unsupported(f"no oneDNN convolution (status {status})")
    return pd


def _weights_shape(W_shape, groups):
    # oneDNN's weights: (O, I, *k), or (g, O / g, I / g, *k) with groups.
    if groups == 1:
        return tuple(W_shape)
    return (groups, W_shape[0] // groups, *W_shape[1:])


def _plan(key, build):
    with _lock:
        if key in _plans:
            plan = _plans[key]
            _plans.move_to_end(key)
        else:
            try:
                plan = build()
            except Unsupported:
                plan = None
            _plans[key] = plan
            while len(_plans) > MAX_PLANS:
                # Freed by _Plan.__del__ once no call holds it.
                _plans.popitem(last=False)
    if plan is None:
        raise Unsupported(str(key))
    return plan


def _set_threads(lib):
    _parallel.engage()
    threads = _parallel.width()
    if lib.chainer_threads != threads:
        lib.omp_set_num_threads(threads)
        lib.chainer_threads = threads


def applies(x, pad_hi):
    """Whether a convolution over ``x`` can run on oneDNN here.

    ``x`` float32 with 1 to 3 spatial axes and no empty axis, no negative
    padding after an axis (``pad_hi``), and oneDNN chosen (see
    :func:`choice`). The filters must be float32 as well.
    """
    return (
        x.dtype == numpy.float32
        and 3 <= x.ndim <= 5
        and x.size > 0
        and min(pad_hi) >= 0
        and choice() != "numpy"
    )


def _activation_array(shape):
    # An uninitialised float32 array of ``shape`` (n, c, *spatial) in the
    # memory order of ACTIVATIONS.
    if ACTIVATIONS == "channels_last":
        return _layout.empty_channels_last(shape, numpy.float32)
    nd = len(shape) - 2
    buf = numpy.empty((*shape[1:], shape[0]), numpy.float32)
    return buf.transpose(nd + 1, *range(nd + 1))


def forward(x, W, b, out_size, stride, pad, pad_hi, dilate, groups):
    """The convolution of ``x`` by ``W`` (plus ``b``) on oneDNN.

    Args:
        x (numpy.ndarray): ``(n, c_I, *spatial)`` float32 input, any strides.
        W (numpy.ndarray): ``(c_O, c_I / groups, *ksize)`` float32 filters.
        b (numpy.ndarray or None): ``(c_O,)`` bias.
        out_size (tuple of int): The output's spatial shape.
        stride, pad, pad_hi, dilate (tuple of int): Per-axis stride, padding
            before and after, and dilation.
        groups (int): Number of channel groups.

    Returns:
        numpy.ndarray: The output, ``(n, c_O, *out_size)``, in the memory
        order of :data:`ACTIVATIONS`.

    Raises:
        Unsupported: oneDNN has no primitive for it.
    """
    lib = library()
    y = _activation_array((x.shape[0], W.shape[0], *out_size))
    w_shape = _weights_shape(W.shape, groups)
    geometry = (stride, tuple(d - 1 for d in dilate), pad, pad_hi)
    x_layout, w_layout, y_layout = _layout_of(x), _layout_of(W, w_shape), _layout_of(y)
    b_layout = None if b is None else _layout_of(b)
    key = ("forward", x_layout, w_layout, b_layout, y_layout, geometry, ACTIVATIONS)

    def build():
        user = {
            _ARG_SRC: _user_md(lib, *x_layout),
            _ARG_WEIGHTS: _user_md(lib, *w_layout),
            _ARG_DST: _user_md(lib, *y_layout),
        }
        bias = None
        if b is not None:
            user[_ARG_BIAS] = _user_md(lib, *b_layout)
            bias = _any_md(lib, b.shape)
        mds = (_activation_md(lib, x.shape), _any_md(lib, w_shape), bias)
        pd = _forward_pd(lib, (*mds, _activation_md(lib, y.shape)), geometry)
        try:
            return _Plan(lib, pd, user, {_ARG_DST})
        finally:
            lib.dnnl_primitive_desc_destroy(pd)

    plan = _plan(key, build)
    arrays = {_ARG_SRC: x, _ARG_WEIGHTS: W, _ARG_DST: y}
    if b is not None:
        arrays[_ARG_BIAS] = b
    _set_threads(lib)
    plan.run(arrays)
    return y


def backward_data(gy, W, x_shape, stride, pad, pad_hi, dilate, groups):
    """The gradient of a convolution by its input (a transposed convolution).

    Args:
        gy (numpy.ndarray): ``(n, c_O, *out_size)`` float32 output gradient.
        W (numpy.ndarray): ``(c_O, c_I / groups, *ksize)`` float32 filters.
        x_shape (tuple of int): The input's shape ``(n, c_I, *spatial)``.
        stride, pad, pad_hi, dilate (tuple of int): As in :func:`forward`.
        groups (int): Number of channel groups.

    Returns:
        numpy.ndarray: ``(n, c_I, *spatial)``, in the memory order of
        :data:`ACTIVATIONS`.

    Raises:
        Unsupported: oneDNN has no primitive for it.
    """
    gx = _activation_array(tuple(x_shape))
    w_shape = _weights_shape(W.shape, groups)
    geometry = (stride, tuple(d - 1 for d in dilate), pad, pad_hi)

    def make_pd(lib, pd, conv, hint):
        return lib.dnnl_convolution_backward_data_primitive_desc_create(
            pd, lib.chainer_engine, _CONVOLUTION_DIRECT,
            _activation_md(lib, gx.shape), _any_md(lib, w_shape),
            _activation_md(lib, gy.shape), *conv, hint, _attr(lib),
        )  # fmt: skip

    arrays = {_ARG_DIFF_DST: gy, _ARG_WEIGHTS: W, _ARG_DIFF_SRC: gx}
    _backward("backward_data", make_pd, gx.shape, w_shape, gy.shape, geometry, arrays)
    return gx


def backward_weights(x, gy, W_shape, stride, pad, pad_hi, dilate, groups):
    """The gradient of a convolution by its filters.

    Args:
        x (numpy.ndarray): ``(n, c_I, *spatial)`` float32 input.
        gy (numpy.ndarray): ``(n, c_O, *out_size)`` float32 output gradient.
        W_shape (tuple of int): The filters' shape ``(c_O, c_I / groups,
            *ksize)``.
        stride, pad, pad_hi, dilate (tuple of int): As in :func:`forward`.
        groups (int): Number of channel groups.

    Returns:
        numpy.ndarray: The C-contiguous float32 gradient of shape ``W_shape``.

    Raises:
        Unsupported: oneDNN has no primitive for it.
    """
    gW = numpy.empty(W_shape, numpy.float32)
    w_shape = _weights_shape(W_shape, groups)
    geometry = (stride, tuple(d - 1 for d in dilate), pad, pad_hi)

    def make_pd(lib, pd, conv, hint):
        return lib.dnnl_convolution_backward_weights_primitive_desc_create(
            pd, lib.chainer_engine, _CONVOLUTION_DIRECT,
            _activation_md(lib, x.shape), _any_md(lib, w_shape), None,
            _activation_md(lib, gy.shape), *conv, hint, _attr(lib),
        )  # fmt: skip

    arrays = {_ARG_SRC: x, _ARG_DIFF_DST: gy, _ARG_DIFF_WEIGHTS: gW}
    _backward("backward_weights", make_pd, x.shape, w_shape, gy.shape, geometry, arrays)
    return gW


def batch_normalization_applies(x, gamma):
    """Whether :func:`batch_normalization` can run for ``x`` and ``gamma``.

    A float32 channels-last ``x`` (``(n, c, *spatial)`` stored as ``(n,
    *spatial, c)``, what the convolutions here give) with 1 to 3 spatial
    axes, normalized per channel (``gamma`` of shape ``(c,)``), and oneDNN
    chosen (see :func:`choice`).
    """
    return (
        x.dtype == numpy.float32
        and 3 <= x.ndim <= 5
        and gamma.shape == (x.shape[1],)
        and _layout.is_channels_last(x)
        and choice() != "numpy"
    )


def _vector(a):
    # A per-channel vector as the contiguous float32 array oneDNN reads.
    return numpy.ascontiguousarray(a.ravel(), numpy.float32)


def _bn_plan(kind, x, eps, spec):
    # The plan of a batch-normalization primitive (``kind`` "forward" or
    # "backward") on x's strides: every activation argument in them, the
    # per-channel ones contiguous vectors; no reorder.
    lib = library()
    layout = _layout_of(x)
    channels = x.shape[1]
    key = ("batch_normalization", kind, layout, float(eps))

    def build():
        src = _user_md(lib, *layout)
        fwd = _handle()
        pd = _handle()
        try:
            _check(
                lib.dnnl_batch_normalization_forward_primitive_desc_create(
                    ctypes.byref(fwd), lib.chainer_engine, _FORWARD_TRAINING, src,
                    src, eps, _USE_SCALE_AND_SHIFT, _attr(lib),
                ),
                "batch normalization",
            )  # fmt: skip
            if kind == "forward":
                pd, fwd = fwd, _handle()
            else:
                _check(
                    lib.dnnl_batch_normalization_backward_primitive_desc_create(
                        ctypes.byref(pd), lib.chainer_engine, _BACKWARD, src, src,
                        src, eps, _USE_SCALE_AND_SHIFT, fwd, _attr(lib),
                    ),
                    "batch normalization backward",
                )  # fmt: skip
            user = {arg: _user_md(lib, *layout) for arg in spec["activations"]}
            for arg in spec["vectors"]:
                user[arg] = _user_md(lib, (channels,), (1,))
            return _Plan(lib, pd, user, set(spec["written"]))
        finally:
            lib.dnnl_memory_desc_destroy(src)
            for handle in (fwd, pd):
                if handle:
                    lib.dnnl_primitive_desc_destroy(handle)

    return _plan(key, build)


# The arguments of each batch-normalization primitive by kind; the first
# "written" one is in the memory order of x, the others (c,) vectors.
_BN_ARGUMENTS = {
    "forward": {
        "activations": (_ARG_SRC, _ARG_DST),
        "vectors": (_ARG_MEAN, _ARG_VARIANCE, _ARG_SCALE, _ARG_SHIFT),
        "written": (_ARG_DST, _ARG_MEAN, _ARG_VARIANCE),
    },
    "backward": {
        "activations": (_ARG_SRC, _ARG_DIFF_DST, _ARG_DIFF_SRC),
        "vectors": (
            _ARG_MEAN,
            _ARG_VARIANCE,
            _ARG_SCALE,
            _ARG_DIFF_SCALE,
            _ARG_DIFF_SHIFT,
        ),
        "written": (_ARG_DIFF_SRC, _ARG_DIFF_SCALE, _ARG_DIFF_SHIFT),
    },
}


def batch_normalization(x, gamma, beta, eps):
    """Training-mode batch normalization of ``x`` on oneDNN.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with the mean and
    the (biased) variance of each channel over the batch and spatial axes.

    Args:
        x (numpy.ndarray): Input for which :func:`batch_normalization_applies`.
        gamma, beta (numpy.ndarray): ``(c,)`` scale and shift.
        eps (float): Added to the variance.

    Returns:
        tuple: ``(y, mean, var)``: ``y`` in the memory order of ``x``, the
        float32 statistics of shape ``(c,)``.
    """
    inputs = {_ARG_SRC: x, _ARG_SCALE: _vector(gamma), _ARG_SHIFT: _vector(beta)}
    return _bn_run("forward", x, eps, inputs)


def batch_normalization_grad(x, gamma, gy, mean, var, eps):
    """The gradients of :func:`batch_normalization` on oneDNN.

    Args:
        x (numpy.ndarray): The forward's input.
        gamma (numpy.ndarray): ``(c,)`` scale.
        gy (numpy.ndarray): Output gradient of the shape of ``x``; another
            memory order is converted within the call.
        mean, var (numpy.ndarray): The forward's statistics.
        eps (float): The forward's ``eps``.

    Returns:
        tuple: ``(gx, ggamma, gbeta)``: ``gx`` in the memory order of ``x``,
        ``ggamma = sum(gy * x_hat)`` and ``gbeta = sum(gy)`` per channel.
    """
    if gy.strides != x.strides:
        gy = _layout.copy_in_order(gy, x)
    inputs = {
        _ARG_SRC: x, _ARG_DIFF_DST: gy, _ARG_MEAN: _vector(mean),
        _ARG_VARIANCE: _vector(var), _ARG_SCALE: _vector(gamma),
    }  # fmt: skip
    return _bn_run("backward", x, eps, inputs)


def _bn_run(kind, x, eps, inputs):
    # Runs the batch-normalization primitive of ``kind`` on ``inputs``
    # ({argument: array}) and returns its outputs, new arrays in the order of
    # the kind's "written" arguments: one in the memory order of x, then
    # (c,) float32 vectors.
    spec = _BN_ARGUMENTS[kind]
    first, *vectors = spec["written"]
    outputs = {first: numpy.empty_like(x)}
    outputs.update((arg, numpy.empty(x.shape[1], numpy.float32)) for arg in vectors)
    plan = _bn_plan(kind, x, eps, spec)
    _set_threads(library())
    plan.run({**inputs, **outputs})
    return tuple(outputs.values())


_WEIGHT_ARGS = (_ARG_WEIGHTS, _ARG_DIFF_WEIGHTS)


def _backward(kind, make_pd, src_shape, w_shape, dst_shape, geometry, arrays):
    # Runs a backward primitive (``kind``) on ``arrays`` ({argument: array};
    # the last one is its output; weights are read as ``w_shape``). Its
    # descriptor, ``make_pd(lib, pd_pointer, conv_dims, hint)``, is hinted by
    # the forward descriptor of the same geometry.
    lib = library()
    layouts = {
        arg: _layout_of(a, w_shape if arg in _WEIGHT_ARGS else None)
        for arg, a in arrays.items()
    }
    output = list(arrays)[-1]
    key = (kind, tuple(layouts.items()), geometry, ACTIVATIONS)

    def build():
        mds = (_activation_md(lib, src_shape), _any_md(lib, w_shape), None)
        hint = _forward_pd(lib, (*mds, _activation_md(lib, dst_shape)), geometry)
        pd = _handle()
        try:
            conv = tuple(_dims(values) for values in geometry)
            status = make_pd(lib, ctypes.byref(pd), conv, hint)
            if status != _SUCCESS:
                raise Unsupported(f"no oneDNN {kind} (status {status})")
            user = {arg: _user_md(lib, *layout) for arg, layout in layouts.items()}
            return _Plan(lib, pd, user, {output})
        finally:
            lib.dnnl_primitive_desc_destroy(hint)
            if pd:
                lib.dnnl_primitive_desc_destroy(pd)

    plan = _plan(key, build)
    _set_threads(lib)
    plan.run(arrays)


def _after_fork():
    # GNU OpenMP's threads do not survive fork: a child of a process that
    # ran oneDNN hangs in its next parallel region (seen on a 2-thread
    # convolution). Such children use chainer-cpu's own engine.
    global problem
    if _state["library"] is not None:
        _state["choice"] = "numpy"
        _races.clear()
        problem = (
            "this process was forked from one that ran oneDNN, whose OpenMP "
            "threads do not survive fork"
        )


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
