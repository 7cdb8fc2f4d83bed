"""Shared checks of the RNN link tests (the ``helpers`` fixture)."""

import numpy
import pytest

import chainer
from chainer import gradient_check
from chainer import testing


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


class _Helpers:
    @staticmethod
    def lstm_step(link, c, h, x):
        """One step of ``upward``/``lateral`` LSTM links in float64 NumPy.

        ``c`` and ``h`` have the batch of ``x``; None means zeros.
        """
        z = x.astype(numpy.float64) @ link.upward.W.array.astype(numpy.float64).T
        z = z + link.upward.b.array
        if h is not None:
            z = z + h @ link.lateral.W.array.astype(numpy.float64).T
        r = z.reshape(len(z), -1, 4)
        if c is None:
            c = numpy.zeros(r.shape[:2])
        c = numpy.tanh(r[:, :, 0]) * _sigmoid(r[:, :, 1]) + _sigmoid(r[:, :, 2]) * c
        return c, _sigmoid(r[:, :, 3]) * numpy.tanh(c)

    @staticmethod
    def check_backward(link, func, inputs, gy, **tolerance):
        """Gradients of ``func`` for its inputs and the link's params, in float64."""
        for p in link.params():
            p.array = p.array.astype(numpy.float64)
        gradient_check.check_backward(
            func,
            inputs,
            gy,
            params=tuple(link.params()),
            dtype=numpy.float64,
            **tolerance,
        )

    def check_two_steps_backward(self, link, **tolerance):
        """Backward through two steps of a stateful link (in_size 2, out_size 3)."""
        xs = [numpy.random.uniform(-1, 1, (2, 2)) for _ in range(2)]
        gy = numpy.random.uniform(-1, 1, (2, 3))

        def f(x0, x1):
            link.reset_state()
            link(x0)
            return link(x1)

        self.check_backward(link, f, xs, gy, **tolerance)

    @staticmethod
    def check_serialization_round_trip(src, dst):
        """``dst`` loads the parameters ``src`` saves, name by name."""
        testing.save_and_load_npz(src, dst)
        for (name, p), (_, q) in zip(
            sorted(src.namedparams()), sorted(dst.namedparams()), strict=True
        ):
            numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)

    @staticmethod
    def make_n_step(cls, n_layers=2, dropout=0.0, **kwargs):
        """An n-step link with in_size 3, out_size 2 and float64 params in [-1, 1)."""
        with chainer.using_config("dtype", numpy.float64):
            link = cls(n_layers, 3, 2, dropout, **kwargs)
        for p in link.params():
            p.array[...] = numpy.random.uniform(-1, 1, p.shape)
        return link

    @staticmethod
    def n_step_reference(link, states, xs, step):
        """Each sequence on its own, layer by layer, in float64.

        ``step(x_t, *states, w, b)`` returns the new states (``h`` first) of
        one time step of one sequence. Returns ``(*final states, ys)``.
        """
        n_dir = link.direction
        ws = [[w.array.astype(numpy.float64) for w in ws_k] for ws_k in link.ws]
        bs = [[b.array.astype(numpy.float64) for b in bs_k] for bs_k in link.bs]
        finals = [s.astype(numpy.float64) for s in states]
        ys = []
        for i, x in enumerate(xs):
            x = x.astype(numpy.float64)
            for layer in range(link.n_layers):
                outs = []
                for d in range(n_dir):
                    k = layer * n_dir + d
                    current = [s[k, i] for s in states]
                    seq = x if d == 0 else x[::-1]
                    y = []
                    for x_t in seq:
                        current = step(x_t, *current, ws[k], bs[k])
                        y.append(current[0])
                    for final, s in zip(finals, current, strict=True):
                        final[k, i] = s
                    y = numpy.array(y).reshape(len(x), -1)
                    outs.append(y if d == 0 else y[::-1])
                x = numpy.concatenate(outs, axis=1)
            ys.append(x)
        return (*finals, ys)


@pytest.fixture
def helpers():
    return _Helpers()
