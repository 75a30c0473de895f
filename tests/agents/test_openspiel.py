"""Bots across the border: our agents as pyspiel Bots in OpenSpiel's own evaluation loop, OpenSpiel's bots as
agents of our duplicate matches (``openspiel:ismcts``), and python_belote states built from the rules core's
deals. Skipped where OpenSpiel is not installed."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.errors import AgentSpecError  # noqa: E402
from agents.openspiel.agent import OpenSpielAgent  # noqa: E402
from agents.openspiel.bot import AgentBot  # noqa: E402
from belote_env.integrations.openspiel import game_for, state_from_deal  # noqa: E402
from belote_env.rules.info import info_state  # noqa: E402
from belote_env.rules.state import DealState  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


@pytest.mark.parametrize("name", ["belote_classique", "coinche", "contree", "cobrecaf_81"])
def test_a_deal_of_the_rules_core_becomes_the_same_openspiel_state(name):
    variant = load_variant(name)
    rng = random.Random(name)
    for dealer in range(4):
        game = game_for(variant, dealer)
        for _ in range(10):
            deal = DealState.random(variant, dealer, rng)
            for _ in range(rng.randrange(40)):
                if deal.phase == "done":
                    break
                deal.apply(rng.choice(deal.legal_actions()))
            if deal.phase == "done":
                continue
            state = state_from_deal(game, deal)
            assert state.current_player() == deal.seat and state.legal_actions() == deal.legal_actions()
            for seat in range(4):
                assert info_state(state.game_state, seat) == info_state(deal, seat)


def test_our_agents_are_pyspiel_bots_in_openspiel_s_evaluation_loop():
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = pyspiel.load_game("python_belote(variant=coinche)")
    bots = [AgentBot("heuristic"), AgentBot("random", seed=1), AgentBot("ppo_coinche"), AgentBot("random", seed=2)]
    for seed in range(3):
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))
        assert sum(returns) == 0 and returns[0] == returns[2]
    # four heuristic bots play a deal exactly as the heuristic plays it on the rules core
    state = game.new_initial_state()
    deck = list(range(32))
    random.Random(4).shuffle(deck)
    for c in deck:
        state.apply_action(c)
    deal = state.game_state.deal.clone()
    heuristic = AgentBot("heuristic")
    agent = make_agent("heuristic")
    while not state.is_terminal():
        state.apply_action(heuristic.step(state))
        seat = deal.seat
        info = info_state(deal, seat)
        deal.apply(agent.act(None, None, info))
    d = deal.result.scores[0] - deal.result.scores[1]
    assert state.returns() == [d, -d, d, -d]


@pytest.mark.parametrize("answer, shown", [(3.7, "float 3.7"), (True, "bool True"), ("32", "str '32'"),
                                           (0, "int 0, which is not legal there")])
def test_an_agent_bot_refuses_answers_that_are_not_legal_action_ids(answer, shown):
    from agents.errors import AgentActionError
    from agents.policy import PolicyAgent

    state = pyspiel.load_game("python_belote(variant=coinche)").new_initial_state()
    for c in range(32):
        state.apply_action(c)
    bot = AgentBot(PolicyAgent(lambda obs, mask: answer, name="odd"))
    with pytest.raises(AgentActionError, match=f"agent <PolicyAgent odd> at seat 1 returned {shown}"):
        bot.step(state)


def test_openspiel_s_ismcts_plays_our_duplicate_matches_reproducibly():
    variant = load_variant("coinche")
    a = duplicate_match(make_agent("openspiel:ismcts,sims=8"), make_agent("random"), variant, 2, seed=3)
    b = duplicate_match(make_agent("openspiel:ismcts,sims=8"), make_agent("random"), variant, 2, seed=3)
    assert (a.mean_diff, a.win_rate, a.taken_a, a.made_a) == (b.mean_diff, b.win_rate, b.taken_a, b.made_a)
    r = duplicate_match(make_agent("openspiel:random"), make_agent("random"), load_variant("belote_classique"), 2)
    assert r.pairs == 2


def test_openspiel_agent_specs_and_their_errors():
    agent = make_agent("openspiel:ismcts,sims=50,uct=1.5,worlds=8,seed=3")
    assert isinstance(agent, OpenSpielAgent)
    assert (agent.sims, agent.uct, agent.worlds) == (50, 1.5, 8)
    assert agent.name == "openspiel:ismcts,sims=50,uct=1.5,worlds=8,seed=3"
    assert make_agent("openspiel").bot == "ismcts"
    with pytest.raises(AgentSpecError, match="unknown OpenSpiel bot 'cfr'"):
        make_agent("openspiel:cfr")
    with pytest.raises(AgentSpecError, match="'sims' must be int"):
        make_agent("openspiel:ismcts,sims=many")
    with pytest.raises(AgentSpecError, match="expected key=value"):
        make_agent("openspiel:ismcts,depth=3")


def test_the_openspiel_policy_gradient_example_trains_and_plays_our_matches(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from tests.snapshots_check import check_snapshots

    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "examples/openspiel_policy_gradient.py", "--episodes", "40", "--pairs", "4",
                           "--snapshots", str(tmp_path)], cwd=repo, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("trained 40 deals of self-play (") and " decisions) in " in lines[0]
    decisions = int(lines[0].split("(")[1].split()[0].replace(",", ""))
    assert check_snapshots(tmp_path, proc.stdout, pairs=4)[-1]["steps"] == decisions
    assert lines[1].startswith("openspiel_a2c vs random on coinche, 4 duplicate pairs: ")
    assert lines[2].startswith("openspiel_a2c vs heuristic on coinche, 4 duplicate pairs: ")
