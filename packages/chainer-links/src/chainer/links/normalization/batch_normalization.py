import copy

import numpy

import chainer
from chainer import initializers
from chainer import link
from chainer import utils
from chainer import variable
from chainer.functions.normalization import batch_normalization


def _typed_initializer(value, default, dtype):
    # A copy, so that setting the dtype leaves the caller's initializer alone.
    if value is None:
        value = default
    init = copy.copy(initializers._get_initializer(value))
    init.dtype = dtype
    return init


def _parse_finetune(kwargs):
    finetune = kwargs.pop("finetune", False)
    if "test" in kwargs:
        raise ValueError(
            "test argument is not supported anymore. "
            "Use chainer.using_config('train', ...)"
        )
    if kwargs:
        raise TypeError(
            "forward() got unexpected keyword argument(s) "
            + ", ".join(repr(k) for k in sorted(kwargs))
        )
    return finetune


class BatchNormalization(link.Link):
    """Batch normalization layer on outputs of linear or convolution functions.

    This link wraps the :func:`~chainer.functions.batch_normalization` and
    :func:`~chainer.functions.fixed_batch_normalization` functions.

    It runs in three modes: training mode, fine-tuning mode, and testing
    mode.

    In training mode (``chainer.config.train`` is True), it normalizes the
    input by *batch statistics*. It also maintains approximated population
    statistics by moving averages (the variance one unbiased), which can be
    used for instant evaluation in testing mode.

    In fine-tuning mode (training mode with ``finetune=True``), it
    accumulates the input to compute *population statistics*: the ``N``-th
    call averages with decay ``1 - 1 / N``, giving the cumulative average of
    the batch statistics. Call :meth:`start_finetuning` to reset ``N``
    beforehand.

    In testing mode (``chainer.config.train`` is False), it uses the
    pre-computed population statistics to normalize the input variable.

    Args:
        size (int, tuple of ints, or None): Size (or shape) of channel
            dimensions. If ``None``, the size will be determined from
            dimension(s) of the input batch during the first forward pass
            (then ``axis`` is required).
        decay (float): Decay rate of moving average. It is used on training.
        eps (float): Epsilon value for numerical stability.
        dtype (numpy.dtype): Type to use in computing (default:
            ``chainer.config.dtype``; mixed16 keeps parameters and statistics
            in float32).
        use_gamma (bool): If ``True``, use scaling parameter. Otherwise, use
            unit (1) which makes no effect.
        use_beta (bool): If ``True``, use shifting parameter. Otherwise, use
            unit (0) which makes no effect.
        initial_gamma: Initializer (or scalar or array) of the scaling
            parameter. The default value is 1.
        initial_beta: Initializer (or scalar or array) of the shifting
            parameter. The default value is 0.
        axis (int or tuple of int): Axis over which normalization is
            performed. When it is ``None`` all axes but the channel axes
            ``1 .. len(size)`` are used.
        initial_avg_mean: Initializer (or scalar or array) of the population
            mean. The default value is 0.
        initial_avg_var: Initializer (or scalar or array) of the population
            variance. The default value is 1.

    Attributes:
        gamma (~chainer.Parameter): Scaling parameter (None without
            ``use_gamma``).
        beta (~chainer.Parameter): Shifting parameter (None without
            ``use_beta``).
        avg_mean (:ref:`ndarray`): Population mean (persistent).
        avg_var (:ref:`ndarray`): Population variance (persistent).
        N (int): Count of batches given for fine-tuning (persistent).
        decay (float): Decay rate of moving average.
        eps (float): Epsilon value for numerical stability.

    .. seealso:: :func:`~chainer.functions.batch_normalization`

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.links as L
        >>> x = np.arange(12, dtype=np.float32).reshape(4, 3)
        >>> bn = L.BatchNormalization(3)
        >>> bn(x).array.mean(axis=0).round(5) + 0.0
        array([0., 0., 0.], dtype=float32)
        >>> with chainer.using_config('train', False):
        ...     y = bn(x)
    """

    gamma = None
    beta = None
    avg_mean = None
    avg_var = None

    def __init__(
        self,
        size=None,
        decay=0.9,
        eps=2e-05,
        dtype=None,
        use_gamma=True,
        use_beta=True,
        initial_gamma=None,
        initial_beta=None,
        axis=None,
        initial_avg_mean=None,
        initial_avg_var=None,
    ):
        super().__init__()
        if size is None and axis is None:
            raise RuntimeError("size or axis is required")
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.decay = decay
        self.eps = eps
        self.axis = (axis,) if isinstance(axis, int) else axis
        self._highprec_dtype = chainer.get_dtype(dtype, map_mixed16=numpy.float32)
        self.add_persistent("N", 0)
        with self.init_scope():
            if use_gamma:
                self.gamma = variable.Parameter(
                    _typed_initializer(initial_gamma, 1, self._highprec_dtype)
                )
            if use_beta:
                self.beta = variable.Parameter(
                    _typed_initializer(initial_beta, 0, self._highprec_dtype)
                )
        self.add_persistent("avg_mean", None)
        self.add_persistent("avg_var", None)
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, shape):
        dtype = self._highprec_dtype
        self.avg_mean = initializers.generate_array(
            _typed_initializer(self._initial_avg_mean, 0, dtype),
            shape,
            self.xp,
            device=self.device,
        )
        self.avg_var = initializers.generate_array(
            _typed_initializer(self._initial_avg_var, 1, dtype),
            shape,
            self.xp,
            device=self.device,
        )
        self._initial_avg_mean = self._initial_avg_var = None
        if self.gamma is not None:
            self.gamma.initialize(shape)
        if self.beta is not None:
            self.beta.initialize(shape)

    @property
    def printable_specs(self):
        """``(name, value)`` pairs shown in the repr."""
        size = None if self.avg_mean is None else self.avg_mean.shape
        yield from (("size", size), ("decay", self.decay), ("eps", self.eps))
        yield from (("dtype", self._highprec_dtype), ("axis", self.axis))

    def _gamma_beta(self):
        gamma, beta = self.gamma, self.beta
        shape, dtype = self.avg_mean.shape, self._highprec_dtype
        if gamma is None:
            with chainer.using_device(self.device):
                gamma = self.xp.ones(shape, dtype)
        if beta is None:
            with chainer.using_device(self.device):
                beta = self.xp.zeros(shape, dtype)
        return gamma, beta

    def _lazy_init(self, x):
        if self.avg_mean is None:
            ndim = len(x.shape)
            axis = {a % ndim for a in self.axis if -ndim <= a < ndim}
            self._initialize_params(
                tuple(d for i, d in enumerate(x.shape) if i not in axis)
            )

    def forward(self, x, **kwargs):
        """Invokes the forward propagation of BatchNormalization.

        In training mode, the BatchNormalization computes moving averages of
        mean and variance for evaluation during training, and normalizes the
        input using batch statistics.

        Args:
            x (~chainer.Variable or :ref:`ndarray`): Input variable.
            finetune (bool): If it is in the training mode and ``finetune``
                is ``True``, BatchNormalization runs in fine-tuning mode; it
                accumulates the input array to compute population statistics
                for normalization, and normalizes the input using batch
                statistics.

        Returns:
            ~chainer.Variable: Output, same shape and dtype as ``x``.
        """
        finetune = _parse_finetune(kwargs)
        self._lazy_init(x)
        gamma, beta = self._gamma_beta()
        if not utils._config_entry("train"):
            return batch_normalization.fixed_batch_normalization(
                x, gamma, beta, self.avg_mean, self.avg_var, self.eps, axis=self.axis
            )
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        avg_mean, avg_var = self.avg_mean, self.avg_var
        if utils._config_entry("in_recomputing"):
            # Extra forward computations must not update the statistics.
            if finetune:
                self.N -= 1
            avg_mean = avg_var = None
        return batch_normalization.batch_normalization(
            x,
            gamma,
            beta,
            eps=self.eps,
            running_mean=avg_mean,
            running_var=avg_var,
            decay=decay,
            axis=self.axis,
        )

    def start_finetuning(self):
        """Resets the population count for collecting population statistics.

        This method can be skipped if it is the first time to use the
        fine-tuning mode. Otherwise, this method should be called before
        starting the fine-tuning mode again.
        """
        self.N = 0
