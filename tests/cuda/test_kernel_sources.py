"""Compile-only checks of chainer-cuda's kernel sources with NVRTC (no GPU).

Every ``KernelSource`` in ``chainer_cuda._kernels.sources`` is wrapped in a
standalone CUDA translation unit that gives its body what a
``cupy.ElementwiseKernel`` gives it (``T``, ``i``, ``_ind.size()``, element
references for plain parameters, pointers for ``raw`` ones, scalars) and
compiled with NVRTC for float32, float64 and float16 (index arrays, type
``I``, as int32 and uint8). NVRTC needs no GPU or
driver, only its library: CI installs ``cupy-cuda12x nvidia-cuda-nvrtc-cu12``.
float16 is CuPy's ``float16`` class (``cupy/float16.cuh`` in CuPy 14,
``cupy/carray.cuh`` in CuPy 13), built on CUDA's ``cuda_fp16.h``, which CI
takes from ``nvidia-cuda-runtime-cu12``. CI runs them with the newest CuPy of
the ``cuda12`` extra and with its oldest major, 13 (which does not look for
NVRTC in the ``nvidia-cuda-nvrtc-cu12`` package: :func:`_nvrtc` loads it from
there first). Without them the tests are skipped with the reason.
"""

import ctypes
import importlib.util
import os
import pathlib

import pytest

from chainer_cuda._kernels import sources

_SCALAR_TYPES = {
    "int32": "int",
    "int64": "long long",
    "bool": "bool",
    "float32": "float",
    "float64": "double",
}
# compute_75 is the oldest architecture that NVRTC 12 and 13 both accept.
_OPTIONS = ["-arch=compute_75", "--std=c++17"]


def _nvrtc():
    try:
        from cupy_backends.cuda.libs import nvrtc
    except Exception as exc:  # ImportError, or a CuPy build error
        pytest.skip(
            "CuPy's NVRTC bindings cannot be imported "
            f"({type(exc).__name__}: {exc}); pip install cupy-cuda12x "
            "nvidia-cuda-nvrtc-cu12 to run the compile-only kernel tests"
        )
    _preload_nvrtc()
    try:
        nvrtc.getVersion()
    except Exception as exc:  # the libnvrtc shared library is missing
        pytest.skip(
            f"the NVRTC library cannot be loaded ({type(exc).__name__}: {exc}); "
            "pip install nvidia-cuda-nvrtc-cu12"
        )
    return nvrtc


def _preload_nvrtc():
    # Loads libnvrtc from the nvidia-cuda-nvrtc-cu12 package, if installed,
    # so that a CuPy that looks for it by name only (CuPy 13) finds it
    # already loaded; CuPy 14 finds it there itself.
    spec = importlib.util.find_spec("nvidia.cuda_nvrtc")
    if spec is None or not spec.submodule_search_locations:
        return
    for folder in spec.submodule_search_locations:
        for library in sorted(pathlib.Path(folder, "lib").glob("libnvrtc.so.*")):
            ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
            return


def _half_header():
    # The CuPy header that defines its float16 class.
    include = _cupy_include() / "cupy"
    return "float16.cuh" if (include / "float16.cuh").is_file() else "carray.cuh"


def _cupy_include():
    spec = importlib.util.find_spec("cupy")
    if spec is None or spec.origin is None:
        pytest.skip("CuPy is not installed; pip install cupy-cuda12x")
    return pathlib.Path(spec.origin).parent / "_core" / "include"


def _parse(params):
    parsed = []
    for param in params.split(","):
        words = param.split()
        raw = words[0] == "raw"
        if raw:
            words = words[1:]
        type_name, name = words
        parsed.append((raw, type_name, name))
    return parsed


# Element types bound per call: the float type (T, and its compute type U
# where a kernel has one) and the integer type of index arrays (I).
_ARRAY_TYPES = ("T", "U", "I")


def _c_type(type_name):
    return type_name if type_name in _ARRAY_TYPES else _SCALAR_TYPES[type_name]


def standalone_source(source, ctype, index_type="int"):
    """Wraps a kernel body the way cupy.ElementwiseKernel does, for NVRTC.

    Args:
        source (KernelSource): The kernel.
        ctype (str): C type bound to ``T`` (``'float'``, ``'double'`` or ``'float16'``).
        index_type (str): C type bound to ``I``.

    Returns:
        str: A complete CUDA translation unit.
    """
    ins = _parse(source.in_params)
    outs = _parse(source.out_params)
    arguments = []
    loads = []
    for is_out, params in ((False, ins), (True, outs)):
        for raw, type_name, name in params:
            c_type = _c_type(type_name)
            const = "" if is_out else "const "
            # T, U and I are the array types of these kernels; other types
            # (int32 flags) and the listed hyperparameters are scalars.
            is_array = type_name in _ARRAY_TYPES and name not in source.scalars
            if raw:
                arguments.append(f"{const}{c_type}* {name}")
            elif is_array:
                arguments.append(f"{const}{c_type}* _p_{name}")
                if is_out:
                    loads.append(f"{c_type}& {name} = _p_{name}[i];")
                else:
                    loads.append(f"const {c_type} {name} = _p_{name}[i];")
            else:
                arguments.append(f"const {c_type} {name}")
    loads_code = "\n    ".join(loads)
    return f"""
{source.preamble}
typedef {ctype} T;
typedef {ctype} U;
typedef {index_type} I;
struct chainer_cuda_indexer {{
  ptrdiff_t n;
  __device__ ptrdiff_t size() const {{ return n; }}
}};
extern "C" __global__ void {source.name}(
    {", ".join(arguments)}, chainer_cuda_indexer _ind) {{
  for (ptrdiff_t i = static_cast<ptrdiff_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < _ind.size(); i += static_cast<ptrdiff_t>(blockDim.x) * gridDim.x) {{
    {loads_code}
    {source.operation}
  }}
}}
"""


def standalone_reduction(source, ctype):
    """Wraps a reduction's expressions in a serial CUDA kernel, for NVRTC.

    Args:
        source (ReductionSource): The reduction.
        ctype (str): C type bound to ``T`` and ``U``.

    Returns:
        str: A complete CUDA translation unit.
    """
    arguments = []
    loads = []
    for _raw, type_name, name in _parse(source.in_params):
        c_type = _c_type(type_name)
        arguments.append(f"const {c_type}* _p_{name}")
        loads.append(f"const {c_type} {name} = _p_{name}[i];")
    ((_, out_type, out_name),) = _parse(source.out_params)
    out_c = _c_type(out_type)
    loads_code = "\n    ".join(loads)
    return f"""
{source.preamble}
typedef {ctype} T;
typedef {ctype} U;
extern "C" __global__ void {source.name}(
    {", ".join(arguments)}, {out_c}* _p_{out_name}, long long n) {{
  typedef {out_c} _type_reduce;
  _type_reduce _acc = _type_reduce({source.identity});
  for (long long i = 0; i < n; ++i) {{
    {loads_code}
    const _type_reduce a = _acc;
    const _type_reduce b = {source.map_expr};
    _acc = {source.reduce_expr};
  }}
  {out_c}& {out_name} = _p_{out_name}[0];
  const _type_reduce a = _acc;
  {source.post_map_expr};
}}
"""


def _half_options():
    # CuPy's float16 class wraps CUDA's half type: NVRTC needs CuPy's headers
    # and the toolkit's cuda_fp16.h.
    cupy_include = _cupy_include()
    candidates = []
    runtime = importlib.util.find_spec("nvidia.cuda_runtime")
    if runtime is not None and runtime.submodule_search_locations:
        candidates += [
            pathlib.Path(p) / "include" for p in runtime.submodule_search_locations
        ]
    for variable in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(variable):
            candidates.append(pathlib.Path(os.environ[variable]) / "include")
    candidates.append(pathlib.Path("/usr/local/cuda/include"))
    for include in candidates:
        if (include / "cuda_fp16.h").is_file():
            return [f"-I{cupy_include}", f"-I{include}"]
    pytest.skip(
        "float16 kernels need CUDA's cuda_fp16.h; pip install nvidia-cuda-runtime-cu12"
    )


def _translation_unit(wrap, source, ctype):
    """The kernel wrapped for NVRTC, with the options it needs."""
    if ctype == "float16":
        code = f"#include <cupy/{_half_header()}>\n" + wrap(source, ctype)
        return code, _half_options()
    return wrap(source, ctype), []


def _compile(nvrtc, code, name, extra_options=()):
    program = nvrtc.createProgram(code, f"{name}.cu", [], [])
    try:
        nvrtc.compileProgram(program, [*_OPTIONS, *extra_options])
        return nvrtc.getPTX(program)
    except nvrtc.NVRTCError as exc:
        log = nvrtc.getProgramLog(program)
        raise AssertionError(f"{name} does not compile: {exc}\n{log}\n{code}") from exc
    finally:
        nvrtc.destroyProgram(program)


def test_every_kernel_is_listed():
    listed = set(sources.KERNELS.values())
    module_sources = {
        value
        for value in vars(sources).values()
        if isinstance(value, sources.KernelSource)
    }
    assert module_sources == listed
    assert len(listed) == 39
    reductions = {
        value
        for value in vars(sources).values()
        if isinstance(value, sources.ReductionSource)
    }
    assert reductions == set(sources.REDUCTIONS.values())
    assert len(reductions) == 2


@pytest.mark.parametrize("ctype", ["float", "double", "float16"])
@pytest.mark.parametrize("name", sorted(sources.KERNELS))
def test_kernel_source_compiles(name, ctype):
    nvrtc = _nvrtc()
    code, options = _translation_unit(standalone_source, sources.KERNELS[name], ctype)
    ptx = _compile(nvrtc, code, name, options)
    assert f".entry {name}" in ptx.decode() if isinstance(ptx, bytes) else ptx


_INDEXED = sorted(
    name
    for name, source in sources.KERNELS.items()
    if " I " in f" {source.in_params}, {source.out_params}".replace(",", " ")
)


def test_pooling_kernels_take_index_arrays():
    assert _INDEXED == [
        "chainer_cuda_max_pool",
        "chainer_cuda_max_pool_gather",
        "chainer_cuda_max_pool_grad",
    ]


@pytest.mark.parametrize("ctype", ["float", "float16"])
@pytest.mark.parametrize("name", _INDEXED)
def test_index_kernels_compile_for_uint8_indexes(name, ctype):
    # Max pooling keeps uint8 window indexes up to 256 taps, int32 beyond.
    nvrtc = _nvrtc()
    source = sources.KERNELS[name]
    code = standalone_source(source, ctype, index_type="unsigned char")
    options = []
    if ctype == "float16":
        code = f"#include <cupy/{_half_header()}>\n" + code
        options = _half_options()
    ptx = _compile(nvrtc, code, name, options)
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert f".entry {name}" in text


@pytest.mark.parametrize("ctype", ["float", "double", "float16"])
@pytest.mark.parametrize("name", sorted(sources.REDUCTIONS))
def test_reduction_source_compiles(name, ctype):
    nvrtc = _nvrtc()
    source = sources.REDUCTIONS[name]
    code, options = _translation_unit(standalone_reduction, source, ctype)
    ptx = _compile(nvrtc, code, name, options)
    assert f".entry {name}" in ptx.decode() if isinstance(ptx, bytes) else ptx


def test_a_typo_fails_to_compile():
    nvrtc = _nvrtc()
    source = sources.RELU
    broken = sources.KernelSource(
        source.name, source.in_params, source.out_params, "y = x < (T)0 ? 0 : xx;"
    )
    with pytest.raises(AssertionError, match="does not compile"):
        _compile(nvrtc, standalone_source(broken, "float"), broken.name)
