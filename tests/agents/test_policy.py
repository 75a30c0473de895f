"""Outside policies as agents: PolicyAgent, module:factory specs (also in the tournament
command, with a short label), an sb3 model, and the sb3 example script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import AgentSpecError, make_agent
from agents.arena.match import duplicate_match
from agents.policy import PolicyAgent
from agents.arena.tournament import main as tournament_main
from belote_env.variants import load_variant

REPO = Path(__file__).resolve().parents[2]


def first_legal():
    """A factory for the module:factory tests: returns a plain function."""
    return lambda observation, mask: int(np.flatnonzero(mask)[0])


def test_policy_agent_plays_a_duplicate_match():
    lowest = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[0]), name="lowest")
    batched = PolicyAgent(lambda obs, masks: masks.argmax(axis=1), name="lowest_b", batched=True)
    a = duplicate_match(lowest, make_agent("random"), load_variant("coinche"), 16, seed=0)
    b = duplicate_match(batched, make_agent("random"), load_variant("coinche"), 16, seed=0)
    assert a.to_dict()["mean_diff"] == b.to_dict()["mean_diff"]  # the same policy, one call or batched
    with pytest.raises(TypeError):
        PolicyAgent(3)


def test_module_factory_specs(capsys):
    spec = "tests.agents.test_policy:first_legal"
    agent = make_agent(spec)
    assert isinstance(agent, PolicyAgent) and agent.name == "first_legal"
    for bad, match in [("no.such.module:x", "cannot import"), ("agents.policy:nothing", "no callable")]:
        with pytest.raises(AgentSpecError, match=match):
            make_agent(bad)
    assert tournament_main([spec, "random", "-n", "4", "--bootstrap", "5", "--no-progress"]) == 0
    assert "first_legal" in capsys.readouterr().out


def test_sb3_example_runs():
    pytest.importorskip("sb3_contrib")
    proc = subprocess.run([sys.executable, "examples/sb3_maskable_ppo.py", "--timesteps", "256", "--pairs", "8"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "maskable_ppo vs random" in proc.stdout
