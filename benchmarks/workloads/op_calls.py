"""Op calls for instruction counting (see ``benchmarks/instructions.py``).

Runs ``N`` calls of one workload after a short warm-up, against Chainer's
public API so the same file runs on Chainer 7.8.1 and on this project:

- ``ops``: the small-op chain of ``per_op.py`` (``* + *0.5 -`` on 10 x 10
  float32), forward and one backward;
- ``relu``, ``sum``: a chain of ``F.relu`` / ``F.sum(axis=1, keepdims=True)``;
- ``softmax_cross_entropy``: independent losses of a (10, 10) batch;

each followed by one ``chainer.backward`` over all outputs.

Usage: ``python op_calls.py WORKLOAD N``.
"""

import sys

import numpy


def main():
    import chainer
    import chainer.functions as F

    workload, n = sys.argv[1], int(sys.argv[2])
    rng = numpy.random.RandomState(0)
    x = chainer.Variable(rng.rand(10, 10).astype(numpy.float32))
    t = rng.randint(0, 10, 10).astype(numpy.int32)

    def chain(step):
        def run(count):
            h = x
            for _ in range(count):
                h = step(h)
            gy = chainer.Variable(numpy.ones(h.shape, numpy.float32))
            chainer.backward([h], [gy])

        return run

    def ops(count):
        h = x
        for _ in range(count // 4):
            h = h * x
            h = h + x
            h = h * 0.5
            h = h - x
        chainer.backward([h], [chainer.Variable(numpy.ones((10, 10), numpy.float32))])

    def losses(count):
        outs = [F.softmax_cross_entropy(x, t) for _ in range(count)]
        ones = [chainer.Variable(numpy.ones((), numpy.float32)) for _ in outs]
        if outs:
            chainer.backward(outs, ones)

    workloads = {
        "ops": ops,
        "relu": chain(F.relu),
        "sum": chain(lambda h: F.sum(h, axis=1, keepdims=True)),
        "softmax_cross_entropy": losses,
    }
    run = workloads[workload]
    run(20)  # warm-up: first-call costs are not per-call costs
    run(n)


if __name__ == "__main__":
    main()
