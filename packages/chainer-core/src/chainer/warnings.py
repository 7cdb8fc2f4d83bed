"""Warning categories of Chainer (``chainer.warnings``)."""


class PerformanceWarning(RuntimeWarning):
    """Warning that indicates possible performance issues."""
