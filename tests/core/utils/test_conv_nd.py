"""chainer.utils.conv_nd and conv_nd_kernel: N-d im2col/col2im in Chainer's layout."""

import itertools
import pathlib
import shutil
import subprocess

import numpy
import pytest

from chainer.utils import conv_nd
from chainer.utils import conv_nd_kernel


def _naive_im2col(img, ksize, stride, pad, dilate, pval=0):
    dims = img.shape[2:]
    outs = tuple(
        conv_nd.get_conv_outsize(d, k, s, p, d=di)
        for d, k, s, p, di in zip(dims, ksize, stride, pad, dilate, strict=True)
    )
    col = numpy.full(img.shape[:2] + tuple(ksize) + outs, pval, img.dtype)
    for kxs in itertools.product(*[range(k) for k in ksize]):
        for xs in itertools.product(*[range(o) for o in outs]):
            src = tuple(
                x * s - p + kx * di
                for x, s, p, kx, di in zip(xs, stride, pad, kxs, dilate, strict=True)
            )
            if all(0 <= i < d for i, d in zip(src, dims, strict=True)):
                col[(slice(None), slice(None), *kxs, *xs)] = img[
                    (slice(None), slice(None), *src)
                ]
    return col


CASES = [
    ((7,), (3,), (2,), (1,), (1,)),
    ((6, 5), (2, 3), (1, 2), (1, 0), (1, 1)),
    ((6, 5), (2, 2), (2, 1), (0, 1), (2, 1)),
    ((5, 4, 4), (2, 1, 3), (1, 2, 1), (1, 0, 1), (1, 1, 1)),
]


@pytest.mark.parametrize(("dims", "ksize", "stride", "pad", "dilate"), CASES)
def test_im2col_nd_matches_the_definition(dims, ksize, stride, pad, dilate):
    rng = numpy.random.RandomState(0)
    img = rng.uniform(-1, 1, (2, 3, *dims)).astype(numpy.float32)
    col = conv_nd.im2col_nd(img, ksize, stride, pad, dilate=dilate)
    numpy.testing.assert_array_equal(
        col, _naive_im2col(img, ksize, stride, pad, dilate)
    )
    assert col.flags.c_contiguous
    col = conv_nd.im2col_nd_cpu(img, ksize, stride, pad, pval=-5, dilate=dilate)
    expected = _naive_im2col(img, ksize, stride, pad, dilate, pval=-5)
    numpy.testing.assert_array_equal(col, expected)


@pytest.mark.parametrize(("dims", "ksize", "stride", "pad", "dilate"), CASES)
def test_col2im_nd_is_the_adjoint(dims, ksize, stride, pad, dilate):
    # <im2col(x), c> == <x, col2im(c)> for all x, c.
    rng = numpy.random.RandomState(1)
    img = rng.uniform(-1, 1, (2, 3, *dims))
    col = conv_nd.im2col_nd(img, ksize, stride, pad, dilate=dilate)
    c = rng.uniform(-1, 1, col.shape)
    back = conv_nd.col2im_nd(c, stride, pad, dims, dilate=dilate)
    assert back.shape == img.shape
    numpy.testing.assert_allclose((col * c).sum(), (img * back).sum(), rtol=1e-10)


def test_cover_all_adds_an_output():
    img = numpy.zeros((1, 1, 5), numpy.float32)
    assert conv_nd.im2col_nd(img, (2,), (2,), (0,)).shape[-1] == 2
    assert conv_nd.im2col_nd(img, (2,), (2,), (0,), cover_all=True).shape[-1] == 3


def test_parameter_ranks_and_as_tuple():
    img = numpy.zeros((1, 1, 4, 3), numpy.float32)
    with pytest.raises(AssertionError):
        conv_nd.im2col_nd_cpu(img, (2,), (1, 1), (0, 0))
    with pytest.raises(AssertionError):
        conv_nd.col2im_nd(numpy.zeros((1, 1, 2, 2, 3, 2)), (1,), (0, 0), (4, 3))
    assert conv_nd.as_tuple(2, 3) == (2, 2, 2)
    assert conv_nd.as_tuple([1, 2], 2) == (1, 2)
    with pytest.raises(AssertionError):
        conv_nd.as_tuple((1,), 2)


def test_kernel_generators_describe_elementwise_kernels():
    in_params, out_params, operation, name = conv_nd_kernel.Im2colNDKernel.generate(2)
    assert in_params.startswith("raw T img, int32 d_0, int32 d_1, int32 out_0")
    assert out_params == "T col"
    assert name == "im2col_2d"
    assert "col = img[idx];" in operation
    assert conv_nd_kernel.Im2colNDKernel.generate(
        2
    ) is conv_nd_kernel.Im2colNDKernel.generate(2)
    in_params, out_params, operation, name = conv_nd_kernel.Col2imNDKernel.generate(3)
    assert in_params.startswith("raw T col, int32 d_0")
    assert out_params == "T img"
    assert name == "col2im_3d"
    assert operation.count("for (int kx_") == 3


_HARNESS = """
#include <cstdio>
#include <vector>
typedef double T;
int main() {
  int ndim, n_in, n_out; std::scanf("%d %d %d", &ndim, &n_in, &n_out);
  int p[6 * 3];
  for (int j = 0; j < 6 * ndim; ++j) std::scanf("%d", &p[j]);
  std::vector<T> in_arr(n_in), out_arr(n_out);
  for (int j = 0; j < n_in; ++j) std::scanf("%lf", &in_arr[j]);
  ARGS
  for (int i = 0; i < n_out; ++i) {
    T &OUT = out_arr[i];
    const T *IN = in_arr.data();
    OPERATION
  }
  for (int j = 0; j < n_out; ++j) std::printf("%.17g\\n", out_arr[j]);
}
"""


def _run_kernel(tmp_path, generated, ndim, params, in_arr, n_out):
    in_params, out_params, operation, _ = generated
    in_name = in_params.split(",")[0].split()[-1]
    out_name = out_params.split()[-1]
    names = [a.split()[-1] for a in in_params.split(",")[1:]]
    args = "\n".join(f"  int {n} = p[{j}];" for j, n in enumerate(names))
    body = (
        f"#define {out_name} OUT\n#define {in_name} IN\n{operation}\n"
        f"#undef {out_name}\n#undef {in_name}"
    )
    src = _HARNESS.replace("ARGS", args).replace("OPERATION", body)
    cpp = pathlib.Path(tmp_path) / f"{generated[3]}.cpp"
    exe = cpp.with_suffix("")
    cpp.write_text(src)
    subprocess.run(["g++", "-O0", "-o", str(exe), str(cpp)], check=True)
    stdin = f"{ndim} {in_arr.size} {n_out}\n" + " ".join(map(str, params)) + "\n"
    stdin += "\n".join(repr(float(v)) for v in in_arr.ravel())
    out = subprocess.run(
        [str(exe)], input=stdin, capture_output=True, text=True, check=True
    )
    return numpy.array([float(v) for v in out.stdout.split()])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs a C++ compiler")
@pytest.mark.parametrize(("dims", "ksize", "stride", "pad", "dilate"), CASES[1:])
def test_generated_kernel_source_computes_im2col_and_col2im(
    tmp_path, dims, ksize, stride, pad, dilate
):
    # The CUDA source is plain C in the body of an elementwise kernel; compiled
    # as C++ on the host (one loop iteration per element ``i``) it must give
    # what the NumPy implementation gives.
    ndim = len(dims)
    rng = numpy.random.RandomState(2)
    img = rng.uniform(-1, 1, (2, 3, *dims))
    col = conv_nd.im2col_nd(img, ksize, stride, pad, dilate=dilate)
    outs = col.shape[2 + ndim :]
    params = [*dims, *outs, *ksize, *stride, *pad, *dilate]
    got = _run_kernel(
        tmp_path,
        conv_nd_kernel.Im2colNDKernel.generate(ndim),
        ndim,
        params,
        img,
        col.size,
    )
    numpy.testing.assert_allclose(got.reshape(col.shape), col, rtol=1e-15)

    c = rng.uniform(-1, 1, col.shape)
    back = conv_nd.col2im_nd(c, stride, pad, dims, dilate=dilate)
    got = _run_kernel(
        tmp_path,
        conv_nd_kernel.Col2imNDKernel.generate(ndim),
        ndim,
        params,
        c,
        img.size,
    )
    numpy.testing.assert_allclose(got.reshape(img.shape), back, rtol=1e-12, atol=1e-12)
