"""The heuristic agent: legal, information-respecting, sensible choices."""

import random

import pytest

from agents.heuristic import HeuristicAgent, estimate_points
from belote_env.rules import DealState, parse_action, parse_cards
from belote_env.variants import load_variant, variant_names


@pytest.mark.parametrize("name", variant_names())
def test_plays_legal_actions_from_the_info_state(name):
    """The agent is handed only the seat's InfoState (tests/belote_env/rules/test_info.py shows it holds no other hand)."""
    variant = load_variant(name)
    agent = HeuristicAgent()
    rng = random.Random(1)
    for k in range(25):
        deal = DealState.random(variant, k & 3, rng)
        while not deal.is_over:
            seat = deal.seat
            a = agent.act(None, None, deal.info_state(seat))
            assert a in deal.legal_actions()
            deal.apply(a)


def _deal_at(variant_name, hands, moves, dealer=0):
    d = DealState.from_hands(load_variant(variant_name), dealer, hands)
    for m in moves:
        d.apply(parse_action(m))
    return d


def test_estimates_rank_strong_trump_hands_higher():
    v = load_variant("coinche")
    strong = parse_cards("JH 9H AH 10H AS 10S AC KD")
    weak = parse_cards("7H 8H QS 9S 8C 7C 8D 7D")
    assert estimate_points(strong, 1, v) > 140 > 80 > estimate_points(weak, 1, v)


def test_opens_strong_hand_and_passes_weak_one():
    strong = ["JH 9H AH 10H AS 10S AC KD", "7S 8S 9S JS QS KS 7H 8H", "QH KH 7D 8D 9D 10D JD QD",
              "7C 8C 9C 10C JC QC KC AD"]
    d = _deal_at("coinche", strong, [], dealer=3)  # seat 0 speaks first
    a = HeuristicAgent().act(None, None, d.info_state(0))
    assert a >= 41 and (a - 41) % 6 == 1  # a bid in hearts
    weak = ["7H 8H QS 9S 8C 7C 8D 7D", "JH 9H AH 10H AS 10S AC KD", "7S 8S JS KS QH KH 9D 10D",
            "9C 10C JC QC KC AD JD QD"]
    d = _deal_at("coinche", weak, [], dealer=3)
    assert HeuristicAgent().act(None, None, d.info_state(0)) == parse_action("pass")


def test_gives_points_to_partner_holding_the_trick_and_wins_cheaply():
    # Contract 80 H by seat 0 (dealer 3, so seat 0 leads the first trick).
    hands = ["JH 9H AH 7S 8C 9C 7D 8D", "AS 8S 9S 7C QC KC 9D QD", "10S KS 10D AD 10H 7H KH QH",
             "QS JS AC 10C JC 8H JD KD"]
    d = _deal_at("coinche", hands, ["80 H", "pass", "pass", "pass"], dealer=3)
    # Seat 0 leads: as taker with the master JH it pulls trumps.
    assert HeuristicAgent().act(None, None, d.info_state(0)) == parse_action("JH")
    d.apply(parse_action("JH"))
    d.apply(parse_action("9D"))  # seat 1: void in hearts, discards
    # Seat 2: partner holds the trick with the master jack; it must follow hearts and gives the 10.
    assert HeuristicAgent().act(None, None, d.info_state(2)) == parse_action("10H")


def test_plays_low_when_it_cannot_win_safely():
    hands = ["JH 9H AH 7S 8C 9C 7D 8D", "AS 8S 9S 7C QC KC 9D QD", "10S KS 10D AD 10H 7H KH QH",
             "QS JS AC 10C JC 8H JD KD"]
    d = _deal_at("coinche", hands, ["80 H", "pass", "pass", "pass", "8C"], dealer=3)
    # Seat 1 could head 8C with QC or KC, but AC and 10C are still out: it plays its 7C.
    assert HeuristicAgent().act(None, None, d.info_state(1)) == parse_action("7C")
