"""CUDA sources of chainer-cuda's fused kernels, as plain Python data.

Nothing here imports CuPy: the compile-only tests read :data:`KERNELS` and
compile every source with NVRTC on machines without a GPU. Each
:class:`KernelSource` holds the arguments of one ``cupy.ElementwiseKernel``:
parameter lists in CuPy's syntax (``T x``, ``raw T c``, ``int32 n``), the loop
body (``i`` is the element index, ``_ind.size()`` the element count) and a
preamble.

The bodies compute in ``C``, the compute type of ``T`` (``float`` for float16
and float32, ``double`` for float64), so that every math function has an
overload; results are rounded back to ``T`` where the array-module path rounds.
"""

from __future__ import annotations

import dataclasses

# The compute type of each element type; ``C`` inside the bodies.
COMPUTE_TYPE_PREAMBLE = """
template <typename U> struct chainer_cuda_ct { typedef float type; };
template <> struct chainer_cuda_ct<double> { typedef double type; };
"""


@dataclasses.dataclass(frozen=True)
class KernelSource:
    """The arguments of one ``cupy.ElementwiseKernel``.

    Attributes:
        name (str): Kernel name (a C identifier).
        in_params (str): Input parameters, e.g. ``'T x, raw T c, int32 n'``.
        out_params (str): Output parameters.
        operation (str): Loop body.
        preamble (str): Code placed before the kernel.
        scalars (tuple of str): Plain ``T`` inputs that callers pass as
            scalars (hyperparameters) rather than arrays.
    """

    name: str
    in_params: str
    out_params: str
    operation: str
    preamble: str = COMPUTE_TYPE_PREAMBLE
    scalars: tuple[str, ...] = ()


_C = "typedef chainer_cuda_ct<T>::type C;\n"

# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------

RELU = KernelSource(
    "chainer_cuda_relu",
    "T x",
    "T y",
    # ``x < 0`` is false for NaN, which passes through as with maximum().
    "y = x < (T)0.0f ? (T)0.0f : x;",
)

RELU_GRAD = KernelSource(
    "chainer_cuda_relu_grad",
    "T gy, T y",
    "T gx",
    # gy * (y > 0), so that inf/NaN gradients behave as the product does.
    "gx = gy * (T)(y > (T)0.0f ? 1.0f : 0.0f);",
)

SIGMOID = KernelSource(
    "chainer_cuda_sigmoid",
    "T x",
    "T y",
    _C + "const C half = (C)0.5;\n"
    # tanh form, as the array-module path: never overflows.
    "y = (T)(tanh((C)x * half) * half + half);",
)

TANH = KernelSource(
    "chainer_cuda_tanh",
    "T x",
    "T y",
    _C + "y = (T)tanh((C)x);",
)

CLIPPED_RELU = KernelSource(
    "chainer_cuda_clipped_relu",
    "T x, T cap",
    "T y",
    # NaN fails both comparisons and passes through, as with clip().
    "y = x < (T)0.0f ? (T)0.0f : (x > cap ? cap : x);",
    scalars=("cap",),
)

LEAKY_RELU = KernelSource(
    "chainer_cuda_leaky_relu",
    "T x, T slope",
    "T y",
    "y = x < (T)0.0f ? (T)(x * slope) : x;",
    scalars=("slope",),
)

# ``x > 0 ? 0 : x`` and ``y < 0 ? 0 : y`` below are minimum(x, 0) and
# maximum(y, 0) that let NaN through, as the ufuncs do.
ELU = KernelSource(
    "chainer_cuda_elu",
    "T x, T alpha",
    "T y",
    _C
    + """
const T zero = (T)0.0f;
const T neg = (T)((T)expm1((C)(x > zero ? zero : x)) * alpha);
y = x >= zero ? x : neg;
""",
    scalars=("alpha",),
)

# Rounded to T after each step, as the array-module path; ``inv_beta`` is
# 1 / beta rounded once.
SOFTPLUS = KernelSource(
    "chainer_cuda_softplus",
    "T x, T beta, T inv_beta",
    "T y",
    _C
    + """
const T zero = (T)0.0f;
const T bx = (T)(x * beta);
const T e = (T)exp(-fabs((C)bx));
const T soft = (T)log1p((C)e);
y = (T)((T)(soft + (bx < zero ? zero : bx)) * inv_beta);
""",
    scalars=("beta", "inv_beta"),
)

HARD_SIGMOID = KernelSource(
    "chainer_cuda_hard_sigmoid",
    "T x, T slope, T offset",
    "T y",
    """
const T z = (T)((T)(x * slope) + offset);
y = z < (T)0.0f ? (T)0.0f : (z > (T)1.0f ? (T)1.0f : z);
""",
    scalars=("slope", "offset"),
)

# ``beta`` arrives reshaped to broadcast against ``x``.
SWISH = KernelSource(
    "chainer_cuda_swish",
    "T x, T beta",
    "T y",
    _C
    + """
const T half = (T)0.5f;
const T bx = (T)(x * beta);
// sigmoid(t) = (tanh(t / 2) + 1) / 2 never overflows.
T s = (T)tanh((C)(T)(bx * half));
s = (T)((T)(s * half) + half);
y = (T)(x * s);
""",
)

# ``W`` arrives reshaped to broadcast against ``x``.
PRELU = KernelSource(
    "chainer_cuda_prelu",
    "T x, T W",
    "T y",
    "y = x < (T)0.0f ? (T)(x * W) : x;",
)

# ---------------------------------------------------------------------------
# LSTM (gate order a, i, f, o; x interleaved as (B, H, 4, R...))
# ---------------------------------------------------------------------------

# One element per entry of ``h``, shape (batch, H, R...). ``c_prev`` and ``c``
# are the full (C-contiguous) state arrays, whose first batch rows share the
# flat index of ``h``; ``gates`` is the planar (4, batch, H, R...) cache that
# LSTMGrad reads.
LSTM_FORWARD = KernelSource(
    "chainer_cuda_lstm_forward",
    "raw T c_prev, raw T x, int32 rest",
    "raw T c, T h, raw T gates, T tanh_c",
    _C
    + """
const ptrdiff_t n = _ind.size();
const ptrdiff_t base = (i / rest) * 4 * rest + i % rest;
const C half = (C)0.5;
const T a = (T)tanh((C)x[base]);
const T in_gate = (T)(tanh((C)x[base + rest] * half) * half + half);
const T forget = (T)(tanh((C)x[base + 2 * rest] * half) * half + half);
const T out_gate = (T)(tanh((C)x[base + 3 * rest] * half) * half + half);
const T cell = (T)((C)(T)((C)a * (C)in_gate) + (C)(T)((C)forget * (C)c_prev[i]));
c[i] = cell;
const T t = (T)tanh((C)cell);
tanh_c = t;
h = (T)((C)out_gate * (C)t);
gates[i] = a;
gates[n + i] = in_gate;
gates[2 * n + i] = forget;
gates[3 * n + i] = out_gate;
""",
)

# One element per entry of ``gh``, shape (batch, H, R...). Writes the first
# batch rows of ``gc_prev`` and the interleaved ``gx``.
LSTM_BACKWARD = KernelSource(
    "chainer_cuda_lstm_backward",
    "raw T c_prev, raw T gates, T tanh_c, raw T gc, T gh, int32 rest",
    "raw T gc_prev, raw T gx",
    _C
    + """
const ptrdiff_t n = _ind.size();
const ptrdiff_t base = (i / rest) * 4 * rest + i % rest;
const C one = (C)1;
const C a = (C)gates[i];
const C in_gate = (C)gates[n + i];
const C forget = (C)gates[2 * n + i];
const C out_gate = (C)gates[3 * n + i];
const C t = (C)tanh_c;
const C g = (C)(T)((C)(T)((C)(T)(one - (C)(T)(t * t)) * out_gate) * (C)gh)
    + (C)gc[i];
const C g_t = (C)(T)g;
gx[base] = (T)((C)(T)((C)(T)((C)(T)(one - a) * (C)(T)(a + one)) * in_gate) * g_t);
gx[base + rest] = (T)((C)(T)((C)(T)((C)(T)(one - in_gate) * in_gate) * a) * g_t);
gx[base + 2 * rest] = (T)((C)(T)((C)(T)((C)(T)(one - forget) * forget)
    * (C)c_prev[i]) * g_t);
gx[base + 3 * rest] = (T)((C)(T)((C)(T)((C)(T)(one - out_gate) * out_gate) * t)
    * (C)gh);
gc_prev[i] = (T)(g_t * forget);
""",
)


def _rule(name, in_params, out_params, operation):
    # An update rule's kernel: ``grad`` is its only array input, the other
    # plain T inputs are hyperparameters.
    scalars = tuple(
        param.split()[-1]
        for param in in_params.split(",")
        if param.split()[0] == "T" and param.split()[-1] != "grad"
    )
    return KernelSource(name, in_params, out_params, operation, scalars=scalars)


# ---------------------------------------------------------------------------
# Optimizer update rules (hyperparameters arrive as T scalars, as the Python
# floats of update_core_cpu become T in the array-module path)
# ---------------------------------------------------------------------------

SGD = _rule(
    "chainer_cuda_sgd",
    "T grad, T lr",
    "T param",
    "param -= (T)(lr * grad);",
)

MOMENTUM_SGD = _rule(
    "chainer_cuda_momentum_sgd",
    "T grad, T lr, T momentum",
    "T param, T v",
    "v = (T)(v * momentum) - (T)(lr * grad);\nparam += v;",
)

NESTEROV_AG = _rule(
    "chainer_cuda_nesterov_ag",
    "T grad, T lr, T momentum, T one_plus_mu, T mu_squared",
    "T param, T v",
    """
const T step = (T)(grad * lr);
v = (T)(v * momentum) - step;
param -= (T)(step * one_plus_mu);
param += (T)(v * mu_squared);
""",
)

# ``decay`` is 1 - eta * weight_decay_rate (1 when there is no decay: exact).
# With ``adabound`` the step size alpha_t / (sqrt(vhat) + eps) is clipped to
# [lower, upper] and scaled by m and eta; otherwise m / (...) is scaled by
# eta * alpha_t (``scale``).
_ADAM_BODY = """
m += (T)((T)(grad - m) * one_minus_beta1);
v += (T)((T)((T)(grad * grad) - v) * one_minus_beta2);
{vhat_update}
const T denom = (T)((T)sqrt((C){vhat}) + eps);
T step;
if (adabound) {{
    T size = (T)(alpha_t / denom);
    size = size < lower ? lower : (size > upper ? upper : size);
    step = (T)((T)(size * m) * eta);
}} else {{
    step = (T)((T)(m / denom) * scale);
}}
param = (T)(param * decay) - step;
"""

ADAM = _rule(
    "chainer_cuda_adam",
    "T grad, T one_minus_beta1, T one_minus_beta2, T eps, T alpha_t, T eta, "
    "T scale, T decay, T lower, T upper, int32 adabound",
    "T param, T m, T v",
    _C + _ADAM_BODY.format(vhat_update="", vhat="v"),
)

ADAM_AMSGRAD = _rule(
    "chainer_cuda_adam_amsgrad",
    "T grad, T one_minus_beta1, T one_minus_beta2, T eps, T alpha_t, T eta, "
    "T scale, T decay, T lower, T upper, int32 adabound",
    "T param, T m, T v, T vhat",
    _C + _ADAM_BODY.format(vhat_update="vhat = vhat < v ? v : vhat;", vhat="vhat"),
)

RMSPROP = _rule(
    "chainer_cuda_rmsprop",
    "T grad, T lr, T alpha, T one_minus_alpha, T eps, int32 eps_inside_sqrt",
    "T param, T ms",
    _C
    + """
ms = (T)(ms * alpha) + (T)((T)(grad * grad) * one_minus_alpha);
const T denom = eps_inside_sqrt ? (T)sqrt((C)(T)(ms + eps))
                                : (T)((T)sqrt((C)ms) + eps);
param -= (T)((T)(grad / denom) * lr);
""",
)

ADA_GRAD = _rule(
    "chainer_cuda_ada_grad",
    "T grad, T lr, T eps",
    "T param, T h",
    _C
    + """
h += (T)(grad * grad);
param -= (T)((T)(grad / (T)((T)sqrt((C)h) + eps)) * lr);
""",
)

ADA_DELTA = _rule(
    "chainer_cuda_ada_delta",
    "T grad, T rho, T one_minus_rho, T eps",
    "T param, T msg, T msdx",
    _C
    + """
msg = (T)(msg * rho) + (T)((T)(grad * grad) * one_minus_rho);
const T dx = (T)((T)sqrt((C)(T)((T)(msdx + eps) / (T)(msg + eps))) * grad);
msdx = (T)(msdx * rho) + (T)((T)(dx * dx) * one_minus_rho);
param -= dx;
""",
)

CORRECTED_MOMENTUM_SGD = _rule(
    "chainer_cuda_corrected_momentum_sgd",
    "T grad, T lr, T momentum",
    "T param, T v",
    "v = (T)(v * momentum) - grad;\nparam += (T)(lr * v);",
)

RMSPROP_GRAVES = _rule(
    "chainer_cuda_rmsprop_graves",
    "T grad, T lr, T alpha, T one_minus_alpha, T momentum, T eps",
    "T param, T n, T g, T delta",
    _C
    + """
n = (T)(n * alpha) + (T)((T)(grad * grad) * one_minus_alpha);
g = (T)(g * alpha) + (T)(grad * one_minus_alpha);
const T denom = (T)sqrt((C)(T)((T)(n - (T)(g * g)) + eps));
delta = (T)(delta * momentum) - (T)((T)(grad / denom) * lr);
param += delta;
""",
)

# ``x > lr ? lr : x`` is minimum(x, lr), NaN passing through.
SMORMS3 = _rule(
    "chainer_cuda_smorms3",
    "T grad, T lr, T eps",
    "T param, T mem, T g, T g2",
    _C
    + """
const T one = (T)1.0f;
const T r = (T)((C)1 / (C)(T)(mem + one));
g += (T)((T)(grad - g) * r);
g2 += (T)((T)((T)(grad * grad) - g2) * r);
const T x = (T)((T)(g * g) / (T)(g2 + eps));
const T step = (T)((T)((x > lr ? lr : x) * grad) / (T)((T)sqrt((C)g2) + eps));
param -= step;
mem = (T)(mem * (T)(one - x)) + one;
""",
)

# ``damp`` is 0 while rho_t is 1 (gamma = 1); ``rho_ratio`` is
# rho_t / (1 - rho_t), ``tiny`` the smallest normal T (the divisor's floor),
# ``scale`` eta * lr and ``decay`` 1 - eta * weight_decay_rate (1 without
# decay: exact). The comparisons let NaN through, as maximum() does.
MSVAG = _rule(
    "chainer_cuda_msvag",
    "T grad, T one_minus_beta, T inv_bias, T rho_ratio, T tiny, T scale, "
    "T decay, int32 damp",
    "T param, T m, T v",
    """
m += (T)((T)(grad - m) * one_minus_beta);
v += (T)((T)((T)(grad * grad) - v) * one_minus_beta);
T mt = (T)(m * inv_bias);
if (damp) {
    const T zero = (T)0.0f;
    const T mt2 = (T)(mt * mt);
    T s = (T)((T)(v * inv_bias) - mt2);
    s = s < zero ? zero : s;
    s = (T)((T)(s * rho_ratio) + mt2);
    s = s < tiny ? tiny : s;
    mt = (T)(mt * (T)(mt2 / s));
}
param = (T)(param * decay) - (T)(mt * scale);
""",
)

# ---------------------------------------------------------------------------
# Softmax family (one thread per row; a row is ``k`` elements ``b`` apart, so
# any axis of a C-contiguous array is a row: x viewed as (a, k, b), thread i
# handles (i / b, :, i % b)). ``U`` is the compute type of ``T``.
# ---------------------------------------------------------------------------

_ROW_MAX = """
const ptrdiff_t base = (i / b) * k * b + i % b;
C m = (C)x[base];
for (ptrdiff_t j = 1; j < k; ++j) {
  const C v = (C)x[base + j * b];
  // NaN propagates, as with max().
  m = (v > m || v != v) ? v : m;
}
C s = (C)0;
for (ptrdiff_t j = 0; j < k; ++j) {
  s += exp((C)x[base + j * b] - m);
}
"""

SOFTMAX = KernelSource(
    "chainer_cuda_softmax",
    "raw T x, int64 k, int64 b",
    "raw T y",
    _C
    + _ROW_MAX
    + """
for (ptrdiff_t j = 0; j < k; ++j) {
  y[base + j * b] = (T)(exp((C)x[base + j * b] - m) / s);
}
""",
)

LOG_SOFTMAX = KernelSource(
    "chainer_cuda_log_softmax",
    "raw T x, int64 k, int64 b",
    "raw T y",
    _C
    + _ROW_MAX
    + """
const C log_s = log(s);
for (ptrdiff_t j = 0; j < k; ++j) {
  y[base + j * b] = (T)((C)x[base + j * b] - m - log_s);
}
""",
)

# Row i of a 2-d (n, k) x: the softmax into y and log(softmax)[lab] into logp.
SOFTMAX_CROSS_ENTROPY_2D = KernelSource(
    "chainer_cuda_softmax_cross_entropy_2d",
    "raw T x, int64 lab, int64 k, int64 b",
    "raw T y, T logp",
    _C
    + _ROW_MAX
    + """
for (ptrdiff_t j = 0; j < k; ++j) {
  y[base + j] = (T)(exp((C)x[base + j] - m) / s);
}
logp = (T)((C)x[base + lab] - m - log(s));
""",
)

# gx = (y - onehot(lab)) * w[row] * scale, in T as the array-module path.
SOFTMAX_CROSS_ENTROPY_GRAD_2D = KernelSource(
    "chainer_cuda_softmax_cross_entropy_grad_2d",
    "T y, raw int64 lab, raw T w, int32 has_w, T scale, int64 k",
    "T gx",
    """
const ptrdiff_t row = i / k;
T g = y;
if (lab[row] == (long long)i) g = (T)(g - (T)1.0f);
if (has_w) g = (T)(g * w[row]);
gx = (T)(g * scale);
""",
    scalars=("scale",),
)

# ---------------------------------------------------------------------------
# Batch normalization (x viewed as (a, channels, b); per-channel statistics of
# the compute type U broadcast as (1, channels, 1))
# ---------------------------------------------------------------------------

BN_NORMALIZE = KernelSource(
    "chainer_cuda_bn_normalize",
    "T x, U mean, U scale, U beta",
    "T y",
    "y = (T)(((U)x - mean) * scale + beta);",
)

BN_FIXED = KernelSource(
    "chainer_cuda_bn_fixed",
    "T x, U scale, U shift",
    "T y",
    "y = (T)((U)x * scale + shift);",
)

# gx = ((x - mean) * a + gy - c) * g with the per-channel a, c, g of the
# array-module path (a = -ggamma inv_std / m, c = gbeta / m, g = gamma inv_std).
BN_GRAD_X = KernelSource(
    "chainer_cuda_bn_grad_x",
    "T x, T gy, U mean, U a, U c, U g",
    "T gx",
    "gx = (T)((((U)x - mean) * a + (U)gy - c) * g);",
)


# ---------------------------------------------------------------------------
# Convolution and pooling (spatial axes padded to three, (d, h, w): 1-d and
# 2-d geometries get leading axes of size 1, kernel 1, stride 1, pad 0). Image
# and output arrays are C-contiguous and read as flat ``raw`` arrays; ``t`` is
# the index of the (sample, channel) plane after the unravelling below.
# ---------------------------------------------------------------------------

_GEOMETRY = (
    "int32 d, int32 h, int32 w, int32 out_d, int32 out_h, int32 out_w, "
    "int32 kd, int32 kh, int32 kw, int32 sd, int32 sh, int32 sw, "
    "int32 pd, int32 ph, int32 pw"
)
_DILATION = "int32 dd, int32 dh, int32 dw"

# Element i of an output-shaped array (planes, out_d, out_h, out_w).
_UNRAVEL_OUT = """
ptrdiff_t t = i;
const int ow = t % out_w; t /= out_w;
const int oh = t % out_h; t /= out_h;
const int od = t % out_d; t /= out_d;
"""

# Element i of an image-shaped array (planes, d, h, w).
_UNRAVEL_IN = """
ptrdiff_t t = i;
const int ix = t % w; t /= w;
const int iy = t % h; t /= h;
const int iz = t % d; t /= d;
"""


def _windows_over_taps(body):
    # Loops over the taps (jd, jh, jw) of output window (od, oh, ow); ``tap``
    # counts them in C order, ``inside`` tells the padding apart and ``at`` is
    # the flat index of the tapped input element of plane t.
    return (
        """
const ptrdiff_t plane = t * d * h * w;
int tap = 0;
for (int jd = 0; jd < kd; ++jd) {
  const int iz = od * sd - pd + jd;
  for (int jh = 0; jh < kh; ++jh) {
    const int iy = oh * sh - ph + jh;
    for (int jw = 0; jw < kw; ++jw, ++tap) {
      const int ix = ow * sw - pw + jw;
      const bool inside = 0 <= iz && iz < d && 0 <= iy && iy < h
          && 0 <= ix && ix < w;
      const ptrdiff_t at = plane + ((ptrdiff_t)iz * h + iy) * w + ix;
"""
        + body
        + """
    }
  }
}
"""
    )


def _windows_covering(body, dilation=("dd", "dh", "dw"), block="t"):
    # Loops over the windows (od, oh, ow) that read input element (iz, iy, ix),
    # and the tap (jd, jh, jw) that reads it: a gather, so the gradients need
    # no atomics. ``o`` is the flat index of the window in an array of
    # (blocks, out_d, out_h, out_w), ``block`` the block of this element.
    dd, dh, dw = dilation
    return f"""
int tap_d = 0;
for (int jd = 0; jd < kd; ++jd, tap_d += kh * kw) {{
  const int zd = iz + pd - jd * {dd};
  if (zd < 0) break;
  if (zd % sd != 0) continue;
  const int od = zd / sd;
  if (od >= out_d) continue;
  for (int jh = 0; jh < kh; ++jh) {{
    const int zh = iy + ph - jh * {dh};
    if (zh < 0) break;
    if (zh % sh != 0) continue;
    const int oh = zh / sh;
    if (oh >= out_h) continue;
    for (int jw = 0; jw < kw; ++jw) {{
      const int zw = ix + pw - jw * {dw};
      if (zw < 0) break;
      if (zw % sw != 0) continue;
      const int ow = zw / sw;
      if (ow >= out_w) continue;
      const int tap = tap_d + jh * kw + jw;
      const ptrdiff_t o =
          (((ptrdiff_t){block} * out_d + od) * out_h + oh) * out_w + ow;
{body}
    }}
  }}
}}
"""


# The patch matrix of a convolution, ``col``: row (c, jd, jh, jw), column
# (n, od, oh, ow) holds x[n, c, od*sd - pd + jd*dd, ...] (0 in the padding),
# the layout of chainer.utils.conv.im2col_matrix.
CONV_IM2COL = KernelSource(
    "chainer_cuda_conv_im2col",
    f"raw T x, int32 n, int32 c, {_GEOMETRY}, {_DILATION}",
    "T col",
    """
ptrdiff_t t = i;
const int ow = t % out_w; t /= out_w;
const int oh = t % out_h; t /= out_h;
const int od = t % out_d; t /= out_d;
const int b = t % n; t /= n;
const int jw = t % kw; t /= kw;
const int jh = t % kh; t /= kh;
const int jd = t % kd; t /= kd;
const int iz = od * sd - pd + jd * dd;
const int iy = oh * sh - ph + jh * dh;
const int ix = ow * sw - pw + jw * dw;
if (0 <= iz && iz < d && 0 <= iy && iy < h && 0 <= ix && ix < w) {
  col = x[(((ptrdiff_t)b * c + t) * d + iz) * ((ptrdiff_t)h * w)
          + (ptrdiff_t)iy * w + ix];
} else {
  col = (T)0.0f;
}
""",
)

# The adjoint of CONV_IM2COL plus a bias: image element (n, c, iz, iy, ix)
# sums the entries of ``col`` that read it. Here (d, h, w) is the image and
# (out_d, out_h, out_w) the columns' grid, as in the convolution it inverts.
CONV_COL2IM = KernelSource(
    "chainer_cuda_conv_col2im",
    f"raw T col, raw T bias, int32 has_bias, int32 n, int32 c, {_GEOMETRY}, "
    f"{_DILATION}",
    "T img",
    _C
    + _UNRAVEL_IN
    + """
const int ch = t % c;
const int b = t / c;
const ptrdiff_t columns = (ptrdiff_t)n * out_d * out_h * out_w;
const ptrdiff_t first = (ptrdiff_t)ch * kd * kh * kw * columns;
C acc = (C)0;
"""
    + _windows_covering("      acc += (C)col[first + tap * columns + o];", block="b")
    + """
if (has_bias) acc += (C)bias[ch];
img = (T)acc;
""",
)

# Max of each window (the padding reads -inf) and the C-order tap of its
# first maximum, as chainer.functions.pooling.pooling_nd.window_argmax finds
# it; a NaN maximum gets the last tap, as there.
MAX_POOL = KernelSource(
    "chainer_cuda_max_pool",
    f"raw T x, {_GEOMETRY}",
    "T y, I idx",
    _C
    + _UNRAVEL_OUT
    + """
C m = chainer_cuda_neg_inf<C>();
int arg = 0;
"""
    + _windows_over_taps(
        """
      if (inside) {
        const C v = (C)x[at];
        if (v > m || v != v) {
          m = v;
          arg = tap;
        }
      }
"""
    )
    + """
if (m != m) arg = kd * kh * kw - 1;
y = (T)m;
idx = (I)arg;
""",
    preamble=COMPUTE_TYPE_PREAMBLE
    + """
template <typename U> __device__ U chainer_cuda_neg_inf();
template <> __device__ float chainer_cuda_neg_inf<float>() {
  return __int_as_float(0xff800000);
}
template <> __device__ double chainer_cuda_neg_inf<double>() {
  return __longlong_as_double(0xfff0000000000000ULL);
}
""",
)

# Gradient of max pooling: each input element gathers the output gradients
# of the windows whose argmax tap reads it.
MAX_POOL_GRAD = KernelSource(
    "chainer_cuda_max_pool_grad",
    f"raw T gy, raw I idx, {_GEOMETRY}",
    "T gx",
    _C
    + _UNRAVEL_IN
    + "C acc = (C)0;\n"
    + _windows_covering(
        "      if ((int)idx[o] == tap) acc += (C)gy[o];", ("1", "1", "1")
    )
    + "gx = (T)acc;\n",
)

# Each window's element at the argmax tap ``idx`` (0 in the padding).
MAX_POOL_GATHER = KernelSource(
    "chainer_cuda_max_pool_gather",
    f"raw T x, raw I idx, {_GEOMETRY}",
    "T y",
    _UNRAVEL_OUT
    + """
const int tap = (int)idx[i];
const int iz = od * sd - pd + tap / (kh * kw);
const int iy = oh * sh - ph + tap / kw % kh;
const int ix = ow * sw - pw + tap % kw;
if (0 <= iz && iz < d && 0 <= iy && iy < h && 0 <= ix && ix < w) {
  y = x[t * d * ((ptrdiff_t)h * w) + ((ptrdiff_t)iz * h + iy) * w + ix];
} else {
  y = (T)0.0f;
}
""",
)

# The number of elements averaged by window (od, oh, ow): the window size
# when the padding counts as zeros, else the elements inside the input (at
# least 1 per axis, as AveragePoolingND._divisor).
_AVERAGE_DIVISOR = """
C divisor = (C)(kd * kh * kw);
if (!count_pad) {
  const int z0 = od * sd - pd, y0 = oh * sh - ph, x0 = ow * sw - pw;
  const int nz = min(z0 + kd, d) - max(z0, 0);
  const int ny = min(y0 + kh, h) - max(y0, 0);
  const int nx = min(x0 + kw, w) - max(x0, 0);
  divisor = (C)max(nz, 1) * (C)max(ny, 1) * (C)max(nx, 1);
}
"""

# Mean of each window; the padding reads zeros.
AVERAGE_POOL = KernelSource(
    "chainer_cuda_average_pool",
    f"raw T x, int32 count_pad, {_GEOMETRY}",
    "T y",
    _C
    + _UNRAVEL_OUT
    + "C acc = (C)0;\n"
    + _windows_over_taps("      if (inside) acc += (C)x[at];")
    + _AVERAGE_DIVISOR
    + "y = (T)(acc / divisor);\n",
)

# Gradient of average pooling: each input element gathers gy / divisor of
# the windows that read it.
AVERAGE_POOL_GRAD = KernelSource(
    "chainer_cuda_average_pool_grad",
    f"raw T gy, int32 count_pad, {_GEOMETRY}",
    "T gx",
    _C
    + _UNRAVEL_IN
    + "C acc = (C)0;\n"
    + _windows_covering(
        "{\n" + _AVERAGE_DIVISOR + "acc += (C)gy[o] / divisor;\n}",
        ("1", "1", "1"),
    )
    + "gx = (T)acc;\n",
)


@dataclasses.dataclass(frozen=True)
class ReductionSource:
    """The arguments of one ``cupy.ReductionKernel``.

    Attributes:
        name (str): Kernel name (a C identifier).
        in_params (str): Input parameters.
        out_params (str): Output parameters (one, of type ``U``).
        map_expr (str): Expression mapped over the inputs.
        reduce_expr (str): Reduction of ``a`` and ``b``.
        post_map_expr (str): Assignment of the reduced ``a`` to the output.
        identity (str): Identity of the reduction.
        preamble (str): Code placed before the kernel.
    """

    name: str
    in_params: str
    out_params: str
    map_expr: str
    reduce_expr: str = "a + b"
    post_map_expr: str = "out = a"
    identity: str = "0"
    preamble: str = ""


# Per-channel sum of (x - mean)^2 (the biased variance times the count).
BN_SQUARED_DEVIATION = ReductionSource(
    "chainer_cuda_bn_squared_deviation",
    "T x, U mean",
    "U out",
    "((U)x - mean) * ((U)x - mean)",
)

# Per-channel sum of gy * (x - mean).
BN_GY_DEVIATION = ReductionSource(
    "chainer_cuda_bn_gy_deviation",
    "T gy, T x, U mean",
    "U out",
    "(U)gy * ((U)x - mean)",
)

#: Every reduction kernel chainer-cuda ships, by name.
REDUCTIONS: dict[str, ReductionSource] = {
    source.name: source for source in (BN_SQUARED_DEVIATION, BN_GY_DEVIATION)
}

#: Every kernel chainer-cuda ships, by name.
KERNELS: dict[str, KernelSource] = {
    source.name: source
    for source in (
        RELU,
        RELU_GRAD,
        SIGMOID,
        TANH,
        CLIPPED_RELU,
        LEAKY_RELU,
        ELU,
        SOFTPLUS,
        HARD_SIGMOID,
        SWISH,
        PRELU,
        LSTM_FORWARD,
        LSTM_BACKWARD,
        SGD,
        MOMENTUM_SGD,
        NESTEROV_AG,
        ADAM,
        ADAM_AMSGRAD,
        RMSPROP,
        ADA_GRAD,
        ADA_DELTA,
        CORRECTED_MOMENTUM_SGD,
        RMSPROP_GRAVES,
        SMORMS3,
        MSVAG,
        SOFTMAX,
        LOG_SOFTMAX,
        SOFTMAX_CROSS_ENTROPY_2D,
        SOFTMAX_CROSS_ENTROPY_GRAD_2D,
        BN_NORMALIZE,
        BN_FIXED,
        BN_GRAD_X,
        CONV_IM2COL,
        CONV_COL2IM,
        MAX_POOL,
        MAX_POOL_GRAD,
        MAX_POOL_GATHER,
        AVERAGE_POOL,
        AVERAGE_POOL_GRAD,
    )
}
