"""train.py --factored-calls: the network makes each call as small decisions (belote_env.factored) at the tables of
the collection, the opponents and the evaluations play the flat space, and the trained agent plays it too."""

import numpy as np
import pytest
import torch

from agents.neural.agent import NeuralAgent, load_agent
from agents.neural.network import PolicyValueNet
from agents.training import ppo
from belote_env import factored as F
from belote_env.observation import OBS_SIZE
from belote_env.vector import VectorEnv

from .helpers import kill_after_first_checkpoint, run_train_here

OPTIONS = ["--config", "configs/train/tiny.yaml", "--factored-calls", "--total-timesteps", str(6 * 512),
           "--eval-every", "0", "--final-eval-pairs", "0", "--checkpoint-every", "1", "--keep-checkpoints", "10",
           "--pool-fraction", "0.25", "--central-critic"]


def test_a_factored_run_resumes_exactly_and_its_agent_plays_the_flat_space(tmp_path):
    runs = tmp_path / "runs"
    killed_at = kill_after_first_checkpoint(OPTIONS, runs, "cut")
    assert killed_at["update"] < 6 and killed_at["args"]["factored_calls"]
    run_train_here(*OPTIONS, "--runs-dir", str(runs), "--run-name", "cut", "--resume")
    run_train_here(*OPTIONS, "--runs-dir", str(runs), "--run-name", "whole")
    cut, whole = (torch.load(runs / name / "checkpoints" / "latest.pt", weights_only=True) for name in ("cut", "whole"))
    assert whole["model_config"]["obs_size"] == F.FACTORED_OBS_SIZE and whole["model_config"]["num_actions"] == 56
    for name, tensor in whole["model"].items():
        assert torch.equal(tensor, cut["model"][name]), f"{name} differs after resume"
    agent = load_agent(runs / "whole" / "checkpoints" / "latest.pt")
    assert agent.factored
    venv = VectorEnv("coinche", 8, seed=2)
    obs, mask, seat = venv.reset()
    for _ in range(60):  # legal flat actions, whatever the position
        obs, mask, seat, *_ = venv.step(agent.act_batch(obs, mask.view(np.int8)))


def test_options_refused_with_factored_calls(tmp_path):
    for bad in (["--bc-agent", "heuristic"], ["--expert-agent", "heuristic"]):
        with pytest.raises(ppo.ConfigError, match="not supported with factored_calls yet"):
            ppo.parse_args([*OPTIONS, *bad, "--runs-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir())


def test_a_factored_network_plays_the_flat_space_as_the_factored_env_does():
    """Greedy: the flat actions the agent gives are those its network completes on a factored VectorEnv."""
    torch.manual_seed(0)
    net = PolicyValueNet(obs_size=F.FACTORED_OBS_SIZE, hidden_sizes=(32,), num_actions=F.NUM_FACTORED_ACTIONS)
    agent = NeuralAgent(net)
    n = 16
    flat, fac = VectorEnv("cobrecaf_81", n, seed=3), VectorEnv("cobrecaf_81", n, seed=3, calls="factored")
    obs, mask, _ = flat.reset()
    fobs, fmask, _ = fac.reset()
    for step in range(120):
        actions = agent.act_batch(obs, mask.view(np.int8))
        pending = np.arange(n)
        while len(pending):
            with torch.no_grad():
                logits = net(torch.from_numpy(fobs[pending]), torch.from_numpy(fmask[pending]))[0]
            choice = torch.where(torch.from_numpy(fmask[pending]), logits, -1e9).argmax(1).numpy()
            out = fac.step_tables(pending, choice)
            fobs[pending], fmask[pending] = out[0], out[1]
            pending = pending[fac.decisions()[0][pending] != F.WHAT]
        obs, mask, *_ = flat.step(actions)
        assert np.array_equal(fobs[:, :OBS_SIZE], obs), step
    seeds = np.arange(n, dtype=np.uint64) * np.uint64(7919)
    sampler = NeuralAgent(net, sample=True)
    first = sampler.act_batch(obs, mask.view(np.int8), seeds=seeds)
    assert first == sampler.act_batch(obs, mask.view(np.int8), seeds=seeds)
    assert all(mask[i, a] for i, a in enumerate(first))


@pytest.mark.parametrize("factored", [True, False])
def test_in_the_card_play_stage_the_call_agent_makes_the_networks_calls(factored):
    from agents.training.collection import BIDDING, Collector, Rollout
    from agents.training.options import Args, action_sizes
    from agents.training.ppo import collect
    from belote_env.variants import load_variant

    sizes = action_sizes(Args(factored_calls=factored))
    net = PolicyValueNet(obs_size=sizes[0], hidden_sizes=(16,), num_actions=sizes[1])
    tables = Collector(load_variant("coinche"), 16, {"heuristic": 0.5}, np.random.default_rng(0), factored=factored,
                       call_agent="heuristic")
    buf, stats = Rollout(16 * 40, 0, sizes), {"return_team0": [], "return_team1": []}
    collect(net, tables, buf, 40, stats)
    n = buf.size
    assert n > 100 and not buf.observations(0, n)[:, BIDDING].any() and (buf.actions[:n] < 32).all()
    assert len(stats["heuristic"]) + len(stats["return_team0"]) > 0  # deals were played to their end
    tables.card_play = False  # the whole game: the network calls too
    collect(net, tables, buf, 40, stats)
    assert buf.observations(0, buf.size)[:, BIDDING].any()


def test_card_play_options(tmp_path):
    with pytest.raises(ppo.ConfigError, match="card_play_steps' must be >= 0"):
        ppo.parse_args([*OPTIONS, "--card-play-steps", "-1", "--runs-dir", str(tmp_path)])
    with pytest.raises(ppo.ConfigError, match="option 'call_agent': unknown agent 'nobody'"):
        ppo.parse_args([*OPTIONS, "--card-play-steps", "10", "--call-agent", "nobody", "--runs-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir())
