"""Helpers of the train.py tests: the repository root on sys.path, running train.py, killing a run."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def run_train(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python train.py ARGS`` in a subprocess from the repository root; fails the test on a non-zero exit."""
    proc = subprocess.run([sys.executable, "train.py", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"train.py {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def run_train_here(*args: str) -> str:
    """``train.py ARGS`` in this process (its command, ``agents.training.runs.run_command``), for runs whose
    subprocess is not what a test checks (the uninterrupted reference, the resume of a killed run): it saves the
    subprocess's start-up (torch's imports, about 4 s). Fails the test on a non-zero status; returns the standard
    output. torch's thread count is restored."""
    import contextlib
    import io

    import torch

    from agents.training import ppo
    from agents.training.runs import run_command

    threads = torch.get_num_threads()
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run_command(ppo.main, list(map(str, args)))
    finally:
        torch.set_num_threads(threads)
    assert status == 0, f"train.py {' '.join(map(str, args))} failed:\n{out.getvalue()[-3000:]}\n{err.getvalue()[-3000:]}"
    return out.getvalue()


def train_command(*args: str, capsys) -> tuple[int, str, str]:
    """``train.py ARGS`` in this process, as its command runs it (``agents.training.runs.run_command``: exit status,
    one ``error:`` line): for options refused before any run starts, where a subprocess would only add torch's
    start-up. Returns ``(status, stdout, stderr)``; torch's thread count is restored."""
    import torch

    from agents.training import ppo
    from agents.training.runs import run_command

    threads = torch.get_num_threads()
    capsys.readouterr()
    try:
        status = run_command(ppo.main, list(map(str, args)))
    finally:
        torch.set_num_threads(threads)
    out, err = capsys.readouterr()
    return status, out, err


def kill_after_first_checkpoint(options, runs: Path, name: str, timeout: float = 90) -> dict:
    """Start ``train.py OPTIONS`` as run ``name``, SIGKILL it as soon as its first ``ckpt_*.pt`` exists;
    returns that checkpoint (asserting the run had not finished)."""
    import os
    import signal
    import time

    import torch

    ckpt_dir = runs / name / "checkpoints"
    proc = subprocess.Popen([sys.executable, "train.py", *options, "--runs-dir", str(runs), "--run-name", name],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + timeout
    while not list(ckpt_dir.glob("ckpt_*.pt")):
        assert proc.poll() is None, f"run ended before its first checkpoint: {proc.stderr.read().decode()[-2000:]}"
        assert time.time() < deadline, f"no checkpoint within {timeout} s"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return torch.load(sorted(ckpt_dir.glob("ckpt_*.pt"))[-1], weights_only=True)
