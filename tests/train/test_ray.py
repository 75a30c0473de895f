"""train.py --ray-workers: collection on Ray rollout actors (agents.training.ray_rollouts). A Ray run trains the
weights of a local run of the same seed, bit for bit; a killed run resumes exactly; an actor whose process
dies is replaced and collection goes on; the merged rollout is one consistent buffer. Skipped where Ray is
not installed (the main suite; .ci/integrations runs them)."""

import os
import signal
import sys

import numpy as np
import pytest
import torch

from agents.neural.network import PolicyValueNet

from .helpers import REPO, kill_after_first_checkpoint, run_train, run_train_here, train_command

LOCAL = ["--config", "configs/train/tiny.yaml", "--total-timesteps", str(8 * 512), "--eval-every", "0",
         "--final-eval-pairs", "0", "--checkpoint-every", "1", "--keep-checkpoints", "20"]
OPTIONS = LOCAL + ["--ray-workers", "2"]


def test_options_are_checked_before_the_run(tmp_path, capsys):
    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--ray-workers", "9", "--runs-dir", tmp_path,
                                   capsys=capsys)
    assert status == 2 and "ray_workers" in err and not any(tmp_path.iterdir())


@pytest.fixture(scope="module")
def ray_module():
    return pytest.importorskip("ray")


@pytest.mark.parametrize("threads,network", [("1", "mlp"), ("2", "mlp"), ("1", "own")])
def test_a_ray_run_trains_the_weights_of_a_local_run(tmp_path, ray_module, threads, network):
    # 8 tables on 3 actors (3, 3 and 2 tables); a checkpoint every 2 updates re-deals the tables from a new key.
    # With two torch threads the update runs on both, collection on one, here and in the actors. "own": a network
    # of the user's code on the dense training path (tests/train/outside_net.py), row-invariant as well.
    options = ["--config", "configs/train/tiny.yaml", "--total-timesteps", str(5 * 512), "--eval-every", "0",
               "--final-eval-pairs", "0", "--checkpoint-every", "2", "--runs-dir", str(tmp_path),
               "--torch-threads", threads]
    if network == "own":
        options += ["--network", "tests.train.outside_net:TwoTowers", "--network-kwargs", "width=16"]
    run_train_here(*options, "--run-name", "local")  # the reference: in this process (no torch start-up)
    run_train(*options, "--run-name", "ray", "--ray-workers", "3", timeout=300)
    local = torch.load(tmp_path / "local" / "checkpoints" / "latest.pt", weights_only=True)
    ray = torch.load(tmp_path / "ray" / "checkpoints" / "latest.pt", weights_only=True)
    assert local["update"] == ray["update"] == 5
    for name, tensor in local["model"].items():
        assert torch.equal(tensor, ray["model"][name]), f"{name} differs between the local and the Ray run"
    for k, state in local["optimizer"]["state"].items():
        assert all(torch.equal(v, ray["optimizer"]["state"][k][n]) for n, v in state.items())
    from agents.training.curves import read_scalars

    scalars = [read_scalars(tmp_path / run) for run in ("local", "ray")]
    for tag in ("charts/episodic_return", "charts/all_pass_rate", "losses/value_loss", "losses/approx_kl"):
        assert all(np.array_equal(a, b) for a, b in zip(scalars[0][tag], scalars[1][tag])), tag


def test_killed_ray_run_resumes_exactly(tmp_path, ray_module):
    runs = tmp_path / "runs"
    ckpt_dir = runs / "cut" / "checkpoints"
    killed_at = kill_after_first_checkpoint(OPTIONS, runs, "cut", timeout=180)
    assert killed_at["update"] < 8, "the run finished before it could be killed"
    run_train(*OPTIONS, "--runs-dir", str(runs), "--run-name", "cut", "--resume", timeout=300)
    run_train_here(*LOCAL, "--runs-dir", str(runs), "--run-name", "whole")  # a Ray run trains a local run's weights
    final = torch.load(ckpt_dir / "latest.pt", weights_only=True)["model"]
    whole = torch.load(runs / "whole" / "checkpoints" / "latest.pt", weights_only=True)["model"]
    for name, tensor in whole.items():
        assert torch.equal(tensor, final[name]), f"{name} differs after resume"


def test_a_dead_actor_is_replaced_and_collection_goes_on(ray_module):
    sys.path.insert(0, str(REPO))
    from agents.training import ppo
    from agents.training.options import network_config
    from agents.training.ray_rollouts import RayCollector
    from belote_env.variants import load_variant

    args, _, _ = ppo.parse_args(["--config", "configs/train/tiny.yaml", "--ray-workers", "2"])
    net = PolicyValueNet(hidden_sizes=args.hidden_sizes)
    collector = RayCollector(ppo.collect, load_variant(args.variant), args.num_envs, args.opponent_mix,
                             np.random.default_rng(0), args.end_on_redeal, args.network, network_config(args),
                             args.num_steps, args.ray_workers, args.ray_address)
    buf = ppo.Rollout(args.num_envs * args.num_steps)
    stats = {"return_team0": [], "return_team1": []}
    collector.collect(net, buf, args.num_steps, stats)
    _check_buffer(buf)
    pid = ray_module.get(collector.actors[0].pid.remote())
    os.kill(pid, signal.SIGKILL)
    collector.collect(net, buf, args.num_steps, stats)
    assert collector.replaced == 1
    _check_buffer(buf)
    assert ray_module.get(collector.actors[0].pid.remote()) != pid
    assert stats["return_team0"] or any(k not in ("return_team0", "return_team1", "all_pass") for k in stats)


def _check_buffer(buf):
    """Every decision is the network's, its action legal; successor links point forward inside the buffer."""
    n = buf.size
    assert n > 0
    assert buf.mask[np.arange(n), buf.actions[:n]].all()
    links = buf.next_index[:n]
    has = links >= 0
    assert (links[has] > np.flatnonzero(has)).all() and (links[has] < n).all()
    assert not (has & buf.dones[:n]).any()  # an episode's last decision has no successor


def test_an_experts_recording_on_ray_tasks_equals_the_same_parts_in_processes(ray_module):
    """record_demonstrations(workers=2, ray_address="local"): the parts as Ray tasks, the same recording as two
    processes (train.py records expert_agent so when ray_workers > 0)."""
    from agents.training import behaviour_cloning as bc
    from belote_env.variants import load_variant

    v = load_variant("coinche")
    on_ray = bc.record_demonstrations(v, "pimc:worlds=2,tricks=2", 400, seed=3, values=True, workers=2,
                                      ray_address="local")
    here = bc.record_demonstrations(v, "pimc:worlds=2,tricks=2", 400, seed=3, values=True, workers=2)
    for name in ("obs", "mask", "actions", "returns", "values"):
        assert np.array_equal(getattr(on_ray, name), getattr(here, name), equal_nan=True), name
