"""A link computing a Theano graph (Theano is needed at construction)."""

import importlib

from chainer import link
from chainer.functions.theano import theano_function


def _import_theano():
    try:
        return importlib.import_module("theano")
    except ImportError as exc:
        raise RuntimeError(
            "TheanoFunction needs Theano, which is not installed: "
            "pip install theano (Theano supports Python up to 3.8). "
            f"The import error was: {exc}"
        ) from exc


class TheanoFunction(link.Link):
    """Theano graph as a link: its forward and gradient compiled by Theano.

    The link compiles a function from the Theano variables ``inputs`` to
    ``outputs``, and one computing the inputs' gradients from the outputs'
    (Theano's ``grad`` with known output gradients). Calling the link applies
    them through :func:`~chainer.functions.theano.theano_function.theano_function`.
    The link has no parameters.

    Args:
        inputs (tuple of theano.tensor.TensorVariable): Input variables of the
            graph.
        outputs (tuple of theano.tensor.TensorVariable): Output variables.

    Raises:
        RuntimeError: When Theano is not installed.
    """

    def __init__(self, inputs, outputs):
        theano = _import_theano()
        super().__init__()
        inputs = list(_as_list(inputs))
        outputs = list(_as_list(outputs))
        self.forward_func = theano.function(inputs=inputs, outputs=outputs)
        grad_outputs = [y.type(f"g_{i}") for i, y in enumerate(outputs)]
        grads = theano.tensor.grad(
            cost=None,
            wrt=inputs,
            known_grads=dict(zip(outputs, grad_outputs, strict=True)),
            disconnected_inputs="ignore",
        )
        self.backward_func = theano.function(
            inputs=inputs + grad_outputs,
            outputs=grads,
            on_unused_input="ignore",
        )

    def forward(self, *args):
        """Applies the compiled graph to ``args`` (Variables or arrays)."""
        return theano_function.theano_function(
            self.forward_func, self.backward_func, *args
        )


def _as_list(values):
    if isinstance(values, (list, tuple)):
        return values
    return [values]
