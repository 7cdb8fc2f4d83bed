"""The GPU communicators (NCCL): errors without CuPy or a GPU, and real runs.

The runs (marked gpu) launch ``mpiexec`` with one process per GPU. NCCL
refuses two processes of one group on the same GPU, so on a machine with one
GPU the NCCL groups are of one process: 1-process runs of every
communicator, and 2-process runs of the hierarchical family with each
process counted as a node of its own (``--node-per-rank``), where the
inter-node sums go through MPI. The 2-GPU runs skip below two GPUs.
"""

import sys
import types

import pytest

import chainermn

GPU_NAMES = (
    "pure_nccl",
    "hierarchical",
    "two_dimensional",
    "single_node",
    "non_cuda_aware",
)
HIERARCHICAL = ("hierarchical", "two_dimensional", "non_cuda_aware")
# The launched programs load the installed plugins (chainer-cuda among them)
# as a user's script does; the test session itself runs with autoloading off.
AUTOLOAD = {"CHAINER_DISABLE_PLUGIN_AUTOLOAD": "0"}


@pytest.mark.parametrize("name", GPU_NAMES)
def test_without_chainer_cuda_the_error_says_so(name, monkeypatch):
    monkeypatch.setitem(sys.modules, "chainer_cuda", None)
    with pytest.raises(ImportError, match="chainer-cuda is not installed") as info:
        chainermn.create_communicator(name)
    message = str(info.value)
    assert repr(name) in message
    assert "'flat'" in message


def _no_cuda(monkeypatch, reason):
    # chainer-cuda's probe, as it ends without CuPy or without a driver.
    import chainer_cuda

    monkeypatch.setattr(chainer_cuda, "_probe_result", (None, reason))


def test_without_cupy_the_error_says_so(monkeypatch):
    _no_cuda(monkeypatch, "CuPy is not installed; install it with pip")
    with pytest.raises(RuntimeError, match="CuPy is not installed") as info:
        chainermn.create_communicator("pure_nccl")
    assert "'flat'" in str(info.value)


def test_without_a_driver_the_error_says_so(monkeypatch):
    _no_cuda(monkeypatch, "no CUDA device is usable: cudaErrorNoDevice")
    with pytest.raises(RuntimeError, match="'hierarchical'.*cudaErrorNoDevice"):
        chainermn.create_communicator("hierarchical")


def test_without_nccl_the_error_says_so(monkeypatch):
    import chainer_cuda

    monkeypatch.setattr(chainer_cuda, "_probe_result", (types.ModuleType("cupy"), None))
    monkeypatch.setitem(sys.modules, "cupy.cuda.nccl", None)
    with pytest.raises(RuntimeError, match="cannot use NCCL"):
        chainermn.create_communicator("two_dimensional")


def test_nccl_backend_needs_an_nccl_communicator(comm):
    with pytest.raises(ValueError, match="pure_nccl"):
        chainermn.links.MultiNodeBatchNormalization(
            3, comm, communication_backend="nccl"
        )
    link = chainermn.links.MultiNodeBatchNormalization(3, comm)
    assert link._communication_backend == "mpi"


def _gpu_count():
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


@pytest.mark.gpu
@pytest.mark.mpi
@pytest.mark.parametrize("name", GPU_NAMES)
def test_methods_on_one_process(mpirun, name):
    records = mpirun(
        1, "gpu_comm.py", name, timeout=120, env=AUTOLOAD
    ).assert_all_passed(1)
    assert records[0]["values"]["topology"] == [0, 1, 0, 1]
    expected = "nccl" if name in ("pure_nccl", "single_node") else "mpi"
    assert records[0]["values"]["mnbn backend"] == expected


@pytest.mark.gpu
@pytest.mark.mpi
@pytest.mark.parametrize("name", HIERARCHICAL)
@pytest.mark.parametrize("n", [2, 3])
def test_methods_across_nodes(mpirun, name, n):
    records = mpirun(
        n, "gpu_comm.py", name, "--node-per-rank", timeout=180, env=AUTOLOAD
    ).assert_all_passed(n)
    for rank, record in records.items():
        assert record["values"]["topology"] == [0, 1, rank, n]


@pytest.mark.gpu
@pytest.mark.mpi
@pytest.mark.parametrize("name", ["pure_nccl", "single_node"])
def test_methods_on_two_gpus(mpirun, name):
    if _gpu_count() < 2:
        pytest.skip("needs 2 GPUs: NCCL takes one GPU per process")
    mpirun(2, "gpu_comm.py", name, timeout=180, env=AUTOLOAD).assert_all_passed(2)


@pytest.mark.gpu
@pytest.mark.mpi
@pytest.mark.parametrize("name", GPU_NAMES)
def test_training_equals_one_process(mpirun, name):
    # programs/equivalence.py with the model on the GPU: SGD and Adam, and
    # double buffering where the communicator has it.
    records = mpirun(
        1, "equivalence.py", name, "@cupy:intra", timeout=180, env=AUTOLOAD
    ).assert_all_passed(1)
    passed = set(records[0]["passed"])
    if name in ("pure_nccl", "single_node"):
        assert "adam-double_buffering:equals one process" in passed
    else:
        assert "adam-double_buffering:refused" in passed


@pytest.mark.gpu
@pytest.mark.mpi
@pytest.mark.parametrize("name", HIERARCHICAL)
def test_training_across_nodes_equals_one_process(mpirun, name):
    records = mpirun(
        2,
        "equivalence.py",
        name,
        "@cupy:intra",
        "--node-per-rank",
        timeout=180,
        env=AUTOLOAD,
    ).assert_all_passed(2)
    assert "sgd:equals one process" in records[0]["passed"]
    assert records[0]["values"]["inter_size"] == 2


@pytest.mark.gpu
@pytest.mark.mpi
def test_pure_nccl_training_on_two_gpus(mpirun):
    if _gpu_count() < 2:
        pytest.skip("needs 2 GPUs: NCCL takes one GPU per process")
    mpirun(
        2, "equivalence.py", "pure_nccl", "@cupy:intra", timeout=180, env=AUTOLOAD
    ).assert_all_passed(2)


class _Event:
    def __init__(self, done_after):
        self._polls = done_after

    @property
    def done(self):
        # Done once polled ``done_after`` times (never when None).
        if self._polls is None:
            return False
        self._polls -= 1
        return self._polls < 0


class _Stream:
    def __init__(self, done_after):
        self._done_after = done_after

    def record(self):
        return _Event(self._done_after)


class _NcclComm:
    def __init__(self):
        self.aborted = False

    def abort(self):
        self.aborted = True


def _group(comm):
    # An NcclGroup around a stand-in NCCL communicator, over the MPI channel
    # of a CPU communicator: its deadline logic needs no GPU.
    from chainermn.communicators import _nccl

    group = object.__new__(_nccl.NcclGroup)
    group._channel = comm._channel
    group._comm = _NcclComm()
    group.rank, group.size, group.device_id = 0, 1, 0
    return group


def test_nccl_wait_returns_once_the_stream_is_done(comm):
    group = _group(comm)
    nccl_comm = group._comm
    group.wait(_Stream(done_after=3), "multi_node_mean_grad")
    assert not nccl_comm.aborted


def test_nccl_wait_times_out_and_aborts_the_nccl_communicator(comm, monkeypatch):
    from chainermn import _errors

    # The timeout arms an MPI_Abort at exit, which must not end pytest.
    monkeypatch.setattr(_errors, "abort_job_at_exit", lambda: None)
    group = _group(comm)
    nccl_comm = group._comm
    old = comm.get_config("timeout")
    comm.set_config("timeout", 0.2)
    try:
        with pytest.raises(
            chainermn.CommunicationTimeoutError, match="multi_node_mean_grad"
        ) as info:
            group.wait(_Stream(done_after=None), "multi_node_mean_grad")
    finally:
        comm.set_config("timeout", old)
    assert info.value.timeout == 0.2
    assert nccl_comm.aborted
    assert group._comm is None
