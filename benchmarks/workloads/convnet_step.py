"""Small convnet train steps (LeNet-style and VGG-style), Chainer's public API only.

Uses ``L.Convolution2D``, ``L.Linear``, ``L.BatchNormalization``, ``F.relu``,
``F.max_pooling_2d``, ``F.softmax_cross_entropy`` and ``chainer.optimizers``,
so the same file runs on Chainer 7.8.1 and on this project.
``torch_convnet_step.py`` is the PyTorch twin; all three start from the same
weights and data, so the losses must agree.

Workloads (first argument):
  lenet  batch 64, 1x28x28: conv5x5(20)-relu-maxpool2-conv5x5(50)-relu-
         maxpool2-linear(500)-relu-linear(10)
  vgg    batch 64, 3x32x32: [conv3x3-BN-relu] x (32, 32), maxpool2,
         (64, 64), maxpool2, (128, 128), maxpool2, linear(10)

Options: ``--steps``/``--warmup``, ``--optimizer sgd|adam`` (SGD lr 0.01 by
default), ``--clock cpu`` (process CPU time, steadier than wall time on a
shared machine), ``--no-bn`` and ``--device`` (``@cupy:0`` runs on a GPU;
each phase then ends with a synchronization, so the parts add up to the
step). Prints one JSON line: ms per step (median
after warm-up) and its forward / backward / update parts. Example, from the
repository root with OMP/OPENBLAS/MKL_NUM_THREADS set:
``.bench/chainer7/bin/python benchmarks/workloads/convnet_step.py vgg``.
"""

import argparse
import math
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _timing

BATCH = 64
N_BATCHES = 4
N_CLASSES = 10

# Layer specs: ("conv", out_channels, ksize, pad, bn) / ("pool",) /
# ("linear", out_size, relu).
ARCHS = {
    "lenet": {
        "input": (1, 28, 28),
        "layers": [
            ("conv", 20, 5, 0, False),
            ("pool",),
            ("conv", 50, 5, 0, False),
            ("pool",),
            ("linear", 500, True),
            ("linear", N_CLASSES, False),
        ],
    },
    "vgg": {
        "input": (3, 32, 32),
        "layers": [
            ("conv", 32, 3, 1, True),
            ("conv", 32, 3, 1, True),
            ("pool",),
            ("conv", 64, 3, 1, True),
            ("conv", 64, 3, 1, True),
            ("pool",),
            ("conv", 128, 3, 1, True),
            ("conv", 128, 3, 1, True),
            ("pool",),
            ("linear", N_CLASSES, False),
        ],
    },
}


def make_weights(arch, seed=0):
    """LeCun-normal weights and zero biases per conv/linear layer (float32)."""
    rng = numpy.random.RandomState(seed)
    c, h, w = ARCHS[arch]["input"]
    weights = []
    for spec in ARCHS[arch]["layers"]:
        if spec[0] == "conv":
            _, out_c, k, pad, _ = spec
            fan_in = c * k * k
            W = rng.standard_normal((out_c, c, k, k)) * math.sqrt(1.0 / fan_in)
            weights.append(W.astype(numpy.float32))
            c, h, w = out_c, h + 2 * pad - k + 1, w + 2 * pad - k + 1
        elif spec[0] == "pool":
            h, w = h // 2, w // 2
        else:
            fan_in = c * h * w
            W = rng.standard_normal((spec[1], fan_in)) * math.sqrt(1.0 / fan_in)
            weights.append(W.astype(numpy.float32))
            c, h, w = spec[1], 1, 1
    return weights


def make_batches(arch, seed=1):
    """Random inputs in [0, 1) and int32 labels."""
    rng = numpy.random.RandomState(seed)
    shape = (BATCH, *ARCHS[arch]["input"])
    return [
        (
            rng.uniform(0, 1, shape).astype(numpy.float32),
            rng.randint(0, N_CLASSES, BATCH).astype(numpy.int32),
        )
        for _ in range(N_BATCHES)
    ]


def build_model(arch, weights, use_bn=True):
    import chainer
    import chainer.functions as F
    import chainer.links as L

    specs = [
        (*spec[:4], False) if spec[0] == "conv" and not use_bn else spec
        for spec in ARCHS[arch]["layers"]
    ]

    class ConvNet(chainer.Chain):
        def __init__(self):
            super().__init__()
            self.ops = []
            it = iter(weights)
            with self.init_scope():
                for i, spec in enumerate(specs):
                    if spec[0] == "conv":
                        W = next(it)
                        setattr(
                            self,
                            "conv%d" % i,
                            L.Convolution2D(
                                W.shape[1], W.shape[0], spec[2], pad=spec[3],
                                nobias=spec[4], initialW=W.copy(),
                            ),
                        )  # fmt: skip
                        if spec[4]:
                            setattr(self, "bn%d" % i, L.BatchNormalization(spec[1]))
                    elif spec[0] == "linear":
                        W = next(it)
                        setattr(
                            self,
                            "fc%d" % i,
                            L.Linear(W.shape[1], W.shape[0], initialW=W.copy()),
                        )

        def forward(self, x):
            h = x
            for i, spec in enumerate(specs):
                if spec[0] == "conv":
                    h = getattr(self, "conv%d" % i)(h)
                    if spec[4]:
                        h = getattr(self, "bn%d" % i)(h)
                    h = F.relu(h)
                elif spec[0] == "pool":
                    h = F.max_pooling_2d(h, 2, 2)
                else:
                    h = getattr(self, "fc%d" % i)(h)
                    if spec[2]:
                        h = F.relu(h)
            return h

    return ConvNet()


def phase_summaries(samples):
    """Step time and its forward / backward / update parts, in ms."""
    return {
        "step_ms": _timing.summary([sum(s) for s in samples], 1e3),
        "forward_ms": _timing.summary([s[0] for s in samples], 1e3),
        "backward_ms": _timing.summary([s[1] for s in samples], 1e3),
        "update_ms": _timing.summary([s[2] for s in samples], 1e3),
    }


def bench_framework(
    arch,
    optimizer_name,
    steps,
    warmup,
    clock=time.perf_counter,
    use_bn=True,
    device="@numpy",
):
    import chainer
    import chainer.functions as F

    device = chainer.get_device(device)
    model = build_model(arch, make_weights(arch), use_bn)
    model.to_device(device)
    sync = _timing.synchronizer(device)
    if optimizer_name == "adam":
        optimizer = chainer.optimizers.Adam()
    else:
        optimizer = chainer.optimizers.SGD(lr=0.01)
    optimizer.setup(model)
    batches = [(device.send(x), device.send(t)) for x, t in make_batches(arch)]
    losses = []

    def step():
        x, t = batches[len(losses) % N_BATCHES]
        t0 = clock()
        loss = F.softmax_cross_entropy(model(x), t)
        sync()
        t1 = clock()
        model.cleargrads()
        loss.backward()
        sync()
        t2 = clock()
        optimizer.update()
        sync()
        t3 = clock()
        losses.append(float(loss.array))
        return t1 - t0, t2 - t1, t3 - t2

    results = phase_summaries(_timing.measure(step, steps, warmup))
    results["check"] = {
        # The third step's loss: later ones drift apart between frameworks
        # (and between GEMMs) as rounding differences grow over SGD steps.
        "loss_first": losses[0],
        "loss_third": losses[min(2, len(losses) - 1)],
        "steps": len(losses),
    }
    return results


def parse_args(argv, description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("workload", choices=sorted(ARCHS))
    parser.add_argument("--steps", type=int, default=10, help="timed steps")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall: perf_counter; cpu: process_time (CPU time of all threads, "
        "steadier on a loaded machine)",
    )
    parser.add_argument(
        "--no-bn",
        action="store_true",
        help="leave out batch normalization (conv layers keep their bias)",
    )
    parser.add_argument(
        "--device",
        default="@numpy",
        help="@numpy, or @cupy:N for GPU N (PyTorch: cuda:N)",
    )
    args = parser.parse_args(argv)
    args.clock_fn = time.perf_counter if args.clock == "wall" else time.process_time
    if args.steps <= 0 or args.warmup < 1:
        parser.error("--steps must be positive and --warmup at least 1")
    return args


def main(argv=None):
    args = parse_args(argv, __doc__.splitlines()[0])
    results = {"batch": BATCH, "optimizer": args.optimizer, "device": args.device}
    results.update(
        bench_framework(
            args.workload,
            args.optimizer,
            args.steps,
            args.warmup,
            args.clock_fn,
            not args.no_bn,
            args.device,
        )
    )
    _timing.emit("convnet_step_" + args.workload, results)


if __name__ == "__main__":
    main()
