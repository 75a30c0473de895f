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
    for spec in ("pimc:worlds=100000000", "search:bid_worlds=1001", "pimc:draws=1000000000"):  # a decision would
        with pytest.raises(AgentSpecError, match="at most|1..1000"):  # take days or all the memory
            make_agent(spec)


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


def test_dd_take_or_pass_takes_where_the_dd_score_is_positive():
    """belote classique with bid=dd: each legal take played out in bid_worlds sampled deals; deterministic."""
    import random

    from belote_env.rules import DealState

    v = load_variant("belote_classique")
    agent = make_agent("pimc:bid=dd,bid_worlds=2,tricks=1")
    rng = random.Random(1)
    took, passes = 0, 0
    for k in range(6):
        deal = DealState.random(v, k & 3, rng)
        while deal.phase == "bidding":
            info = deal.info_state(deal.seat)
            a = agent.act(None, None, info)
            assert a in info.legal_actions() and a == agent.act(None, None, info)
            passes += a == 32
            deal.apply(a)
        took += deal.phase == "play"
    assert took and passes


def test_dd_bidding_leaves_other_bidding_systems_to_the_heuristic():
    v = load_variant("cobrecaf_81")
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


def test_dd_calls_with_beliefs_draw_their_worlds_by_the_weights(monkeypatch):
    """bid=dd with beliefs: take or pass (belote classique) and auction calls (coinche) solve bid_worlds worlds
    resampled from the weighted ones, as card decisions do; the same call twice for the same position."""
    import random

    import agents.beliefs as beliefs
    from belote_env.rules import DealState

    drawn = []
    weigh = beliefs.weighted_worlds

    def spy(info, net, draws, rng):
        worlds, logw = weigh(info, net, draws, rng)
        drawn.append((info.phase, draws, len(worlds)))
        return worlds, logw

    monkeypatch.setattr(beliefs, "weighted_worlds", spy)
    for variant, policy in (("belote_classique", "ppo_belote_classique"), ("coinche", "ppo_coinche")):
        v = load_variant(variant)
        agent = make_agent(f"pimc:bid=dd,bid_worlds=3,worlds=4,draws=8,beliefs={policy},tricks=1")
        deal = DealState.random(v, 1, random.Random(5))
        drawn.clear()
        worlds = agent._worlds(deal.info_state(deal.seat), random.Random(0), None, agent.bid_worlds)
        assert drawn == [("bidding", 8, 8)] and sum(count for _, count in worlds) == 3
        for _ in range(3):
            if deal.phase != "bidding":
                break
            info = deal.info_state(deal.seat)
            drawn.clear()
            call = agent.act(None, None, info)
            assert call in info.legal_actions() and call == agent.act(None, None, info)
            assert drawn and all(d == ("bidding", 8, 8) for d in drawn)
            deal.apply(call)


def _decisions(variant, seeds, player="heuristic"):
    """(observation, mask, info) at every decision of ``player``'s deals, seat by seat."""
    from belote_env.observation import action_mask, encode
    from belote_env.rules.game import GameState

    agent = make_agent(player)
    out = []
    for seed in seeds:
        game = GameState(load_variant(variant), seed=seed)
        deal = game.deal
        while game.deal is deal and not deal.is_over:
            seat = game.deal.seat
            obs, mask, info = encode(game, seat), action_mask(game, seat), game.info_state(seat)
            out.append((obs, mask, info))
            game.apply(agent.act(obs, mask, info))
    return out


def test_search_spec_is_pimc_on_a_policy():
    a = make_agent("search")
    assert isinstance(a, PimcAgent) and (a.base, a.name, a.needs_observation) == ("family", "search", True)
    b = make_agent("search:policy=ppo_contree,worlds=4,tricks=3")
    assert (b.base, b.worlds, b.tricks, b.name) == ("ppo_contree", 4, 3, "search:policy=ppo_contree,worlds=4,tricks=3")
    assert make_agent("pimc:base=ppo_coinche").needs_observation and not make_agent("pimc").needs_observation
    # a checkpoint path as the last option: a search agent, not a checkpoint named "search:policy=...pt"
    from agents.pretrained import weights_path
    from agents.registry import is_checkpoint_spec

    path = str(weights_path("ppo_coinche"))
    assert make_agent(f"search:policy={path}").base == path and not is_checkpoint_spec(f"search:policy={path}")
    assert is_checkpoint_spec(path) and is_checkpoint_spec("runs/missing.pt")
    for bad, word in (("search:policy=nobody", "search option policy names a shipped"), ("search:base=heuristic", "policy"),
                      ("pimc:base=nobody", "heuristic"), ("search:worlds=0", "search option worlds must be"),
                      ("search:beliefs=nobody", "search option beliefs names"), ("pimc:beliefs=nobody", "pimc option")):
        with pytest.raises(AgentSpecError, match=word):
            make_agent(bad)
    with pytest.raises(ValueError, match="no shipped agent was trained on variant 'coinche_officielles'"):
        obs, mask, info = _decisions("coinche_officielles", [0])[0]
        make_agent("search").act(obs, mask, info)


def test_search_calls_as_its_policy_and_breaks_ties_by_it():
    # Outside the searched tricks every decision is the policy's; a searched card is one of best mean take
    # over the worlds (obj=points), the policy's favourite among those; one batch gives what one decision at a
    # time gives.
    import random

    from agents.pimc import _policies
    from belote_env.rules.sampling import sample_deal
    from belote_env.search import Position

    policy = make_agent("ppo_coinche")
    decisions = [d for d in _decisions("coinche", [2, 3]) if len(d[2].legal_actions()) > 1]
    searched = [d[2].phase == "play" and len(d[2].tricks) >= 6 for d in decisions]
    assert 4 < sum(searched) < len(decisions) - 4
    agent = make_agent("search:worlds=3,tricks=2,obj=points")
    one_by_one = [agent.act(*d) for d in decisions]
    assert agent.act_batch(*(list(x) for x in zip(*decisions))) == one_by_one
    ties = 0
    for (obs, mask, info), got, search in zip(decisions, one_by_one, searched):
        if not search:
            assert got == policy.act(obs, mask, info)
            continue
        rng = random.Random(f"{agent.seed}:{info.seat}:{info.history}")
        takes = dict.fromkeys(info.legal_actions(), 0)
        for _ in range(3):
            for card, take in agent._solver_for().values_of(Position(sample_deal(info, rng))).items():
                takes[card] += take
        best = [c for c in takes if takes[c] == max(takes.values())]
        prior = _policies(policy.net, [obs], [mask], [0])[0]
        assert got == max(best, key=lambda c: (prior[c], -c))
        ties += len(best) > 1
    assert ties  # the policy did break a tie
