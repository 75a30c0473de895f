"""Declarations (RULES.md section 6) and belote-rebelote (section 5)."""

from __future__ import annotations

import pytest

from belote_env.rules import Declaration, hand_declarations
from belote_env.rules.declarations import best_team

from .helpers import AT, EAST, NORTH, NT, SOUTH, WEST, C, D, H, S, mask, play, position, variant


def decl(hand_text, seat=0):
    return sorted((d.kind, d.points) for d in hand_declarations(seat, mask(hand_text)))


@pytest.mark.parametrize(
    "hand, expected",
    [
        ("7S 8S 9S JH 7D 9D QC AC", [("tierce", 20)]),
        ("10S JS QS KS 7H 9D QC AC", [("cinquante", 50)]),
        ("9S 10S JS QS KS 7H 9D AC", [("cent", 100)]),
        ("7S 8S 9S 10S JS QS KS AS", [("cent", 100)]),  # eight in a row is one cent
        ("JS JH JD JC 7S 9H QD AC", [("carre", 200)]),
        ("9S 9H 9D 9C 7S JH QD AC", [("carre", 150)]),
        ("AS AH AD AC 7S JH QD 9C", [("carre", 100)]),
        ("10S 10H 10D 10C 7S JH QD AC", [("carre", 100)]),
        ("KS KH KD KC 7S JH 9D AC", [("carre", 100)]),
        ("QS QH QD QC 7S JH 9D AC", [("carre", 100)]),
        ("8S 8H 8D 8C 7S JH QD AC", []),  # no carré of eights
        ("7S 7H 7D 7C 9S JH QD AC", []),  # nor of sevens
        ("KS AS 7S 9H JH QD 8C 10C", []),  # K-A-7 is not a sequence (no wrap-around)
        ("JS QS 9H 10H 7D 8D KC AC", []),  # pairs only
        ("7S 8S 9S JS QS KS 9H 10H", [("tierce", 20), ("tierce", 20)]),  # two tierces in one suit
    ],
)
def test_hand_declarations_values(hand, expected):
    assert decl(hand) == sorted(expected)


def test_sequence_order_is_a_k_q_j_10_9_8_7():
    # 10 J Q is a tierce; 8 9 10 too; J Q K A a cinquante.
    assert decl("8H 9H 10H 7S JD QC AC 9C") == [("tierce", 20)]
    (d,) = hand_declarations(0, mask("JH QH KH AH 7S 9D 8C 10C"))
    assert (d.kind, d.points, d.suit) == ("cinquante", 50, H)


def test_a_card_in_a_carre_and_a_sequence():
    ds = hand_declarations(0, mask("JS JH JD JC QS KS 7D 8C"))
    kinds = sorted(d.kind for d in ds)
    assert kinds == ["carre", "tierce"]
    (carre,) = [d for d in ds if d.kind == "carre"]
    (tierce,) = [d for d in ds if d.kind == "tierce"]
    assert carre.cards & tierce.cards == mask("JS")


def dl(seat, kind, points, top, suit):
    return Declaration(seat, kind, points, top, suit, 0)


TEN, JACK, QUEEN, KING, ACE = 3, 4, 5, 6, 7


@pytest.mark.parametrize(
    "decls, strain, team",
    [
        ([dl(0, "tierce", 20, KING, S)], H, 0),
        ([dl(1, "tierce", 20, KING, S)], H, 1),
        ([], H, -1),
        # higher points
        ([dl(0, "tierce", 20, ACE, S), dl(3, "cinquante", 50, TEN, D)], H, 1),
        ([dl(2, "carre", 100, QUEEN, -1), dl(1, "cinquante", 50, ACE, S)], H, 0),
        # same points: higher top card
        ([dl(0, "tierce", 20, QUEEN, S), dl(1, "tierce", 20, KING, D)], H, 1),
        ([dl(0, "cinquante", 50, ACE, S), dl(1, "cinquante", 50, KING, D)], H, 0),
        # same points and top: the trump sequence wins, otherwise a tie for neither
        ([dl(0, "tierce", 20, KING, S), dl(1, "tierce", 20, KING, H)], H, 1),
        ([dl(0, "tierce", 20, KING, S), dl(1, "tierce", 20, KING, D)], H, -1),
        ([dl(0, "tierce", 20, KING, S), dl(1, "tierce", 20, KING, D)], NT, -1),
        ([dl(0, "tierce", 20, KING, S), dl(1, "tierce", 20, KING, D)], AT, -1),
        # a carré and a cent of equal points tie
        ([dl(0, "carre", 100, ACE, -1), dl(1, "cent", 100, ACE, S)], H, -1),
        # the single best declaration decides, not the sum
        ([dl(0, "tierce", 20, ACE, S), dl(2, "tierce", 20, ACE, D), dl(1, "cinquante", 50, TEN, C)], H, 1),
    ],
)
def test_best_team(decls, strain, team):
    assert best_team(decls, strain) == team


# Hands for the engine: South a cinquante to the ace of hearts and a tierce,
# West a cinquante to the ten, North a tierce, East nothing.
DECL_HANDS = [
    "AH KH QH JH 7S 8S 9S 7C",
    "7D 8D 9D 10D 10S JS KS 8C",
    "JD QD KD AS 7H 9C QC KC",
    "QS 8H 9H 10H AD 10C JC AC",
]


def test_best_team_scores_all_its_declarations_through_the_engine():
    v = variant("coinche", declarations=True)
    st = position(v, DECL_HANDS, "80 S, pass, pass, pass")
    kinds = sorted((d.seat, d.kind) for d in st.declarations)
    assert kinds == [(SOUTH, "cinquante"), (SOUTH, "tierce"), (WEST, "cinquante"), (NORTH, "tierce"), (EAST, "tierce")]
    assert st.declaration_team == 0
    assert st.declaration_points == [50 + 20 + 20, 0]


def test_declarations_public_only_after_trick_one():
    v = variant("coinche", declarations=True)
    st = position(v, DECL_HANDS, "80 S, pass, pass, pass")
    assert st.public_declarations() == []
    for _ in range(3):
        st.apply(st.legal_actions()[0])
        assert st.public_declarations() == []
    st.apply(st.legal_actions()[0])
    assert len(st.tricks) == 1
    public = st.public_declarations()
    assert sorted((d.seat, d.kind) for d in public) == [(SOUTH, "cinquante"), (SOUTH, "tierce"), (NORTH, "tierce")]
    assert {d.describe() for d in public} >= {"cinquante JH QH KH AH"}


def test_declarations_counted_in_the_result():
    v = variant("coinche", declarations=True)
    st = position(v, DECL_HANDS, "80 S, pass, pass, pass")
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    assert st.result.declarations == [90, 0]


def test_declarations_off_by_default_in_coinche():
    st = position("coinche", DECL_HANDS, "80 S, pass, pass, pass")
    assert st.declarations == [] and st.declaration_points == [0, 0]


def test_tie_scores_for_neither_through_the_engine():
    # South and West each hold a tierce to the king, in spades and diamonds; nobody else declares.
    hands = [
        "JS QS KS 7H 9D 7C 9C JC",
        "JD QD KD 8H 7S 8C 10C QC",
        "AS 10S 9S 10H KH 7D AD KC",
        "8S 9H JH QH AH 8D 10D AC",
    ]
    v = variant("coinche", declarations=True)
    st = position(v, hands, "80 C, pass, pass, pass")
    assert sorted((d.seat, d.kind) for d in st.declarations) == [(SOUTH, "tierce"), (WEST, "tierce")]
    assert st.declaration_team == -1
    assert st.declaration_points == [0, 0]
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    assert st.result.declarations == [0, 0]
    assert position(v, hands, "80 D, pass, pass, pass").declaration_team == 1  # West's tierce is in trump
    assert position(v, hands, "80 S, pass, pass, pass").declaration_team == 0
    assert position(v, hands, "80 AT, pass, pass, pass").declaration_team == -1


# --- belote-rebelote ----------------------------------------------------------

BELOTE_HANDS = [
    "KH QH 7S 8S 9S 7D 8D 9D",
    "AH 10H 10S JS QS 10D JD QD",
    "9H JH KS AS KD AD 7C 8C",
    "7H 8H 9C 10C JC QC KC AC",
]


def test_belote_then_rebelote_scores_twenty_on_the_second_card():
    st = position("coinche", BELOTE_HANDS, "80 H, pass, pass, pass")
    assert st.belote_events == []
    play(st, "KH")
    assert [(e.seat, e.kind) for e in st.belote_events] == [(SOUTH, "belote")]
    assert st.belote_points == [0, 0]
    play(st, "AH, JH, 7H")  # North wins with the jack and leads
    assert st.current_seat == NORTH
    while not (st.current_seat == SOUTH and "QH" in legal(st)):
        assert st.belote_points == [0, 0]
        st.apply(st.legal_actions()[0])
    play(st, "QH")
    assert [(e.seat, e.kind) for e in st.belote_events] == [(SOUTH, "belote"), (SOUTH, "rebelote")]
    assert st.belote_points == [20, 0]


def legal(st):
    from belote_env.rules import action_name

    return [action_name(a) for a in st.legal_actions()]


def test_belote_for_the_defense():
    st = position("coinche", BELOTE_HANDS, "pass, 80 H, pass, pass, pass")
    assert st.contract.taker == WEST
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    assert st.result.belote == [20, 0]
    assert st.belote_points == [20, 0]


def test_no_belote_at_no_trump():
    st = position("coinche", BELOTE_HANDS, "80 NT, pass, pass, pass")
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    assert st.belote_events == []
    assert st.result.belote == [0, 0]


def test_belote_only_in_trump_suit():
    st = position("coinche", BELOTE_HANDS, "80 S, pass, pass, pass")
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    assert st.belote_events == []  # South's K+Q of hearts is not trump; nobody holds K+Q of spades
    assert st.result.belote == [0, 0]


def test_every_king_queen_pair_at_all_trumps():
    # South K+Q of hearts, East K+Q of clubs; North holds KS and KD without their queens.
    st = position("coinche", BELOTE_HANDS, "80 AT, pass, pass, pass")
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    kinds = [(e.seat, e.kind) for e in st.belote_events]
    assert sorted(kinds) == sorted([(SOUTH, "belote"), (SOUTH, "rebelote"), (EAST, "belote"), (EAST, "rebelote")])
    assert st.result.belote == [20, 20]


def test_two_pairs_one_player_all_trumps():
    hands = ["KH QH KS QS 7D 8D 9D 10D", "AH 10H AS 10S JD QD KD AD", "7H 8H 9H JH 7S 8S 9S JS",
             "7C 8C 9C 10C JC QC KC AC"]
    st = position("coinche", hands, "80 AT, pass, pass, pass")
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    assert st.result.belote == [40, 40]  # South two pairs; West K+Q of diamonds, East of clubs
    assert [e.kind for e in st.belote_events if e.seat == SOUTH].count("rebelote") == 2
