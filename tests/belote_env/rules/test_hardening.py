"""Property tests (hypothesis) of the rules core's edges: actions of every type
in every phase, and mutated positions. Bad input raises the documented error
(IllegalActionError, NotationError, VariantError: all ValueError) and changes
nothing; nothing else escapes."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_env.rules import (
    DealState,
    IllegalActionError,
    NotationError,
    VariantError,
    action_name,
    parse_action,
    parse_card,
    parse_cards,
    parse_strain,
)

from .helpers import VARIANT_NAMES, variant

ACTIONS = st.one_of(
    st.integers(-300, 300),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.none(),
    st.integers(0, 111).map(np.int64),
    st.integers(0, 111).map(np.uint8),
    st.integers(0, 111).map(np.array),  # 0-d arrays are integers
    st.lists(st.integers(0, 111), min_size=1, max_size=3).map(np.array),
    st.booleans().map(np.bool_),
    st.just(object()),
)


def _position(name: str, seed: int) -> DealState:
    rng = random.Random(seed)
    deal = DealState.random(variant(name), seed & 3, rng)
    stop = rng.randrange(45)
    while not deal.is_over and len(deal.history) < stop:
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


def _is_action_id(a) -> bool:
    if isinstance(a, (bool, np.bool_)):
        return False
    if isinstance(a, (int, np.integer)):
        return True
    return isinstance(a, np.ndarray) and a.ndim == 0


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 10**6), action=ACTIONS)
def test_actions_of_every_type_in_every_phase(name, seed, action):
    deal = _position(name, seed)
    before = deal.format()
    legal = deal.legal_actions()
    if _is_action_id(action) and int(action) in legal:
        deal.apply(action)
        assert deal.history[-1] == int(action) and type(deal.history[-1]) is int
        return
    with pytest.raises(IllegalActionError) as e:
        deal.apply(action)
    assert deal.format() == before and deal.legal_actions() == legal
    assert e.value.legal == tuple(legal)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.floats(), st.binary(max_size=4),
                       st.lists(st.integers(), max_size=2)))
def test_notation_functions_reject_non_text(value):
    for fn in (parse_action, parse_card, parse_cards, parse_strain):
        with pytest.raises(NotationError):
            fn(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 112:
        with pytest.raises(NotationError):
            action_name(value)


BAD_DEALERS = [1.5, "1", None, True, 4, -1]
BAD_GARDES = [-7, -1, 1.5, "0", None, True]


@pytest.mark.parametrize("dealer", BAD_DEALERS)
def test_bad_dealer_is_named(dealer):
    hands = ["AS 10S KS QS JS 9S 8S 7S", "AH 10H KH QH JH 9H 8H 7H", "AD 10D KD QD JD 9D 8D 7D", "AC 10C KC QC JC 9C 8C 7C"]
    with pytest.raises(NotationError, match="dealer"):
        DealState.from_hands(variant("coinche"), dealer, hands)
    with pytest.raises(NotationError, match="dealer"):
        DealState.random(variant("coinche"), dealer, random.Random(0))


@pytest.mark.parametrize("garde", BAD_GARDES)
def test_bad_garde_is_named(garde):
    hands = ["AS 10S KS QS JS 9S 8S 7S", "AH 10H KH QH JH 9H 8H 7H", "AD 10D KD QD JD 9D 8D 7D", "AC 10C KC QC JC 9C 8C 7C"]
    with pytest.raises(NotationError, match="garde"):
        DealState.from_hands(variant("coinche"), 0, hands, garde=garde)


@pytest.mark.parametrize("hands,field", [
    ([[40, 1, 2, 3, 4, 5, 6, 7], 0, 0, 0], "seat 0"),
    ([[-1, 1, 2, 3, 4, 5, 6, 7], 0, 0, 0], "seat 0"),
    ([0xFF, None, 0, 0], "seat 1"),
    ([0xFF, [True, 9], 0, 0], "seat 1"),
    ([0xFF, [1.5], 0, 0], "seat 1"),
    (None, "hands"),
])
def test_bad_hands_are_named(hands, field):
    with pytest.raises(NotationError, match=field):
        DealState.from_hands(variant("coinche"), 0, hands)


@pytest.mark.parametrize("turnup", [32, -1, 40, True, 2.0])
def test_bad_turnup_is_named(turnup):
    hands = ["7S 8S 9S 10S JS", "7H 8H 9H 10H JH", "7D 8D 9D 10D JD", "7C 8C 9C 10C JC"]
    with pytest.raises(NotationError, match="turn-up"):
        DealState.from_hands(variant("belote_classique"), 0, hands, turnup=turnup)


def _mutations(text: str, rng: random.Random) -> str:
    """One random edit of a position's text: a field's value replaced, a character changed, dropped or doubled."""
    parts = text.split(" | ")
    k = rng.randrange(1, len(parts))
    key, _, value = parts[k].partition(": ")
    choice = rng.randrange(5)
    if choice == 0:
        parts[k] = f"{key}: {rng.choice(['-7', '4', '1.5', 'x', '', '99999999999', 'AS', 'pass, pass'])}"
    elif choice == 1 and value:
        i = rng.randrange(len(value))
        parts[k] = f"{key}: {value[:i]}{rng.choice('0123456789 ,/|:=-xJHSDC')}{value[i + 1:]}"
    elif choice == 2 and value:
        i = rng.randrange(len(value))
        parts[k] = f"{key}: {value[:i]}{value[i + 1:]}"
    elif choice == 3:
        parts.insert(k, parts[k])
    else:
        del parts[k]
    return " | ".join(parts)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 10**6), edits=st.integers(1, 3))
def test_mutated_positions_parse_or_raise_a_named_error(name, seed, edits):
    text = _position(name, seed).format()
    rng = random.Random(seed)
    for _ in range(edits):
        text = _mutations(text, rng)
    try:
        deal = DealState.parse(text)
    except (NotationError, VariantError) as e:
        assert str(e)
        return
    assert DealState.parse(deal.format()) == deal  # what parses round-trips
    assert deal.garde >= 0 and 0 <= deal.dealer <= 3


def test_negative_garde_position_does_not_parse():
    text = _position("belote_classique", 3).format().replace("garde: 0", "garde: -7")
    with pytest.raises(NotationError, match="garde"):
        DealState.parse(text)
