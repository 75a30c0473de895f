"""Kill a run after its first checkpoint, resume it, and compare with an uninterrupted run."""

import json

import pytest
import torch

from agents.training.curves import read_scalars

from .helpers import kill_after_first_checkpoint, run_train_here

# 12 updates of 512 decisions; no evaluation, so the runs take a few seconds
OPTIONS = ["--config", "configs/train/tiny.yaml", "--total-timesteps", str(12 * 512), "--eval-every", "0",
           "--final-eval-pairs", "0", "--checkpoint-every", "1", "--keep-checkpoints", "20"]


def _weights(path):
    return torch.load(path, weights_only=True)["model"]


@pytest.mark.parametrize("threads", ["1", "2"])
def test_killed_run_resumes_where_it_left_off(tmp_path, threads):
    """Also with two torch threads: the update then runs on both, collection on one (ppo.collect)."""

    options = OPTIONS + ["--torch-threads", threads]

    runs = tmp_path / "runs"
    ckpt_dir = runs / "cut" / "checkpoints"
    killed_at = kill_after_first_checkpoint(options, runs, "cut")
    assert killed_at["update"] < 12, "the run finished before it could be killed; make it longer"
    steps_before = read_scalars(runs / "cut")["losses/entropy"][0].tolist()

    run_train_here(*options, "--runs-dir", str(runs), "--run-name", "cut", "--resume")
    final = torch.load(ckpt_dir / "latest.pt", weights_only=True)
    assert final["update"] == 12 and final["global_step"] == 12 * 512
    assert json.loads((runs / "cut" / "final_eval.json").read_text())["global_step"] == 12 * 512
    # the TensorBoard curves go on from the checkpoint, one point per update, none repeated
    steps = read_scalars(runs / "cut")["losses/entropy"][0].tolist()
    assert steps == [512 * u for u in range(1, 13)]
    assert set(steps_before) <= set(steps)

    # exact continuation: the same weights as a run that was never interrupted
    run_train_here(*options, "--runs-dir", str(runs), "--run-name", "whole")
    whole = _weights(runs / "whole" / "checkpoints" / "latest.pt")
    for name, tensor in whole.items():
        assert torch.equal(tensor, final["model"][name]), f"{name} differs after resume"


def test_resume_without_checkpoint_and_restart_over_one_are_refused(tmp_path):
    from agents.training import ppo

    args, _, _ = ppo.parse_args([*OPTIONS, "--runs-dir", str(tmp_path), "--run-name", "r"])
    with pytest.raises(ppo.ConfigError, match="no checkpoint"):
        ppo.train(args, resume=True)
    ckpt_dir = tmp_path / "r" / "checkpoints"
    ckpt_dir.mkdir(parents=True)
    (ckpt_dir / "ckpt_0000001.pt").write_bytes(b"")  # any checkpoint of that run name blocks a fresh start
    with pytest.raises(ppo.ConfigError, match="--resume"):
        ppo.train(args)


def test_resume_refuses_a_different_network_or_batch(tmp_path):
    from agents.training import ppo

    base = ["--config", "configs/train/tiny.yaml", "--total-timesteps", "512", "--eval-every", "0",
            "--final-eval-pairs", "0", "--runs-dir", str(tmp_path), "--run-name", "r"]
    args, _, _ = ppo.parse_args(base)
    ppo.train(args)
    for flag, value, name in (("--hidden-sizes", "64", "hidden_sizes"), ("--activation", "tanh", "activation"),
                              ("--num-envs", "4", "num_envs"), ("--num-steps", "32", "num_steps")):
        args, _, cli = ppo.parse_args([*base, "--resume", flag, value, "--total-timesteps", "1024"])
        with pytest.raises(ppo.ConfigError, match=f"'{name}' cannot change on resume"):
            ppo.train(args, resume=True, cli_overrides=cli)
    # an option that may change, and the same value given again, resume
    args, _, cli = ppo.parse_args([*base, "--resume", "--hidden-sizes", "32", "--total-timesteps", "1024"])
    assert ppo.train(args, resume=True, cli_overrides=cli) is not None


# --- kills inside a checkpoint write, signals, full disks -------------------------------------------------------

SHORT = ["--config", "configs/train/tiny.yaml", "--eval-every", "0", "--final-eval-pairs", "0"]  # 4 updates


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    runs = tmp_path_factory.mktemp("whole")
    run_train_here(*SHORT, "--runs-dir", str(runs), "--run-name", "whole")
    return _weights(runs / "whole" / "checkpoints" / "latest.pt")


# each checkpoint is two writes (ckpt_<update>.pt, then latest.pt), 7 and 8 the last one's: killed before it is
# complete (half its temporary file written), between its two files (latest.pt older), after both
@pytest.mark.parametrize(("write", "phase"), [(7, "before"), (8, "before"), (8, "after")])
def test_a_kill_at_any_point_of_a_checkpoint_write_resumes_exactly(tmp_path, uninterrupted, write, phase):
    from tests.faults import run_with_fault

    options = [*SHORT, "--runs-dir", str(tmp_path), "--run-name", "cut"]
    killed = run_with_fault(["kill", str(write), phase, tmp_path / "cut" / "checkpoints"], "train.py", *options,
                            timeout=120)
    assert killed.returncode == 137, killed.stderr[-2000:]
    run_train_here(*options, "--resume")
    folder = tmp_path / "cut" / "checkpoints"
    final = torch.load(folder / "latest.pt", weights_only=True)
    assert final["update"] == 4
    for name, tensor in uninterrupted.items():
        assert torch.equal(tensor, final["model"][name]), f"{name} differs after resume"
    assert not list(folder.glob("*.tmp"))  # the killed write's temporary file is gone


@pytest.mark.parametrize(("sig", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_stops_the_run_at_its_next_checkpoint_and_resume_is_exact(tmp_path, sig, status):
    import signal
    import subprocess
    import sys
    import time

    from .helpers import REPO

    options = [*SHORT, "--total-timesteps", str(30 * 512), "--checkpoint-every", "5", "--runs-dir", str(tmp_path)]
    proc = subprocess.Popen([sys.executable, "train.py", *options, "--run-name", "cut"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    folder = tmp_path / "cut"
    deadline = time.time() + 120
    # Some updates in, and past the handler's installation: the first regular checkpoint is written (waiting a
    # fixed time after the log file appears sent the signal before the handler on a loaded machine).
    while not [p for p in (folder / "checkpoints").glob("ckpt_*.pt") if p.name != "ckpt_0000000.pt"] \
            and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err[-2000:]
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"{sig}: stopped after update ") and "continue with: python train.py --resume" in lines[-1]
    assert "Traceback" not in err
    stopped = torch.load(folder / "checkpoints" / "latest.pt", weights_only=True)["update"]
    assert 0 < stopped < 30 and stopped % 5 == 0  # at a regular checkpoint: the resume is exact
    assert f"checkpoint {folder / 'checkpoints' / f'ckpt_{stopped:07d}.pt'}" in lines[-1]
    assert f"{sig}: stopping at the next checkpoint (every 5 updates), from which --resume is exact; send it " \
           "again to stop at once (the last checkpoint is kept)\n" in out
    if sig == "SIGINT":  # the checkpoint it wrote resumes exactly
        run_train_here(*options, "--run-name", "cut", "--resume")
        run_train_here(*options, "--run-name", "whole")
        whole = _weights(tmp_path / "whole" / "checkpoints" / "latest.pt")
        final = _weights(folder / "checkpoints" / "latest.pt")
        assert all(torch.equal(whole[k], final[k]) for k in whole)


def test_a_full_disk_and_an_unwritable_folder_are_one_error_line(tmp_path):
    import subprocess
    import sys

    from tests.faults import run_with_fault

    from .helpers import REPO

    proc = run_with_fault(["full", "60000"], "train.py", *SHORT, "--runs-dir", tmp_path, "--run-name", "full",
                          timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: cannot write the checkpoint of update 1 in {tmp_path / 'full' / 'checkpoints'}: File too large; "
        "no checkpoint of this run is kept")
    assert "Traceback" not in proc.stderr
    assert not list((tmp_path / "full").rglob("*.tmp")) and not list((tmp_path / "full").rglob("*.pt"))

    blocker = tmp_path / "blocker"
    blocker.write_text("")  # a file where the checkpoint folder's parent should be
    args = [*SHORT, "--runs-dir", str(tmp_path), "--run-name", "blocked"]
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / "checkpoints").write_text("not a folder")
    proc = subprocess.run([sys.executable, "train.py", *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("error: checkpoint folder ")
    assert "cannot be written" in proc.stderr and "Traceback" not in proc.stderr


def test_an_evaluation_summary_on_a_full_disk_is_one_error_line(tmp_path):
    from tests.faults import run_with_fault

    proc = run_with_fault(["full", "200"], "train.py", "--evaluate", "ppo_contree", "--final-eval-pairs", "2",
                          "--eval-opponents", "random", "--runs-dir", tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    out = tmp_path / "ppo_contree.eval.json"
    assert proc.stderr.strip().splitlines()[-1] == f"error: cannot write '{out}': File too large"
    assert "Traceback" not in proc.stderr and list(tmp_path.iterdir()) == []  # nothing partial, no temporary file
