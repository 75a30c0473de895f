"""RLlib: the multi-agent env (observation keys, rewards, RLlib's own env check), the policy mapping,
the example script (a short PPO run), and a checkpoint as an agent in a tournament (module:factory).
Skipped where RLlib is not installed (the main suite; see docs/integrations.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from belote_env import env as make_aec_env  # noqa: E402
from belote_env.integrations import rllib as belote_rllib  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def play_random(e, seed):
    """A whole episode with uniform legal actions; returns the summed rewards per agent and the step count."""
    rng = np.random.default_rng(seed)
    obs, _ = e.reset(seed=seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    while True:
        assert len(obs) == 1
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and e.observation_spaces[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = e.step({agent: action})
        steps += 1
        for a, r in rewards.items():
            totals[a] += r
        assert all("info_state" not in i for i in infos.values())
        if terminateds["__all__"] or truncateds["__all__"]:
            assert set(obs) == set(e.possible_agents)  # every seat sees the end
            return totals, steps


def test_env_rewards_match_the_aec_env():
    e = belote_rllib.env_creator({"variant": "coinche"})
    for seed in range(5):
        totals, _ = play_random(e, seed)
        assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"]
        # the same deal and moves in the AEC env give the same rewards
        aec = make_aec_env("coinche")
        aec.reset(seed=seed)
        rng = np.random.default_rng(seed)
        aec_totals = dict.fromkeys(aec.possible_agents, 0.0)
        for agent in aec.agent_iter():
            obs, reward, term, trunc, _ = aec.last()
            aec_totals[agent] += reward
            aec.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert totals == pytest.approx(aec_totals)


@pytest.mark.filterwarnings("ignore:illegal action")  # RLlib's check plays random, mostly illegal, actions
def test_rllib_env_check_and_truncation():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(belote_rllib.env_creator({"variant": "belote_classique"}))
    e = belote_rllib.env_creator({"variant": "coinche", "max_redeals": 1})
    obs, _ = e.reset(seed=0)
    for _ in range(4):  # everybody passes: truncated after one redeal
        (agent, o), = obs.items()
        obs, rewards, terminateds, truncateds, _ = e.step({agent: 32})
    assert truncateds["__all__"] and not terminateds["__all__"]


def test_policy_mapping():
    assert belote_rllib.policy_ids("shared") == ["shared"]
    assert belote_rllib.policy_ids("team") == ["team_0", "team_1"]
    team = belote_rllib.policy_mapping_fn("team")
    assert [team(f"player_{i}", None) for i in range(4)] == ["team_0", "team_1", "team_0", "team_1"]
    assert {belote_rllib.policy_mapping_fn("shared")(f"player_{i}") for i in range(4)} == {"shared"}
    with pytest.raises(ValueError, match="policies must be"):
        belote_rllib.policy_ids("seat")
    with pytest.raises(ValueError, match="unknown agent"):
        team("player_9")


def test_rllib_example_and_checkpoint_in_a_tournament(tmp_path, monkeypatch, capsys):
    ckpt = tmp_path / "ckpt"
    proc = subprocess.run([sys.executable, "examples/rllib_ppo.py", "--iterations", "1", "--batch", "256",
                           "--pairs", "8", "--policies", "team", "--save", str(ckpt), "--snapshots",
                           str(tmp_path / "snapshots")], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "rllib_ppo (team_0) vs random" in proc.stdout
    from tests.snapshots_check import check_snapshots

    check_snapshots(tmp_path / "snapshots", proc.stdout, pairs=8)  # team_0's logits, played without Ray
    # the checkpoint as a module:factory agent, loaded without Ray running
    (tmp_path / "my_rllib_agents.py").write_text(
        "from agents.policy import rllib_agent\n"
        f"def team_1():\n    return rllib_agent({str(ckpt)!r}, module_id='team_1')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from agents.policy import rllib_agent
    from agents.arena.tournament import main as tournament_main

    with pytest.raises(ValueError, match="several RLModules"):
        rllib_agent(ckpt)
    with pytest.raises(ValueError, match="no RLModule 'shared'"):
        rllib_agent(ckpt, module_id="shared")
    sampling = rllib_agent(ckpt, module_id="team_0", deterministic=False, seed=0)  # draws among legal actions
    from agents import make_agent
    from agents.arena.match import duplicate_match
    from belote_env.variants import load_variant

    assert np.isfinite(duplicate_match(sampling, make_agent("random"), load_variant("coinche"), 4).mean_diff)
    assert tournament_main(["my_rllib_agents:team_1", "random", "-n", "4", "--bootstrap", "5", "--no-progress"]) == 0
    assert "team_1" in capsys.readouterr().out
