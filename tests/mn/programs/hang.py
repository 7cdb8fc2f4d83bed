"""Rank 1 hangs (sleeps) while rank 0 averages a large gradient.

Usage: mpiexec -n 2 python hang.py

The allreduce is large enough to run blocking in the channel's worker
thread; rank 0 must still give up after CHAINERMN_TIMEOUT seconds.
"""

import time

import numpy

import chainer
import chainermn


def main():
    comm = chainermn.create_communicator("flat")
    if comm.rank == 1:
        time.sleep(120)
        return
    model = chainer.Link()
    with model.init_scope():
        model.w = chainer.Parameter(numpy.zeros(2**20, numpy.float32))
    model.w.grad = numpy.ones(2**20, numpy.float32)
    comm.multi_node_mean_grad(model)


if __name__ == "__main__":
    main()
