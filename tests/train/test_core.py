"""The pieces of train.py and agents/neural/network.py: masking, GAE, options, checkpoint errors."""

import io

import numpy as np
import pytest
import torch

from agents.errors import CheckpointError
from agents.neural.agent import NeuralAgent, load_agent
from agents.neural.checkpoint import checkpoint_dict
from agents.neural.network import PolicyValueNet
from agents.training import ppo
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS


def test_masked_policy_never_picks_an_illegal_action():
    torch.manual_seed(0)
    net = PolicyValueNet(hidden_sizes=[16])
    with torch.no_grad():
        net.policy.bias[:] = torch.arange(NUM_ACTIONS, dtype=torch.float32) * 10  # illegal high actions look best
    rng = np.random.default_rng(0)
    masks = np.zeros((200, NUM_ACTIONS), dtype=np.int8)
    for row in masks:
        row[rng.choice(40, size=rng.integers(1, 5), replace=False)] = 1
    obs = rng.random((200, OBS_SIZE), dtype=np.float32)
    for agent in (NeuralAgent(net), NeuralAgent(net, sample=True, seed=1)):
        actions = agent.act_batch(obs, masks, None)
        assert all(masks[i, a] == 1 for i, a in enumerate(actions))
    logits, values = net(torch.from_numpy(obs), torch.from_numpy(masks).bool())
    assert values.shape == (200,)
    assert torch.all(torch.softmax(logits, 1)[~torch.from_numpy(masks).bool()] == 0)


def test_gae_follows_each_seat_trajectory():
    buf = ppo.Rollout(6)
    # seat A decides at 0, 2, 4 (deal ends after 4, reward 1); seat B at 1, 3 (cut by the rollout end, bootstrap 0.5)
    buf.size = 5
    buf.values[:5] = [0.1, 0.2, 0.3, 0.4, 0.5]
    buf.next_index[:5] = [2, 3, 4, -1, -1]
    buf.next_value[:5] = [0.3, 0.4, 0.5, 0.5, 0.0]
    buf.rewards[:5] = [0, 0, 0, 0, 1.0]
    buf.dones[:5] = [False, False, False, False, True]
    gamma, lam = 0.9, 0.8
    adv, ret = ppo.compute_gae(buf, gamma, lam)
    d4 = 1.0 - 0.5
    d2 = gamma * 0.5 - 0.3
    d0 = gamma * 0.3 - 0.1
    d3 = gamma * 0.5 - 0.4
    d1 = gamma * 0.4 - 0.2
    expected = [d0 + gamma * lam * (d2 + gamma * lam * d4), d1 + gamma * lam * d3, d2 + gamma * lam * d4, d3, d4]
    np.testing.assert_allclose(adv, expected, rtol=1e-6)
    np.testing.assert_allclose(ret, adv + buf.values[:5], rtol=1e-6)


def test_options_yaml_then_command_line(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("num_envs: 8\nnum_steps: 4\ntotal_timesteps: 64\nopponent_mix: {random: 0.5}\n")
    args, _, cli = ppo.parse_args(["--config", str(cfg), "--num-envs", "4", "--opponent-mix", "heuristic=0.25"])
    assert (args.num_envs, args.num_steps, args.exp_name, args.run_name) == (4, 4, "c", "c_s1")
    assert args.opponent_mix == {"heuristic": 0.25} and cli == {"num_envs": 4, "opponent_mix": {"heuristic": 0.25}}
    with pytest.raises(ppo.ConfigError, match="opponent_mix"):
        ppo.parse_args(["--opponent-mix", "random=0.8", "heuristic=0.5"])
    with pytest.raises(ppo.ConfigError, match="'num_envs' takes a int"):
        cfg.write_text("num_envs: many\n")
        ppo.parse_args(["--config", str(cfg)])
    with pytest.raises(ppo.ConfigError, match="below one rollout"):
        ppo.parse_args(["--total-timesteps", "10"])


def _save(obj, path):
    torch.save(obj, path)
    return path


def test_load_agent_rejects_damaged_and_foreign_files(tmp_path):
    net = PolicyValueNet(hidden_sizes=[8])
    good = checkpoint_dict(net)
    path = _save(good, tmp_path / "good.pt")
    assert isinstance(load_agent(path), NeuralAgent)

    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(path.read_bytes()[:200])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(np.random.default_rng(0).bytes(4096))
    cases = {
        truncated: "not a readable PyTorch checkpoint",
        garbage: "not a readable PyTorch checkpoint",
        tmp_path / "missing.pt": "does not exist",
        _save({"state_dict": net.state_dict()}, tmp_path / "foreign.pt"): "not a belote_env neural checkpoint",
        _save(torch.zeros(3), tmp_path / "tensor.pt"): "not a belote_env neural checkpoint",
        _save(io.BytesIO(b"x"), tmp_path / "pickled_object.pt"): "not a readable PyTorch checkpoint",
        _save({**good, "model_config": {**net.config(), "hidden_sizes": [9]}}, tmp_path / "mismatch.pt"): "do not match",
        _save({**good, "model_config": {**net.config(), "obs_size": 10}}, tmp_path / "old.pt"): "do not match",
    }
    for bad, message in cases.items():
        with pytest.raises(CheckpointError, match=message) as info:
            load_agent(bad)
        assert str(bad.name) in str(info.value)
        assert isinstance(info.value, ValueError)
