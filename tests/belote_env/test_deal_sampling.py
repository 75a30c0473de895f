"""Deal sampling for search agents: consistent with one seat's information, legal continuations."""

from __future__ import annotations

import random

import numpy as np
import pytest

import belote_env
from belote_env.observation import encode
from belote_env.rules import GameState, parse_action
from belote_env.rules.sampling import SamplingError, sample_deal, sample_game_deal

from .helpers import VARIANTS, game_at, load_variant


def positions(name, n_games, rng, every=0.35):
    """(game, seat) pairs from random play: bidding, every trick stage, the end of the deal."""
    v = load_variant(name)
    for g in range(n_games):
        game = GameState(v, seed=g)
        while True:
            if game.over or rng.random() < every:
                yield game, rng.randrange(4)
            if game.over:
                break
            game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("name", VARIANTS)
def test_resampling_never_changes_the_seat_observation_and_replays_the_history(name):
    rng = random.Random(name)
    changed = 0
    for game, seat in positions(name, 12, rng):
        real = game.deal
        sampled = sample_game_deal(game, seat, rng)
        st = sampled.deal
        assert st is not real and st.history == real.history
        assert (st.variant, st.dealer, st.garde, st.turnup) == (real.variant, real.dealer, real.garde, real.turnup)
        np.testing.assert_array_equal(encode(sampled, seat), encode(game, seat))
        # A legal continuation: the real history replays on the sampled cards from scratch.
        replay = type(st).from_hands(st.variant, st.dealer, st.initial, st.turnup if st.turnup >= 0 else None,
                                     st.stock or None, st.garde)
        for a in real.history:
            replay.apply(a)
        assert replay.hands == st.hands
        if not st.is_over:
            assert st.legal_actions()  # play can go on
        changed += st.hands != real.hands
    assert changed > 0  # the hidden cards really are redrawn


def test_voids_shown_by_play_are_respected():
    # Coinche, hearts trump. West (seat 1) leads AS; North (2) and East (3) show voids in spades,
    # North discards 7C against the opponents' trick, so it has no trump either.
    hands = ["JH 9H AH 10H KH QH 7D 8D", "AS 10S KS QS 9S 8S 7S JS", "AD 10D KD QD JD 9D 7C 8C",
             "AC 10C KC QC JC 9C 8H 7H"]
    moves = "80 S, pass, pass, 100 H, pass, pass, pass, AS, 7C, 8H, QH"
    game = game_at(load_variant("coinche"), hands, moves, dealer=0)
    rng = random.Random(0)
    spades = sum(1 << (8 * 0 + r) for r in range(8))
    hearts = sum(1 << (8 * 1 + r) for r in range(8))
    for _ in range(100):
        st = sample_deal(game.deal, 0, rng)
        assert st.hands[0] == game.deal.hands[0]
        assert st.hands[2] & spades == 0 and st.hands[3] & spades == 0  # both failed to follow
        assert st.hands[2] & hearts == 0  # North discarded 7C although East did not yet hold the trick: no trump
        assert st.hands[0] & (1 << parse_action("KH"))  # South's belote: it still holds the king
        # Only West may hold spades, so it holds the seven left; the last trump, 7H, must be East's.
        assert st.hands[1] == game.deal.hands[1]
        assert st.hands[3] & hearts == 1 << parse_action("7H")


def test_turn_up_deal_after_the_take_keeps_the_taker_and_the_turn_up():
    v = load_variant("belote_classique")
    hands = ["9H 10H AH 7S 8S", "AS 10S KS 7C 8C", "QS JS 9S 9D 10D", "7H 8H QH KH AC"]
    game = game_at(v, hands, "pass, take H, 7S", dealer=3, turnup="JH", stock="7D 8D 9C QC KC AD 10C JC JD QD KD")
    rng = random.Random(1)
    jh = parse_action("JH")
    for _ in range(50):
        st = sample_deal(game.deal, 2, rng)
        assert st.contract.taker == 1 and st.turnup == jh
        assert st.hands[1] >> jh & 1  # the taker received the turn-up
        assert st.hands[2] == game.deal.hands[2]
        assert all(h.bit_count() == (7 if s == 0 else 8) for s, h in enumerate(st.hands))


def test_env_unwrapped_gives_search_agents_the_state_to_sample_from():
    e = belote_env.env("coinche")
    e.reset(seed=9)
    for _ in range(10):
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    game = e.unwrapped.game
    seat = game.deal.seat
    before = game.deal.format()
    st = sample_deal(game.deal, seat, random.Random(0))
    assert game.deal.format() == before  # the env's state is untouched
    assert st.legal_actions() == game.deal.legal_actions()


def test_bad_seat_is_an_error():
    game = GameState(load_variant("coinche"), seed=0)
    with pytest.raises(SamplingError, match="seat must be 0..3"):
        sample_deal(game.deal, 4, random.Random(0))
    assert issubclass(SamplingError, ValueError)
