"""A dead, failing or silent process ends the job with a clear error, no hang."""

import subprocess
import sys
import time

import pytest

from chainermn import global_except_hook

pytestmark = pytest.mark.mpi

TIMEOUT_TEXT = "did not complete within 3 s on rank 0 of 2"


def test_killed_rank_without_launcher_teardown_times_out(mpirun, tmp_path):
    # With --enable-recovery Open MPI keeps the job running after a process
    # dies, so rank 0 waits in the allreduce: the deadline turns the wait
    # into CommunicationTimeoutError, and the exit into MPI_Abort. (In this
    # mode Open MPI 5's launcher exits with status 0 after MPI_Abort once a
    # process has died, so only the error and the prompt end are checked.)
    if not mpirun.is_open_mpi:
        pytest.skip("--enable-recovery is an Open MPI launcher option")
    result = mpirun(
        2,
        "checkpointing.py",
        tmp_path,
        12,
        "--kill",
        "1:3",
        # Without the except hook: the abort registered by the failure ends
        # the job when rank 0 exits.
        env={"CHAINERMN_TIMEOUT": "3", "CHAINERMN_FORCE_ABORT_ON_EXCEPTION": ""},
        launcher_args=("--enable-recovery",),
    )
    assert result.elapsed < 30, result.describe()
    assert "chainermn.CommunicationTimeoutError" in result.stderr, result.describe()
    assert f"multi_node_mean_grad {TIMEOUT_TEXT}" in result.stderr
    assert "aborts the MPI job" in result.stderr, result.describe()


def test_killed_rank_under_ulfm_is_reported(mpirun, tmp_path):
    # With fault tolerance (ULFM), MPI reports the dead peer; it becomes a
    # CommunicationError naming the operation. (As with --enable-recovery,
    # the launcher then exits with status 0 although the job was aborted.)
    if not mpirun.is_open_mpi:
        pytest.skip("--with-ft ulfm is an Open MPI launcher option")
    result = mpirun(
        2,
        "checkpointing.py",
        tmp_path,
        12,
        "--kill",
        "1:3",
        launcher_args=("--with-ft", "ulfm"),
    )
    assert result.elapsed < 30, result.describe()
    if "FT MPI support" in result.stderr or "not supported" in result.stderr:
        pytest.skip("this Open MPI has no ULFM support")
    assert (
        "chainermn.CommunicationError: multi_node_mean_grad failed on rank 0 of 2"
        in (result.stderr)
    ), result.describe()
    assert "a peer process has died" in result.stderr


def test_exception_with_global_except_hook_aborts_at_once(mpirun, tmp_path):
    result = mpirun(
        2,
        "checkpointing.py",
        tmp_path,
        12,
        "--raise",
        "1:3",
        env={"CHAINERMN_FORCE_ABORT_ON_EXCEPTION": "1", "CHAINERMN_TIMEOUT": "60"},
    )
    assert result.returncode != 0, result.describe()
    assert result.elapsed < 30, result.describe()
    assert "Uncaught exception on rank 1" in result.stderr, result.describe()
    assert "injected failure at iteration 3" in result.stderr


def test_exception_without_hook_times_out_on_the_others(mpirun, tmp_path):
    # The raising rank waits in MPI_Finalize; rank 0 waits for it in the
    # next allreduce until the deadline, then aborts the job.
    result = mpirun(
        2,
        "checkpointing.py",
        tmp_path,
        12,
        "--raise",
        "1:3",
        env={"CHAINERMN_FORCE_ABORT_ON_EXCEPTION": "", "CHAINERMN_TIMEOUT": "3"},
    )
    assert result.returncode != 0, result.describe()
    assert result.elapsed < 30, result.describe()
    assert "injected failure at iteration 3" in result.stderr
    assert f"multi_node_mean_grad {TIMEOUT_TEXT}" in result.stderr, result.describe()


def test_hung_rank_times_out_on_the_others(mpirun):
    # A 4 MiB gradient: the allreduce runs blocking in a worker thread, and
    # the deadline still applies to it.
    result = mpirun(2, "hang.py", env={"CHAINERMN_TIMEOUT": "2"})
    assert result.returncode != 0, result.describe()
    assert result.elapsed < 30, result.describe()
    assert (
        "multi_node_mean_grad did not complete within 2 s on rank 0 of 2"
        in result.stderr
    ), result.describe()


def test_timeout_error_then_abort_at_exit(mpirun, tmp_path):
    # A size-1 job (MPI singleton, no mpiexec) whose receive never matches:
    # the error names the operation, rank and limit; although the program
    # catches it, the job exits with MPI_Abort's error.
    program = mpirun.programs / "timeout_alone.py"
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(program)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
    )
    elapsed = time.monotonic() - start
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert elapsed < 30
    assert (
        "caught chainermn.CommunicationTimeoutError: recv_obj did not complete "
        "within 0.5 s on rank 0 of 1"
    ) in proc.stdout, proc.stdout + proc.stderr
    assert "operation=recv_obj rank=0 size=1 timeout=0.5" in proc.stdout
    assert "aborts the MPI job" in proc.stderr


def test_add_hook_and_remove_hook(monkeypatch):
    previous = sys.excepthook
    try:
        global_except_hook.add_hook()
        installed = sys.excepthook
        assert installed is not previous
        global_except_hook.add_hook()
        assert sys.excepthook is installed
        global_except_hook.remove_hook()
        assert sys.excepthook is previous
        monkeypatch.delenv("CHAINERMN_FORCE_ABORT_ON_EXCEPTION", raising=False)
        assert global_except_hook.add_hook_if_enabled() is False
        monkeypatch.setenv("CHAINERMN_FORCE_ABORT_ON_EXCEPTION", "1")
        assert global_except_hook.add_hook_if_enabled() is True
    finally:
        global_except_hook.remove_hook()
        sys.excepthook = previous
