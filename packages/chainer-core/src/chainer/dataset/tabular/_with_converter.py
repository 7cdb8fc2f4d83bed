"""``chainer.dataset.tabular._with_converter``: the view made by
:meth:`TabularDataset.with_converter` (Chainer's module of ``_WithConverter``)."""

from chainer.dataset.tabular._asmode import _WithConverter

__all__ = ["_WithConverter"]
