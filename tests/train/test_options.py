"""train.py's shape and its options: a thin command over a CleanRL-sized trainer, agent specs checked before any
file is written, --plot never over a tracked file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.training import ppo
from agents.training.curves import read_scalars
from agents.training.errors import ConfigError

from .helpers import train_command

REPO = Path(__file__).resolve().parents[2]


def test_train_py_is_a_thin_command_and_only_the_trainer_reads_the_options():
    """train.py is the command over agents.training.ppo (scripts and tests import the library); the trainer stays
    CleanRL-sized; and an Args is read in two modules only, where options are defined and checked (options.py)
    and where they are used (ppo.py): every other part of the run takes the values it needs."""
    import ast

    command = (REPO / "train.py").read_text()
    assert command.count("\n") <= 30 and "from agents.training.ppo import main" in command
    trainer = (REPO / "agents" / "training" / "ppo.py").read_text()
    assert trainer.count("\n") <= 500, "the trainer's helpers belong in agents/training/ (options, bc, runs, ...)"
    readers = set()
    for path in (REPO / "agents" / "training").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    a.arg == "args" for a in node.args.args + node.args.kwonlyargs):
                readers.add(path.relative_to(REPO).as_posix())
    assert readers <= {"agents/training/options.py", "agents/training/ppo.py"}, sorted(readers)


@pytest.mark.parametrize("flag,value", [("--opponent-mix", "nobody=0.5"), ("--eval-opponents", "nobody"),
                                        ("--bc-agent", "nobody"), ("--eval-opponents", "missing.pt")])
def test_bad_agent_specs_fail_before_a_run_directory_exists(tmp_path, flag, value, capsys):
    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--runs-dir", tmp_path, flag, value,
                                   capsys=capsys)
    assert status == 2
    assert err.startswith("error: ") and err.count("\n") == 1
    assert not any(tmp_path.iterdir())  # nothing written


def test_a_bad_expert_spec_is_said_as_given_with_its_net_placeholder(capsys, tmp_path):
    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--runs-dir", tmp_path, "--expert-agent",
                                   "search:polcy={net},worlds=0", capsys=capsys)
    assert status == 2 and "agent spec 'search:polcy={net},worlds=0'" in err and "option 'polcy={net}'" in err
    assert "belote-net-" not in err and not any(tmp_path.iterdir())


@pytest.mark.parametrize("flag,value", [("--hidden-sizes", "0"), ("--learning-rate", "0"), ("--gamma", "1.5"),
                                        ("--gae-lambda", "-0.1"), ("--max-grad-norm", "0"), ("--clip-coef", "-1"),
                                        ("--ent-coef", "-0.01"), ("--target-kl", "-1"), ("--max-minutes", "-2"),
                                        ("--num-envs", "0"), ("--eval-pairs", "-1")])
def test_out_of_range_numbers_are_config_errors(flag, value):
    with pytest.raises(ConfigError, match=flag[2:].replace("-", "_")):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", flag, value])


def test_plot_defaults_to_the_run_directory_and_never_overwrites_tracked_files(tiny_run, tmp_path):
    run_dir, _ = tiny_run
    out = ppo.plot_run(run_dir)
    assert out == run_dir / "training_curves.png" and out.is_file()
    tracked = REPO / "docs" / "results" / "training_coinche_s1.png"
    assert tracked.is_file()
    before = tracked.read_bytes()
    with pytest.raises(ConfigError, match="tracked by git"):
        ppo.plot_run(run_dir, tracked)
    assert tracked.read_bytes() == before


def test_cleanrl_tags_are_logged(tiny_run):
    run_dir, _ = tiny_run
    scalars = read_scalars(run_dir)
    for tag in ("charts/episodic_return", "charts/episodic_length", "charts/decisions_trained", "charts/SPS"):
        assert tag in scalars, sorted(scalars)
    steps, lengths = scalars["charts/episodic_length"]
    assert (lengths > 30).all()  # a deal is about 40 actions


def test_evaluate_takes_a_shipped_agent_on_its_own_variant_and_writes_outside_the_package(tmp_path, capsys):
    from agents.pretrained import PRETRAINED_DIR

    before = sorted(PRETRAINED_DIR.iterdir())
    ppo.main(["--evaluate", "ppo_contree", "--final-eval-pairs", "2", "--eval-opponents", "random", "--runs-dir",
              str(tmp_path), "--no-progress"])
    summary = json.loads((tmp_path / "ppo_contree.eval.json").read_text())
    assert summary["variant"] == "contree" and summary["pairs"] == 2
    assert "NaN" not in (tmp_path / "ppo_contree.eval.json").read_text()  # standard JSON: undefined rates are null
    assert sorted(PRETRAINED_DIR.iterdir()) == before
    ppo.main(["--evaluate", "ppo_contree", "--variant", "coinche", "--final-eval-pairs", "2", "--eval-opponents",
              "random", "--runs-dir", str(tmp_path), "--no-progress"])
    summary = json.loads((tmp_path / "ppo_contree.eval.json").read_text())
    assert summary["variant"] == "coinche"  # the command line wins


@pytest.mark.parametrize("config", sorted(p.name for p in (REPO / "configs" / "train").glob("*.yaml")))
def test_every_shipped_config_parses_and_validates(config):
    from agents.training import ppo

    args, _, _ = ppo.parse_args(["--config", f"configs/train/{config}"])
    assert args.exp_name == config.removesuffix(".yaml") and args.total_timesteps >= args.num_envs * args.num_steps


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="ps -g and Linux process groups")
def test_ctrl_c_during_an_expert_recording_with_workers_stops_at_once_in_one_line(tmp_path):
    """Ctrl-C reaches the whole process group, workers included: the run stops within seconds (it waited forever),
    with one line naming the checkpoint --resume continues from, and no process of it runs on."""
    import os
    import signal
    import subprocess
    import sys
    import time

    slow = tmp_path / "slow"
    cmd = [sys.executable, "train.py", "--config", "configs/train/tiny.yaml", "--runs-dir", str(tmp_path / "runs"),
           "--bc-agent", "heuristic", "--bc-decisions", "2000", "--expert-agent", "tests.train.slow_expert:slow_expert",
           "--expert-decisions", "2000", "--expert-workers", "2", "--expert-every", "2", "--eval-every", "0",
           "--total-timesteps", "4096"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "BELOTE_TEST_SLOW": str(slow),
                                                          "PYTHONUNBUFFERED": "1"})
    for line in proc.stdout:  # the warm start's expert step, fast; then the in-loop one is made slow
        if line.startswith("expert:"):
            slow.touch()
            break
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("recording_*"))) < 2:  # both workers recording (update 2)
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 5 and proc.returncode == 130, err
    assert len(err.strip().splitlines()) == 1 and "expert recording was cut" in err, err
    assert "ckpt_0000001.pt" in err and "--resume" in err
    time.sleep(1)
    ps = subprocess.run(["ps", "-o", "stat=", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert all(s.startswith("Z") for s in ps)  # nothing of the run still running


@pytest.mark.parametrize("flag,value", [("--bc-learning-rate", "inf"), ("--bc-value-coef", "nan"),
                                        ("--max-minutes", "nan"), ("--expert-temperature", "nan"),
                                        ("--learning-rate", "inf")])
def test_numbers_that_are_not_finite_are_config_errors(flag, value):
    with pytest.raises(ConfigError, match=f"{flag[2:].replace('-', '_')}' must be a finite number"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", flag, value])


def test_counts_that_would_exhaust_the_machine_are_config_errors():
    from agents.workers import max_workers

    with pytest.raises(ConfigError, match=f"asks for 5000 processes; at most {max_workers()}"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--expert-agent", "heuristic", "--expert-workers",
                        "5000"])
    with pytest.raises(ConfigError, match="recording 1,000,000,000,000 decisions needs .* GiB of memory"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--expert-agent", "heuristic", "--expert-decisions",
                        "1000000000000"])
    with pytest.raises(ConfigError, match="a rollout of 8 x 1,000,000,000 decisions needs"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--num-steps", "1000000000", "--total-timesteps",
                        "100000000000000"])
    with pytest.raises(ConfigError, match="'eval_pairs' must be at most 10,000,000"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--eval-pairs", "1000000000000"])
    with pytest.raises(ConfigError, match="network 'mlp' cannot be built .* can't allocate memory"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--hidden-sizes", "1000000000"])


@pytest.mark.parametrize("flag,value", [("--bc-agent", "{net}"), ("--opponent-mix", "{net}=0.1"),
                                        ("--eval-opponents", "{net}"), ("--expert-agent", "heuristic{net}")])
def test_the_net_placeholder_is_for_the_expert_alone_and_said_as_given(tmp_path, flag, value, capsys):
    import tempfile

    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--runs-dir", tmp_path, flag, value,
                                   capsys=capsys)
    assert status == 2 and err.startswith("error: ") and err.count("\n") == 1 and "{net}" in err
    assert "belote-net-" not in err and not any(tmp_path.iterdir())
    assert not list(Path(tempfile.gettempdir()).glob(f"belote-net-{__import__('os').getpid()}-*"))  # removed at once


def test_a_diverging_fit_writes_no_checkpoint_and_says_what_to_lower(tmp_path, capsys):
    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--runs-dir", tmp_path, "--bc-agent",
                                   "heuristic", "--bc-decisions", "2000", "--bc-learning-rate", "1e30", capsys=capsys)
    assert status == 2 and err.count("\n") == 1
    assert "warm start left the network's weights not finite" in err and "Lower bc_learning_rate (1e+30)" in err
    assert not list(tmp_path.rglob("*.pt"))


def test_an_expert_without_a_start_fits_the_untrained_network(tmp_path, capsys):
    status, out, _ = train_command("--config", "configs/train/tiny.yaml", "--runs-dir", tmp_path, "--expert-agent",
                                   "heuristic", "--expert-decisions", "500", "--eval-every", "0", "--final-eval-pairs",
                                   "0", capsys=capsys)
    assert status == 0 and "its first step fits the untrained network" in out and "\nexpert: 500 decisions" in out


def test_plot_out_takes_a_folder_or_a_png_and_says_what_is_wrong(tiny_run, tmp_path):
    run_dir, _ = tiny_run
    assert ppo.plot_run(run_dir, tmp_path) == tmp_path / "training_curves.png"  # a folder: the file goes in it
    assert (tmp_path / "training_curves.png").is_file()
    with pytest.raises(ConfigError, match="ending in .png"):
        ppo.plot_run(run_dir, tmp_path / "x.txt")
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="'.*file' is a file, not a folder"):
        ppo.plot_run(run_dir, tmp_path / "file" / "c.png")


def test_soft_targets_at_any_temperature_are_distributions():
    import numpy as np
    import torch

    from agents.training.behaviour_cloning import soft_targets

    values = np.full((2, 112), np.nan, dtype=np.float32)
    values[0, [3, 4, 5]] = [0.5, 0.7, 0.7]
    for temperature in (1e-300, 0.1, 10.0):
        targets, returns = soft_targets(torch.tensor([0, 1]), torch.zeros(2), values, temperature)
        assert torch.isfinite(targets).all() and torch.allclose(targets.sum(1), torch.ones(2))
        assert returns[0].item() == pytest.approx(0.7)
    assert targets[1, 1] == 1  # not searched: the action itself
    assert soft_targets(torch.tensor([0]), torch.zeros(1), values[:1], 1e-300)[0][0, 4].item() == 0.5
