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
    "T gy, bool mask",
    "T gx",
    # gy * mask, so that inf/NaN gradients behave as the product does.
    "gx = gy * (T)(mask ? 1.0f : 0.0f);",
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
        SOFTMAX,
        LOG_SOFTMAX,
        SOFTMAX_CROSS_ENTROPY_2D,
        SOFTMAX_CROSS_ENTROPY_GRAD_2D,
        BN_NORMALIZE,
        BN_FIXED,
        BN_GRAD_X,
    )
}
