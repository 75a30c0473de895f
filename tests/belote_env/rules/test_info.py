"""InfoState: what one seat knows, and nothing from which another seat's cards
can be read (OpenSpiel's check: resample the hidden cards, the information
state must not change)."""

from __future__ import annotations

import random

import pytest

from belote_env.rules import Contract, GameState, InfoState, Variant, info_state
from belote_env.rules.declarations import Declaration
from belote_env.rules.sampling import sample_deal
from belote_env.rules.state import BeloteEvent, DealState, Trick

from .helpers import VARIANT_NAMES, variant


def _positions(name, count, seed):
    """Random positions of every phase: (deal, seat) pairs, every seat."""
    v = variant(name)
    rng = random.Random(seed)
    out = []
    for k in range(count):
        deal = DealState.random(v, k & 3, rng)
        stop = rng.randrange(60)
        while not deal.is_over and len(deal.history) < stop:
            deal.apply(rng.choice(deal.legal_actions()))
        out.extend((deal, seat) for seat in range(4))
    return out


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_resampling_hidden_cards_leaves_the_info_state_unchanged(name):
    rng = random.Random(name)
    for deal, seat in _positions(name, 40, 1):
        info = deal.info_state(seat)
        for _ in range(3):
            other = sample_deal(info, rng)
            assert other.info_state(seat) == info


def _leaves(x, path="info"):
    """Every value reachable from an InfoState, with its path."""
    if isinstance(x, (Contract, Trick, BeloteEvent, Declaration)) or type(x) is tuple or isinstance(x, InfoState):
        for i, y in enumerate(x):
            yield from _leaves(y, f"{path}[{i}]")
    else:
        yield path, x


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_info_state_holds_only_immutable_public_facts(name):
    for deal, seat in _positions(name, 20, 2):
        info = deal.info_state(seat)
        for path, value in _leaves(info):
            assert isinstance(value, (int, str, Variant)) or value is None, (path, type(value))
        hidden = [deal.hands[s] for s in range(4) if s != seat and deal.hands[s]]
        assert info.hand == deal.hands[seat] and info.hand not in hidden
        with pytest.raises(AttributeError):
            info.hand = 0


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_info_state_matches_the_deal(name):
    for deal, seat in _positions(name, 15, 3):
        info = deal.info_state(seat)
        assert info.history == deal.history
        assert info.to_act == (deal.current_seat == seat)
        assert info.legal_actions() == (deal.legal_actions() if info.to_act else [])
        assert info.trick_history() == deal.trick_history()
        assert info.public_declarations() == deal.public_declarations()
        assert info.played == tuple(deal.played) and info.calls == tuple(deal.calls)
        assert (info.table is None) == (deal.table is None)


def test_game_info_state_carries_scores_and_target():
    game = GameState(variant("belote_classique", episode="game"), seed=4)
    rng = random.Random(0)
    while not game.results or game.results[-1].outcome == "redeal":
        game.apply(rng.choice(game.legal_actions()))
    info = game.info_state(game.current_seat)
    assert info.scores == tuple(game.scores) and info.target == 1000 and info.garde == game.garde
    assert sum(info.scores) > 0


def test_bad_seat():
    deal = DealState.random(variant("coinche"), 0, random.Random(0))
    for bad in (4, -1, 1.5, "1", True, None):
        with pytest.raises(ValueError, match="seat"):
            info_state(deal, bad)


def test_sample_deal_keeps_the_older_signature():
    deal = DealState.random(variant("coinche"), 0, random.Random(0))
    a = sample_deal(deal, 2, random.Random(5))
    b = sample_deal(deal.info_state(2), random.Random(5))
    assert a == b
    with pytest.raises(TypeError):
        sample_deal(deal, 2)
