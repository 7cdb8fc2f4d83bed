"""The multi-node checkpointer: snapshots, collection, resume after a kill."""

import os

import numpy
import pytest
from numpy import testing

import chainer
import chainermn
from chainer import iterators
from chainer import optimizers
from chainer import training

pytestmark = pytest.mark.mpi


def _params(path):
    with numpy.load(path) as f:
        return {k: f[k] for k in f.files}


def test_resume_after_a_rank_is_killed(mpirun, tmp_path):
    # An uninterrupted run of 12 iterations with a snapshot every 2 (the
    # newest 2 complete ones kept)...
    ref = tmp_path / "ref"
    result = mpirun(2, "checkpointing.py", ref, 12)
    records = result.assert_all_passed(2)
    assert records[0]["values"]["loaded"] is None
    assert records[0]["values"]["files"] == [
        "job.0.10",
        "job.0.12",
        "job.1.10",
        "job.1.12",
    ]

    # ...then one where rank 1 dies by SIGKILL after iteration 7: mpiexec
    # must end the job with an error instead of leaving rank 0 blocked.
    run = tmp_path / "run"
    killed = mpirun(2, "checkpointing.py", run, 12, "--kill", "1:7", timeout=60)
    assert killed.returncode != 0, killed.describe()
    assert killed.elapsed < 30, killed.describe()
    if mpirun.is_open_mpi:
        assert "signal 9" in killed.stderr, killed.describe()
    files = sorted(os.listdir(run))
    assert "job.0.6" in files, files
    assert "job.1.6" in files, files
    assert "final.npz" not in files

    # Rank 1's newest snapshot is lost as well: the relaunch must agree on
    # the newest snapshot both ranks have (iteration 4), resume from it, and
    # end exactly where the uninterrupted run did.
    os.remove(run / "job.1.6")
    resumed = mpirun(2, "checkpointing.py", run, 12).assert_all_passed(2)
    assert resumed[0]["values"]["loaded"] == 4
    assert resumed[1]["values"]["loaded"] == 4
    assert resumed[0]["values"]["iteration"] == 12
    expect, got = _params(ref / "final.npz"), _params(run / "final.npz")
    for name in expect:
        testing.assert_array_equal(got[name], expect[name], err_msg=name)


class _Model(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.w = chainer.Parameter(numpy.zeros(2, numpy.float32))

    def forward(self, x):
        return chainer.functions.sum(self.w * x)


def _trainer(comm, out, stop):
    model = _Model()
    opt = chainermn.create_multi_node_optimizer(optimizers.SGD(lr=1.0), comm)
    opt.setup(model)
    data = [numpy.ones(2, numpy.float32)] * 4
    it = iterators.SerialIterator(data, 1, shuffle=False)
    updater = training.updaters.StandardUpdater(it, opt)
    return training.Trainer(updater, (stop, "iteration"), out=out), opt, model


def test_checkpointer_on_one_process(comm, tmp_path):
    trainer, opt, model = _trainer(comm, tmp_path, 7)
    cp = chainermn.create_multi_node_checkpointer(
        "one", comm, cp_interval=2, gc_interval=3
    )
    assert cp.get_stats() == "No stats available"
    assert cp.maybe_load(trainer, opt) is None
    trainer.extend(cp, trigger=(1, "iteration"))
    trainer.run()
    # Collections after the 3rd and 6th snapshot and at the end keep the
    # newest two.
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("one.")) == [
        "one.0.6",
        "one.0.7",
    ]
    assert cp.get_stats().startswith("Snapshot duration stats (sec): avg=")

    trainer2, opt2, model2 = _trainer(comm, tmp_path, 9)
    cp2 = chainermn.create_multi_node_checkpointer("one", comm)
    assert cp2.maybe_load(trainer2, opt2) == 7
    assert trainer2.updater.iteration == 7
    testing.assert_array_equal(model2.w.array, model.w.array)
    trainer2.run()
    # Resumed without a broadcast-only step: two real updates.
    assert opt2.t == opt.t + 2


def test_checkpointer_path_and_arguments(comm, tmp_path):
    with pytest.raises(ValueError, match="cp_interval"):
        chainermn.create_multi_node_checkpointer("x", comm, cp_interval=0)
    with pytest.raises(ValueError, match="name"):
        chainermn.create_multi_node_checkpointer("", comm)
    target = tmp_path / "snapshots"
    cp = chainermn.create_multi_node_checkpointer("x", comm, path=target)
    assert target.is_dir()
    trainer, _, _ = _trainer(comm, tmp_path / "out", 2)
    cp.save(trainer, 5)
    assert os.listdir(target) == ["x.0.5"]
    assert cp.maybe_load(trainer) == 5


def test_failed_training_skips_the_collection(comm, tmp_path):
    trainer, _, _ = _trainer(comm, tmp_path, 5)
    cp = chainermn.create_multi_node_checkpointer("f", comm, cp_interval=1)
    trainer.extend(cp, trigger=(1, "iteration"))

    def fail(trainer):
        if trainer.updater.iteration == 3:
            raise RuntimeError("stop here")

    trainer.extend(fail, trigger=(1, "iteration"), priority=-1000)
    with pytest.raises(RuntimeError, match="stop here"):
        trainer.run(show_loop_exception_msg=False)
    assert sorted(os.listdir(tmp_path)) == ["f.0.1", "f.0.2", "f.0.3"]
