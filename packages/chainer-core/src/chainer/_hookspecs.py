"""Hook specifications: the contract between Chainer and its plugins.

A plugin is a module (or object) named by an entry point in the group
``chainer.plugins``. It implements any of the hooks below as plain functions
marked with :data:`chainer.plugins.hookimpl`::

    from chainer import plugins

    @plugins.hookimpl
    def register_functions():
        return {"my_op": "my_ops.functions:my_op"}

Every hook here is a *registration* hook: it takes no arguments and returns a
dict mapping names to objects, or to ``"module:attr"`` strings that the
registry imports on first use (so that a plugin module stays tiny and does no
heavy work when it loads). A hook may also return ``None`` to register nothing.

When they are called: once, when the registry loads (on the first registry
lookup, or :func:`chainer.plugins.ensure_loaded`), and again each time a plugin
is registered or unregistered explicitly. Results are copied into plain dicts,
so no hook is ever called per operation.

A hook of an installed plugin that raises or returns something else than
described below makes the registry skip that plugin, with one
:class:`chainer.warnings.PluginWarning` naming it, its distribution and the
hook. When two plugins return the same name for the same kind, the one from
Chainer's own distributions wins (else the first loaded) and the other is
dropped with a warning naming both; for :func:`chainer.plugins.register` both
are errors.

None of the hooks uses ``firstresult`` or ``historic``: every plugin's result
is collected.
"""

from __future__ import annotations

from typing import Any

from chainer import plugins

hookspec = plugins.hookspec


# --------------------------------------------------------------------------
# Backends: called before anything that needs a device by name
# --------------------------------------------------------------------------


@hookspec(firstresult=False, historic=False)
def register_backends() -> dict[str, Any] | None:
    """Registers device backends by name.

    Takes no parameters. Called when the registry loads and after every
    (un)registration.

    ``chainer.get_device('@name')`` builds a device of the registered class with
    ``cls()``, and ``'@name:N'`` with ``cls.from_index(N)`` when the class has
    that method (``cls(N)`` otherwise). The class's ``supported_array_types``
    lets :func:`chainer.backend.get_array_module` recognise its arrays.

    Declare the array types as strings so that meeting an unknown type never
    imports the backend: give the value as a dict ``{"device": <class or
    "module:attr">, "array_types": ["module:QualName", ...]}`` (for CuPy,
    ``["cupy:ndarray"]``: the type's ``__module__`` and ``__qualname__``;
    subclasses match too). A backend that declares no array types is imported
    when a type matches no declaration, and skipped with a warning if that
    import fails.

    The Device class registered as ``'cupy'`` may set the class attribute
    ``legacy_cuda_module`` to the importable name of a module implementing
    the legacy API ``chainer.backends.cuda`` (``available``, ``to_gpu``,
    ``elementwise``, ``memoize``...). The facade asks the registry for that
    class on first use (and again after the registry changes), imports the
    module, and answers from it when its ``available`` is true; otherwise it
    keeps its host-side implementation and raises the module's
    ``unavailable_reason`` (a str) for GPU-only calls. chainer-cuda sets it.

    :return: A dict from backend name (``'cupy'``, without ``'@'``) to a
        :class:`chainer.backend.Device` subclass, a ``"module:attr"`` string
        naming one, or a dict with the keys ``"device"`` and
        ``"array_types"`` as above.
    """


# --------------------------------------------------------------------------
# Catalogue: functions, links and trainer extensions
# --------------------------------------------------------------------------


@hookspec(firstresult=False, historic=False)
def register_functions() -> dict[str, Any] | None:
    """Registers differentiable functions, found as ``chainer.functions.<name>``.

    Takes no parameters. Called when the registry loads and after every
    (un)registration.

    :return: A dict from function name (``'my_op'``) to the function, or a
        ``"module:attr"`` string naming it. The function takes Variables or
        arrays and returns Variables, like the built-in ones.
    """


@hookspec(firstresult=False, historic=False)
def register_links() -> dict[str, Any] | None:
    """Registers link classes, found as ``chainer.links.<Name>``.

    Takes no parameters. Called when the registry loads and after every
    (un)registration.

    :return: A dict from link name (``'MyLink'``) to a :class:`chainer.Link`
        subclass, or a ``"module:attr"`` string naming it.
    """


@hookspec(firstresult=False, historic=False)
def register_extensions() -> dict[str, Any] | None:
    """Registers trainer extensions, found as
    ``chainer.training.extensions.<Name>``.

    Takes no parameters. Called when the registry loads and after every
    (un)registration.

    :return: A dict from extension name (``'MyExtension'``) to an extension
        class or factory (its instances are callables taking the trainer), or a
        ``"module:attr"`` string naming it.
    """


@hookspec(firstresult=False, historic=False)
def register_datasets() -> dict[str, Any] | None:
    """Registers datasets and dataset getters, found as ``chainer.datasets.<name>``.

    Takes no parameters. Called when the registry loads and after every
    (un)registration.

    :return: A dict from name (``'get_my_corpus'``, ``'MyDataset'``) to a
        getter function or dataset class, or a ``"module:attr"`` string naming
        it.
    """


# --------------------------------------------------------------------------
# Kernels: faster implementations of existing FunctionNodes for one backend
# --------------------------------------------------------------------------


@hookspec(firstresult=False, historic=False)
def register_kernels() -> dict[tuple, Any] | None:
    """Registers kernel overrides for FunctionNodes and update rules on one backend.

    Takes no parameters. Called when the registry loads and after every
    (un)registration. The result is published into the leaf module
    ``chainer._dispatch``, whose per-class cache
    :meth:`chainer.FunctionNode.apply` and
    :meth:`chainer.optimizer.UpdateRule.update_core` read, so an override
    costs one dict lookup per call.

    ``'module:Class'`` keys are not imported: a class is matched by its
    ``__module__`` and ``__qualname__`` (where it is defined, not a module
    that re-exports it), walking its MRO once and caching the answer, so a
    subclass uses its base's kernel unless a class on the way defines its
    own ``forward`` (or, for update rules, ``update_core``,
    ``update_core_cpu`` or ``update_core_gpu``). A key whose top-level
    package is not installed is skipped: that class cannot be used anyway.

    Two kinds of class may be keyed:

    * A :class:`chainer.FunctionNode` subclass: ``apply`` calls
      ``kernel(node, inputs)`` instead of ``node.forward(inputs)`` when the
      first input array belongs to the backend. It gets the node and the
      tuple of input arrays, must return a tuple of arrays as ``forward``
      does, and retains (``retain_inputs``/``retain_outputs``) and sets on
      the node what ``forward`` would, using only the node's documented
      attributes and methods; it may call ``node.forward(inputs)`` for cases
      it does not cover.
    * A :class:`chainer.optimizer.UpdateRule` subclass: ``update_core``
      calls ``kernel(rule, param)`` instead of ``update_core_cpu(param)``
      (backend ``'numpy'``) or ``update_core_gpu(param)`` (other backends,
      with the parameter's device made current) for a parameter whose array
      belongs to the backend, and only when ``param.grad`` is not None; it
      may call ``rule.update_core_cpu(param)`` for cases it does not cover. It
      updates ``param.array`` and ``rule.state`` in place, as one step of
      the rule (``rule.t`` already counts it), and returns nothing.

    A key may also name one of chainer-core's three CPU hooks, as a string
    with the backend ``'numpy'`` (chainer-cpu registers all three; one plugin
    should):

    * ``('chainer.utils._parallel:engage', 'numpy')``: called with no
      arguments, its result ignored, by
      :func:`chainer.utils._parallel.engage`, which
      :meth:`chainer.Optimizer.update` calls at every step on NumPy
      parameters. It sets up the CPU for NumPy work (chainer-cpu: its thread
      team, OpenBLAS's idle spin, the load-following thread count) and must
      be cheap after its first call.
    * ``('chainer.utils._parallel:describe_threads', 'numpy')``: called with
      no arguments by :func:`chainer.print_runtime_info`; returns the str
      shown as its CPU threads line.
    * ``('chainer.utils.gemm:matmul', 'numpy')``: ``fn(a, b, out=None)``
      returning ``a @ b`` for two 2-d NumPy arrays, called by
      :func:`chainer.utils.gemm.matmul` (the matrix products inside kernels
      such as the n-step RNNs').

    Without them core only applies its host memory retention, reports that
    there is no thread team, and multiplies with ``numpy.matmul``.

    The registry need not be loaded by anything else for kernels to apply:
    ``import chainer`` gives ``chainer._dispatch`` the registry's loader
    (``set_loader``), and the first kernel lookup (the first
    :meth:`chainer.FunctionNode.apply`, or the first update-rule step of a
    non-NumPy parameter) loads it before looking up, so installed kernels
    apply from the first op.

    :return: A dict from ``(cls, backend_name)`` to a kernel, where ``cls``
        is such a class or a ``'module:Class'`` string naming one and
        ``backend_name`` is a backend name (``'cupy'``, ``'numpy'``), or
        one of the CPU hook keys above. The kernel is a callable as above,
        or a ``"module:attr"`` string naming one (imported on its first
        call).
    """
