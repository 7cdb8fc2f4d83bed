"""LSTM language-model train step with ``L.NStepLSTM``, Chainer public API.

The model, data, weights and update of ``lstm_lm_step.py`` (vocabulary
10000, 650 units, 2 LSTM layers, BPTT 35, batch 20, SGD lr 1 with
``GradientClipping(5)``), but the recurrence runs batched over time: one
``L.EmbedID`` call on the ``(20, 35)`` window -> dropout -> one
``L.NStepLSTM(2, 650, 650, 0.5)`` call on the 20 sequences of 35 steps
(dropout between its layers) -> dropout -> one ``L.Linear`` on all 700
outputs -> one ``F.softmax_cross_entropy``, times 35 (the sum over the window
of the per-step mean losses, as in the step-wise workload). The final
states carry over to the next window, cut from the graph after each update
(truncated BPTT).

The step-wise model's weights are copied into NStepLSTM's layout (the gates
of ``L.LSTM``'s interleaved rows split into ``w0..w3``, ``w4..w7`` for the
lateral weights, the biases into ``b0..b3``, ``b4..b7`` zero), so
``check.loss_eval`` equals ``lstm_lm_step.py``'s and
``torch_nstep_lstm_lm_step.py``'s up to float32 rounding.

Written against Chainer's public API only, so the same file runs on Chainer
7.8.1 and on this project. Also measures the GEMM floor of this form: the
step's matrix products (input projections, recurrent products per time
step, the output layer; forward, input and weight gradients) in bare NumPy.
Prints one JSON line.
"""

import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import lstm_lm_step as lm

DROPOUT = 0.5
# NStepLSTM's w0..w3 (and w4..w7) are the gates i, f, a, o; L.LSTM's rows
# interleave them per unit as (a, i, f, o).
_LSTM_GATE = (1, 2, 0, 3)


def nstep_weights(weights, layer):
    """The ``w0..w7``, ``b0..b7`` of one NStepLSTM layer from ``L.LSTM``'s.

    Args:
        weights (dict): ``lstm_lm_step.make_weights()``.
        layer (str): ``'l1'`` or ``'l2'``.

    Returns:
        tuple: Lists of the eight weights and the eight biases.
    """
    n = lm.UNITS
    up = weights[layer + "/upward/W"].reshape(n, 4, -1)
    lateral = weights[layer + "/lateral/W"].reshape(n, 4, -1)
    bias = weights[layer + "/upward/b"].reshape(n, 4)
    ws = [up[:, g] for g in _LSTM_GATE] + [lateral[:, g] for g in _LSTM_GATE]
    bs = [bias[:, g] for g in _LSTM_GATE] + [numpy.zeros(n, numpy.float32)] * 4
    return ws, bs


def window(words, offsets, start):
    """Inputs and targets of one step as ``(BATCH, BPTT)`` int32 arrays."""
    pairs = lm.batches(words, offsets, start)
    x = numpy.stack([x for x, _ in pairs], axis=1)
    t = numpy.stack([t for _, t in pairs], axis=1)
    return x, t


def build_model(weights):
    import chainer
    import chainer.functions as F
    import chainer.links as L

    class NStepRNNForLM(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.embed = L.EmbedID(lm.VOCAB, lm.UNITS)
                self.rnn = L.NStepLSTM(2, lm.UNITS, lm.UNITS, DROPOUT)
                self.l3 = L.Linear(lm.UNITS, lm.VOCAB)
            self.embed.W.array[...] = weights["embed/W"]
            self.l3.W.array[...] = weights["l3/W"]
            self.l3.b.array[...] = weights["l3/b"]
            for k, layer in enumerate(("l1", "l2")):
                ws, bs = nstep_weights(weights, layer)
                for param, value in zip(self.rnn.ws[k], ws, strict=True):
                    param.array[...] = value
                for param, value in zip(self.rnn.bs[k], bs, strict=True):
                    param.array[...] = value
            self.reset_state()

        def reset_state(self):
            self.hx = self.cx = None

        def detach_state(self):
            self.hx.unchain()
            self.cx.unchain()

        def forward(self, x):
            """Scores ``(BATCH * BPTT, VOCAB)`` of a ``(BATCH, BPTT)`` window."""
            h = F.dropout(self.embed(x), DROPOUT)
            self.hx, self.cx, ys = self.rnn(self.hx, self.cx, F.separate(h, axis=0))
            h = F.dropout(F.concat(ys, axis=0), DROPOUT)
            return self.l3(h)

    return NStepRNNForLM()


def eval_loss(model, words, offsets, send=None):
    """Mean per-step loss of the first window without dropout.

    ``send`` moves the input arrays to the model's device (None: NumPy).
    """
    import chainer
    import chainer.functions as F

    send = send or (lambda a: a)
    x, t = window(words, offsets, 0)
    model.reset_state()
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        scores = model(send(x))
        loss = float(F.softmax_cross_entropy(scores, send(t.reshape(-1))).array)
    model.reset_state()
    return loss


def bench_framework(steps, warmup, device="@numpy"):
    import chainer
    import chainer.functions as F

    device = chainer.get_device(device)
    sync = _timing.synchronizer(device)
    words, offsets = lm.make_corpus()
    model = build_model(lm.make_weights())
    model.to_device(device)
    loss_eval = eval_loss(model, words, offsets, device.send)
    optimizer = chainer.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(lm.GRAD_CLIP))
    losses = []
    cpu_times = []
    perf_counter = time.perf_counter
    process_time = time.process_time

    def step():
        x, t = window(words, offsets, len(losses) * lm.BPTT)
        x, t = device.send(x), device.send(t.reshape(-1))
        c0 = process_time()
        t0 = perf_counter()
        # The mean over the window's 700 words times BPTT: the sum of the
        # per-step mean losses, as the step-wise workload computes it.
        loss = F.softmax_cross_entropy(model(x), t) * lm.BPTT
        sync()
        t1 = perf_counter()
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        model.detach_state()
        sync()
        t2 = perf_counter()
        optimizer.update()
        sync()
        t3 = perf_counter()
        cpu_times.append(process_time() - c0)
        losses.append(float(loss.array) / lm.BPTT)
        return t1 - t0, t2 - t1, t3 - t2

    results = lm.phase_summaries(_timing.measure(step, steps, warmup))
    results["step_cpu_ms"] = _timing.summary(cpu_times[warmup:], 1e3)
    results.update(lm.loss_report(loss_eval, losses))
    return results


def gemm_list():
    """``(count, (m, k, n))`` of the GEMMs of one step batched over time.

    Per layer: the input projection of all ``BPTT * BATCH`` rows, its input
    and weight gradients; ``BPTT`` recurrent products and their input
    gradients of ``BATCH`` rows; one recurrent weight gradient. Then the
    output layer on all rows.
    """
    rows = lm.BPTT * lm.BATCH
    u, g = lm.UNITS, 4 * lm.UNITS
    layer = [
        (1, (rows, u, g)),  # input projection
        (1, (rows, g, u)),  # its input gradient
        (1, (g, rows, u)),  # its weight gradient
        (lm.BPTT, (lm.BATCH, u, g)),  # recurrent product per step
        (lm.BPTT, (lm.BATCH, g, u)),  # its input gradient per step
        (1, (g, rows, u)),  # recurrent weight gradient
    ]
    out = [
        (1, (rows, u, lm.VOCAB)),
        (1, (rows, lm.VOCAB, u)),
        (1, (lm.VOCAB, rows, u)),
    ]
    return layer * 2 + out


def bench_gemm_floor(repeats):
    return lm.gemm_floor(gemm_list(), repeats)


def main(argv=None):
    lm.run_main(argv, "nstep_lstm_lm_step", bench_framework, bench_gemm_floor)


if __name__ == "__main__":
    main()
