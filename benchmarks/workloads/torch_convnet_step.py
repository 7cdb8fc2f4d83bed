"""PyTorch version of ``convnet_step.py``: same weights, data, loss and optimizer.

Runs in the PyTorch virtualenv (``.bench/torch``); reports the same keys as
``convnet_step.py``. Batch normalization uses Chainer's defaults (eps 2e-5,
running-average decay 0.9). Prints one JSON line.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing
import convnet_step


def build(arch, use_bn=True, device="cpu"):
    import torch

    specs = [
        (*spec[:4], False) if spec[0] == "conv" and not use_bn else spec
        for spec in convnet_step.ARCHS[arch]["layers"]
    ]
    it = iter(convnet_step.make_weights(arch))
    params = []
    layers = []
    for spec in specs:
        if spec[0] == "conv":
            W = torch.tensor(next(it), device=device, requires_grad=True)
            out_c = spec[1]
            layer = {"kind": "conv", "W": W, "pad": spec[3], "bn": spec[4]}
            params.append(W)
            if spec[4]:
                layer["gamma"] = torch.ones(out_c, device=device, requires_grad=True)
                layer["beta"] = torch.zeros(out_c, device=device, requires_grad=True)
                layer["mean"] = torch.zeros(out_c, device=device)
                layer["var"] = torch.ones(out_c, device=device)
                params += [layer["gamma"], layer["beta"]]
            else:
                layer["b"] = torch.zeros(out_c, device=device, requires_grad=True)
                params.append(layer["b"])
            layers.append(layer)
        elif spec[0] == "pool":
            layers.append({"kind": "pool"})
        else:
            W = torch.tensor(next(it), device=device, requires_grad=True)
            b = torch.zeros(W.shape[0], device=device, requires_grad=True)
            params += [W, b]
            layers.append({"kind": "linear", "W": W, "b": b, "relu": spec[2]})
    return layers, params


def forward(layers, x):
    import torch
    import torch.nn.functional as F

    h = x
    for layer in layers:
        if layer["kind"] == "conv":
            h = F.conv2d(h, layer["W"], layer.get("b"), padding=layer["pad"])
            if layer["bn"]:
                h = F.batch_norm(
                    h, layer["mean"], layer["var"], layer["gamma"], layer["beta"],
                    training=True, momentum=0.1, eps=2e-5,
                )  # fmt: skip
            h = torch.relu(h)
        elif layer["kind"] == "pool":
            h = F.max_pool2d(h, 2, 2)
        else:
            h = F.linear(h.reshape(h.shape[0], -1), layer["W"], layer["b"])
            if layer["relu"]:
                h = torch.relu(h)
    return h


def bench_torch(
    arch,
    optimizer_name,
    steps,
    warmup,
    threads,
    clock=time.perf_counter,
    use_bn=True,
    device="@numpy",
):
    import torch

    torch.set_num_threads(threads)
    # Chainer's device names: @numpy is the CPU, @cupy:N the GPU N.
    device, sync = _timing.torch_device(device)
    layers, params = build(arch, use_bn, device)
    if optimizer_name == "adam":
        optimizer = torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    else:
        optimizer = torch.optim.SGD(params, lr=0.01)
    batches = [
        (torch.from_numpy(x).to(device), torch.from_numpy(t).long().to(device))
        for x, t in convnet_step.make_batches(arch)
    ]
    losses = []

    def step():
        x, t = batches[len(losses) % convnet_step.N_BATCHES]
        t0 = clock()
        loss = torch.nn.functional.cross_entropy(forward(layers, x), t)
        sync()
        t1 = clock()
        optimizer.zero_grad()
        loss.backward()
        sync()
        t2 = clock()
        optimizer.step()
        sync()
        t3 = clock()
        losses.append(float(loss.item()))
        return t1 - t0, t2 - t1, t3 - t2

    results = convnet_step.phase_summaries(_timing.measure(step, steps, warmup))
    results["check"] = {
        # The third step's loss: later ones drift apart between frameworks
        # (and between GEMMs) as rounding differences grow over SGD steps.
        "loss_first": losses[0],
        "loss_third": losses[min(2, len(losses) - 1)],
        "steps": len(losses),
    }
    results["torch"] = torch.__version__
    return results


def main(argv=None):
    args = convnet_step.parse_args(argv, __doc__.splitlines()[0])
    threads = int(os.environ.get("OMP_NUM_THREADS", "2"))
    results = {
        "batch": convnet_step.BATCH,
        "optimizer": args.optimizer,
        "clock": args.clock,
        "threads": threads,
        "bn": not args.no_bn,
        "device": args.device,
    }
    results.update(
        bench_torch(
            args.workload,
            args.optimizer,
            args.steps,
            args.warmup,
            threads,
            args.clock_fn,
            not args.no_bn,
            args.device,
        )
    )
    _timing.emit("convnet_step_" + args.workload, results)


if __name__ == "__main__":
    main()
