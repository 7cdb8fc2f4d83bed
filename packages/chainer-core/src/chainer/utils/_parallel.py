"""chainer-core's CPU hook: the set-up of a NumPy training step, and its report.

chainer-core keeps no thread team and does not touch the BLAS: the team, the
OpenBLAS settings and the load-following thread count belong to the fast-path
plugin ``chainer-cpu`` (``docs/threads.md``). Core calls :func:`engage` where
a CPU step starts (``Optimizer.update`` on NumPy parameters), and
:func:`chainer.print_runtime_info` calls :func:`describe_threads`.

A plugin takes these over the way it overrides a FunctionNode: its
``register_kernels`` hook maps ``("chainer.utils._parallel:engage", "numpy")``
and ``("chainer.utils._parallel:describe_threads", "numpy")`` to its own
functions (no arguments; the second returns the report line). Without such a
plugin, :func:`engage` applies the host memory retention only and
:func:`describe_threads` says that there is no team.

Nothing here runs at ``import chainer`` beyond :func:`at_import`, which checks
``CHAINER_HOST_MEMORY_RETENTION``.
"""

from chainer import _dispatch
from chainer import _host_memory

#: The kernel-table keys under which a plugin registers its CPU set-up and
#: its report line.
ENGAGE_KEY = ("chainer.utils._parallel:engage", "numpy")
DESCRIBE_KEY = ("chainer.utils._parallel:describe_threads", "numpy")

_state = {"retention_applied": False}


def at_import():
    """What ``import chainer`` does about host memory.

    It checks ``CHAINER_HOST_MEMORY_RETENTION`` (a bad value raises here
    rather than in the middle of a training run) and applies a retention the
    user gave in bytes. No thread starts and the BLAS is untouched.
    """
    _host_memory.configure_from_environment(explicit_only=True)


def engage():
    """Sets up the CPU for a NumPy training step (cheap after the first call).

    The first call applies the default host memory retention (see
    :func:`chainer.backend.set_host_memory_retention`); every call then runs
    the set-up that a plugin registered under :data:`ENGAGE_KEY` (chainer-cpu's
    thread team and load-following BLAS thread count), if any.
    """
    if not _state["retention_applied"]:
        _state["retention_applied"] = True
        _host_memory.configure_from_environment()
    plugin_engage = _dispatch.core_hook(ENGAGE_KEY)
    if plugin_engage is not None:
        plugin_engage()


def describe_threads():
    """Returns the CPU threads line of :func:`chainer.print_runtime_info`.

    Returns:
        str: The registered plugin's report, or a note that no plugin runs
        NumPy kernels on a thread team.
    """
    describe = _dispatch.core_hook(DESCRIBE_KEY)
    if describe is None:
        return "no thread team (the chainer-cpu plugin is not loaded)"
    return describe()
