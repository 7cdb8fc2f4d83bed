from chainer import backend
from chainer import function_node
from chainer.functions.math import exponential
from chainer.utils import type_check


class Gaussian(function_node.FunctionNode):
    """Reparameterized sample ``mean + exp(ln_var / 2) * eps``."""

    def __init__(self, eps=None):
        self.eps = eps

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ("mean", "ln_var"))
        m_type, v_type = in_types
        type_check.expect(
            m_type.dtype.kind == "f",
            m_type.dtype == v_type.dtype,
            m_type.shape == v_type.shape,
        )
        if self.eps is not None:
            type_check.expect(
                type_check.make_variable(self.eps.dtype, "eps.dtype") == m_type.dtype,
                type_check.make_variable(self.eps.shape, "eps.shape") == m_type.shape,
            )

    def forward(self, inputs):
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        if self.eps is None:
            eps = xp.random.standard_normal(ln_var.shape)
            self.eps = xp.asarray(eps, dtype=mean.dtype)
        self.retain_inputs((1,))
        noise = xp.exp(ln_var * mean.dtype.type(0.5))
        noise *= self.eps
        noise += mean
        return (noise,)

    def backward(self, indexes, grad_outputs):
        (ln_var,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy)
        if 1 in indexes:
            noise = exponential.exp(ln_var * 0.5) * self.eps
            ret.append(gy * noise * 0.5)
        return tuple(ret)


def gaussian(mean, ln_var, **kwargs):
    """Gaussian sampling function.

    This function takes a mean :math:`\\mu` and the logarithm of a variance
    :math:`\\log(\\sigma^2)` as inputs and outputs a sample drawn from the
    Gaussian distribution :math:`N(\\mu, \\sigma)`, computed as
    :math:`\\mu + \\exp(\\log(\\sigma^2) / 2) \\epsilon` with
    :math:`\\epsilon \\sim N(0, 1)` (the reparameterization trick), so the
    sample is differentiable with respect to both inputs. It samples in test
    mode too.

    Args:
        mean (~chainer.Variable or :ref:`ndarray`): Input variable
            representing the mean :math:`\\mu`, a float array.
        ln_var (~chainer.Variable or :ref:`ndarray`): Input variable
            representing the logarithm of a variance
            :math:`\\log(\\sigma^2)`, of the shape and dtype of ``mean``.
        eps (:ref:`ndarray` or None): Keyword only. The standard normal noise
            :math:`\\epsilon`, of the shape and dtype of ``mean``. Drawn when
            None; give it only to make results deterministic.
        return_eps (bool): Keyword only. If ``True``, the noise used is
            returned as well.

    Returns:
        ~chainer.Variable or tuple: Output variable of the shape of ``mean``;
        with ``return_eps=True`` a tuple ``(y, eps)`` where ``eps`` is the
        :ref:`ndarray` of noise.

    Example:
        >>> import numpy as np
        >>> import chainer.functions as F
        >>> mean = np.zeros(3, np.float32)
        >>> ln_var = np.log(np.full(3, 4.0, np.float32))
        >>> eps = np.array([1.0, -0.5, 0.0], np.float32)
        >>> F.gaussian(mean, ln_var, eps=eps).array
        array([ 2., -1.,  0.], dtype=float32)
    """
    eps = kwargs.pop("eps", None)
    return_eps = kwargs.pop("return_eps", False)
    if kwargs:
        raise TypeError(
            f"gaussian() got unexpected keyword arguments: {sorted(kwargs)}"
        )
    func = Gaussian(eps)
    (y,) = func.apply((mean, ln_var))
    if return_eps:
        return y, func.eps
    return y
