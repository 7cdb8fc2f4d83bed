"""Kill a training process with SIGKILL in the middle of a snapshot write, rerun
it, and check that it resumes to exactly the result of an uninterrupted run."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy
import pytest

from chainer import serializers

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)"
)

SCRIPT = textwrap.dedent(
    """
    import io
    import json
    import os
    import sys
    import time
    import zlib

    import numpy

    import chainer.links as L
    from chainer import iterators
    from chainer import optimizers
    from chainer import serializers
    from chainer import training
    from chainer.training import extensions

    out, kill_at, result = sys.argv[1], int(sys.argv[2]), sys.argv[3]


    class EpochSeededShuffle(iterators.OrderSampler):
        # Each epoch's permutation is seeded by the previous order, which the
        # snapshot restores: a resumed run shuffles as an uninterrupted one.
        def __call__(self, current_order, current_position):
            order = numpy.asarray(current_order, dtype=numpy.int64)
            seed = zlib.crc32(order.tobytes())
            return numpy.random.RandomState(seed).permutation(len(order))


    numpy.random.seed(0)
    rng = numpy.random.RandomState(0)
    x = rng.randn(40, 5).astype(numpy.float32)
    t = rng.randint(0, 3, 40).astype(numpy.int32)
    model = L.Classifier(L.Linear(5, 3))
    optimizer = optimizers.MomentumSGD(lr=0.1).setup(model)
    it = iterators.SerialIterator(
        list(zip(x, t)), 8, order_sampler=EpochSeededShuffle()
    )
    updater = training.updaters.StandardUpdater(it, optimizer)
    trainer = training.Trainer(updater, (30, "iteration"), out=out)


    def savefun(path, target):
        if trainer.updater.iteration == kill_at:
            # Write half of the archive, tell the test, and wait to be killed.
            buf = io.BytesIO()
            serializers.save_npz(buf, target)
            data = buf.getvalue()
            with open(path, "wb") as f:
                f.write(data[: len(data) // 2])
                f.flush()
                os.fsync(f.fileno())
            print("WRITING", path, flush=True)
            time.sleep(600)
        serializers.save_npz(path, target)


    updates = []
    trainer.extend(
        lambda tr: updates.append(tr.updater.iteration), name="count"
    )
    trainer.extend(extensions.ExponentialShift("lr", 0.9), trigger=(3, "iteration"))
    trainer.extend(
        extensions.snapshot(savefun=savefun, n_retains=2, autoload=True),
        trigger=(4, "iteration"),
    )
    trainer.run()
    serializers.save_npz(result + ".npz", model)
    with open(result, "w") as f:
        json.dump(
            {
                "iteration": updater.iteration,
                "epoch": updater.epoch,
                "first": updates[0] if updates else None,
                "lr": optimizer.lr,
            },
            f,
        )
    """
)


def _run(script, out, result):
    proc = subprocess.run(
        [sys.executable, str(script), str(out), "0", str(result)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    with open(result) as f:
        return json.load(f)


def _params(result):
    with numpy.load(str(result) + ".npz") as f:
        return {k: f[k] for k in f.files}


def test_sigkill_during_snapshot_then_rerun_matches_uninterrupted(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    full = _run(script, tmp_path / "full", tmp_path / "full.json")
    assert full["iteration"] == 30

    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(out), "12", str(tmp_path / "never.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        line = proc.stdout.readline()
        assert line.startswith("WRITING "), proc.stderr.read()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        watchdog.cancel()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    partial = line.split(" ", 1)[1].strip()
    assert os.path.dirname(partial) == str(out)
    assert os.path.basename(partial).startswith("tmp.")
    # The kill left the half-written temporary file and no snapshot_iter_12.
    assert sorted(os.listdir(out)) == sorted(
        ["snapshot_iter_4", "snapshot_iter_8", os.path.basename(partial)]
    )
    with pytest.raises(ValueError, match="not a readable NPZ file"):
        serializers.load_npz(partial, {})

    # The rerun starts clearly after the kill (process start times count in
    # clock ticks), so the dead process's temporary file is stale to it.
    time.sleep(0.1)
    resumed = _run(script, out, tmp_path / "resumed.json")
    # Resumed from snapshot_iter_8: the partial file was not loaded.
    assert resumed["first"] == 9
    assert resumed["iteration"] == full["iteration"] == 30
    assert resumed["epoch"] == full["epoch"]
    assert resumed["lr"] == full["lr"]
    expected, actual = (
        _params(tmp_path / "full.json"),
        _params(tmp_path / "resumed.json"),
    )
    assert set(actual) == set(expected)
    for key in expected:
        numpy.testing.assert_array_equal(actual[key], expected[key], err_msg=key)
    # n_retains=2 after the rerun; the rerun's first snapshot removed the
    # dead process's temporary file (stale: older than the rerun, unlocked).
    assert sorted(os.listdir(out)) == ["snapshot_iter_24", "snapshot_iter_28"]
