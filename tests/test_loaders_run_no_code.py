"""No file a user hands the project runs code on load: a crafted payload per loader of pickles or YAML.

Policy files (.pt2) have their own crafted cases in tests/agents/neural/test_pt2.py; the records, the ladder's and
belote-eval's caches are JSON (``json.loads``, nothing to construct)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from agents.errors import CheckpointError
from agents.neural.checkpoint import load_checkpoint
from agents.registry import make_agent
from belote_env.errors import BeloteError
from belote_env.variants import load_variant

REPO = Path(__file__).resolve().parents[1]


class _Payload:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _crafted_checkpoint(path: Path, marker: Path) -> Path:
    buffer = io.BytesIO()
    torch.save({"format": "belote_env.neural/2", "model": {}, "model_config": {}, "x": _Payload(marker)}, buffer)
    path.write_bytes(buffer.getvalue())
    return path


def test_a_crafted_checkpoint_runs_nothing(tmp_path):
    marker = tmp_path / "marker"
    path = _crafted_checkpoint(tmp_path / "evil.pt", marker)
    for load in (load_checkpoint, make_agent):
        with pytest.raises(CheckpointError, match="not a readable PyTorch checkpoint"):
            load(str(path))
    assert not marker.exists()


def test_a_crafted_yaml_runs_nothing(tmp_path):
    marker = tmp_path / "marker"
    tag = f"!!python/object/apply:pathlib.Path.touch [!!python/object/apply:pathlib.Path [{str(marker)!r}]]"
    variant = tmp_path / "evil.yaml"
    variant.write_text(f"bidding: {tag}\n")
    with pytest.raises(BeloteError, match="not valid YAML"):
        load_variant(variant)
    config = tmp_path / "evil_config.yaml"
    config.write_text(f"exp_name: {tag}\n")
    out = subprocess.run([sys.executable, "train.py", "--config", str(config), "--runs-dir", str(tmp_path / "runs")],
                         cwd=REPO, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 2 and out.stderr.startswith("error:") and "not valid YAML" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not marker.exists() and not (tmp_path / "runs").exists()


def test_belote_eval_refuses_a_crafted_policy_in_one_line(tmp_path):
    """The command a researcher runs on a file received from someone else."""
    from agents.exported import export_policy
    from tests.agents.neural import test_pt2 as crafted

    marker = tmp_path / "marker"
    good = export_policy(crafted._net(), tmp_path / "good.pt2")
    changes, _ = crafted._crafted(good, tmp_path, marker)["a pickled weight"]
    path = crafted._rewrite(good, tmp_path / "evil.pt2", **changes)
    out = subprocess.run([sys.executable, "-m", "agents.arena.evaluate", str(path), "-f", "coinche", "-n", "2",
                          "--out", str(tmp_path / "eval")], cwd=REPO, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 2 and "pickle" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not marker.exists()
