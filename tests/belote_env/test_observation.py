"""The observation: known positions checked segment by segment, and the
incremental encoder (what the env serves) equal to ``encode`` everywhere."""

from __future__ import annotations

import random

import numpy as np
import pytest

from belote_env.observation import OBS_SIZE, SEGMENTS, IncrementalEncoder, action_mask, encode
from belote_env.rules import GameState, parse_action, parse_card, parse_cards

from .helpers import VARIANTS, game_at, load_variant, seg


def onehot(n, *idx, value=1.0):
    out = np.zeros(n, dtype=np.float32)
    for i in idx:
        out[i] = value
    return out


def cards_vec(text):
    m = parse_cards(text)
    return np.array([m >> c & 1 for c in range(32)], dtype=np.float32)


def test_segments_tile_the_vector():
    offsets = sorted(SEGMENTS.values())
    pos = 0
    for off, length in offsets:
        assert off == pos
        pos += length
    assert pos == OBS_SIZE == 853


# Coinche, dealer 0. West (seat 1) bids 80 S, South (seat 0) 100 H, West
# coinches, all pass. Trick 1: AS 7C 8H QH (South's queen: belote), trick 2
# in progress: South JH, West 7S.
COINCHE_HANDS = [
    "JH 9H AH 10H KH QH 7D 8D",
    "AS 10S KS QS 9S 8S 7S JS",
    "AD 10D KD QD JD 9D 7C 8C",
    "AC 10C KC QC JC 9C 8H 7H",
]
COINCHE_MOVES = "80 S, pass, pass, 100 H, coinche, pass, pass, pass, AS, 7C, 8H, QH, JH, 7S"


def test_known_coinche_position_from_west():
    game = game_at(load_variant("coinche"), COINCHE_HANDS, COINCHE_MOVES, dealer=0)
    obs = encode(game, 1)  # West: relative seats West 0, North 1, East 2, South 3
    np.testing.assert_array_equal(seg(obs, "hand"), cards_vec("10S KS QS 9S 8S JS"))
    assert not seg(obs, "turnup").any()
    calls = seg(obs, "calls").reshape(4, 80)
    np.testing.assert_array_equal(
        calls[0], onehot(80, parse_action("80 S") - 32, parse_action("coinche") - 32)
    )
    assert not calls[1].any() and not calls[2].any()
    np.testing.assert_array_equal(calls[3], onehot(80, parse_action("100 H") - 32))
    np.testing.assert_array_equal(seg(obs, "passes"), [0, 2 / 8, 2 / 8, 1 / 8])
    assert seg(obs, "num_calls")[0] == pytest.approx(8 / 32)
    np.testing.assert_array_equal(seg(obs, "high_call_seat"), onehot(4, 3))
    np.testing.assert_array_equal(seg(obs, "contract_strain"), onehot(6, 1))
    np.testing.assert_array_equal(seg(obs, "contract_value"), onehot(12, 2))  # 100
    np.testing.assert_array_equal(seg(obs, "contract_kind"), onehot(7, 1))  # bid
    np.testing.assert_array_equal(seg(obs, "taker"), onehot(4, 3))
    np.testing.assert_array_equal(seg(obs, "level"), onehot(3, 1))  # coinched
    trick = seg(obs, "trick").reshape(4, 32)
    np.testing.assert_array_equal(trick[3], onehot(32, parse_card("JH")))
    np.testing.assert_array_equal(trick[0], onehot(32, parse_card("7S")))
    assert not trick[1].any() and not trick[2].any()
    np.testing.assert_array_equal(seg(obs, "trick_leader"), onehot(4, 3))
    np.testing.assert_array_equal(seg(obs, "trick_winner"), onehot(4, 3))
    played = seg(obs, "played").reshape(4, 32)
    for rel, text in enumerate(("AS 7S", "7C", "8H", "QH JH")):
        np.testing.assert_array_equal(played[rel], cards_vec(text))
    assert not seg(obs, "declarations").any() and not seg(obs, "declaration_points").any()
    np.testing.assert_array_equal(seg(obs, "belote"), onehot(8, 6))  # South: belote
    np.testing.assert_array_equal(seg(obs, "trick_number"), onehot(9, 1))
    np.testing.assert_array_equal(seg(obs, "dealer"), onehot(4, 3))
    np.testing.assert_array_equal(seg(obs, "card_points"), np.array([0, 14 / 162], dtype=np.float32))
    np.testing.assert_array_equal(seg(obs, "tricks_won"), [0, 1 / 8])
    np.testing.assert_array_equal(seg(obs, "phase"), [0, 1])
    np.testing.assert_array_equal(seg(obs, "bidding_system"), [0, 1, 0])
    assert not seg(obs, "game").any()
    # West is to play: its mask is its legal cards; everyone else's is zero.
    np.testing.assert_array_equal(np.flatnonzero(action_mask(game, 1)), [])  # North is to play, not West
    north = action_mask(game, 2)
    assert sorted(np.flatnonzero(north)) == sorted(parse_card(c) for c in "AD 10D KD QD JD 9D 8C".split())
    for seat in (0, 1, 3):
        assert not action_mask(game, seat).any()


def test_known_coinche_position_is_relative_to_the_observer():
    game = game_at(load_variant("coinche"), COINCHE_HANDS, COINCHE_MOVES, dealer=0)
    south = encode(game, 0)
    np.testing.assert_array_equal(seg(south, "taker"), onehot(4, 0))
    np.testing.assert_array_equal(seg(south, "belote"), onehot(8, 0))
    np.testing.assert_array_equal(seg(south, "card_points"), np.array([14 / 162, 0], dtype=np.float32))
    np.testing.assert_array_equal(seg(south, "dealer"), onehot(4, 0))
    np.testing.assert_array_equal(seg(south, "passes"), [1 / 8, 0, 2 / 8, 2 / 8])


# Belote classique with declarations, dealer East (3), turn-up JH taken by
# South. Team 1 holds the best declaration (East's tierce to the king), so
# West's and East's tierces become public after trick 1; East holds KH QH.
CLASSIQUE_HANDS = ["9H 10H AH 7S 8S", "AS 10S KS 7C 8C", "QS JS 9S 9D 10D", "7H 8H QH KH AC"]
CLASSIQUE_STOCK = "7D 8D 9C QC KC AD 10C JC JD QD KD"
CLASSIQUE_MOVES = "take H, 7S, AS, 9S, AC, 7C, 10C, KH"


def test_known_classique_game_position_from_north():
    v = load_variant("belote_classique", episode="game")
    game = game_at(v, CLASSIQUE_HANDS, CLASSIQUE_MOVES, dealer=3, turnup="JH", stock=CLASSIQUE_STOCK,
                   scores=(300, 450), garde=81)
    obs = encode(game, 2)  # North: North 0, East 1, South 2, West 3
    np.testing.assert_array_equal(seg(obs, "hand"), cards_vec("QS JS 9D 10D AD JC"))
    np.testing.assert_array_equal(seg(obs, "turnup"), onehot(32, parse_card("JH")))
    calls = seg(obs, "calls").reshape(4, 80)
    np.testing.assert_array_equal(calls[2], onehot(80, parse_action("take H") - 32))
    assert not seg(obs, "passes").any()
    assert seg(obs, "num_calls")[0] == pytest.approx(1 / 32)
    np.testing.assert_array_equal(seg(obs, "contract_strain"), onehot(6, 1))
    assert not seg(obs, "contract_value").any()  # a take has no value
    np.testing.assert_array_equal(seg(obs, "contract_kind"), onehot(7, 0))
    np.testing.assert_array_equal(seg(obs, "taker"), onehot(4, 2))
    np.testing.assert_array_equal(seg(obs, "level"), onehot(3, 0))
    trick = seg(obs, "trick").reshape(4, 32)
    np.testing.assert_array_equal(trick[3], onehot(32, parse_card("7C")))
    np.testing.assert_array_equal(trick[0], onehot(32, parse_card("10C")))
    np.testing.assert_array_equal(trick[1], onehot(32, parse_card("KH")))
    assert not trick[2].any()
    np.testing.assert_array_equal(seg(obs, "trick_leader"), onehot(4, 3))
    np.testing.assert_array_equal(seg(obs, "trick_winner"), onehot(4, 1))  # East trumped
    decl = seg(obs, "declarations").reshape(4, 32)
    np.testing.assert_array_equal(decl[3], cards_vec("7C 8C 9C"))
    np.testing.assert_array_equal(decl[1], cards_vec("JD QD KD"))
    assert not decl[0].any() and not decl[2].any()
    np.testing.assert_array_equal(seg(obs, "declaration_points"), np.array([0, 0.4], dtype=np.float32))
    np.testing.assert_array_equal(seg(obs, "belote"), onehot(8, 2))  # East: belote
    np.testing.assert_array_equal(seg(obs, "trick_number"), onehot(9, 1))
    np.testing.assert_array_equal(seg(obs, "dealer"), onehot(4, 1))
    np.testing.assert_array_equal(seg(obs, "card_points"), np.array([0, 22 / 162], dtype=np.float32))
    np.testing.assert_array_equal(seg(obs, "tricks_won"), [0, 1 / 8])
    np.testing.assert_array_equal(seg(obs, "bidding_system"), [1, 0, 0])
    np.testing.assert_array_equal(seg(obs, "game"), np.array([0.3, 0.45, 0.081, 1 / 3], dtype=np.float32))
    assert not seg(obs, "high_call_seat").any()  # the first take ends a take-or-pass bidding
    np.testing.assert_array_equal(seg(obs, "phase"), [0, 1])
    played = seg(obs, "played").reshape(4, 32)
    for rel, text in enumerate(("9S 10C", "AC KH", "7S", "AS 7C")):
        np.testing.assert_array_equal(played[rel], cards_vec(text))
    # West sees the same game from its chair: its own team's score comes first.
    west = encode(game, 1)
    np.testing.assert_array_equal(seg(west, "game"), np.array([0.45, 0.3, 0.081, 1 / 3], dtype=np.float32))
    np.testing.assert_array_equal(seg(west, "declaration_points"), np.array([0.4, 0], dtype=np.float32))


def test_finished_deal_shows_no_trick_and_no_phase():
    game = game_at(load_variant("coinche"), COINCHE_HANDS, COINCHE_MOVES, dealer=0)
    while not game.over:
        game.apply(game.legal_actions()[0])
    for seat in range(4):
        obs = encode(game, seat)
        assert not seg(obs, "hand").any() and not seg(obs, "trick").any()
        assert not seg(obs, "phase").any() and not seg(obs, "trick_leader").any()
        np.testing.assert_array_equal(seg(obs, "trick_number"), onehot(9, 8))
        assert seg(obs, "played").sum() == 32
        assert seg(obs, "tricks_won").sum() == 1.0
        assert not action_mask(game, seat).any()


def test_turn_up_bidding_shows_five_cards_and_the_turn_up():
    game = game_at(load_variant("cobrecaf_81"), CLASSIQUE_HANDS, "pass, pass", dealer=3, turnup="JH",
                   stock=CLASSIQUE_STOCK)
    obs = encode(game, 2)
    np.testing.assert_array_equal(seg(obs, "hand"), cards_vec("QS JS 9S 9D 10D"))
    np.testing.assert_array_equal(seg(obs, "turnup"), onehot(32, parse_card("JH")))
    np.testing.assert_array_equal(seg(obs, "passes"), [0, 0, 1 / 8, 1 / 8])
    np.testing.assert_array_equal(seg(obs, "phase"), [1, 0])
    np.testing.assert_array_equal(seg(obs, "bidding_system"), [0, 0, 1])
    assert not seg(obs, "contract_strain").any() and not seg(obs, "trick").any()
    mask = action_mask(game, 2)
    assert set(np.flatnonzero(mask)) == set(game.deal.legal_actions())


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("episode", ["deal", "game"])
def test_incremental_encoder_equals_encode(name, episode):
    v = load_variant(name, episode=episode, target=501)
    rng = random.Random(hash((name, episode)) & 0xFFFF)
    for g in range(6 if episode == "deal" else 1):
        game = GameState(v, seed=g)
        enc = IncrementalEncoder(game)
        while True:
            for seat in range(4):
                # Observe irregularly, so the encoder catches up over several actions.
                if game.over or rng.random() < 0.4:
                    np.testing.assert_array_equal(enc.observation(seat), encode(game, seat))
                    np.testing.assert_array_equal(enc.action_mask(seat), action_mask(game, seat))
            if game.over:
                break
            game.apply(rng.choice(game.legal_actions()))


def test_incremental_encoder_joins_mid_deal_and_hands_out_copies():
    game = game_at(load_variant("coinche"), COINCHE_HANDS, COINCHE_MOVES, dealer=0)
    enc = IncrementalEncoder(game)
    first = enc.observation(1)
    np.testing.assert_array_equal(first, encode(game, 1))
    first[:] = 7.0
    game.apply(parse_action("AD"))
    np.testing.assert_array_equal(enc.observation(1), encode(game, 1))


def test_a_seat_with_a_carre_and_a_sequence_sharing_a_card_shows_both():
    """Seat 2 holds the four queens and 10D JD QD: both declarations score, QD in each (RULES.md 6); the
    incremental encoder once wrote the second over the first (found by the single-seat vector env's check)."""
    from belote_env.rules.state import DealState

    text = ("belote-position-1 | variant: name=belote_classique deal=turn_up bidding=take_or_pass scoring=classic "
            "counting=points_faits rules=maison overtrump_partner=false undertrump=true declarations=true "
            "no_trump=true all_trump=true generale=false target=1000 threshold_inclusive=false "
            "must_beat_defense=false belote=auto episode=deal | dealer: 0 | garde: 0 | hands: 10S 9H 8D 9D KC / "
            "8S 9S KD 7C 10C / QH 10D JD QD AD / 7S JS 8H JH KH | turnup: AC | stock: 8C 10H 9C QC QS JC 7H AH AS KS "
            "7D | moves: pass, take C, 8C, QC, JC, KC")
    game = GameState(load_variant("belote_classique"), seed=0)
    game.deal = DealState.parse(text)
    enc = IncrementalEncoder(game)
    decls = game.deal.public_declarations()
    assert any(d.seat == 2 and d.cards >> parse_action("QD") & 1 for d in decls if d.points == 100)
    assert any(d.seat == 2 and d.cards >> parse_action("QD") & 1 for d in decls if d.points == 20)
    for seat in range(4):
        np.testing.assert_array_equal(enc.observation(seat), encode(game, seat))
