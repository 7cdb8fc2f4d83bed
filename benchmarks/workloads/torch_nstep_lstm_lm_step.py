"""PyTorch CPU version of ``nstep_lstm_lm_step.py``: the fused ``nn.LSTM``.

``nn.Embedding`` on the ``(35, 20)`` window -> dropout ->
``nn.LSTM(650, 650, num_layers=2, dropout=0.5)`` over the whole window
(dropout between its layers, as ``L.NStepLSTM``) -> dropout -> ``nn.Linear``
on all 700 outputs -> one cross-entropy times 35 (the sum of the per-step
mean losses), one ``backward``, ``clip_grad_norm_(5)`` and SGD (lr 1). The
final states are detached between steps (truncated BPTT). Time-major, as
``nn.LSTM`` takes it by default; the loss is the same sum.

The weights are Chainer's, with the gate rows reordered from ``L.LSTM``'s
interleaved (a, i, f, o) layout to PyTorch's blocks (i, f, g, o) and
``bias_hh`` zero, so ``check.loss_eval`` must equal the Chainer workloads'.
Runs in the PyTorch virtualenv (``.bench/torch``); reports the same keys as
``nstep_lstm_lm_step.py``. Prints one JSON line.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import lstm_lm_step as lm
import nstep_lstm_lm_step as nstep
import torch_lstm_lm_step as stepwise


def build_model(weights):
    import torch

    class RNNForLM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(lm.VOCAB, lm.UNITS)
            self.rnn = torch.nn.LSTM(
                lm.UNITS, lm.UNITS, num_layers=2, dropout=nstep.DROPOUT
            )
            self.l3 = torch.nn.Linear(lm.UNITS, lm.VOCAB)
            self.dropout = torch.nn.Dropout(nstep.DROPOUT)
            with torch.no_grad():
                self.embed.weight.copy_(torch.from_numpy(weights["embed/W"]))
                for k, name in enumerate(("l1", "l2")):
                    for src, dst in (
                        ("upward/W", f"weight_ih_l{k}"),
                        ("lateral/W", f"weight_hh_l{k}"),
                        ("upward/b", f"bias_ih_l{k}"),
                    ):
                        value = stepwise._gate_rows(weights[name + "/" + src], lm.UNITS)
                        getattr(self.rnn, dst).copy_(torch.from_numpy(value.copy()))
                    getattr(self.rnn, f"bias_hh_l{k}").zero_()
                self.l3.weight.copy_(torch.from_numpy(weights["l3/W"]))
                self.l3.bias.copy_(torch.from_numpy(weights["l3/b"]))
            self.reset_state()

        def reset_state(self):
            self.state = None

        def detach_state(self):
            self.state = tuple(v.detach() for v in self.state)

        def forward(self, x):
            """Scores ``(BPTT * BATCH, VOCAB)`` of a ``(BPTT, BATCH)`` window."""
            h = self.dropout(self.embed(x))
            h, self.state = self.rnn(h, self.state)
            return self.l3(self.dropout(h.reshape(-1, lm.UNITS)))

    return RNNForLM()


def bench_torch(steps, warmup, threads, device="@numpy"):
    import torch

    torch.set_num_threads(threads)
    device, sync = _timing.torch_device(device)
    words, offsets = lm.make_corpus()
    model = build_model(lm.make_weights()).to(device)
    cross_entropy = torch.nn.functional.cross_entropy

    def to_torch(start):
        # Time-major (BPTT, BATCH), targets flattened in the same order.
        x, t = nstep.window(words, offsets, start)
        return (
            torch.from_numpy(x.T.astype("int64")).to(device),
            torch.from_numpy(t.T.reshape(-1).astype("int64")).to(device),
        )

    model.eval()
    with torch.no_grad():
        x, t = to_torch(0)
        loss_eval = float(cross_entropy(model(x), t))
    model.reset_state()
    model.train()

    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    params = list(model.parameters())
    losses = []
    perf_counter = time.perf_counter

    def step():
        x, t = to_torch(len(losses) * lm.BPTT)
        t0 = perf_counter()
        loss = cross_entropy(model(x), t) * lm.BPTT
        sync()
        t1 = perf_counter()
        optimizer.zero_grad()
        loss.backward()
        model.detach_state()
        sync()
        t2 = perf_counter()
        torch.nn.utils.clip_grad_norm_(params, lm.GRAD_CLIP)
        optimizer.step()
        sync()
        t3 = perf_counter()
        losses.append(float(loss.item()) / lm.BPTT)
        return t1 - t0, t2 - t1, t3 - t2

    results = lm.phase_summaries(_timing.measure(step, steps, warmup))
    results.update(lm.loss_report(loss_eval, losses))
    results["torch"] = torch.__version__
    return results


def main(argv=None):
    lm.run_main(
        argv, "nstep_lstm_lm_step", bench_torch, nstep.bench_gemm_floor, threads=True
    )


if __name__ == "__main__":
    main()
