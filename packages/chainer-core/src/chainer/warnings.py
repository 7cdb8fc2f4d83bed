"""Warning categories of Chainer (``chainer.warnings``)."""


class PerformanceWarning(RuntimeWarning):
    """Warning that indicates possible performance issues."""


class PluginWarning(UserWarning):
    """Warning that a plugin failed to load or registers something unusable.

    The plugin registry (:mod:`chainer.plugins`) reports each problem of an
    installed plugin once with this category, naming the plugin and its
    distribution, and goes on without the offending part.
    """
