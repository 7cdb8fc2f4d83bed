"""examples/demo_core.py: the core-only MLP fits the sine curve."""

import re


def test_fits_and_round_trips_the_model(run_script):
    proc = run_script("demo_core.py", "--epochs", "20")
    assert proc.returncode == 0, proc.stderr
    mse = [float(m) for m in re.findall(r"test mse ([0-9.]+)", proc.stdout)]
    assert len(mse) == 2  # epochs 1 and 20
    assert mse[-1] < 0.5 * mse[0]
    assert "predictions identical = True" in proc.stdout
