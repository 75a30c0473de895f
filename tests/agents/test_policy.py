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


def needs_an_argument(name):
    """A factory the spec cannot call (it needs an argument)."""
    return first_legal()


def plays_3_7():
    return lambda observation, mask: float(np.flatnonzero(mask)[0]) + 0.7


def plays_true():
    return lambda observation, mask: True


def plays_nan():
    return lambda observation, mask: float("nan")


def plays_a_string():
    return lambda observation, mask: str(np.flatnonzero(mask)[0])


def plays_the_legal_set():
    return lambda observation, mask: np.flatnonzero(mask)


def plays_batched_floats():
    return PolicyAgent(lambda observations, masks: masks.argmax(axis=1).astype(np.float64), batched=True)


@pytest.mark.parametrize("factory, shown", [
    ("plays_3_7", "float 32.7"), ("plays_true", "bool True"), ("plays_nan", "float nan"), ("plays_a_string", "str '32'"),
    ("plays_the_legal_set", "ndarray array([ 32, 41,"), ("plays_batched_floats", "float64 np.float64(32.0)"),
])
def test_outside_policies_answering_no_action_id_are_one_error_line(factory, shown, capsys):
    """int() would play card 3 for 3.7 and card 1 for True: the tournament command refuses them, naming the
    agent, table, seat and legal set, in one line with exit status 2."""
    assert tournament_main([f"tests.agents.test_policy:{factory}", "random", "-n", "4", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("belote-tournament: error: agent <PolicyAgent")
    assert f"at seat 1 of table 1 returned {shown}" in err and "not an action id (an int); legal actions: pass, 80 S" in err


def test_a_factory_that_needs_arguments_is_a_spec_error(capsys):
    with pytest.raises(AgentSpecError, match=r"needs_an_argument\(\) cannot be called without arguments"):
        make_agent("tests.agents.test_policy:needs_an_argument")
    assert tournament_main(["tests.agents.test_policy:needs_an_argument", "random", "-n", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing a required argument: 'name'" in err


def test_sb3_example_runs_and_its_snapshots_play_as_its_model(tmp_path):
    pytest.importorskip("sb3_contrib")
    from tests.snapshots_check import check_snapshots

    proc = subprocess.run([sys.executable, "examples/sb3_maskable_ppo.py", "--timesteps", "256", "--pairs", "8",
                           "--snapshots", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "maskable_ppo vs random" in proc.stdout
    assert check_snapshots(tmp_path, proc.stdout, pairs=8)[-1]["steps"] == 256
