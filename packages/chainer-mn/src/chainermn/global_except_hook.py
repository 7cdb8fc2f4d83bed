"""Abort the whole MPI job when one process dies of an uncaught exception.

Without it, a process that raises exits (or waits in ``MPI_Finalize``)
while the others wait for it inside a collective, and the job hangs until
the communicators' timeout. With the hook installed, the exception is
printed with the process's rank and ``MPI_Abort`` ends every process, so
``mpiexec`` returns at once with a non-zero status.

:func:`chainermn.create_communicator` installs it when the environment
variable ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` is set (to anything
non-empty), as ChainerMN does; :func:`add_hook` installs it by hand.
"""

from __future__ import annotations

import os
import sys
import traceback

_previous_hook = None


def _global_except_hook(exctype, value, tb):
    try:
        from mpi4py import MPI

        rank = MPI.COMM_WORLD.Get_rank()
        sys.stderr.write("\n" + "*" * 60 + f"\nUncaught exception on rank {rank}:\n")
        traceback.print_exception(exctype, value, tb, file=sys.stderr)
        sys.stderr.write(
            "*" * 60 + "\n" + "Calling MPI_Abort() to shut down every MPI process...\n"
        )
        sys.stderr.flush()
    finally:
        try:
            from mpi4py import MPI

            MPI.COMM_WORLD.Abort(1)
        except Exception:
            sys.stderr.write(
                "chainermn: MPI_Abort failed; the other processes may hang\n"
            )
            sys.stderr.flush()
            raise


def add_hook():
    """Installs the hook as ``sys.excepthook`` (idempotent).

    An uncaught exception then prints its traceback with the rank and calls
    ``MPI_Abort`` on ``MPI.COMM_WORLD``.
    """
    global _previous_hook
    if sys.excepthook is _global_except_hook:
        return
    _previous_hook = sys.excepthook
    sys.excepthook = _global_except_hook


def remove_hook():
    """Restores the ``sys.excepthook`` that :func:`add_hook` replaced."""
    global _previous_hook
    if sys.excepthook is _global_except_hook:
        sys.excepthook = _previous_hook or sys.__excepthook__
    _previous_hook = None


def add_hook_if_enabled():
    """Calls :func:`add_hook` if ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` is set.

    Returns:
        bool: Whether the hook is installed now.
    """
    if os.environ.get("CHAINERMN_FORCE_ABORT_ON_EXCEPTION"):
        add_hook()
    return sys.excepthook is _global_except_hook
