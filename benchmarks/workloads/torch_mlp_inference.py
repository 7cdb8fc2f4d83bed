"""PyTorch CPU version of ``mlp_inference.py``: same weights, inputs and math.

Runs in the PyTorch virtualenv (``.bench/torch``) under
``torch.inference_mode()``; reports the same keys. Prints one JSON line.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import mlp_inference
import mlp_step


def bench_torch(repeats, warmup, threads):
    import torch

    torch.set_num_threads(threads)
    layers = [
        (torch.from_numpy(W), torch.from_numpy(b))
        for W, b in mlp_step.make_weights(mlp_step.SIZES)
    ]
    inputs = [torch.from_numpy(x) for x in mlp_inference.make_inputs()]
    labels = []

    def run():
        h = inputs[len(labels) % mlp_inference.N_BATCHES]
        with torch.inference_mode():
            for i, (W, b) in enumerate(layers):
                h = torch.nn.functional.linear(h, W, b)
                if i + 1 < len(layers):
                    h = torch.relu(h)
            labels.append(h.argmax(dim=1).numpy())

    results = {
        "inference_ms": _timing.summary(_timing.measure(run, repeats, warmup), 1e3)
    }
    results["check"] = {"label_sum": int(labels[0].sum())}
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    results = {"sizes": list(mlp_step.SIZES), "batch": mlp_inference.BATCH}
    results.update(bench_torch(args.repeats, args.warmup, args.threads))
    results.update(mlp_inference.bench_gemm_floor(args.repeats))
    _timing.emit("mlp_inference", results)


if __name__ == "__main__":
    main()
