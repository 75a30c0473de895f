"""A run folder belongs to one train.py process: a second one on the same run name is refused with one
``error:`` line before it writes anything; the lock dies with its process; files are written under temporary
names unique to the process, never left behind."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agents.files import replacing
from agents.training.errors import RunInUseError
from agents.training.runs import claim_run

from .helpers import REPO, run_train_here, train_command

TINY = ["--config", "configs/train/tiny.yaml", "--total-timesteps", "512", "--eval-every", "0",
        "--final-eval-pairs", "0"]
HOLD = "import sys, time; from agents.training.runs import claim_run\n" \
       "with claim_run(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(120)\n"


def test_a_held_run_folder_is_refused_in_process(tmp_path):
    with claim_run(tmp_path / "r") as folder:
        assert folder == tmp_path / "r"
        with pytest.raises(RunInUseError, match=r"run 'r' .* is in use by train.py pid \d+ on .*choose another"):
            with claim_run(tmp_path / "r"):
                pass
    with claim_run(tmp_path / "r"):  # released when the block ends
        pass


def test_a_second_trainer_is_refused_before_writing_and_a_killed_holder_frees_the_run(tmp_path, capsys):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "same")], cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        status, _, err = train_command(*TINY, "--runs-dir", tmp_path, "--run-name", "same", capsys=capsys)
        assert status == 2
        [line] = err.splitlines()
        assert line.startswith(f"error: run 'same' ({tmp_path / 'same'}) is in use by train.py pid {holder.pid} on ")
        assert [p.name for p in (tmp_path / "same").iterdir()] == ["run.lock"]  # nothing written
    finally:
        holder.kill()  # SIGKILL: the system releases the lock
        holder.wait()
    out = run_train_here(*TINY, "--runs-dir", tmp_path, "--run-name", "same")
    assert "checkpoint" in out
    assert (tmp_path / "same" / "checkpoints" / "latest.pt").is_file()
    assert not list((tmp_path / "same").rglob("*.tmp"))


def test_a_file_is_replaced_whole_or_not_at_all(tmp_path):
    path = tmp_path / "latest.pt"
    path.write_text("old")
    with replacing(path) as a, replacing(path) as b:  # two writers of one file: two temporary names
        assert a != b and a.parent == b.parent == tmp_path and a.name.endswith(".tmp")
        a.write_text("first")
        b.write_text("second")
    assert path.read_text() == "first"  # the outer block ends last, its file wins
    with pytest.raises(OSError), replacing(path) as tmp:
        tmp.write_text("half")
        raise OSError(28, "No space left on device")
    assert path.read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.pt"]
