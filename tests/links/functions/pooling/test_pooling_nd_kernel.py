"""The generated pooling kernels, run on the CPU by transliterating them to Python.

The generated operation is C made of declarations, ``for`` loops over ints,
``if`` and assignments; :func:`_run` rewrites it line by line into Python
and runs it once per thread, which checks the kernels' arithmetic against
the catalogue's pooling functions without a GPU.
"""

import math
import re

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer.backends import cuda
from chainer.functions.pooling import average_pooling_nd_kernel
from chainer.functions.pooling import max_pooling_nd_kernel
from chainer.functions.pooling import pooling_nd_kernel


def _expr(code):
    code = code.replace("(T)(-INFINITY)", "-math.inf").replace("(T)0", "0.0")
    code = re.sub(r"\(int\)(\w+\[\w+\])", r"int(\1)", code).replace("in[", "in_[")
    code = code.replace("!(", "not (").replace("&&", "and").replace("||", "or")
    # Kernel integer divisions have non-negative operands, or a clamp to 0
    # where truncation and floor agree.
    return code.replace(" / ", " // ").replace(" /= ", " //= ")


def _to_python(operation):
    out = []
    indent = 0
    for line in operation.splitlines():
        line = line.strip()
        if line == "}":
            indent -= 1
            continue
        m = re.fullmatch(r"for \(int (\w+) = (.+); \1 < (.+); \+\+\1\) \{", line)
        if m:
            var, lo, hi = m.groups()
            out.append(
                "    " * indent + f"for {var} in range({_expr(lo)}, {_expr(hi)}):"
            )
            indent += 1
            continue
        m = re.fullmatch(r"if \((.+)\) \{", line)
        if m:
            out.append("    " * indent + f"if {_expr(m.group(1))}:")
            indent += 1
            continue
        m = re.fullmatch(r"if \((.+)\) (\w+ = .+);", line)
        if m:
            cond, stmt = m.groups()
            out.append("    " * indent + f"if {_expr(cond)}: {_expr(stmt)}")
            continue
        m = re.fullmatch(r"(?:const )?(?:int|T) (\w+ = .+);|(\w+ /?= .+);", line)
        assert m, line
        out.append("    " * indent + _expr(m.group(1) or m.group(2)))
    return "\n".join(out)


def _run(kernel, n_threads, arrays, scalars, outputs):
    """Runs ``kernel = (in_params, out_params, operation, name)`` on NumPy."""
    code = compile(_to_python(kernel[2]), kernel[3], "exec")
    results = {name: [] for name in outputs}
    for i in range(n_threads):
        env = {"math": math, "max": max, "min": min, "int": int, "i": i}
        env.update(arrays)
        env.update(scalars)
        exec(code, env)
        for name in outputs:
            results[name].append(env[name])
    return results


def _geometry(x_shape, y_shape, ksize, stride, pad):
    ndim = len(ksize)
    values = {}
    for j in range(ndim):
        values[f"d_{j}"] = x_shape[2 + j]
        values[f"out_{j}"] = y_shape[2 + j]
        values[f"k_{j}"] = ksize[j]
        values[f"s_{j}"] = stride[j]
        values[f"p_{j}"] = pad[j]
    return values


_CASES = [
    ((2, 3, 5), (2,), (2,), (1,)),
    ((1, 2, 4, 5), (3, 2), (2, 1), (1, 0)),
    ((1, 1, 3, 4, 3), (2, 2, 2), (1, 2, 1), (0, 1, 1)),
]


@pytest.mark.parametrize(("shape", "ksize", "stride", "pad"), _CASES)
def test_max_pooling_kernels_match_max_pooling_nd(shape, ksize, stride, pad):
    rng = numpy.random.RandomState(0)
    x = rng.permutation(math.prod(shape)).reshape(shape).astype(numpy.float64)
    xv = chainer.Variable(x)
    y, indexes = F.max_pooling_nd(
        xv, ksize, stride, pad, cover_all=False, return_indices=True
    )
    gy = rng.uniform(-1, 1, y.shape)
    y.grad = gy
    y.backward()
    geometry = _geometry(x.shape, y.shape, ksize, stride, pad)

    fwd = max_pooling_nd_kernel.MaxPoolingNDKernelForward.generate(len(ksize))
    assert fwd[0].startswith("raw T in, int32 d_0")
    assert fwd[1] == "T out, S indexes"
    got = _run(fwd, y.size, {"in_": x.ravel()}, geometry, ("out", "indexes"))
    numpy.testing.assert_array_equal(numpy.reshape(got["out"], y.shape), y.array)
    numpy.testing.assert_array_equal(numpy.reshape(got["indexes"], y.shape), indexes)

    bwd = max_pooling_nd_kernel.MaxPoolingNDKernelBackward.generate(len(ksize))
    assert bwd[0].startswith("raw T gy, raw S indexes, int32 d_0")
    arrays = {"gy": gy.ravel(), "indexes": indexes.ravel()}
    got = _run(bwd, x.size, arrays, geometry, ("gx",))
    numpy.testing.assert_allclose(numpy.reshape(got["gx"], x.shape), xv.grad)


@pytest.mark.parametrize(("shape", "ksize", "stride", "pad"), _CASES)
def test_average_pooling_kernels_match_average_pooling_nd(shape, ksize, stride, pad):
    rng = numpy.random.RandomState(1)
    x = rng.uniform(-1, 1, shape)
    xv = chainer.Variable(x)
    y = F.average_pooling_nd(xv, ksize, stride, pad, pad_value=0)
    gy = rng.uniform(-1, 1, y.shape)
    y.grad = gy
    y.backward()
    geometry = _geometry(x.shape, y.shape, ksize, stride, pad)
    geometry["coeff"] = 1.0 / math.prod(ksize)

    fwd = average_pooling_nd_kernel.AveragePoolingNDKernelForward.generate(len(ksize))
    assert fwd[0].endswith("T coeff")
    got = _run(fwd, y.size, {"in_": x.ravel()}, geometry, ("out",))
    numpy.testing.assert_allclose(numpy.reshape(got["out"], y.shape), y.array)

    bwd = average_pooling_nd_kernel.AveragePoolingNDKernelBackward.generate(len(ksize))
    got = _run(bwd, x.size, {"gy": gy.ravel()}, geometry, ("gx",))
    numpy.testing.assert_allclose(numpy.reshape(got["gx"], x.shape), xv.grad)


def test_names_and_memo_interface():
    cuda.clear_memo()
    fwd = max_pooling_nd_kernel.MaxPoolingNDKernelForward.generate(3)
    assert fwd[3] == "max_pool_3d_fwd"
    bwd = average_pooling_nd_kernel.AveragePoolingNDKernelBackward.generate(1)
    assert bwd[3] == "avg_pool_1d_bwd"
    assert fwd == max_pooling_nd_kernel.MaxPoolingNDKernelForward.generate(3)


def test_base_class_names_the_missing_hook():
    with pytest.raises(TypeError, match="name"):
        pooling_nd_kernel.PoolingNDKernelForward.generate(2)


def test_bad_ndim():
    with pytest.raises(ValueError, match="ndim"):
        max_pooling_nd_kernel.MaxPoolingNDKernelForward.generate(0)
