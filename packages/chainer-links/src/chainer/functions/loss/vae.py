import math

from chainer import primitive_ops
from chainer.functions.activation import softplus
from chainer.functions.math import exponential

_LOG_2PI = math.log(2 * math.pi)


def _check_reduce(reduce):
    if reduce not in ("sum", "no"):
        raise ValueError(
            f"only 'sum' and 'no' are valid for 'reduce', but {reduce!r} is given"
        )


def gaussian_kl_divergence(mean, ln_var, reduce="sum"):
    """KL divergence of diagonal Gaussians from the standard Gaussian.

    Given ``mean`` (:math:`\\mu`) and ``ln_var`` (:math:`\\log(\\sigma^2)`),
    computes :math:`D_{\\mathbf{KL}}(N(\\mu, S) \\| N(0, I))` where :math:`S`
    is the diagonal matrix with :math:`S_{ii} = \\sigma_i^2`:

    .. math::
        \\frac{1}{2} \\sum_i \\left( \\mu_i^2 + \\sigma_i^2
            - \\log(\\sigma_i^2) - 1 \\right)

    Args:
        mean (~chainer.Variable or :ref:`ndarray`): Float mean of any shape.
        ln_var (~chainer.Variable or :ref:`ndarray`): Float log-variance of
            ``mean``'s shape and dtype.
        reduce (str): ``'sum'`` sums over all elements; ``'no'`` returns the
            elementwise terms.

    Returns:
        ~chainer.Variable: A scalar for ``'sum'``, else an array of the
        shape of ``mean``; of ``mean``'s dtype.
    """
    _check_reduce(reduce)
    loss = (mean * mean + exponential.exp(ln_var) - ln_var - 1) * 0.5
    return primitive_ops.sum(loss) if reduce == "sum" else loss


def bernoulli_nll(x, y, reduce="sum"):
    """Negative log-likelihood of Bernoulli distributions.

    .. math::
        -\\log B(x; p) = -\\sum_i \\{x_i \\log(p_i) + (1 - x_i) \\log(1 - p_i)\\}

    where :math:`p = \\sigma(y)`. As the sigmoid is applied here, the output
    of a linear layer can be passed as ``y`` directly.

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Observations in ``[0, 1]``,
            of ``y``'s shape.
        y (~chainer.Variable or :ref:`ndarray`): Float pre-sigmoid
            parameters.
        reduce (str): ``'sum'`` sums over all elements; ``'no'`` returns the
            elementwise terms.

    Returns:
        ~chainer.Variable: A scalar for ``'sum'``, else an array of the
        shape of ``y``; of ``y``'s dtype.
    """
    _check_reduce(reduce)
    loss = softplus.softplus(y) - x * y
    return primitive_ops.sum(loss) if reduce == "sum" else loss


def gaussian_nll(x, mean, ln_var, reduce="sum"):
    """Negative log-likelihood of diagonal Gaussians.

    Given ``mean`` (:math:`\\mu`) and ``ln_var`` (:math:`\\log(\\sigma^2)`),
    computes :math:`-\\log N(x; \\mu, S)` where :math:`S` is the diagonal
    matrix with :math:`S_{ii} = \\sigma_i^2`:

    .. math::
        \\sum_i \\left( \\frac{1}{2} \\log(2 \\pi \\sigma_i^2)
            + \\frac{(x_i - \\mu_i)^2}{2 \\sigma_i^2} \\right)

    Args:
        x (~chainer.Variable or :ref:`ndarray`): Float observations.
        mean (~chainer.Variable or :ref:`ndarray`): Float mean of ``x``'s
            shape and dtype.
        ln_var (~chainer.Variable or :ref:`ndarray`): Float log-variance of
            ``x``'s shape and dtype.
        reduce (str): ``'sum'`` sums over all elements; ``'no'`` returns the
            elementwise terms.

    Returns:
        ~chainer.Variable: A scalar for ``'sum'``, else an array of the
        shape of ``x``; of ``x``'s dtype.
    """
    _check_reduce(reduce)
    x_prec = exponential.exp(-ln_var)
    x_diff = x - mean
    loss = (ln_var + _LOG_2PI) * 0.5 + x_diff * x_diff * x_prec * 0.5
    return primitive_ops.sum(loss) if reduce == "sum" else loss
