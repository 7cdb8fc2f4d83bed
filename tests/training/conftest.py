"""Training tests run in a fresh working directory each.

Trainers write to ``out='result'`` relative to the working directory by
default; each test gets its own so no test leaves files in the checkout.
"""

import pytest


@pytest.fixture(autouse=True)
def _run_in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
