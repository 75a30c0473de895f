"""Fixtures of the train.py tests: the repository root on sys.path, and a tiny run."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def run_train(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python train.py ARGS`` in a subprocess from the repository root; fails the test on a non-zero exit."""
    proc = subprocess.run([sys.executable, "train.py", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"train.py {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """One finished run of configs/train/tiny.yaml (4 updates, evaluation included): (run dir, stdout)."""
    runs = tmp_path_factory.mktemp("runs")
    proc = run_train("--config", "configs/train/tiny.yaml", "--runs-dir", str(runs), "--run-name", "smoke")
    return runs / "smoke", proc.stdout
