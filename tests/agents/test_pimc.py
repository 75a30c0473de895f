"""The pimc agent: built by name with options, legal and deterministic, lazy about numba."""

import subprocess
import sys

import pytest

from agents import AgentSpecError, make_agent
from agents.match import duplicate_match
from agents.pimc import PimcAgent
from belote_env.variants import load_variant


def test_spec_with_options():
    a = make_agent("pimc:worlds=4,tricks=3,obj=points")
    assert isinstance(a, PimcAgent)
    assert (a.worlds, a.tricks, a.obj, a.name) == (4, 3, "points", "pimc:worlds=4,tricks=3,obj=points")
    assert make_agent("pimc").worlds == 16
    with pytest.raises(AgentSpecError, match="worlds"):
        make_agent("pimc:world=4")
    with pytest.raises(AgentSpecError, match="obj"):
        make_agent("pimc:obj=win")


def test_module_factory_specs_still_work():
    assert type(make_agent("agents.heuristic:HeuristicAgent")).__name__ == "HeuristicAgent"


def test_plays_legal_deterministic_deals():
    # duplicate_match raises on an illegal action; the same seed gives the same result
    v = load_variant("belote_classique")
    runs = [duplicate_match(make_agent("pimc:worlds=3,tricks=4"), make_agent("heuristic"), v, 3, seed=5)
            for _ in range(2)]
    assert runs[0].to_dict() == runs[1].to_dict()


def test_import_agents_does_not_load_numba():
    code = ("import sys, agents, agents.pimc; agents.make_agent('pimc:worlds=2'); "
            "assert 'numba' not in sys.modules, 'numba was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
