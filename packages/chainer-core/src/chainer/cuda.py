"""``chainer.cuda``: the old path of :mod:`chainer.backends.cuda`.

``import chainer.cuda`` gives the very module object of
``chainer.backends.cuda``, as in Chainer 7.
"""

import sys

from chainer.backends import cuda as _cuda

sys.modules[__name__] = _cuda
