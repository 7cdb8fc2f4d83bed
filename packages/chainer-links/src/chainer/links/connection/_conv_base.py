"""Parameters shared by the N-d convolution and deconvolution links (private)."""

from chainer import initializers
from chainer import link
from chainer import variable
from chainer.utils import conv


class ConvolutionNDBase(link.Link):
    """Filters ``W`` (lazily shaped) and bias ``b`` of an N-d (de)convolution.

    Each subclass defines ``_filter_shape(in_channels)``, the shape of ``W``
    once the number of input channels is known, and names its own extra
    options in ``_extra_specs``, shown after ``pad`` in the repr.
    """

    _extra_specs = ()

    def __init__(
        self, ndim, in_channels, out_channels, ksize, stride, pad, nobias,
        initialW, initial_bias, dilate, groups,
    ):  # fmt: skip
        super().__init__()
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        self.ndim = ndim
        self.ksize = conv.as_tuple(ksize, ndim, "ksize")
        self.stride = conv.as_tuple(stride, ndim, "stride")
        self.pad = conv.as_tuple(pad, ndim, "pad")
        self.dilate = conv.as_tuple(dilate, ndim, "dilate")
        self.groups = int(groups)
        self.out_channels = out_channels
        self.in_channels = in_channels
        if out_channels % self.groups:
            raise ValueError(
                "the number of output channels must be divisible by the number "
                f"of groups ({out_channels} % {self.groups} != 0)"
            )
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_channels is not None:
                self._initialize_params(in_channels)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = 0
                self.b = variable.Parameter(
                    initializers._get_initializer(initial_bias), out_channels
                )

    def _initialize_params(self, in_channels):
        if in_channels % self.groups:
            raise ValueError(
                "the number of input channels must be divisible by the number "
                f"of groups ({in_channels} % {self.groups} != 0)"
            )
        self.in_channels = in_channels
        self.W.initialize(self._filter_shape(in_channels))

    def _check_input(self, x):
        if x.ndim != self.ndim + 2:
            raise ValueError(
                f"{type(self).__name__}: expected an input of {self.ndim + 2} "
                f"dimensions (n, c, spatial...), got shape {x.shape}"
            )
        if self.W.array is None:
            self._initialize_params(x.shape[1])

    @property
    def printable_specs(self):
        """``(name, value)`` pairs shown in the repr."""
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        for name in self._extra_specs:
            yield name, getattr(self, name)
        yield "nobias", self.b is None
        yield "dilate", self.dilate
        yield "groups", self.groups
