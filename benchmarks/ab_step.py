"""In-process A/B of a convnet train step under two settings of module attributes.

On a noisy machine, two separate runs of a step cannot tell a 5 % change from
the drift between them. This script builds one model (the ``lenet`` or
``vgg`` workload of ``workloads/convnet_step.py``) and, round by round,
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("arch", choices=["lenet", "vgg"])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=2, help="timed steps per turn")
    parser.add_argument("--a", nargs="*", type=parse_assignment, default=[])
    parser.add_argument("--b", nargs="*", type=parse_assignment, default=[])
    args = parser.parse_args(argv)

    import convnet_step

    import chainer
    import chainer.functions as F

    original = [
        (module, attr, getattr(module, attr)) for module, attr, _ in args.a + args.b
    ]
    model = convnet_step.build_model(args.arch, convnet_step.make_weights(args.arch))
    optimizer = chainer.optimizers.SGD(lr=0.01)
    optimizer.setup(model)
    x, t = convnet_step.make_batches(args.arch)[0]

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()

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
