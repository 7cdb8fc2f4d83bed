"""Errors raised when inter-process communication fails, and the abort at exit.

A failed collective leaves the MPI job in a state no process can recover
from: the peers are dead, hung, or inside another operation. The error is
raised so that the user sees where it happened (and may clean up), and the
first failure registers an exit handler that aborts the whole MPI job, so
that ``mpiexec`` returns instead of waiting in ``MPI_Finalize`` for ranks
that will never arrive.
"""

from __future__ import annotations

import atexit
import sys
import threading

_abort_lock = threading.Lock()
_abort_registered = False


class CommunicationError(RuntimeError):
    """An MPI operation of a communicator failed.

    It is raised when MPI reports an error (with a fault-tolerant launcher,
    ``mpiexec --with-ft ulfm``, a dead peer gives ``MPI_ERR_PROC_FAILED``).
    After it, the MPI job is aborted when the process exits.

    Attributes:
        operation (str): Name of the communicator operation, e.g.
            ``'multi_node_mean_grad'``.
        rank (int): Rank of the raising process in the communicator.
        size (int): Size of the communicator.
    """

    def __init__(self, message, operation, rank, size):
        super().__init__(message)
        self.operation = operation
        self.rank = rank
        self.size = size


class CommunicationTimeoutError(CommunicationError):
    """An MPI operation did not complete within the communicator's timeout.

    The usual cause is a peer process that died, hangs, or entered another
    operation. The limit is ``CHAINERMN_TIMEOUT`` seconds (600 by default),
    or what ``comm.set_config('timeout', seconds)`` set. After it, the MPI
    job is aborted when the process exits.

    Attributes:
        operation (str): Name of the communicator operation.
        rank (int): Rank of the raising process in the communicator.
        size (int): Size of the communicator.
        timeout (float): The limit that was exceeded, in seconds.
    """

    def __init__(self, message, operation, rank, size, timeout):
        super().__init__(message, operation, rank, size)
        self.timeout = timeout


# Both are public as chainermn.CommunicationError / CommunicationTimeoutError;
# tracebacks name them there.
CommunicationError.__module__ = "chainermn"
CommunicationTimeoutError.__module__ = "chainermn"


def abort_job_at_exit():
    """Makes the process abort the MPI job when it exits (registered once)."""
    global _abort_registered
    with _abort_lock:
        if _abort_registered:
            return
        _abort_registered = True
    # Registered after mpi4py's own exit handler, so it runs first: MPI is
    # still initialized when Abort is called.
    atexit.register(_abort_job)


def _abort_job():
    from mpi4py import MPI

    if MPI.Is_finalized():
        return
    sys.stderr.write(
        f"chainermn: rank {MPI.COMM_WORLD.Get_rank()} aborts the MPI job after "
        "a communication failure (see the error above)\n"
    )
    sys.stderr.flush()
    MPI.COMM_WORLD.Abort(1)
