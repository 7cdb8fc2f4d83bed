"""Warning for experimental features (``chainer.utils.experimental``)."""

from __future__ import annotations

import warnings


def experimental(api_name):
    """Declares that the caller is using an experimental feature.

    Emits a ``FutureWarning`` saying that the interface of ``api_name`` can
    change, unless ``chainer.disable_experimental_feature_warning`` is True.
    Developers call it at the start of an experimental function or
    ``__init__``.

    Args:
        api_name (str): Name of the experimental API, shown in the warning.

    Example:
        >>> import warnings
        >>> import chainer
        >>> from chainer import utils
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter('always')
        ...     utils.experimental('my_func')
        >>> str(w[0].message)
        'my_func is experimental. The interface can change in the future.'
    """
    import chainer

    if not chainer.disable_experimental_feature_warning:
        warnings.warn(
            f"{api_name} is experimental. The interface can change in the future.",
            FutureWarning,
            stacklevel=2,
        )
