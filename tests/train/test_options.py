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
