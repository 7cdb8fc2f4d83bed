"""Helpers shared by the hooks that rewrite a link's weight for the forward pass."""

from __future__ import annotations

from chainer import function
from chainer import variable

# Links whose weight keeps output channels on axis 1, (in, out, k...).
_DECONVOLUTIONS = frozenset(
    {"Deconvolution1D", "Deconvolution2D", "Deconvolution3D", "DeconvolutionND"}
)


def check_weight(hook_name: str, link, weight_name: str) -> None:
    """Raises a clear error unless ``link`` has a parameter ``weight_name``."""
    if link is None:
        raise TypeError(
            f"{hook_name} must be added to a link with link.add_hook(hook); it "
            "cannot be used as a global hook"
        )
    weight = getattr(link, weight_name, None)
    if not isinstance(weight, variable.Parameter):
        raise ValueError(
            f"{hook_name}: link {type(link).__name__} has no parameter named "
            f"{weight_name!r}"
        )


def output_axis(link) -> int:
    """Returns the axis of the weight that indexes output units or channels."""
    names = {cls.__name__ for cls in type(link).__mro__}
    return 1 if names & _DECONVOLUTIONS else 0


def original_weight(link, weight_name: str, saved):
    """Returns the link's weight Parameter, restoring it if a forward failed.

    When a forward pass raises, ``forward_postprocess`` never runs and the
    attribute still holds the rewritten Variable; ``saved`` is the Parameter
    the hook put aside then.
    """
    weight = getattr(link, weight_name)
    if not isinstance(weight, variable.Parameter) and saved is not None:
        setattr(link, weight_name, saved)
        weight = saved
    return weight


def initialize_weight(hook_name: str, link, weight_name: str, cb_args):
    """Initializes a lazily initialized weight by running the forward once.

    Links such as ``Linear(None, n)`` create their weight on the first
    forward pass; the hook needs it before that pass, so the forward runs
    once without building a graph (and without hooks) to let the link
    initialize itself.
    """
    with function.no_backprop_mode():
        link.forward(*cb_args.args, **cb_args.kwargs)
    weight = getattr(link, weight_name)
    if weight.array is None:
        raise RuntimeError(
            f"{hook_name}: the forward pass of {type(link).__name__} did not "
            f"initialize its parameter {weight_name!r}"
        )
    return weight
