"""In-process A/B of a workload's step under two settings of module attributes.

On a noisy machine, two separate runs of a step cannot tell a 5 % change from
the drift between them. This script builds one model (``lenet`` or ``vgg``
of ``workloads/convnet_step.py``, ``mlp`` of ``mlp_step.py``, ``inference``
of ``mlp_inference.py``, ``lstm`` of ``lstm_lm_step.py``, ``nstep`` of
``nstep_lstm_lm_step.py``) and, round by round,
times steps under setting A and setting B alternately (the order reversed
every other round), so that both see the same machine. A setting is a list
of ``module:attribute=value`` assignments (the value a Python literal),
applied before each of its steps and undone at the end.

Example, from the repository root, comparing the batch-innermost convolution
path with the batch-chunked one::

    python benchmarks/ab_step.py vgg --rounds 40 \\
        --a chainer_cpu.functions.connection.convolution_nd:_TRANSPOSE_BYTES=0 \\
        --b chainer_cpu.functions.connection.convolution_nd:_TRANSPOSE_BYTES=1048576

(chainer-cpu's convolution kernels read these attributes at every call; the
size of their patch-matrix chunks is ``chainer_cpu._layout:CHUNK_BYTES``.)

Prints, per setting, the minimum, first quartile and median step time (ms)
and the number of rounds it won.
"""

import argparse
import ast
import importlib
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "workloads"))


def parse_assignment(text):
    """``'pkg.mod:attr=literal'`` -> ``(module, attr, value)``."""
    try:
        target, literal = text.split("=", 1)
        module_name, attr = target.split(":", 1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected module:attribute=value, got {text!r}"
        ) from None
    module = importlib.import_module(module_name)
    if not hasattr(module, attr):
        raise argparse.ArgumentTypeError(f"{module_name} has no attribute {attr!r}")
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        raise argparse.ArgumentTypeError(
            f"the value of {target} must be a Python literal, got {literal!r}"
        ) from None
    return module, attr, value


def apply(setting):
    for module, attr, value in setting:
        setattr(module, attr, value)


def make_step(arch):
    """One train step (or inference pass) of a ``benchmarks/`` workload."""
    import chainer
    import chainer.functions as F

    if arch in ("lenet", "vgg"):
        import convnet_step

        model = convnet_step.build_model(arch, convnet_step.make_weights(arch))
        optimizer = chainer.optimizers.SGD(lr=0.01)
        optimizer.setup(model)
        x, t = convnet_step.make_batches(arch)[0]

        def loss():
            return F.softmax_cross_entropy(model(x), t)

    elif arch == "mlp":
        import mlp_step

        model = mlp_step.build_model(mlp_step.make_weights(mlp_step.SIZES))
        optimizer = chainer.optimizers.Adam()
        optimizer.setup(model)
        x, t = mlp_step.make_batches(mlp_step.SIZES, mlp_step.BATCH, 1)[0]

        def loss():
            return mlp_step.softmax_cross_entropy(model(x), t)

    elif arch == "inference":
        import mlp_inference
        import mlp_step

        model = mlp_inference.build_model(mlp_step.make_weights(mlp_step.SIZES))
        x = mlp_inference.make_inputs()[0]

        def infer():
            with chainer.using_config("train", False), chainer.no_backprop_mode():
                model(x)

        return infer
    elif arch == "nstep":
        import lstm_lm_step
        import nstep_lstm_lm_step

        words, offsets = lstm_lm_step.make_corpus()
        model = nstep_lstm_lm_step.build_model(lstm_lm_step.make_weights())
        optimizer = chainer.optimizers.SGD(lr=1.0)
        optimizer.setup(model)
        clip = chainer.optimizer_hooks.GradientClipping(lstm_lm_step.GRAD_CLIP)
        optimizer.add_hook(clip)
        x, t = nstep_lstm_lm_step.window(words, offsets, 0)
        t = t.reshape(-1)

        def loss():
            model.reset_state()
            return F.softmax_cross_entropy(model(x), t) * lstm_lm_step.BPTT

    else:
        import lstm_lm_step

        words, offsets = lstm_lm_step.make_corpus()
        model = lstm_lm_step.build_model(lstm_lm_step.make_weights())
        optimizer = chainer.optimizers.SGD(lr=1.0)
        optimizer.setup(model)
        data = lstm_lm_step.batches(words, offsets, 0)

        def loss():
            total = 0
            for x, t in data:
                total += F.softmax_cross_entropy(model(x), t)
            return total

    def step():
        value = loss()
        model.cleargrads()
        value.backward()
        value.unchain_backward()
        optimizer.update()

    return step


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "arch", choices=["lenet", "vgg", "mlp", "inference", "lstm", "nstep"]
    )
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=2, help="timed steps per turn")
    parser.add_argument("--a", nargs="*", type=parse_assignment, default=[])
    parser.add_argument("--b", nargs="*", type=parse_assignment, default=[])
    args = parser.parse_args(argv)

    original = [
        (module, attr, getattr(module, attr)) for module, attr, _ in args.a + args.b
    ]
    step = make_step(args.arch)
    settings = {"A": args.a, "B": args.b}
    times = {name: [] for name in settings}
    wins = dict.fromkeys(settings, 0)
    try:
        for r in range(args.rounds):
            order = ["A", "B"] if r % 2 == 0 else ["B", "A"]
            this_round = {}
            for name in order:
                # Each side starts from the original values: an attribute
                # set by one side only does not leak into the other.
                apply(original)
                apply(settings[name])
                step()  # one untimed step after switching
                start = time.perf_counter()
                for _ in range(args.steps):
                    step()
                this_round[name] = (time.perf_counter() - start) / args.steps * 1e3
                times[name].append(this_round[name])
            wins[min(this_round, key=this_round.get)] += 1
    finally:
        apply(original)
    for name, values in times.items():
        values.sort()
        print(
            "%s: min %.1f  q1 %.1f  median %.1f ms, won %d of %d rounds"
            % (
                name,
                values[0],
                values[len(values) // 4],
                statistics.median(values),
                wins[name],
                args.rounds,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
