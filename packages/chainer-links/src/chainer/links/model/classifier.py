from chainer import link
from chainer import reporter
from chainer.functions.evaluation import accuracy
from chainer.functions.loss import softmax_cross_entropy


class Classifier(link.Chain):
    """A simple classifier model.

    This is an example of chain that wraps another chain. It computes the
    loss and accuracy based on a given input/label pair.

    Args:
        predictor (~chainer.Link): Predictor network.
        lossfun (callable): Loss function, called as ``lossfun(y, t)``.
        accfun (callable): Function that computes accuracy, called as
            ``accfun(y, t)``.
        label_key (int or str): Key to specify the label variable among the
            arguments of :meth:`forward`. An int is a position in the
            positional arguments (``-1``, the default, is the last one); a
            str is the name of a keyword argument.

    Attributes:
        predictor (~chainer.Link): Predictor network.
        lossfun (callable): Loss function.
        accfun (callable): Function that computes accuracy.
        y (~chainer.Variable): Prediction of the last forward call.
        loss (~chainer.Variable): Loss value of the last forward call.
        accuracy (~chainer.Variable): Accuracy of the last forward call.
        compute_accuracy (bool): If ``True``, compute and report the accuracy
            on each forward call.
        label_key (int or str): Key of the label variable.

    Example:
        >>> import numpy as np
        >>> import chainer
        >>> import chainer.links as L
        >>> model = L.Classifier(L.PReLU(init=1.0))
        >>> x = np.array([[2.0, 1.0], [0.0, 3.0]], np.float32)
        >>> t = np.array([0, 0], np.int32)
        >>> observation = {}
        >>> reporter = chainer.Reporter()
        >>> reporter.add_observer('main', model)
        >>> with reporter.scope(observation):
        ...     loss = model(x, t)
        >>> float(observation['main/accuracy'].array)
        0.5
    """

    compute_accuracy = True

    def __init__(
        self,
        predictor,
        lossfun=softmax_cross_entropy.softmax_cross_entropy,
        accfun=accuracy.accuracy,
        label_key=-1,
    ):
        if isinstance(label_key, bool) or not isinstance(label_key, (int, str)):
            raise TypeError(
                f"label_key must be int or str, but is {type(label_key).__name__}"
            )
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y = None
        self.loss = None
        self.accuracy = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args, **kwargs):
        """Computes the loss value for an input and label pair.

        It also computes accuracy and stores it in the attribute, and reports
        ``loss`` (and ``accuracy`` if :attr:`compute_accuracy`) through
        :func:`chainer.reporter.report` with this link as the observer.

        The label is taken from the arguments by :attr:`label_key`; the
        remaining arguments are given to the predictor.

        Args:
            args (list of ~chainer.Variable): Input minibatch.
            kwargs (dict of ~chainer.Variable): Input minibatch.

        Returns:
            ~chainer.Variable: Loss value.

        Raises:
            ValueError: The label is not found among the arguments.
        """
        label_key = self.label_key
        if isinstance(label_key, int):
            if not -len(args) <= label_key < len(args):
                raise ValueError(f"Label key {label_key} is out of bounds")
            t = args[label_key]
            index = label_key % len(args)
            args = args[:index] + args[index + 1 :]
        else:
            if label_key not in kwargs:
                raise ValueError(f'Label key "{label_key}" is not found')
            t = kwargs.pop(label_key)

        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        reporter.report({"loss": self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            reporter.report({"accuracy": self.accuracy}, self)
        return self.loss
