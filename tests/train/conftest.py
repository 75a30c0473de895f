"""Fixtures of the train.py tests: a tiny finished run."""

import pytest

from .helpers import run_train


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """One finished run of configs/train/tiny.yaml (4 updates, evaluation included): (run dir, stdout)."""
    runs = tmp_path_factory.mktemp("runs")
    proc = run_train("--config", "configs/train/tiny.yaml", "--runs-dir", str(runs), "--run-name", "smoke")
    return runs / "smoke", proc.stdout
