"""Beliefs weighted by a policy (agents/beliefs.py): the others' decisions as they saw them, weights, scores."""

import random

import numpy as np

from agents import make_agent
from agents.beliefs import card_log_likelihood, holder_probabilities, others_decisions, weighted_worlds
from belote_env.observation import action_mask, encode
from belote_env.rules.game import GameState
from belote_env.rules.info import info_state
from belote_env.rules.sampling import sample_deal
from belote_env.variants import load_variant


def _midway(seed=3, actions=14):
    game = GameState(load_variant("coinche"), seed=seed)
    heuristic = make_agent("heuristic")
    while len(game.deal.history) < actions:
        seat = game.deal.seat
        game.apply(heuristic.act(None, action_mask(game, seat), game.info_state(seat)))
    return game


def test_the_others_decisions_are_seen_as_they_were_made():
    game = _midway()
    deal = game.deal
    obs, masks, actions = others_decisions(deal, 0)
    actors = []
    st = deal.as_dealt()
    shell = GameState(deal.variant, seed=0)
    shell.deal = st
    expected = []
    for a in deal.history:
        if st.seat != 0:
            actors.append(st.seat)
            expected.append(encode(shell, st.seat))
        st.apply(a)
    assert actions == [a for a, s in zip(deal.history, _seats(deal)) if s != 0] and len(actors) == len(actions)
    np.testing.assert_array_equal(obs, np.stack(expected))
    assert all(masks[i, a] for i, a in enumerate(actions))


def _seats(deal):
    st = deal.as_dealt()
    out = []
    for a in deal.history:
        out.append(st.seat)
        st.apply(a)
    return out


def test_weights_are_deterministic_and_uniform_without_a_policy():
    game = _midway()
    info = info_state(game.deal, 0)
    net = make_agent("ppo_coinche").net
    w1, l1 = weighted_worlds(info, net, 12, random.Random(5))
    w2, l2 = weighted_worlds(info, net, 12, random.Random(5))
    assert [w.initial for w in w1] == [w.initial for w in w2] and np.array_equal(l1, l2)
    assert np.isfinite(l1).all() and (l1 < 0).all() and l1.std() > 0  # the worlds are told apart
    _, flat = weighted_worlds(info, None, 12, random.Random(5))
    assert not flat.any()


def test_holder_probabilities_and_the_log_likelihood_of_the_truth():
    game = _midway()
    deal, info = game.deal, info_state(game.deal, 0)
    worlds = [sample_deal(info, random.Random(k)) for k in range(30)]
    probs = holder_probabilities(worlds, np.zeros(30))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    mine = info.hand | info.played[0]
    for c in range(32):
        if mine >> c & 1:
            assert probs[c, 0] > 0.9  # every world gives the observer its own cards
    uniform = card_log_likelihood(probs, deal, info)
    assert -np.log(32) < uniform < 0
    # the truth itself, weighted far above the others, is scored higher
    logw = np.full(31, -50.0)
    logw[-1] = 0.0
    told = card_log_likelihood(holder_probabilities(worlds + [deal], logw), deal, info)
    assert told > uniform and told > -0.1
