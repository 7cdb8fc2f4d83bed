"""Helpers of the mn_functions_* and mn_links_* programs: gradient checks per rank.

:func:`check_backward_per_rank` runs ``chainer.gradient_check.check_backward``
on one rank at a time while the other ranks take part in every evaluation:
the function under test is made into a global loss (the sum over the ranks
of each rank's local loss), the checking rank perturbs its inputs, and the
others evaluate theirs unperturbed and backpropagate a zero gradient, so
the checking rank's backward gives exactly the derivative of the global loss
by its own inputs, which the numerical difference measures.
"""

import re

import numpy
import pytest

import chainer
from chainer import function_node
from chainer import gradient_check


class AllSum(function_node.FunctionNode):
    """``y = sum over ranks of x`` on every rank; its backward is the same sum."""

    def __init__(self, comm):
        self.comm = comm

    def forward(self, inputs):
        (x,) = inputs
        return (self.comm.allreduce(x),)

    def backward(self, indexes, grad_outputs):
        (gy,) = grad_outputs
        return (chainer.Variable(self.comm.allreduce(gy.array)),)


def global_loss(comm, local_loss):
    """The sum over the ranks of each rank's scalar ``local_loss``."""
    (y,) = AllSum(comm).apply((local_loss,))
    return y


def check_backward_per_rank(comm, local_loss_fn, x_data, params=(), **kwargs):
    """Checks gradients numerically, one checking rank after the other.

    Args:
        comm: The communicator.
        local_loss_fn: ``local_loss_fn(*xs)`` returns this rank's scalar
            (shape ``()``) loss; it may communicate (collectively).
        x_data (tuple of arrays): This rank's inputs.
        params (tuple of Variables): This rank's parameters, checked too.
        **kwargs: Tolerances etc. for ``check_backward``.
    """

    def func(*xs):
        return global_loss(comm, local_loss_fn(*xs))

    failure = None
    for checker in range(comm.size):
        if comm.rank == checker:
            # A mismatch is raised after the other ranks' turns, so that the
            # ranks stay in step.
            try:
                gradient_check.check_backward(
                    func, x_data, None, params=params, **kwargs
                )
            except AssertionError as e:
                failure = e
        else:
            # check_backward evaluates the function once, backpropagates,
            # then evaluates it twice more (the numerical difference).
            y = func(*[chainer.Variable(x) for x in x_data])
            y.grad = numpy.zeros_like(y.array)
            y.backward()
            for _ in range(2):
                func(*[chainer.Variable(x) for x in x_data])
    if failure is not None:
        raise failure


def zero_loss(dtype=numpy.float64):
    """A scalar zero Variable, the local loss of a rank that only sends."""
    return chainer.Variable(numpy.zeros((), dtype))


def assert_close(actual, expected, dtype, what=""):
    """assert_allclose with tolerances for ``dtype``."""
    tol = {
        numpy.dtype(numpy.float16): dict(atol=5e-3, rtol=5e-3),
        numpy.dtype(numpy.float32): dict(atol=1e-5, rtol=1e-5),
        numpy.dtype(numpy.float64): dict(atol=1e-12, rtol=1e-12),
    }[numpy.dtype(dtype)]
    actual = actual.array if isinstance(actual, chainer.Variable) else actual
    expected = expected.array if isinstance(expected, chainer.Variable) else expected
    assert actual.dtype == numpy.dtype(dtype), (what, actual.dtype, dtype)
    numpy.testing.assert_allclose(
        numpy.asarray(actual, numpy.float64),
        numpy.asarray(expected, numpy.float64),
        err_msg=what,
        **tol,
    )


def expect_error(exc_type, fragment, fn, *args, **kwargs):
    """Asserts that ``fn(*args, **kwargs)`` raises ``exc_type`` naming ``fragment``."""
    with pytest.raises(exc_type, match=re.escape(fragment)):
        fn(*args, **kwargs)
