"""A size-1 job whose receive never completes: the timeout, then the abort.

Usage: python timeout_alone.py   (no mpiexec: MPI runs as a singleton)

It catches the CommunicationTimeoutError, prints it, and exits normally:
the abort registered by the failure must still end the job with an error.
"""

import sys

import chainermn


def main():
    comm = chainermn.create_communicator("naive")
    comm.set_config("timeout", 0.5)
    try:
        comm.recv_obj(0, tag=42)
    except chainermn.CommunicationTimeoutError as e:
        print(f"caught {type(e).__module__}.{type(e).__name__}: {e}")
        print(
            f"operation={e.operation} rank={e.rank} size={e.size} timeout={e.timeout}"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
