"""Optimizer base classes, update rules, hyperparameters and hook aliases."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy

from chainer import _update_rule
from chainer import backend
from chainer.optimizer_hooks import gradient_clipping
from chainer.optimizer_hooks import gradient_hard_clipping
from chainer.optimizer_hooks import gradient_noise
from chainer.optimizer_hooks import lasso
from chainer.optimizer_hooks import weight_decay
from chainer.utils import _parallel

Hyperparameter = _update_rule.Hyperparameter
HyperparameterProxy = _update_rule.HyperparameterProxy
UpdateRule = _update_rule.UpdateRule


class Optimizer:
    """Base class of all numerical optimizers.

    An optimizer updates the parameters of a target link, registered by
    :meth:`setup`, in :meth:`update`. Hook functions registered by
    :meth:`add_hook` run before (``'pre'``) or after (``'post'``) each
    update, in registration order.

    Attributes:
        target (~chainer.Link): Target link, set by :meth:`setup`.
        t (int): Number of update steps.
        epoch (int): Current epoch, incremented by :meth:`new_epoch`.
        use_auto_new_epoch (bool): True if the training loop calls
            ``new_epoch(auto=True)`` itself (set by updaters).
    """

    target = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    _pre_update_hooks = None
    _post_update_hooks = None
    _loss_scale = None
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False
    _loss_scale_max = 2.0**24
    _loss_scale_min = 2.0**-24

    def setup(self, link):
        """Sets a target link and prepares the optimizer for it.

        ``t``, ``epoch`` and the hooks are reset.

        Args:
            link (~chainer.Link): Target link object.

        Returns:
            Optimizer: The optimizer itself.
        """
        from chainer import link as link_module

        if not isinstance(link, link_module.Link):
            raise TypeError(
                f"optimization target must be a link; got {type(link).__name__}"
            )
        self.target = link
        self.t = 0
        self.epoch = 0
        self._pre_update_hooks = {}
        self._post_update_hooks = {}
        return self

    def update(self, lossfun=None, *args, **kwds):
        """Updates the parameters.

        Concrete optimizers implement this; see
        :meth:`GradientMethod.update`.

        Args:
            lossfun (callable): Loss function returning a Variable, or None
                if the gradients are already computed.
            *args, **kwds: Arguments of ``lossfun``.
        """
        raise TypeError(
            f"{type(self).__name__} does not implement update(); derive from "
            "GradientMethod or override update"
        )

    def new_epoch(self, auto=False):
        """Starts a new epoch (increments :attr:`epoch`).

        Args:
            auto (bool): True when called by a training loop that manages
                epochs (``use_auto_new_epoch``); user code calls it with the
                default False.
        """
        if self.use_auto_new_epoch and not auto:
            raise RuntimeError(
                "invalid new_epoch call with auto=False: this optimizer's "
                "epoch is advanced automatically (use_auto_new_epoch is True)"
            )
        if not self.use_auto_new_epoch and auto:
            raise RuntimeError(
                "invalid new_epoch call with auto=True: set use_auto_new_epoch "
                "to True before the training loop calls it"
            )
        self.epoch += 1

    def _check_setup(self, what):
        if self._pre_update_hooks is None:
            raise RuntimeError(f"call `setup` method before `{what}` method")

    def add_hook(self, hook, name=None, timing="auto"):
        """Registers a hook function.

        A hook is called as ``hook(optimizer)``, or, if it has a true
        ``call_for_each_param`` attribute, as ``hook(param.update_rule,
        param)`` for every parameter.

        Args:
            hook (callable): Hook function.
            name (str): Name of the hook; defaults to ``hook.name`` or
                ``hook.__name__``.
            timing (str): ``'pre'``, ``'post'`` or ``'auto'`` (the hook's
                ``timing`` attribute if it has one, else ``'pre'``).
        """
        self._check_setup("add_hook")
        _update_rule.register_hook(
            self._pre_update_hooks, self._post_update_hooks, hook, name, timing
        )

    def remove_hook(self, name):
        """Removes a hook function.

        Args:
            name (str): Registered name of the hook function to remove.
        """
        self._check_setup("remove_hook")
        _update_rule.unregister_hook(
            self._pre_update_hooks, self._post_update_hooks, name
        )

    def call_hooks(self, timing="pre"):
        """Invokes the hook functions of one timing in registration order.

        Args:
            timing (str): ``'pre'`` or ``'post'``.
        """
        if timing not in ("pre", "post"):
            raise ValueError(f"timing must be 'pre' or 'post'; got {timing!r}")
        self._check_setup("call_hooks")
        hooks = self._pre_update_hooks if timing == "pre" else self._post_update_hooks
        for hook in list(hooks.values()):
            self.call_hook(hook)

    def call_hook(self, hook):
        """Invokes one hook function on the optimizer or on every parameter.

        Args:
            hook (callable): Hook function.
        """
        if getattr(hook, "call_for_each_param", False):
            for param in self.target.params():
                hook(param.update_rule, param)
        else:
            hook(self)

    def serialize(self, serializer):
        """Serializes or deserializes the optimizer.

        It saves or loads ``t``, ``epoch`` and the state of every update
        rule (under the parameter's path), not the parameters themselves.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        if self.target is None:
            raise RuntimeError("call `setup` method before `serialize` method")
        self.t = serializer("t", self.t)
        self.epoch = serializer("epoch", self.epoch)
        for name, param in self.target.namedparams():
            rule = getattr(param, "update_rule", None)
            if rule is None:
                continue
            if type(rule).serialize is _update_rule.UpdateRule.serialize:
                # The parameter tells the shapes of state entries that the
                # load creates, so a misfit fails here, not at the update.
                rule._serialize(serializer[name[1:]], param)
            else:
                rule.serialize(serializer[name[1:]])

    # -- loss scaling -----------------------------------------------------
    def loss_scaling(self, interval=1000, scale=None):
        """Configures loss scaling.

        With ``scale=None`` the scale is dynamic: it starts at 1, halves
        (and the update is skipped) whenever a gradient has an inf or NaN,
        and doubles after ``interval`` consecutive good updates. Otherwise
        ``scale`` is used as a static factor.

        Args:
            interval (int): Number of good iterations before the scale is
                doubled (dynamic scaling only).
            scale (float): Static loss scale, or None for dynamic scaling.
        """
        if scale is None:
            if isinstance(interval, bool) or not isinstance(interval, int):
                raise TypeError(f"interval must be an int; got {interval!r}")
            if interval < 1:
                raise ValueError(f"interval must be >= 1; got {interval}")
            self._loss_scaling_is_dynamic = True
            self._loss_scaling_interval = interval
            self._loss_scaling_count = 0
            self._loss_scaling_isnan = False
            self._loss_scale = 1.0
        else:
            self.set_loss_scale(scale)

    def set_loss_scale(self, loss_scale):
        """Sets a static loss scale (None turns loss scaling off).

        Args:
            loss_scale (float): Loss scaling factor, a positive number.
        """
        if loss_scale is not None:
            if isinstance(loss_scale, bool) or not isinstance(
                loss_scale, (int, float, numpy.number)
            ):
                raise TypeError(f"loss_scale must be a number; got {loss_scale!r}")
            if not loss_scale > 0:
                raise ValueError(f"loss_scale must be positive; got {loss_scale}")
            loss_scale = float(loss_scale)
        self._loss_scale = loss_scale
        self._loss_scaling_is_dynamic = False
        self._loss_scaling_isnan = False

    def check_nan_in_grads(self):
        """Checks the gradients for inf and NaN (dynamic loss scaling only).

        The result is what :meth:`is_safe_to_update` reports.
        """
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for param in self.target.params(include_uninit=False):
            grad = param.grad
            if grad is None:
                continue
            xp = backend.get_array_module(grad)
            # A float64 sum cannot overflow, and propagates any inf or NaN.
            if not math.isfinite(float(xp.sum(grad, dtype=xp.float64))):
                self._loss_scaling_isnan = True
                return

    def is_safe_to_update(self):
        """Returns False if the last :meth:`check_nan_in_grads` found inf/NaN."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self):
        """Adapts the dynamic loss scale after an iteration."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            self._loss_scale = max(self._loss_scale * 0.5, self._loss_scale_min)
            self._loss_scaling_count = 0
            return
        self._loss_scaling_count += 1
        if self._loss_scaling_count >= self._loss_scaling_interval:
            self._loss_scale = min(self._loss_scale * 2.0, self._loss_scale_max)
            self._loss_scaling_count = 0


class GradientMethod(Optimizer):
    """Base class of all single gradient-based optimizers.

    :meth:`setup` gives every parameter an update rule made by
    :meth:`create_update_rule`, whose hyperparameter's parent is
    :attr:`hyperparam`; :meth:`update` then calls ``param.update()`` for
    every parameter.

    Attributes:
        hyperparam (Hyperparameter): Hyperparameters shared by the rules.
    """

    def __init__(self):
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False

    def setup(self, link):
        """Sets a target link and gives each parameter a new update rule.

        Args:
            link (~chainer.Link): Target link object.

        Returns:
            GradientMethod: The optimizer itself.
        """
        super().setup(link)
        for param in link.params():
            rule = self.create_update_rule()
            if self._use_fp32_update:
                rule.use_fp32_update()
            param.update_rule = rule
        return self

    def reallocate_cleared_grads(self):
        """Fills the gradients that are None with zeros.

        It runs before and after every hook, so that hooks and rules always
        see gradient arrays for all initialized parameters.
        """
        for param in self.target.params(include_uninit=False):
            if param.grad is None:
                array = param.array
                if type(array) is numpy.ndarray:
                    param.grad = numpy.zeros_like(array)
                else:
                    device = param.device
                    with device:
                        param.grad = device.xp.zeros_like(array)

    def call_hook(self, hook):
        """Invokes a hook, then reallocates cleared gradients.

        Args:
            hook (callable): Hook function.
        """
        super().call_hook(hook)
        self.reallocate_cleared_grads()

    def update(self, lossfun=None, *args, **kwds):
        """Updates the parameters from a loss function or computed gradients.

        With ``lossfun``, it calls ``lossfun(*args, **kwds)``, clears the
        target's gradients, and runs backprop from the loss (scaled by the
        loss scale, if any); otherwise the gradients must be computed
        already. Then it runs the 'pre' hooks, increments :attr:`t`, calls
        ``param.update()`` for every parameter and runs the 'post' hooks.
        Under dynamic loss scaling an update with inf/NaN gradients is
        skipped.

        Args:
            lossfun (callable): Loss function returning a Variable, or None.
            *args, **kwds: Arguments of ``lossfun``.
        """
        if self.target is None:
            raise RuntimeError("call `setup` method before `update` method")
        if self.target.xp is numpy:
            # A training step on the CPU: set up the thread team on the first
            # one, then size the BLAS threads to the machine's load.
            _parallel.engage()
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self, "_use_cleargrads", True):
                self.target.cleargrads()
            else:
                self.target.zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        self.reallocate_cleared_grads()
        if self._loss_scaling_is_dynamic:
            self.check_nan_in_grads()
            if not self.is_safe_to_update():
                self.update_loss_scale()
                return
        self.call_hooks("pre")
        self.t += 1
        for param in self.target.params():
            param.update()
        self.reallocate_cleared_grads()
        self.call_hooks("post")
        self.update_loss_scale()

    def use_cleargrads(self, use=True):
        """Chooses cleargrads (default) or zerograds in :meth:`update`.

        Deprecated: cleargrads is always the better choice.

        Args:
            use (bool): Whether to use ``cleargrads``.
        """
        warnings.warn(
            "GradientMethod.use_cleargrads is deprecated.", DeprecationWarning
        )
        self._use_cleargrads = use

    def use_fp32_update(self, flag=True):
        """Updates float16 parameters through float32 master copies.

        Applies to the rules made from now on and to existing ones.

        Args:
            flag (bool): Whether to use it.
        """
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                rule = param.update_rule
                if rule is not None:
                    rule.use_fp32_update(flag)

    def create_update_rule(self):
        """Creates a new update rule object (implemented by optimizers).

        Returns:
            UpdateRule: A rule whose hyperparameter's parent is
            :attr:`hyperparam`.
        """
        raise TypeError(
            f"{type(self).__name__} does not implement create_update_rule()"
        )


def make_deprecation_message(module_name):
    """Returns the warning text of a deprecated ``chainer.optimizer`` hook.

    Args:
        module_name (str): Name of the hook class.

    Returns:
        str: The message.
    """
    return (
        f"chainer.optimizer.{module_name} is deprecated from v4. "
        f"Use chainer.optimizer_hooks.{module_name} instead."
    )


class GradientClipping(gradient_clipping.GradientClipping):
    """Deprecated alias of :class:`chainer.optimizer_hooks.GradientClipping`.

    Args:
        threshold (float): L2 norm threshold.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(make_deprecation_message("GradientClipping"), DeprecationWarning)
        super().__init__(*args, **kwargs)


class GradientHardClipping(gradient_hard_clipping.GradientHardClipping):
    """Deprecated alias of :class:`chainer.optimizer_hooks.GradientHardClipping`.

    Args:
        lower_bound (float): Lower bound of the gradient elements.
        upper_bound (float): Upper bound of the gradient elements.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            make_deprecation_message("GradientHardClipping"), DeprecationWarning
        )
        super().__init__(*args, **kwargs)


class GradientNoise(gradient_noise.GradientNoise):
    """Deprecated alias of :class:`chainer.optimizer_hooks.GradientNoise`.

    Args:
        eta (float): Scale of the noise.
        noise_func (callable): Noise generating function.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(make_deprecation_message("GradientNoise"), DeprecationWarning)
        super().__init__(*args, **kwargs)


class Lasso(lasso.Lasso):
    """Deprecated alias of :class:`chainer.optimizer_hooks.Lasso`.

    Args:
        rate (float): Coefficient of the L1 regularization.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(make_deprecation_message("Lasso"), DeprecationWarning)
        super().__init__(*args, **kwargs)


class WeightDecay(weight_decay.WeightDecay):
    """Deprecated alias of :class:`chainer.optimizer_hooks.WeightDecay`.

    Args:
        rate (float): Coefficient of the weight decay.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(make_deprecation_message("WeightDecay"), DeprecationWarning)
        super().__init__(*args, **kwargs)
