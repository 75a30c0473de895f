"""Kill a run after its first checkpoint, resume it, and compare with an uninterrupted run."""

import json

import pytest
import torch

from .helpers import kill_after_first_checkpoint, run_train

# 12 updates of 512 decisions; no evaluation, so the runs take a few seconds
OPTIONS = ["--config", "configs/train/tiny.yaml", "--total-timesteps", str(12 * 512), "--eval-every", "0",
           "--final-eval-pairs", "0", "--checkpoint-every", "1", "--keep-checkpoints", "20"]


def _weights(path):
    return torch.load(path, weights_only=True)["model"]


@pytest.mark.parametrize("threads", ["1", "2"])
def test_killed_run_resumes_where_it_left_off(tmp_path, threads):
    """Also with two torch threads: the update then runs on both, collection on one (train.collect)."""
    import train

    options = OPTIONS + ["--torch-threads", threads]

    runs = tmp_path / "runs"
    ckpt_dir = runs / "cut" / "checkpoints"
    killed_at = kill_after_first_checkpoint(options, runs, "cut")
    assert killed_at["update"] < 12, "the run finished before it could be killed; make it longer"
    steps_before = train.read_scalars(runs / "cut")["losses/entropy"][0].tolist()

    run_train(*options, "--runs-dir", str(runs), "--run-name", "cut", "--resume")
    final = torch.load(ckpt_dir / "latest.pt", weights_only=True)
    assert final["update"] == 12 and final["global_step"] == 12 * 512
    assert json.loads((runs / "cut" / "final_eval.json").read_text())["global_step"] == 12 * 512
    # the TensorBoard curves go on from the checkpoint, one point per update, none repeated
    steps = train.read_scalars(runs / "cut")["losses/entropy"][0].tolist()
    assert steps == [512 * u for u in range(1, 13)]
    assert set(steps_before) <= set(steps)

    # exact continuation: the same weights as a run that was never interrupted
    run_train(*options, "--runs-dir", str(runs), "--run-name", "whole")
    whole = _weights(runs / "whole" / "checkpoints" / "latest.pt")
    for name, tensor in whole.items():
        assert torch.equal(tensor, final["model"][name]), f"{name} differs after resume"


def test_resume_without_checkpoint_and_restart_over_one_are_refused(tmp_path):
    import train

    args, _, _ = train.parse_args([*OPTIONS, "--runs-dir", str(tmp_path), "--run-name", "r"])
    with pytest.raises(train.ConfigError, match="no checkpoint"):
        train.train(args, resume=True)
    ckpt_dir = tmp_path / "r" / "checkpoints"
    ckpt_dir.mkdir(parents=True)
    (ckpt_dir / "ckpt_0000001.pt").write_bytes(b"")  # any checkpoint of that run name blocks a fresh start
    with pytest.raises(train.ConfigError, match="--resume"):
        train.train(args)


def test_resume_refuses_a_different_network_or_batch(tmp_path):
    import train

    base = ["--config", "configs/train/tiny.yaml", "--total-timesteps", "512", "--eval-every", "0",
            "--final-eval-pairs", "0", "--runs-dir", str(tmp_path), "--run-name", "r"]
    args, _, _ = train.parse_args(base)
    train.train(args)
    for flag, value, name in (("--hidden-sizes", "64", "hidden_sizes"), ("--activation", "tanh", "activation"),
                              ("--num-envs", "4", "num_envs"), ("--num-steps", "32", "num_steps")):
        args, _, cli = train.parse_args([*base, "--resume", flag, value, "--total-timesteps", "1024"])
        with pytest.raises(train.ConfigError, match=f"'{name}' cannot change on resume"):
            train.train(args, resume=True, cli_overrides=cli)
    # an option that may change, and the same value given again, resume
    args, _, cli = train.parse_args([*base, "--resume", "--hidden-sizes", "32", "--total-timesteps", "1024"])
    assert train.train(args, resume=True, cli_overrides=cli) is not None
