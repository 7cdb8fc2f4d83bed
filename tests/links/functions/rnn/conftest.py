"""Shared pieces of the n-step RNN function tests: inputs and a NumPy reference."""

import numpy
import pytest


class _NStep:
    """Inputs and a float64 reference for one n-step function.

    ``n_weights`` weights and as many biases per layer and direction, the first
    half applied to the layer's input and the rest to ``h``; ``n_states`` state
    arrays (``hx``, or ``hx`` and ``cx``).
    """

    in_size = 3
    n_units = 2

    def __init__(self, n_weights, n_states):
        self.n_weights = n_weights
        self.n_states = n_states

    def make_params(self, n_layers, n_dir, dtype):
        ws = []
        bs = []
        n_x = self.n_weights // 2
        for layer in range(n_layers):
            x_size = self.in_size if layer == 0 else self.n_units * n_dir
            for _ in range(n_dir):
                ws.append(
                    [
                        numpy.random.uniform(
                            -1, 1, (self.n_units, x_size if j < n_x else self.n_units)
                        ).astype(dtype)
                        for j in range(self.n_weights)
                    ]
                )
                bs.append(
                    [
                        numpy.random.uniform(-1, 1, self.n_units).astype(dtype)
                        for _ in range(self.n_weights)
                    ]
                )
        return ws, bs

    def random_case(
        self,
        n_layers=2,
        n_dir=1,
        batches=(3, 2, 1),
        hx_batch=None,
        dtype=numpy.float64,
    ):
        """Returns ``(*states, ws, bs, xs)``, uniform in ``[-1, 1)``."""
        shape = (n_layers * n_dir, hx_batch or batches[0], self.n_units)
        states = [
            numpy.random.uniform(-1, 1, shape).astype(dtype)
            for _ in range(self.n_states)
        ]
        ws, bs = self.make_params(n_layers, n_dir, dtype)
        xs = [
            numpy.random.uniform(-1, 1, (b, self.in_size)).astype(dtype)
            for b in batches
        ]
        return (*states, ws, bs, xs)

    @staticmethod
    def flatten(ws, bs):
        return [w for ws_k in ws for w in ws_k] + [b for bs_k in bs for b in bs_k]

    def unflatten(self, flat, n_units_total):
        nw = self.n_weights
        ws = [list(flat[k * nw : (k + 1) * nw]) for k in range(n_units_total)]
        off = n_units_total * nw
        bs = [
            list(flat[off + k * nw : off + (k + 1) * nw]) for k in range(n_units_total)
        ]
        return ws, bs

    def inputs(self, n_layers, n_dir, batches, dtype):
        """A random case as one flat tuple, for ``FunctionTestCase``."""
        *states, ws, bs, xs = self.random_case(n_layers, n_dir, batches, dtype=dtype)
        return (*states, *self.flatten(ws, bs), *xs)

    def split(self, inputs, n_layers, n_dir):
        """Undoes :meth:`inputs`: returns ``(*states, ws, bs, xs)``."""
        c = self.n_states
        n_flat = 2 * n_layers * n_dir * self.n_weights
        ws, bs = self.unflatten(inputs[c : c + n_flat], n_layers * n_dir)
        return (*inputs[:c], ws, bs, list(inputs[c + n_flat :]))

    @staticmethod
    def reference(step, n_layers, states, ws, bs, xs, bidirectional):
        """Runs ``step(x, *states, w, b) -> new states`` time step by time step.

        In float64. Returns ``(*final states, ys)``.
        """
        states = [s.astype(numpy.float64) for s in states]
        xs = [x.astype(numpy.float64) for x in xs]
        n_dir = 2 if bidirectional else 1
        finals = [s.copy() for s in states]
        for layer in range(n_layers):
            outs = []
            for d in range(n_dir):
                k = layer * n_dir + d
                w = [a.astype(numpy.float64) for a in ws[k]]
                b = [a.astype(numpy.float64) for a in bs[k]]
                current = [s[k].copy() for s in states]
                ys = [None] * len(xs)
                order = range(len(xs)) if d == 0 else reversed(range(len(xs)))
                for t in order:
                    x = xs[t]
                    n = len(x)
                    new = step(x, *(s[:n] for s in current), w, b)
                    for s, v in zip(current, new, strict=True):
                        s[:n] = v
                    ys[t] = current[0][:n].copy()
                for final, s in zip(finals, current, strict=True):
                    final[k] = s
                outs.append(ys)
            xs = [numpy.concatenate(parts, axis=1) for parts in zip(*outs, strict=True)]
        return (*finals, xs)


@pytest.fixture
def nstep():
    """``nstep(n_weights, n_states=1)``: helpers for one n-step function."""

    def make(n_weights, n_states=1):
        return _NStep(n_weights, n_states)

    return make
