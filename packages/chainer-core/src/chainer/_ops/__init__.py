"""Former name of :mod:`chainer.primitive_ops`, kept as an alias for now.

``chainer._ops`` and its submodules ``array``, ``basic_math`` and
``reduction`` are the very module objects of :mod:`chainer.primitive_ops`
(``sys.modules`` maps the old names to them). New code imports
:mod:`chainer.primitive_ops`.
"""

# TODO(lead): remove this alias when no catalogue file imports chainer._ops
# (issue 23; tests/contracts/test_layering.py's allow-list names them).
import sys

from chainer import primitive_ops

for _name in ("array", "basic_math", "reduction"):
    sys.modules[f"{__name__}.{_name}"] = getattr(primitive_ops, _name)
sys.modules[__name__] = primitive_ops
