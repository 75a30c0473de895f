"""Call legality and the end of the bidding for the three systems of RULES.md section 3."""

from __future__ import annotations

import pytest

from belote_env.rules import DONE, PLAY, IllegalActionError, action_name, card_name, cards_of, parse_card

from .helpers import EAST, NORTH, SOUTH, WEST, legal_names, play, position, variant

FULL_HANDS = [
    "7S 8S 9S 10S JS QS KS AS",
    "7H 8H 9H 10H JH QH KH AH",
    "7D 8D 9D 10D JD QD KD AD",
    "7C 8C 9C 10C JC QC KC AC",
]
# Turn-up deals: five cards each, the 10 of hearts turned up.
TU_HANDS = ["7S 8S 9S 7H 8H", "10S JS QS 9H JH", "KS AS 7D 8D 9D", "10D JD QD 7C 8C"]
TU_TURNUP = "10H"
TU_STOCK = "QH KH AH KD AD 9C 10C JC QC KC AC"

STRAINS = ("S", "H", "D", "C", "NT", "AT")
SUITS = ("S", "H", "D", "C")
BID_LABELS = ("80", "90", "100", "110", "120", "130", "140", "150", "160", "capot", "generale")


def bids(labels, strains=STRAINS):
    return {f"{v} {s}" for v in labels for s in strains}


def classic(moves="", **overrides):
    return position(variant("belote_classique", **overrides), TU_HANDS, moves, turnup=TU_TURNUP, stock=TU_STOCK)


def auction(moves="", vname="coinche", dealer=EAST, **overrides):
    return position(variant(vname, **overrides), FULL_HANDS, moves, dealer=dealer)


def cobrecaf(moves="", **overrides):
    return position(variant("cobrecaf_81", **overrides), TU_HANDS, moves, turnup=TU_TURNUP, stock=TU_STOCK)


def assert_illegal(st, name):
    with pytest.raises(IllegalActionError):
        st.apply_name(name)


# --- take or pass ---------------------------------------------------------

def test_take_or_pass_round_one_only_the_turn_up_suit():
    st = classic()
    assert st.current_seat == SOUTH  # the seat after the dealer speaks first
    for seat in (SOUTH, WEST, NORTH, EAST):
        assert st.current_seat == seat
        assert legal_names(st) == {"pass", "take H"}
        play(st, "pass")


def test_take_or_pass_round_two_other_strains():
    st = classic("pass, pass, pass, pass")
    assert st.current_seat == SOUTH
    assert legal_names(st) == {"pass", "take S", "take D", "take C", "take NT", "take AT"}
    st = classic("pass, pass, pass, pass", no_trump=False, all_trump=False)
    assert legal_names(st) == {"pass", "take S", "take D", "take C"}
    st = classic("pass, pass, pass, pass", no_trump=True, all_trump=False)
    assert legal_names(st) == {"pass", "take S", "take D", "take C", "take NT"}


def test_take_or_pass_eight_passes_redeal():
    st = classic(", ".join(["pass"] * 7))
    assert not st.is_over
    play(st, "pass")
    assert st.is_over
    assert st.result.outcome == "redeal"
    assert st.result.scores == [0, 0]
    assert st.contract is None


def test_take_or_pass_first_take_ends_bidding():
    st = classic("pass, take H")
    assert st.phase == PLAY
    assert st.contract.taker == WEST
    assert st.contract.strain == 1
    assert st.current_seat == SOUTH  # the seat after the dealer leads, not the taker
    st = classic("pass, pass, pass, pass, pass, pass, take C")
    assert st.phase == PLAY
    assert (st.contract.taker, st.contract.strain) == (NORTH, 3)


def test_turn_up_deal_gives_eight_cards_each():
    st = classic("pass, take H")  # West takes
    hands = [set(cards_of(h)) for h in st.hands]
    assert [len(h) for h in hands] == [8, 8, 8, 8]
    assert set().union(*hands) == set(range(32))
    assert parse_card(TU_TURNUP) in hands[WEST]
    # From the dealer's left: South 3, West (taker) 2, North 3, East 3.
    stock = TU_STOCK.split()
    expected_new = {SOUTH: stock[0:3], WEST: stock[3:5], NORTH: stock[5:8], EAST: stock[8:11]}
    for seat, new in expected_new.items():
        start = set(TU_HANDS[seat].split())
        got = {card_name(c) for c in hands[seat]} - start
        if seat == WEST:
            got.discard(TU_TURNUP)
        assert got == set(new), seat


def test_turn_up_deal_before_the_take_five_cards():
    st = classic()
    assert [h.bit_count() for h in st.hands] == [5, 5, 5, 5]
    assert st.turnup == parse_card(TU_TURNUP)


# --- auction ----------------------------------------------------------------

def test_auction_opening_calls():
    st = auction()
    assert legal_names(st) == {"pass"} | bids(BID_LABELS)  # coinche file: NT, AT and generale enabled
    st = auction(vname="contree")
    assert legal_names(st) == {"pass"} | bids(BID_LABELS[:10], SUITS)
    st = auction(generale=False)
    assert legal_names(st) == {"pass"} | bids(BID_LABELS[:10])


def test_auction_bids_strictly_higher_by_value():
    st = auction("100 H")
    legal = legal_names(st)
    assert legal == {"pass", "coinche"} | bids(BID_LABELS[3:])
    assert "100 S" not in legal and "100 AT" not in legal and "90 C" not in legal
    assert_illegal(st, "100 S")


def test_auction_coinche_only_by_the_opposing_team():
    st = auction("100 H")
    assert "coinche" in legal_names(st)  # West, opponent
    play(st, "pass")
    assert "coinche" not in legal_names(st)  # North, South's partner
    assert_illegal(st, "coinche")
    play(st, "pass")
    assert "coinche" in legal_names(st)  # East


def test_auction_after_coinche_only_pass_and_surcoinche():
    st = auction("100 H, coinche")
    assert st.current_seat == NORTH
    assert legal_names(st) == {"pass", "surcoinche"}  # North is in the coinched team
    play(st, "pass")
    assert legal_names(st) == {"pass"}  # East, partner of the coincher: no second coinche, no bid
    assert_illegal(st, "110 H")
    play(st, "pass")
    assert legal_names(st) == {"pass", "surcoinche"}  # South, the bidder


def test_auction_surcoinche_ends():
    st = auction("100 H, coinche, surcoinche")
    assert st.phase == PLAY
    c = st.contract
    assert (c.taker, c.strain, c.value, c.kind, c.level) == (SOUTH, 1, 100, "bid", 4)


def test_auction_three_passes_after_coinche_end():
    st = auction("100 H, coinche, pass, pass")
    assert st.phase != PLAY
    play(st, "pass")
    assert st.phase == PLAY
    assert (st.contract.level, st.contract.taker) == (2, SOUTH)


def test_auction_ends_after_three_passes_following_a_bid():
    st = auction("pass, 80 S, pass, pass")
    assert st.phase != PLAY
    play(st, "90 D")  # a new bid restarts the count
    play(st, "pass, pass")
    assert st.phase != PLAY
    play(st, "pass")
    assert st.phase == PLAY
    assert (st.contract.taker, st.contract.strain, st.contract.value) == (SOUTH, 2, 90)
    assert st.current_seat == SOUTH  # the seat after the dealer leads


def test_auction_four_passes_redeal():
    st = auction("pass, pass, pass")
    assert not st.is_over
    play(st, "pass")
    assert st.is_over and st.result.outcome == "redeal"


def test_auction_capot_and_generale():
    st = auction("capot S")
    assert legal_names(st) == {"pass", "coinche"} | bids(("generale",))
    st = auction("capot S", generale=False)
    assert legal_names(st) == {"pass", "coinche"}
    st = auction("capot S", vname="contree")
    assert legal_names(st) == {"pass", "coinche"}
    st = auction("capot S, pass, pass, pass")
    assert (st.contract.kind, st.contract.value) == ("capot", 250)


def test_generale_taker_leads():
    st = auction("pass, generale H, pass, pass, pass")
    assert st.phase == PLAY
    assert (st.contract.kind, st.contract.value, st.contract.taker) == ("generale", 500, WEST)
    assert st.current_seat == WEST
    st = auction("pass, capot H, pass, pass, pass")
    assert st.current_seat == SOUTH


def test_generale_not_in_a_variant_without_it():
    st = auction(generale=False)
    assert_illegal(st, "generale H")


# --- 81 points ----------------------------------------------------------------

EV = {f"en_voiture {s}" for s in SUITS}
CAP = {f"capot {s}" for s in SUITS}


def test_cobrecaf_first_turns_couleur_only_turn_up_suit():
    st = cobrecaf()
    assert legal_names(st) == {"pass", "take H", "en_face"} | CAP | EV
    play(st, "pass, pass, pass")
    assert legal_names(st) == {"pass", "take H", "en_face"} | CAP | EV
    assert_illegal(st, "take S")


def test_cobrecaf_after_four_passes_any_suit():
    st = cobrecaf("pass, pass, pass, pass")
    assert legal_names(st) == {"pass", "take S", "take H", "take D", "take C", "en_face"} | CAP | EV
    play(st, "take S, pass, pass, pass")
    assert st.phase == PLAY
    assert (st.contract.kind, st.contract.strain, st.contract.taker) == ("couleur", 0, SOUTH)


def test_cobrecaf_no_no_trump_or_all_trump():
    st = cobrecaf("pass, pass, pass, pass")
    assert not {"take NT", "take AT", "capot NT", "capot AT"} & legal_names(st)


def test_cobrecaf_overcalls():
    st = cobrecaf("take H")
    assert legal_names(st) == {"pass", "coinche"} | CAP | EV  # no second Couleur, no En face
    play(st, "pass")
    assert legal_names(st) == {"pass"} | CAP | EV  # partner of the caller: no coinche
    play(st, "capot D")
    assert legal_names(st) == {"pass", "coinche"} | EV
    play(st, "en_voiture S")  # East outbids North
    assert st.current_seat == SOUTH
    assert legal_names(st) == {"pass", "coinche"}  # South opposes East
    play(st, "pass")
    assert legal_names(st) == {"pass"}  # West, East's partner
    play(st, "pass, pass")
    c = st.contract
    assert (c.kind, c.taker, c.strain) == ("en_voiture", EAST, 0)


def test_cobrecaf_nothing_outranks_en_voiture():
    st = cobrecaf("en_voiture C")
    assert legal_names(st) == {"pass", "coinche"}  # West, opponent
    play(st, "pass")
    assert legal_names(st) == {"pass"}  # North, partner
    play(st, "pass")
    assert legal_names(st) == {"pass", "coinche"}
    play(st, "coinche")
    assert legal_names(st) == {"pass", "surcoinche"}  # South, the caller
    play(st, "surcoinche")
    c = st.contract
    assert (c.kind, c.strain, c.taker, c.level, c.value) == ("en_voiture", 3, SOUTH, 4, 81)


def test_cobrecaf_en_face_partner_takes_turn_up_suit():
    st = cobrecaf("en_face, pass, pass, pass")
    assert st.phase == PLAY
    c = st.contract
    assert (c.kind, c.taker, c.caller, c.strain) == ("en_face", NORTH, SOUTH, 1)
    assert st.hands[NORTH] >> parse_card(TU_TURNUP) & 1  # the partner gets the turn-up
    assert [h.bit_count() for h in st.hands] == [8, 8, 8, 8]
    assert st.current_seat == SOUTH


def test_cobrecaf_en_face_allowed_exactly_with_turn_up_couleur():
    for moves in ("", "pass", "pass, pass, pass", "pass, pass, pass, pass", "pass, pass, pass, pass, pass, pass"):
        st = cobrecaf(moves)
        legal = legal_names(st)
        assert ("en_face" in legal) == ("take H" in legal), moves
    for moves in ("take H", "capot S", "en_face", "pass, en_voiture H"):
        st = cobrecaf(moves)
        assert "en_face" not in legal_names(st) and "take H" not in legal_names(st)


def test_cobrecaf_partner_converts_en_face_to_en_voiture():
    st = cobrecaf("en_face, pass, en_voiture H, pass, pass, pass")
    c = st.contract
    assert (c.kind, c.taker, c.level) == ("en_voiture", NORTH, 1)


def test_cobrecaf_coinche_of_en_face_by_defense():
    st = cobrecaf("en_face, coinche")
    assert legal_names(st) == {"pass", "surcoinche"}  # North, the taker of En face
    play(st, "pass, pass, pass")
    assert (st.contract.level, st.contract.taker) == (2, NORTH)


def test_cobrecaf_eight_passes_redeal():
    st = cobrecaf(", ".join(["pass"] * 7))
    assert not st.is_over
    play(st, "pass")
    assert st.phase == DONE and st.result.outcome == "redeal"


def test_cobrecaf_three_passes_after_call_end():
    st = cobrecaf("pass, capot S, pass, pass")
    assert st.phase != PLAY
    play(st, "pass")
    c = st.contract
    assert (c.kind, c.taker, c.strain, c.value) == ("capot", WEST, 0, 81)
    assert st.hands[WEST] >> parse_card(TU_TURNUP) & 1


def test_action_names_round_trip():
    from belote_env.rules import NUM_ACTIONS, parse_action

    for a in range(NUM_ACTIONS):
        assert parse_action(action_name(a)) == a
    assert parse_action("take ♥") == parse_action("take H")
    assert parse_action("TS") == parse_card("10S")
