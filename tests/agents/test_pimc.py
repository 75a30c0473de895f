"""The pimc agent: built by name with options, legal and deterministic, lazy about numba."""

import subprocess
import sys

import pytest

from agents import AgentSpecError, make_agent
from agents.arena.match import duplicate_match
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


def test_dd_bidding_options():
    a = make_agent("pimc:bid=dd,bid_worlds=3")
    assert (a.bid, a.bid_worlds) == ("dd", 3)
    assert make_agent("pimc").bid == "heuristic"
    with pytest.raises(AgentSpecError, match="bid"):
        make_agent("pimc:bid=gib")
    with pytest.raises(AgentSpecError, match="bid_worlds"):
        make_agent("pimc:bid_worlds=0")


def test_dd_bidding_calls_by_the_sampled_scores():
    # In an auction the call is the one of best mean score over the sampled worlds, each world's strains
    # solved from the first lead: recompute it here from the same worlds and compare; the call is legal and
    # deterministic.
    import random

    from agents.heuristic import estimate_points
    from agents.pimc import BID_STRAINS, _end_auction, _sample_auction_world, _team_take, _WorldScorer
    from belote_env.rules.actions import BID, BID_VALUES, COINCHE, PASS, SURCOINCHE, is_bid
    from belote_env.rules.state import DealState

    v = load_variant("coinche")
    rng = random.Random(11)
    st = DealState.random(v, 0, rng)
    st.apply(BID + 6 * BID_VALUES.index(80) + 2)  # 80 in a suit by seat 1; seat 2 to call
    info = st.info_state(st.seat)
    agent = make_agent("pimc:bid=dd,bid_worlds=2,seed=4")
    call = agent.act(None, None, info)
    assert call in info.legal_actions()
    assert make_agent("pimc:bid=dd,bid_worlds=2,seed=4").act(None, None, info) == call

    team = info.seat & 1
    strains = sorted(v.strains, key=lambda s: -estimate_points(info.hand, s, v))[:BID_STRAINS]
    calls = [a for a in info.legal_actions() if a in (PASS, COINCHE, SURCOINCHE)]
    calls += [a for a in info.legal_actions() if is_bid(a) and BID_VALUES[(a - BID) // 6] <= 160
              and (a - BID) % 6 in strains]
    totals = dict.fromkeys(calls, 0.0)
    wrng = random.Random(f"{agent.seed}:{info.seat}:{info.history}:auction")
    solver = agent._solver_for()
    for _ in range(2):
        world = _sample_auction_world(info, wrng)
        assert estimate_points(world.hands[1], 2, v) >= 80  # the bid of seat 1 is one the heuristic could make
        high = _end_auction(world, None)
        assert high.contract.strain == 2 and high.contract.taker == 1
        for a in calls:
            if is_bid(a):
                end = _end_auction(world, (a - BID) % 6)
                assert end.contract.taker == info.seat
                contract = end.contract._replace(value=BID_VALUES[(a - BID) // 6])
            else:
                end = high
                contract = high.contract._replace(level={PASS: 1, COINCHE: 2, SURCOINCHE: 4}[a])
            totals[a] += _WorldScorer(end, team, contract)(_team_take(solver, end, team, agent.bid_margin))
    assert call == max(calls, key=lambda a: (totals[a], -calls.index(a)))


def test_dd_bidding_leaves_other_bidding_systems_to_the_heuristic():
    v = load_variant("belote_classique")
    runs = [duplicate_match(make_agent("pimc:bid=dd,tricks=1"), make_agent("heuristic"), v, 2, seed=3),
            duplicate_match(make_agent("pimc:tricks=1"), make_agent("heuristic"), v, 2, seed=3)]
    a, b = (r.to_dict() for r in runs)
    assert a.pop("agent_a") == "pimc:bid=dd,tricks=1"
    b.pop("agent_a")
    assert a == b


def test_beliefs_option_weighs_its_worlds_and_stays_deterministic():
    a = make_agent("pimc:beliefs=ppo_coinche,worlds=3,draws=9,beta=0.5,tricks=3")
    assert (a.draws, a.beta, a.beliefs) == (9, 0.5, "ppo_coinche") and a._belief_net is not None
    v = load_variant("coinche")
    runs = [duplicate_match(make_agent("pimc:beliefs=ppo_coinche,worlds=3,tricks=3"), make_agent("heuristic"), v, 2,
                            seed=1) for _ in range(2)]
    assert runs[0].to_dict() == runs[1].to_dict()
    for bad, word in (("beliefs=nobody", "beliefs"), ("beliefs=ppo_coinche,worlds=8,draws=4", "draws"),
                      ("beta=0", "beta"), ("beta=1.5", "beta")):
        with pytest.raises(AgentSpecError, match=word):
            make_agent(f"pimc:{bad}")
