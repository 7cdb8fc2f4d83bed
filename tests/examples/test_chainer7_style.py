"""A script written the way Chainer 7's own examples are runs unchanged on CPU.

Chainer 7's examples start with ``import chainerx``, take ``--device`` as a
string (``-1``, ``@numpy``, ``@cupy:0``, ``native:0``), and move the model with
``chainer.get_device(spec)``, ``device.use()`` and ``model.to_device(device)``.
The script below is written in that style (our own text, on synthetic data).
"""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import argparse

    import numpy as np

    import chainer
    import chainer.functions as F
    import chainer.links as L
    import chainerx
    from chainer import training
    from chainer.training import extensions


    class MLP(chainer.Chain):
        def __init__(self, n_units, n_out):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(None, n_units)
                self.l2 = L.Linear(None, n_out)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", "-d", type=str, default="-1")
        parser.add_argument("--out", "-o", default="result")
        args = parser.parse_args()

        device = chainer.get_device(args.device)
        print("Device:", device, "chainerx available:", chainerx.is_available())

        model = L.Classifier(MLP(16, 3))
        model.to_device(device)
        device.use()

        optimizer = chainer.optimizers.Adam()
        optimizer.setup(model)

        rng = np.random.RandomState(0)
        x = rng.standard_normal((60, 5)).astype(np.float32)
        t = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0).astype(np.int32)
        train = chainer.datasets.TupleDataset(x[:48], t[:48])
        test = chainer.datasets.TupleDataset(x[48:], t[48:])
        train_iter = chainer.iterators.SerialIterator(train, 12)
        test_iter = chainer.iterators.SerialIterator(
            test, 12, repeat=False, shuffle=False
        )

        updater = training.updaters.StandardUpdater(
            train_iter, optimizer, device=device
        )
        trainer = training.Trainer(updater, (2, "epoch"), out=args.out)
        trainer.extend(extensions.Evaluator(test_iter, model, device=device))
        if device.xp is not chainerx:
            trainer.extend(extensions.DumpGraph("main/loss"))
        trainer.extend(extensions.LogReport())
        trainer.extend(
            extensions.PrintReport(["epoch", "main/loss", "validation/main/accuracy"])
        )
        trainer.run()


    if __name__ == "__main__":
        main()
    """
)


@pytest.mark.parametrize("spec", ["-1", "@numpy"])
def test_chainer7_style_script_runs_on_cpu(tmp_path, spec):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    result = subprocess.run(
        [sys.executable, str(script), "--device", spec, "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "chainerx available: False" in result.stdout
    assert (tmp_path / "out" / "log").exists()
    assert (tmp_path / "out" / "cg.dot").exists()


def test_chainerx_native_device_is_a_clear_error(tmp_path):
    code = "import chainer, chainerx\nchainer.get_device('native:0')\n"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode != 0
    assert "ChainerX" in result.stderr or "chainerx" in result.stderr
