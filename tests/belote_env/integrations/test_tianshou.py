"""Tianshou: the masked single-agent env, a policy as an agent (legal moves, module:factory in a
tournament), and the example script (a short PPO run). Skipped where Tianshou is not installed
(the main suite; see docs/integrations.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tianshou")

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.policy import tianshou_agent  # noqa: E402
from belote_env.integrations import tianshou as belote_ts  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def _policy():
    """An untrained masked PPO policy."""
    import torch
    from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy

    torch.manual_seed(0)
    space = belote_ts.make_env("coinche")
    return DiscreteActorPolicy(actor=belote_ts.MaskedActor((32,)), action_space=space.action_space,
                               observation_space=space.observation_space)


def untrained_policy():
    """A module:factory for the tournament test."""
    return tianshou_agent(_policy(), name="untrained")


def test_masked_env():
    from gymnasium.utils.env_checker import check_env

    e = belote_ts.make_env("coinche", partner="random", opponents="random")
    check_env(e, skip_render_check=True)
    obs, info = e.reset(seed=1)
    assert set(obs) == {"obs", "mask"} and obs["mask"].dtype == bool and obs["mask"].any()
    assert "info_state" not in info and e.observation_space.contains(obs)


def test_policy_plays_legal_moves_and_enters_a_tournament(capsys):
    agent = untrained_policy()
    stochastic = tianshou_agent(_policy(), deterministic=False, seed=0)  # draws among the legal actions
    for a in (agent, stochastic):
        result = duplicate_match(a, make_agent("random"), load_variant("coinche"), 4, seed=0)
        assert np.isfinite(result.to_dict()["mean_diff"])
    # the draws are reseeded per batch of deals: a second match is the same
    again = duplicate_match(stochastic, make_agent("random"), load_variant("coinche"), 4, seed=0)
    assert np.array_equal(again.pair_diffs, result.pair_diffs)
    from agents.arena.tournament import main as tournament_main

    assert tournament_main(["tests.belote_env.integrations.test_tianshou:untrained_policy", "random", "-n", "4",
                            "--bootstrap", "5", "--no-progress"]) == 0
    assert "untrained" in capsys.readouterr().out


def test_tianshou_example_runs_and_its_snapshots_play_as_its_policy(tmp_path):
    from tests.snapshots_check import check_snapshots

    proc = subprocess.run([sys.executable, "examples/tianshou_ppo.py", "--steps", "512", "--pairs", "8",
                           "--snapshots", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "tianshou_ppo vs random" in proc.stdout
    assert check_snapshots(tmp_path, proc.stdout, pairs=8)[-1]["steps"] == 512
