"""Legal cards from fixed positions: every rule of RULES.md section 4 and its switches."""

from __future__ import annotations

import pytest

from belote_env.rules import IllegalActionError

from .helpers import EAST, NORTH, SOUTH, WEST, legal_names, play, position, variant

SUITS = "SHDC"
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")


def make_hands(spec: dict[int, tuple[str, str]]) -> list[str]:
    """Four 8-card hands: seat -> (cards it must hold, suits it gets no other card of).

    The other cards are dealt out in a fixed order, most constrained seat first;
    ("9H QH", "SH") means: holds 9H and QH, no other heart, no spade.
    """
    fixed = {seat: set(spec.get(seat, ("", ""))[0].split()) for seat in range(4)}
    voids = {seat: spec.get(seat, ("", ""))[1] for seat in range(4)}
    used = set().union(*fixed.values())
    rest = [r + s for s in SUITS for r in RANKS if r + s not in used]
    hands = {seat: set(fixed[seat]) for seat in range(4)}
    for seat in sorted(range(4), key=lambda s: -len(voids[s])):
        for card in list(rest):
            if len(hands[seat]) == 8:
                break
            if card[-1] not in voids[seat]:
                hands[seat].add(card)
                rest.remove(card)
        assert len(hands[seat]) == 8, f"cannot fill seat {seat}"
    return [" ".join(sorted(hands[s])) for s in range(4)]


def at(vname, spec, strain, cards, **overrides):
    """South bids 80 in `strain` and wins the auction, then `cards` are played."""
    hands = make_hands(spec)
    v = variant(vname, **overrides)
    st = position(v, hands, f"80 {strain}, pass, pass, pass")
    play(st, cards)
    return st, [set(h.split()) for h in hands]


def test_leader_may_play_any_card():
    st, hands = at("coinche", {}, "H", "")
    assert st.current_seat == SOUTH
    assert legal_names(st) == hands[SOUTH]


def test_follow_suit_plain_led_no_need_to_beat():
    st, _ = at("coinche", {SOUTH: ("AS", ""), WEST: ("7S KS JH 9C", "S")}, "H", "AS")
    assert legal_names(st) == {"7S", "KS"}


def test_follow_plain_suit_even_when_trick_is_trumped():
    # West trumps the spade lead; North still holds spades and just follows, any spade.
    st, hands = at("coinche", {SOUTH: ("AS", ""), WEST: ("9H", "S"), NORTH: ("7S 8S JH AH", "S")}, "H", "AS, 9H")
    assert legal_names(st) == {"7S", "8S"}


@pytest.mark.parametrize("vname", ["coinche", "coinche_officielles"])
def test_trump_lead_must_overtrump_opponent(vname):
    st, _ = at(vname, {SOUTH: ("10H", ""), WEST: ("8H QH 9H", "H")}, "H", "10H")
    assert st.current_seat == WEST
    assert legal_names(st) == {"9H"}


def test_trump_lead_unable_to_beat_plays_any_trump():
    st, hands = at("coinche", {SOUTH: ("10H JH 9H", ""), WEST: ("8H QH", "H")}, "H", "10H")
    assert legal_names(st) == {"8H", "QH"}


@pytest.mark.parametrize("overtrump_partner, expected", [(False, {"9H", "QH"}), (True, {"9H"})])
def test_trump_lead_partner_holds_trick(overtrump_partner, expected):
    # South leads 10H, West plays 7H, North (South's partner) holds 9H and QH, no other trump.
    spec = {SOUTH: ("10H", ""), WEST: ("7H", ""), NORTH: ("9H QH", "H")}
    hands = make_hands(spec)
    north_trumps = {c for c in hands[NORTH].split() if c.endswith("H")}
    assert north_trumps == {"9H", "QH"}
    st, _ = at("coinche", spec, "H", "10H, 7H", overtrump_partner=overtrump_partner)
    assert st.current_seat == NORTH
    assert legal_names(st) == expected


def test_overtrump_partner_defaults_per_rules():
    # maison files lift the obligation over a partner, officielles files keep it (RULES.md 10).
    assert variant("coinche").overtrump_partner is False
    assert variant("belote_classique").overtrump_partner is False
    assert variant("coinche_officielles").overtrump_partner is True
    assert variant("contree").overtrump_partner is True


def test_void_must_trump_when_opponent_holds():
    st, hands = at("coinche", {SOUTH: ("AS", ""), WEST: ("7H 8H", "SH")}, "H", "AS")
    # West is void in spades, holds exactly 7H and 8H in trump.
    assert not any(c.endswith("S") for c in hands[WEST])
    assert legal_names(st) == {"7H", "8H"}


def test_void_without_trump_any_card():
    st, hands = at("coinche", {SOUTH: ("AS", ""), WEST: ("", "SH")}, "H", "AS")
    assert legal_names(st) == hands[WEST]


def test_void_partner_holds_trick_any_card():
    st, hands = at("coinche", {SOUTH: ("AS", ""), WEST: ("7S", ""), NORTH: ("7H", "S")}, "H", "AS, 7S")
    assert legal_names(st) == hands[NORTH]


def test_void_partner_holds_with_a_trump_any_card():
    # South leads 7S, West trumps with 7H, North follows; East (West's partner) is void in
    # spades and holds a higher trump: no obligation to trump or overtrump.
    spec = {SOUTH: ("7S", ""), WEST: ("7H", "S"), NORTH: ("8S", ""), EAST: ("JH", "S")}
    st, hands = at("coinche", spec, "H", "7S, 7H, 8S", undertrump=True)
    assert st.current_seat == EAST
    assert legal_names(st) == hands[EAST]


@pytest.mark.parametrize("overtrump_partner", [False, True])
def test_void_must_overtrump_opponent_trump(overtrump_partner):
    spec = {SOUTH: ("AS", ""), WEST: ("10H", "S"), NORTH: ("9H QH", "SH")}
    st, _ = at("coinche", spec, "H", "AS, 10H", overtrump_partner=overtrump_partner)
    assert st.current_seat == NORTH
    assert legal_names(st) == {"9H"}


@pytest.mark.parametrize("undertrump", [True, False])
def test_void_unable_to_overtrump(undertrump):
    # West trumps with JH (the highest trump); North is void in spades with QH 8H.
    spec = {SOUTH: ("AS", ""), WEST: ("JH", "S"), NORTH: ("QH 8H", "SH")}
    st, hands = at("coinche", spec, "H", "AS, JH", undertrump=undertrump)
    assert {c for c in hands[NORTH] if c.endswith("H")} == {"QH", "8H"}
    if undertrump:
        assert legal_names(st) == {"QH", "8H"}  # sous-couper: a lower trump is still compulsory
    else:
        assert legal_names(st) == hands[NORTH]  # any card may be discarded


def test_undertrump_defaults_per_rules():
    assert variant("belote_classique").undertrump is True
    assert variant("cobrecaf_81").undertrump is True
    assert variant("coinche").undertrump is False
    assert variant("contree").undertrump is False


def test_third_hand_overtrumps_only_the_highest_trump():
    # South leads AS, West trumps 9H, North (void) trumps... North must beat 9H: only JH.
    spec = {SOUTH: ("AS", ""), WEST: ("9H", "S"), NORTH: ("JH AH 10H", "SH")}
    st, _ = at("coinche", spec, "H", "AS, 9H")
    assert legal_names(st) == {"JH"}


def test_no_trump_follow_else_any():
    spec = {SOUTH: ("7S", ""), WEST: ("8S AS", "S"), NORTH: ("", "S")}
    st, hands = at("coinche", spec, "NT", "7S")
    assert legal_names(st) == {c for c in hands[WEST] if c.endswith("S")}
    play(st, "8S")
    assert legal_names(st) == hands[NORTH]  # void: anything, no trumping at no trump


def test_no_trump_no_obligation_to_beat():
    spec = {SOUTH: ("10S", ""), WEST: ("7S AS", "S")}
    st, hands = at("coinche", spec, "NT", "10S")
    assert {"7S", "AS"} <= legal_names(st)


def test_no_trump_highest_of_suit_led_wins():
    spec = {SOUTH: ("10S", ""), WEST: ("AH", "S"), NORTH: ("KS", ""), EAST: ("AS", "")}
    st, _ = at("coinche", spec, "NT", "10S, AH, KS, AS")
    assert st.tricks[0].winner == EAST


@pytest.mark.parametrize("partner_holds", [False, True])
def test_all_trumps_must_beat_highest_of_suit_led(partner_holds):
    if partner_holds:
        # South 10S, West 7S: North must still beat South's 10S (no partner exception at all trumps).
        spec = {SOUTH: ("10S", ""), WEST: ("7S", ""), NORTH: ("AS 8S QS", "S")}
        st, _ = at("coinche", spec, "AT", "10S, 7S", overtrump_partner=False)
        assert st.current_seat == NORTH
        assert legal_names(st) == {"AS"}
    else:
        spec = {SOUTH: ("10S", ""), WEST: ("9S AS 7S", "S")}
        st, _ = at("coinche", spec, "AT", "10S")
        assert legal_names(st) == {"9S", "AS"}  # J 9 A 10 K Q 8 7


def test_all_trumps_cannot_beat_follows_any_and_void_any():
    spec = {SOUTH: ("JS", ""), WEST: ("7S 9S", "S"), NORTH: ("", "S")}
    st, hands = at("coinche", spec, "AT", "JS")
    assert legal_names(st) == {"7S", "9S"}
    play(st, "9S")
    assert legal_names(st) == hands[NORTH]


def test_all_trumps_other_suit_never_wins():
    spec = {SOUTH: ("7S", ""), WEST: ("JH", "S"), NORTH: ("8S", "S"), EAST: ("7D", "S")}
    st, _ = at("coinche", spec, "AT", "7S, JH, 8S, 7D")
    assert st.tricks[0].winner == NORTH  # the jack of hearts is off-suit, the 8 of spades wins


def test_trick_winner_highest_trump_else_highest_of_suit_led():
    spec = {SOUTH: ("KS", ""), WEST: ("AS", ""), NORTH: ("7H", "SH"), EAST: ("AD", "SH")}
    st, _ = at("coinche", spec, "H", "KS, AS, 7H, AD")
    assert st.tricks[0].winner == NORTH  # a seven of trump beats the ace led
    spec = {SOUTH: ("KS", ""), WEST: ("AS", ""), NORTH: ("AD", "SH"), EAST: ("10S", "")}
    st, _ = at("coinche", spec, "H", "KS, AS, AD, 10S")
    assert st.tricks[0].winner == WEST  # a discarded ace of another suit never wins


TURN_UP_HANDS = ["AS KS QS 7D 8D", "JH 9D 10D JD QD", "QH 8H 7C 8C 9C", "7S 8S 9S 10S JS"]
TURN_UP_STOCK = "KD AD 10C JC QC KC AC 7H 9H 10H KH"


@pytest.mark.parametrize(
    "vname, overrides, north",
    [
        ("belote_classique", {}, {"QH", "8H", "7H"}),
        ("belote_classique_officielles", {}, {"QH", "8H", "7H"}),
        ("cobrecaf_81", {}, {"QH", "8H", "7H"}),
        ("belote_classique", {"undertrump": False}, None),
    ],
)
def test_undertrump_in_turn_up_variants(vname, overrides, north):
    # After the take South has AH KD AD; West gets 10C JC QC, North KC AC 7H, East 9H 10H KH.
    st = position(variant(vname, **overrides), TURN_UP_HANDS, "take H" if vname != "cobrecaf_81" else
                  "take H, pass, pass, pass", turnup="AH", stock=TURN_UP_STOCK)
    play(st, "AS")
    assert legal_names(st) == {"JH"}  # West must trump
    play(st, "JH")
    north_hand = {"QH", "8H", "7C", "8C", "9C", "KC", "AC", "7H"}
    assert legal_names(st) == (north if north is not None else north_hand)


def test_illegal_card_raises():
    st, _ = at("coinche", {SOUTH: ("AS", ""), WEST: ("7S", "")}, "H", "AS")
    with pytest.raises(IllegalActionError):
        st.apply_name([c for c in _[WEST] if not c.endswith("S")][0])
