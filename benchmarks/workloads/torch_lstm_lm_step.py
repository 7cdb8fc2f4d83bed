"""PyTorch CPU version of ``lstm_lm_step.py``: the same RNNLM, data and update.

``nn.Embedding`` -> dropout -> ``nn.LSTMCell`` -> dropout -> ``nn.LSTMCell``
-> dropout -> ``nn.Linear``, the cells stepped in Python over the 35 time
steps (no fused ``nn.LSTM``), the summed per-step cross-entropy, one
``backward``, ``clip_grad_norm_(5)`` and SGD (lr 1). The state is detached
between steps (truncated BPTT). The weights are Chainer's, with the gate rows
reordered from ``L.LSTM``'s interleaved (a, i, f, o) layout to PyTorch's
blocks (i, f, g, o), so ``check.loss_eval`` must equal the Chainer
workload's.

Runs in the PyTorch virtualenv (``.bench/torch``); reports the same keys as
``lstm_lm_step.py``. Prints one JSON line.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import lstm_lm_step as lm


def _gate_rows(array, units):
    """Rows of an ``L.LSTM`` weight (or bias) in PyTorch's gate order."""
    r = array.reshape((units, 4, -1)).transpose(1, 0, 2)
    # Chainer's gates are (a, i, f, o); PyTorch's (i, f, g=a, o).
    return r[[1, 2, 0, 3]].reshape((4 * units, *array.shape[1:]))


def build_model(weights):
    import torch

    class RNNForLM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(lm.VOCAB, lm.UNITS)
            self.l1 = torch.nn.LSTMCell(lm.UNITS, lm.UNITS)
            self.l2 = torch.nn.LSTMCell(lm.UNITS, lm.UNITS)
            self.l3 = torch.nn.Linear(lm.UNITS, lm.VOCAB)
            self.dropout = torch.nn.Dropout(0.5)
            with torch.no_grad():
                self.embed.weight.copy_(torch.from_numpy(weights["embed/W"]))
                for name in ("l1", "l2"):
                    cell = getattr(self, name)
                    for src, dst in (
                        ("upward/W", cell.weight_ih),
                        ("lateral/W", cell.weight_hh),
                        ("upward/b", cell.bias_ih),
                    ):
                        value = _gate_rows(weights[name + "/" + src], lm.UNITS)
                        dst.copy_(torch.from_numpy(value.copy()))
                    cell.bias_hh.zero_()
                self.l3.weight.copy_(torch.from_numpy(weights["l3/W"]))
                self.l3.bias.copy_(torch.from_numpy(weights["l3/b"]))
            self.reset_state()

        def reset_state(self):
            self.s1 = self.s2 = None

        def detach_state(self):
            self.s1 = tuple(v.detach() for v in self.s1)
            self.s2 = tuple(v.detach() for v in self.s2)

        def forward(self, x):
            h0 = self.embed(x)
            self.s1 = self.l1(self.dropout(h0), self.s1)
            self.s2 = self.l2(self.dropout(self.s1[0]), self.s2)
            return self.l3(self.dropout(self.s2[0]))

    return RNNForLM()


def bench_torch(steps, warmup, threads, device="@numpy"):
    import torch

    torch.set_num_threads(threads)
    device, sync = _timing.torch_device(device)
    words, offsets = lm.make_corpus()
    model = build_model(lm.make_weights()).to(device)
    cross_entropy = torch.nn.functional.cross_entropy

    def to_torch(pairs):
        return [
            (
                torch.from_numpy(x.astype("int64")).to(device),
                torch.from_numpy(t.astype("int64")).to(device),
            )
            for x, t in pairs
        ]

    model.eval()
    with torch.no_grad():
        total = 0.0
        for x, t in to_torch(lm.batches(words, offsets, 0)):
            total += float(cross_entropy(model(x), t))
    loss_eval = total / lm.BPTT
    model.reset_state()
    model.train()

    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    params = list(model.parameters())
    losses = []
    perf_counter = time.perf_counter

    def step():
        data = to_torch(lm.batches(words, offsets, len(losses) * lm.BPTT))
        t0 = perf_counter()
        loss = 0
        for x, t in data:
            loss = loss + cross_entropy(model(x), t)
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
    lm.run_main(argv, "lstm_lm_step", bench_torch, lm.bench_gemm_floor, threads=True)


if __name__ == "__main__":
    main()
