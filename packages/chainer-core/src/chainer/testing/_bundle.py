"""Test-class generation shared by ``parameterize`` and ``inject_backend_tests``.

A class decorator that turns one test class into several returns a
:class:`TestCaseBundle`, not a class: the generated classes are put into the
class's module (where pytest and unittest find them) and the original name is
bound to the bundle, which test runners ignore. Stacked decorators then expand
every class of the bundle again, replacing the previous ones in the module.
"""

from __future__ import annotations

import functools
import inspect
import sys


class TestCaseBundle:
    """Set of test classes generated from one decorated class.

    Args:
        module_name (str): Module that holds the generated classes.
        cases (list): ``(name, class)`` pairs.
    """

    # Keep pytest from treating the bundle as a test class.
    __test__ = False

    def __init__(self, module_name, cases):
        self.module_name = module_name
        self.cases = list(cases)

    def __repr__(self):
        names = ", ".join(name for name, _ in self.cases)
        return f"<TestCaseBundle of {len(self.cases)} classes: {names}>"


def _module_dict(module_name):
    module = sys.modules.get(module_name)
    return None if module is None else vars(module)


def expand(target, generate):
    """Applies a class-generating function to a class or a bundle.

    Args:
        target: A test class or a :class:`TestCaseBundle`.
        generate: Callable mapping a class to a list of ``(name, class)``.

    Returns:
        The generated class if ``target`` was a class and exactly one class of
        the same name came out; a :class:`TestCaseBundle` otherwise.
    """
    if isinstance(target, TestCaseBundle):
        module_name = target.module_name
        sources = target.cases
    elif isinstance(target, type):
        module_name = target.__module__
        sources = [(target.__name__, target)]
    else:
        raise TypeError(
            "test generators decorate test classes, "
            f"not {type(target).__name__} objects"
        )
    namespace = _module_dict(module_name)
    cases = []
    for name, cls in sources:
        if namespace is not None and namespace.get(name) is cls:
            del namespace[name]
        cases.extend(generate(cls))
    if namespace is not None:
        for name, cls in cases:
            namespace[name] = cls
    if isinstance(target, type) and len(cases) == 1 and cases[0][0] == target.__name__:
        return cases[0][1]
    return TestCaseBundle(module_name, cases)


def apply_to_classes(target, fn):
    """Applies ``fn`` (class -> class) to a class or to each class of a bundle."""
    if isinstance(target, TestCaseBundle):
        return expand(target, lambda cls: [(cls.__name__, fn(cls))])
    return fn(target)


def derive(cls, name, members):
    """Creates a subclass of ``cls`` named ``name`` with extra ``members``."""
    members = dict(members)
    members.setdefault("__module__", cls.__module__)
    members.setdefault("__qualname__", name)
    members.setdefault("__doc__", cls.__doc__)
    return type(name, (cls,), members)


def test_method_names(cls):
    """Names of the callable ``test*`` attributes of ``cls``."""
    return [
        name
        for name in dir(cls)
        if name.startswith("test") and callable(getattr(cls, name, None))
    ]


def drop_parameter(func, wrapper, param_name):
    """Gives ``wrapper`` the signature of ``func`` without ``param_name``.

    pytest requests a fixture for every parameter it sees, so an argument
    supplied by the wrapper must disappear from the visible signature.
    """
    functools.update_wrapper(wrapper, func)
    del wrapper.__wrapped__
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return wrapper
    params = [p for p in sig.parameters.values() if p.name != param_name]
    wrapper.__signature__ = sig.replace(parameters=params)
    return wrapper
