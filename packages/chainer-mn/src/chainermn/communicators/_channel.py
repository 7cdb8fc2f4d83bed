"""MPI transfers with a deadline: the layer every communicator method uses.

Every operation is started non-blocking (``Iallreduce``, ``Ibcast``,
``Isend``...) and completed by polling ``Test`` until a deadline, so that a
peer that died or hangs turns into :class:`CommunicationTimeoutError` instead
of a process blocked forever. Open MPI progresses a request only inside MPI
calls, so the poll spins (yielding the CPU now and then) while the wait is
short, and naps between polls once it has lasted long enough that the peer is
clearly busy elsewhere.

Open MPI's non-blocking allreduce and broadcast (libnbc) move large messages
at half the speed of the blocking ones (its tuned algorithms), so from
``THREAD_BYTES`` up a channel runs the blocking call in a worker thread and
waits for it with the same deadline (this needs ``MPI_THREAD_MULTIPLE``, which
mpi4py asks for; without it the non-blocking calls are used).

A channel made with ``blocking=True`` uses the blocking MPI calls directly: the
double-buffering optimizer runs one in a background thread, where a blocking
call releases the GIL for its whole duration; the deadline is then enforced by
the thread that waits for the background operation.

Transfers whose size is not known to the receiver (pickled objects, arrays of
any shape) are sent as bytes. Messages above ``max_bytes`` (MPI counts are C
``int``) are split: a collective of variable-sized parts runs in rounds, each
moving at most ``max_bytes // size`` bytes of every part.
"""

from __future__ import annotations

import functools
import io
import math
import os
import pickle
import queue
import threading
import time

import numpy

from chainermn import _errors

# MPI counts are C ints.
MAX_MESSAGE_BYTES = 2**31 - 1
# Polls spin (with an occasional sched_yield) for this long, then nap.
_SPIN_SECONDS = 1.0
_NAP_SECONDS = 0.0005
# Allreduces and broadcasts from this size on run blocking, in a worker thread.
THREAD_BYTES = 256 * 1024
_DEFAULT_TIMEOUT = 600.0


def default_timeout():
    """Returns the timeout in seconds given by ``CHAINERMN_TIMEOUT`` (or 600)."""
    value = os.environ.get("CHAINERMN_TIMEOUT", "").strip()
    if not value:
        return _DEFAULT_TIMEOUT
    try:
        return check_timeout(float(value))
    except ValueError:
        raise ValueError(
            "CHAINERMN_TIMEOUT must be a positive number of seconds (or 'inf'), "
            f"got {value!r}"
        ) from None


def check_timeout(value):
    """Returns ``value`` as a positive float of seconds, or raises ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"timeout must be a number of seconds, not {value!r}")
    seconds = float(value)
    if not seconds > 0:
        raise ValueError(f"timeout must be positive (seconds), got {value!r}")
    return seconds


def dumps(obj):
    """Pickles ``obj`` into a writable uint8 array (no copy of the pickle)."""
    f = io.BytesIO()
    pickle.dump(obj, f, pickle.HIGHEST_PROTOCOL)
    return numpy.frombuffer(f.getbuffer(), numpy.uint8)


def loads(buf):
    """Unpickles an object from a uint8 array."""
    return pickle.loads(memoryview(buf))


def byte_view(array):
    """Returns a C-contiguous array's memory as a 1-d uint8 array (no copy)."""
    return array.reshape(-1).view(numpy.uint8)


class Channel:
    """An mpi4py communicator, its owner's rank and size, and deadline waits.

    Args:
        mpi_comm: The ``mpi4py.MPI.Comm``.
        get_timeout (callable): Returns the current timeout in seconds.
        max_bytes (callable): Returns the largest message size in bytes.
        blocking (bool): Use blocking MPI calls (for a background thread).
    """

    def __init__(self, mpi_comm, get_timeout, max_bytes, blocking=False):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = mpi_comm
        self.rank = mpi_comm.Get_rank()
        self.size = mpi_comm.Get_size()
        self._get_timeout = get_timeout
        self._max_bytes = max_bytes
        self.blocking = blocking
        self._use_worker = not blocking and MPI.Query_thread() >= MPI.THREAD_MULTIPLE
        self._worker = None

    def timeout(self):
        """Returns the current timeout of an operation, in seconds."""
        return self._get_timeout()

    # -- completion ------------------------------------------------------
    def wait(self, requests, op, status=None):
        """Completes ``requests`` (one request or a list) before the deadline.

        With one request, ``status`` (an ``MPI.Status``) receives its status.
        """
        MPI = self.MPI
        if isinstance(requests, MPI.Request):
            request = requests
            test = request.Test if status is None else (lambda: request.Test(status))
        else:
            if not requests:
                return
            test = lambda: MPI.Request.Testall(requests)  # noqa: E731
        with self.errors(op):
            if test():
                return
            timeout = self._get_timeout()
            start = time.monotonic()
            deadline = start + timeout
            spin_until = start + _SPIN_SECONDS
            while True:
                for _ in range(64):
                    if test():
                        return
                now = time.monotonic()
                if now > deadline:
                    raise self.timeout_error(op, timeout)
                if now < spin_until:
                    os.sched_yield()
                else:
                    time.sleep(_NAP_SECONDS)

    def _run(self, blocking_call, start, nbytes, op):
        # One MPI operation: ``blocking_call()`` directly on a blocking
        # channel or, when large, in the worker thread; otherwise ``start()``
        # gives a request polled with the deadline.
        if self.blocking:
            with self.errors(op):
                blocking_call()
        elif self._use_worker and nbytes >= THREAD_BYTES:
            self._in_worker(blocking_call, op)
        else:
            with self.errors(op):
                request = start()
            self.wait(request, op)

    def _in_worker(self, call, op):
        if self._worker is None:
            self._worker = _Worker()
        done, failure = self._worker.submit(call)
        timeout = self._get_timeout()
        if not done.wait(timeout):
            raise self.timeout_error(op, timeout)
        if failure:
            with self.errors(op):
                raise failure[0]

    def errors(self, op):
        """Context manager turning ``MPI.Exception`` into CommunicationError."""
        return _MPIErrors(self, op)

    def timeout_error(self, op, timeout):
        """Returns the CommunicationTimeoutError of ``op`` (and arms the abort)."""
        _errors.abort_job_at_exit()
        return _errors.CommunicationTimeoutError(
            f"{op} did not complete within {timeout:g} s on rank {self.rank} of "
            f"{self.size}: a peer process has died, hangs, or is inside another "
            "operation. The limit is CHAINERMN_TIMEOUT or "
            "comm.set_config('timeout', seconds); the MPI job is aborted when "
            "this process exits.",
            op,
            self.rank,
            self.size,
            timeout,
        )

    # -- arrays ----------------------------------------------------------
    def allreduce_inplace(self, buf, op, mpi_op=None):
        """Sums (or ``mpi_op``) a contiguous 1-d array over ranks, in place.

        Float16 arrays are summed in float32 where the MPI library has no
        16-bit float type (Open MPI before 5).
        """
        MPI = self.MPI
        if buf.dtype == numpy.float16 and not _has_float16(MPI):
            wide = buf.astype(numpy.float32)
            self.allreduce_inplace(wide, op, mpi_op)
            buf[...] = wide
            return
        mpi_op = MPI.SUM if mpi_op is None else mpi_op
        comm = self.comm
        for part in self._pieces(buf):
            self._run(
                lambda part=part: comm.Allreduce(MPI.IN_PLACE, part, op=mpi_op),
                lambda part=part: comm.Iallreduce(MPI.IN_PLACE, part, op=mpi_op),
                part.nbytes,
                op,
            )

    def bcast_inplace(self, buf, root, op, max_bytes=None):
        """Broadcasts a contiguous 1-d array from ``root``, in place."""
        comm = self.comm
        # A broadcast moves bytes: no MPI datatype is needed (Open MPI 4 has
        # none for float16).
        buf = byte_view(buf)
        for part in self._pieces(buf, max_bytes):
            self._run(
                lambda part=part: comm.Bcast(part, root=root),
                lambda part=part: comm.Ibcast(part, root=root),
                part.nbytes,
                op,
            )

    def _pieces(self, buf, max_bytes=None):
        limit = self._max_bytes() if max_bytes is None else max_bytes
        step = max(1, limit // max(buf.itemsize, 1))
        if buf.size <= step:
            yield buf
            return
        for start in range(0, buf.size, step):
            yield buf[start : start + step]

    def allgather_ints(self, values, op):
        """Allgathers a fixed number of int64 values per rank: ``(size, n)``."""
        mine = numpy.ascontiguousarray(values, dtype=numpy.int64).reshape(-1)
        out = numpy.empty((self.size, mine.size), numpy.int64)
        with self.errors(op):
            request = self.comm.Iallgather(mine, out)
        self.wait(request, op)
        return out

    # -- bytes: point to point -------------------------------------------
    def send_bytes(self, payload, dest, tag, op):
        """Sends a uint8 array: its length, then its chunks."""
        requests = []
        header = numpy.array([payload.size], numpy.int64)
        with self.errors(op):
            requests.append(self.comm.Isend(header, dest=dest, tag=tag))
            for piece in self._pieces(payload):
                if piece.size:
                    requests.append(
                        self.comm.Isend([piece, self.MPI.BYTE], dest=dest, tag=tag)
                    )
        self.wait(requests, op)

    def recv_bytes(self, source, tag, op, status=None):
        """Receives a uint8 array sent by :meth:`send_bytes`.

        ``source`` and ``tag`` may be wildcards; the chunks are then taken
        from the sender and tag of the length message.
        """
        MPI = self.MPI
        header = numpy.empty(1, numpy.int64)
        st = MPI.Status() if status is None else status
        with self.errors(op):
            request = self.comm.Irecv(header, source=source, tag=tag)
        self.wait(request, op, st)
        source, tag = st.Get_source(), st.Get_tag()
        payload = numpy.empty(int(header[0]), numpy.uint8)
        requests = []
        with self.errors(op):
            for piece in self._pieces(payload):
                if piece.size:
                    requests.append(
                        self.comm.Irecv([piece, MPI.BYTE], source=source, tag=tag)
                    )
        self.wait(requests, op)
        return payload

    # -- bytes: collectives ----------------------------------------------
    def bcast_bytes(self, payload, root, op, max_bytes=None):
        """Broadcasts a uint8 array from ``root``; returns it on every rank."""
        header = numpy.empty(1, numpy.int64)
        if self.rank == root:
            header[0] = payload.size
        self.bcast_inplace(header, root, op)
        if self.rank != root:
            payload = numpy.empty(int(header[0]), numpy.uint8)
        if payload.size:
            self.bcast_inplace(payload, root, op, max_bytes)
        return payload

    def gatherv_bytes(self, payload, root, op):
        """Gathers uint8 arrays of any sizes to ``root`` (list there, else None)."""
        lengths = self.allgather_ints([payload.size], op)[:, 0]
        if self._n_rounds(lengths) == 1:
            recv = None
            if self.rank == root:
                buf, displs = _round_buffer(lengths)
                recv = [buf, (lengths, displs), self.MPI.BYTE]
            with self.errors(op):
                request = self.comm.Igatherv([payload, self.MPI.BYTE], recv, root=root)
            self.wait(request, op)
            return _split(buf, displs, lengths) if self.rank == root else None
        out = (
            [numpy.empty(n, numpy.uint8) for n in lengths]
            if self.rank == root
            else None
        )
        for offset, counts in self._rounds(lengths):
            piece = payload[offset : offset + counts[self.rank]]
            recv = None
            if self.rank == root:
                buf, displs = _round_buffer(counts)
                recv = [buf, (counts, displs), self.MPI.BYTE]
            with self.errors(op):
                request = self.comm.Igatherv([piece, self.MPI.BYTE], recv, root=root)
            self.wait(request, op)
            if self.rank == root:
                _scatter_round(buf, displs, counts, out, offset)
        return out

    def allgatherv_bytes(self, payload, op):
        """Gathers uint8 arrays of any sizes to every rank (a list)."""
        lengths = self.allgather_ints([payload.size], op)[:, 0]
        if self._n_rounds(lengths) == 1:
            buf, displs = _round_buffer(lengths)
            with self.errors(op):
                request = self.comm.Iallgatherv(
                    [payload, self.MPI.BYTE], [buf, (lengths, displs), self.MPI.BYTE]
                )
            self.wait(request, op)
            return _split(buf, displs, lengths)
        out = [numpy.empty(n, numpy.uint8) for n in lengths]
        for offset, counts in self._rounds(lengths):
            piece = payload[offset : offset + counts[self.rank]]
            buf, displs = _round_buffer(counts)
            with self.errors(op):
                request = self.comm.Iallgatherv(
                    [piece, self.MPI.BYTE], [buf, (counts, displs), self.MPI.BYTE]
                )
            self.wait(request, op)
            _scatter_round(buf, displs, counts, out, offset)
        return out

    def scatterv_bytes(self, payloads, root, op):
        """Scatters ``payloads[i]`` (uint8 arrays on ``root``) to rank ``i``."""
        lengths = numpy.empty(self.size, numpy.int64)
        if self.rank == root:
            lengths[:] = [p.size for p in payloads]
        self.bcast_inplace(lengths, root, op)
        out = numpy.empty(int(lengths[self.rank]), numpy.uint8)
        for offset, counts in self._rounds(lengths):
            send = None
            if self.rank == root:
                buf, displs = _round_buffer(counts)
                for p, d, n in zip(payloads, displs, counts, strict=True):
                    buf[d : d + n] = p[offset : offset + n]
                send = [buf, (counts, displs), self.MPI.BYTE]
            mine = out[offset : offset + counts[self.rank]]
            with self.errors(op):
                request = self.comm.Iscatterv(send, [mine, self.MPI.BYTE], root=root)
            self.wait(request, op)
        return out

    def alltoallv_bytes(self, payloads, op):
        """Sends ``payloads[j]`` to rank ``j``; returns what each rank sent here."""
        MPI = self.MPI
        send_lengths = numpy.array([p.size for p in payloads], numpy.int64)
        recv_lengths = numpy.empty(self.size, numpy.int64)
        with self.errors(op):
            request = self.comm.Ialltoall(send_lengths, recv_lengths)
        self.wait(request, op)
        longest = numpy.array([send_lengths.max(initial=0)], numpy.int64)
        self.allreduce_inplace(longest, op, MPI.MAX)
        chunk = max(1, self._max_bytes() // self.size)
        n_rounds = max(1, math.ceil(int(longest[0]) / chunk))
        out = [numpy.empty(n, numpy.uint8) for n in recv_lengths]
        for r in range(n_rounds):
            offset = r * chunk
            scounts = numpy.clip(send_lengths - offset, 0, chunk)
            rcounts = numpy.clip(recv_lengths - offset, 0, chunk)
            sbuf, sdispls = _round_buffer(scounts)
            for p, d, n in zip(payloads, sdispls, scounts, strict=True):
                sbuf[d : d + n] = p[offset : offset + n]
            rbuf, rdispls = _round_buffer(rcounts)
            with self.errors(op):
                request = self.comm.Ialltoallv(
                    [sbuf, (scounts, sdispls), MPI.BYTE],
                    [rbuf, (rcounts, rdispls), MPI.BYTE],
                )
            self.wait(request, op)
            _scatter_round(rbuf, rdispls, rcounts, out, offset)
        return out

    def barrier(self, op):
        """Waits until every rank reaches it."""
        with self.errors(op):
            request = self.comm.Ibarrier()
        self.wait(request, op)

    def _n_rounds(self, lengths):
        # Rounds of a v-collective: each moves at most ``chunk`` bytes of
        # every part, so that one call's total fits MPI's int counts.
        chunk = max(1, self._max_bytes() // self.size)
        return max(1, math.ceil(int(numpy.max(lengths, initial=0)) / chunk))

    def _rounds(self, lengths):
        chunk = max(1, self._max_bytes() // self.size)
        lengths = numpy.asarray(lengths, numpy.int64)
        for r in range(self._n_rounds(lengths)):
            offset = r * chunk
            yield offset, numpy.clip(lengths - offset, 0, chunk)


class _Worker:
    # A daemon thread running blocking MPI calls one at a time; a call stuck
    # in MPI (a dead peer) never blocks interpreter exit.

    def __init__(self):
        self._queue = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="chainermn-mpi", daemon=True).start()

    def submit(self, call):
        done = threading.Event()
        failure = []
        self._queue.put((call, done, failure))
        return done, failure

    def _loop(self):
        while True:
            call, done, failure = self._queue.get()
            try:
                call()
            except BaseException as e:
                failure.append(e)
            finally:
                done.set()


class _MPIErrors:
    def __init__(self, channel, op):
        self._channel = channel
        self._op = op

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or not isinstance(exc, self._channel.MPI.Exception):
            return False
        channel = self._channel
        _errors.abort_job_at_exit()
        text = exc.Get_error_string()
        hint = ""
        if "PROC_FAILED" in text or "Process Failure" in text:
            hint = " (a peer process has died)"
        raise _errors.CommunicationError(
            f"{self._op} failed on rank {channel.rank} of {channel.size}: "
            f"{text}{hint}; the MPI job is aborted when this process exits",
            self._op,
            channel.rank,
            channel.size,
        ) from exc


@functools.cache
def _has_float16(MPI):
    # Whether the MPI library sums NumPy's float16 (mpi4py maps it to the
    # library's 16-bit float type, which Open MPI 4 lacks): tried once on
    # this process alone.
    buf = numpy.ones(1, numpy.float16)
    try:
        MPI.COMM_SELF.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)
    except (KeyError, ValueError, MPI.Exception):
        return False
    return bool(buf[0] == 1)


def _round_buffer(counts):
    counts = numpy.asarray(counts, numpy.int64)
    displs = numpy.zeros(len(counts), numpy.int64)
    numpy.cumsum(counts[:-1], out=displs[1:])
    return numpy.empty(int(counts.sum()), numpy.uint8), displs


def _split(buf, displs, counts):
    return [buf[d : d + n] for d, n in zip(displs, counts, strict=True)]


def _scatter_round(buf, displs, counts, out, offset):
    for target, d, n in zip(out, displs, counts, strict=True):
        if n:
            target[offset : offset + n] = buf[d : d + n]
