"""M-SVAG: momentum with stochastic variance-adapted gradients."""

from __future__ import annotations

from chainer import backend
from chainer import optimizer
from chainer.optimizers import _util

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0


def _rho(beta, t):
    # Variance of the bias-corrected moving average of unit-variance noise,
    # relative to one sample.
    bt = beta**t
    return (1.0 - beta) * (1.0 + bt) / ((1.0 + beta) * (1.0 - bt))


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of the M-SVAG optimization algorithm.

    With bias-corrected moving averages :math:`\\hat m` and :math:`\\hat v`
    of the gradient and its square, and :math:`\\rho_t` the relative variance
    of such an average,

    .. math::

        s &= \\max(\\hat v - \\hat m^2, 0) / (1 - \\rho_t) \\\\
        \\gamma &= \\frac{\\hat m^2}{\\hat m^2 + \\rho_t s} \\\\
        w &\\leftarrow w - \\eta (lr \\cdot \\gamma \\hat m + \\lambda w)

    At the first step (where :math:`\\rho_t = 1` leaves the variance
    undetermined) :math:`\\gamma = 1`. See
    :class:`~chainer.optimizers.MSVAG` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam (~chainer.optimizer.Hyperparameter): Hyperparameter
            that provides the default values.
        lr (float): Learning rate.
        beta (float): Exponential decay rate of the first and second order
            moments.
        eta (float): Schedule multiplier, can be used for warm restarts.
        weight_decay_rate (float): Weight decay rate :math:`\\lambda`.
    """

    is_elementwise = True

    def __init__(
        self,
        parent_hyperparam=None,
        lr=None,
        beta=None,
        eta=None,
        weight_decay_rate=None,
    ):
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if beta is not None:
            self.hyperparam.beta = beta
        if eta is not None:
            self.hyperparam.eta = eta
        if weight_decay_rate is not None:
            self.hyperparam.weight_decay_rate = weight_decay_rate

    def init_state(self, param):
        """Creates the moments ``m`` and ``v``.

        Args:
            param (~chainer.Variable): Parameter variable.
        """
        xp = backend.get_array_module(param.array)
        self.state["m"] = xp.zeros_like(param.array)
        self.state["v"] = xp.zeros_like(param.array)

    @property
    def rho(self):
        """Relative variance :math:`\\rho_t` of the moving averages at step ``t``.

        The variance of the bias-corrected moving average of unit-variance
        noise, relative to one sample; 1 at the first step.
        """
        return _rho(self.hyperparam.beta, self.t)

    def update_core_cpu(self, param):
        """Applies one M-SVAG step to ``param`` in place.

        Args:
            param (~chainer.Variable): Variable to be updated.
        """
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        beta, eta = hp.beta, hp.eta
        xp = backend.get_array_module(grad)
        m, v = self.state["m"], self.state["v"]
        tmp = xp.subtract(grad, m, out=xp.empty_like(m))
        tmp *= 1.0 - beta
        m += tmp
        xp.multiply(grad, grad, out=tmp)
        tmp -= v
        tmp *= 1.0 - beta
        v += tmp

        inv_bias = 1.0 / (1.0 - beta**self.t)
        mt = xp.multiply(m, inv_bias, out=xp.empty_like(m))
        rho = _rho(beta, self.t)
        # NOTE: rho == 1 (the first step, or beta == 0) means one sample: no
        # variance estimate, so the step is not damped (gamma = 1).
        if rho < 1.0 - 1e-7:
            mt2 = xp.multiply(mt, mt, out=xp.empty_like(mt))
            # s = max(vt - mt^2, 0) / (1 - rho); tmp <- rho * s
            xp.multiply(v, inv_bias, out=tmp)
            tmp -= mt2
            xp.maximum(tmp, 0, out=tmp)
            tmp *= rho / (1.0 - rho)
            tmp += mt2
            # gamma = mt^2 / (mt^2 + rho s); 0/0 happens only where mt == 0.
            xp.maximum(tmp, xp.finfo(tmp.dtype).tiny, out=tmp)
            xp.divide(mt2, tmp, out=tmp)
            mt *= tmp
        mt *= eta * hp.lr
        data = param.array
        weight_decay_rate = hp.weight_decay_rate
        if weight_decay_rate != 0:
            data *= 1.0 - eta * weight_decay_rate
        data -= mt


class MSVAG(optimizer.GradientMethod):
    """M-SVAG optimizer.

    See: `Dissecting Adam: The Sign, Magnitude and Variance of Stochastic
    Gradients <https://arxiv.org/abs/1705.07774>`_

    Modified for proper weight decay (see
    `Fixing Weight Decay Regularization in Adam
    <https://openreview.net/forum?id=rk6qdGgCZ>`_): ``eta`` multiplies the
    whole step and ``weight_decay_rate`` decays the weights directly.

    Args:
        lr (float): Learning rate.
        beta (float): Exponential decay rate of the first and second order
            moments.
        eta (float): Schedule multiplier, can be used for warm restarts.
        weight_decay_rate (float): Weight decay rate.
    """

    def __init__(
        self,
        lr=_default_hyperparam.lr,
        beta=_default_hyperparam.beta,
        eta=_default_hyperparam.eta,
        weight_decay_rate=_default_hyperparam.weight_decay_rate,
    ):
        _util.check_real(
            "MSVAG", lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate
        )
        _util.check_range("MSVAG", "beta", beta, 0, 1)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.beta = beta
        self.hyperparam.eta = eta
        self.hyperparam.weight_decay_rate = weight_decay_rate

    lr = optimizer.HyperparameterProxy("lr")
    beta = optimizer.HyperparameterProxy("beta")
    eta = optimizer.HyperparameterProxy("eta")
    weight_decay_rate = optimizer.HyperparameterProxy("weight_decay_rate")

    def create_update_rule(self):
        """Returns a new :class:`MSVAGRule` following this optimizer's values."""
        return MSVAGRule(self.hyperparam)
