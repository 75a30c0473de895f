"""Legal-move counts (perft) from fixed positions, against golden data.

``tests/data/perft.txt`` holds, for each position (in the project's own
notation, ``DealState.format``, as python-chess keeps its perft files), the
number of card-play sequences of length 1..N. They were computed with the brute-force reference
below, which is written from RULES.md section 4 alone (card orders as text,
rules as a per-card predicate) and shares no code with the engine. The test
checks the engine against the golden counts, and the reference against them too.

Regenerate (only when a position is added): ``python -m tests.belote_env.rules.test_perft``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from belote_env.rules import STRAIN_NAMES, DealState, card_name, cards_of, parse_action

from .helpers import variant

DATA = Path(__file__).resolve().parents[2] / "data" / "perft.txt"

TRUMP_ORDER = "7 8 Q K 10 A 9 J".split()  # low to high
PLAIN_ORDER = "7 8 9 J Q K 10 A".split()


# --- the reference ---------------------------------------------------------

def _rank(card):
    return card[:-1]


def _suit(card):
    return card[-1]


def _is_trump(card, strain):
    return strain == "AT" or _suit(card) == strain


def _power(card, led, strain):
    """A number ordering the cards of one trick: higher wins."""
    if strain not in ("NT", "AT") and _suit(card) == strain:
        return 100 + TRUMP_ORDER.index(_rank(card))
    if _suit(card) == led:
        order = TRUMP_ORDER if strain == "AT" else PLAIN_ORDER
        return 10 + order.index(_rank(card))
    return 0


def ref_winner(trick, strain):
    """Index in `trick` ([(seat, card)] in play order) of the winning card."""
    led = _suit(trick[0][1])
    powers = [_power(c, led, strain) for _, c in trick]
    return powers.index(max(powers))


def ref_legal(hand, trick, seat, strain, overtrump_partner, undertrump):
    """The set of cards of `hand` the rules allow, decided card by card."""
    if not trick:
        return set(hand)
    led = _suit(trick[0][1])
    w = ref_winner(trick, strain)
    win_seat, win_card = trick[w]
    partner_holds = (win_seat - seat) % 4 == 2
    best = _power(win_card, led, strain)
    has_led = any(_suit(c) == led for c in hand)
    suit_trump = strain not in ("NT", "AT")
    trumps = [c for c in hand if suit_trump and _suit(c) == strain]
    can_beat = any(_power(c, led, strain) > best for c in hand if _suit(c) == led) if has_led else False

    def allowed(card):
        if has_led:
            if _suit(card) != led:
                return False
            must_climb = (strain == "AT") or (suit_trump and led == strain and (overtrump_partner or not partner_holds))
            if must_climb and can_beat:
                return _power(card, led, strain) > best
            return True
        if not suit_trump or partner_holds or not trumps:
            return True
        trick_has_trump = any(_suit(c) == strain for _, c in trick)
        if not trick_has_trump:
            return _suit(card) == strain
        can_over = any(_power(c, led, strain) > best for c in trumps)
        if can_over:
            return _suit(card) == strain and _power(card, led, strain) > best
        if undertrump:
            return _suit(card) == strain
        return True

    return {c for c in hand if allowed(c)}


class RefPosition:
    def __init__(self, hands, leader, strain, overtrump_partner, undertrump):
        self.hands = [set(h.split()) for h in hands]
        self.turn = leader
        self.trick = []
        self.strain = strain
        self.switches = (overtrump_partner, undertrump)

    def legal(self):
        return ref_legal(self.hands[self.turn], self.trick, self.turn, self.strain, *self.switches)

    def play(self, card):
        assert card in self.legal()
        self.hands[self.turn].remove(card)
        self.trick.append((self.turn, card))
        if len(self.trick) == 4:
            self.turn = self.trick[ref_winner(self.trick, self.strain)][0]
            self.trick = []
        else:
            self.turn = (self.turn + 1) % 4

    def copy(self):
        p = RefPosition.__new__(RefPosition)
        p.hands = [set(h) for h in self.hands]
        p.turn, p.trick, p.strain, p.switches = self.turn, list(self.trick), self.strain, self.switches
        return p


def ref_counts(pos, depth):
    counts = [0] * depth

    def walk(p, d):
        legal = sorted(p.legal())
        counts[d] += len(legal)
        if d + 1 < depth:
            for c in legal:
                q = p.copy()
                q.play(c)
                walk(q, d + 1)

    walk(pos, 0)
    return counts


def ref_position(entry):
    v = entry["variant_obj"]
    pos = RefPosition(entry["hands"], entry["leader"], entry["strain"], v.overtrump_partner, v.undertrump)
    for card in entry["cards"]:
        pos.play(card)
    return pos


# --- the engine --------------------------------------------------------------

def engine_position(entry):
    return DealState.parse(entry["position"])


def engine_counts(st, depth):
    counts = [0] * depth

    def walk(s, d):
        legal = s.legal_actions()
        counts[d] += len(legal)
        if d + 1 < depth:
            for a in legal:
                t = s.clone()
                t.apply(a)
                walk(t, d + 1)

    walk(st, 0)
    return counts


# --- golden data -------------------------------------------------------------

def _entry(name: str, counts: list[int], position: str) -> dict:
    """A golden position, with what the brute-force reference needs read from the parsed position."""
    st = DealState.parse(position)
    history = st.trick_history()
    return {
        "name": name, "counts": counts, "position": position, "variant_obj": st.variant,
        "strain": STRAIN_NAMES[st.contract.strain], "leader": history[0][0] if history else st.leader,
        "hands": [" ".join(card_name(c) for c in cards_of(m)) for m in st.initial],
        "cards": [card_name(c) for _, cards in history for c in cards],
    }


def _load():
    out = []
    for line in DATA.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, counts, position = (part.strip() for part in line.split(" ; ", 2))
            out.append(_entry(name, [int(x) for x in counts.split()], position))
    return out


def _ids():
    return [e["name"] for e in _load()]


@pytest.mark.parametrize("name", _ids())
def test_engine_matches_golden_counts(name):
    entry = next(e for e in _load() if e["name"] == name)
    st = engine_position(entry)
    assert engine_counts(st, len(entry["counts"])) == entry["counts"]


@pytest.mark.parametrize("name", _ids())
def test_reference_matches_golden_counts(name):
    entry = next(e for e in _load() if e["name"] == name)
    assert ref_counts(ref_position(entry), len(entry["counts"])) == entry["counts"]


def test_golden_counts_are_not_trivial():
    # The positions exercise restrictions: some depth-1 count is below the hand size.
    data = _load()
    assert len(data) >= 6
    assert any(e["counts"][0] < 8 - len(e["cards"]) // 4 for e in data if e["cards"])
    assert {e["strain"] for e in data} >= {"S", "H", "D", "C", "NT", "AT"}


def test_reference_agrees_with_engine_on_random_positions():
    # Cross-check every legal set along random deals, for each switch setting.
    rng = random.Random(7)
    for vname, overrides in SWITCHES:
        v = variant(vname, **overrides)
        for _ in range(60):
            st = DealState.random(v, rng.randrange(4), rng)
            while st.phase == "bidding":
                st.apply(rng.choice(st.legal_actions()))
            if st.is_over:
                continue
            strain = STRAIN_NAMES[st.contract.strain]
            while not st.is_over:
                hand = {card_name(c) for c in cards_of(st.hands[st.seat])}
                trick = [(s, card_name(c)) for s, c in st.trick_seats()]
                expected = ref_legal(hand, trick, st.seat, strain, v.overtrump_partner, v.undertrump)
                assert {card_name(a) for a in st.legal_actions()} == expected, st.format()
                st.apply(rng.choice(st.legal_actions()))


SWITCHES = [
    ("coinche", {}),
    ("coinche", {"undertrump": True}),
    ("coinche_officielles", {}),
    ("coinche_officielles", {"undertrump": True}),
]

POSITIONS = [
    # name, variant, overrides, strain, deal seed, cards already played, depth
    ("hearts_maison", "coinche", {}, "H", 1, 0, 7),
    ("spades_officielles", "coinche_officielles", {}, "S", 2, 0, 7),
    ("diamonds_undertrump_mid_trick", "coinche", {"undertrump": True}, "D", 3, 2, 7),
    ("clubs_officielles_undertrump", "coinche_officielles", {"undertrump": True}, "C", 4, 5, 7),
    ("no_trump", "coinche", {}, "NT", 5, 0, 7),
    ("all_trump", "coinche", {}, "AT", 6, 0, 7),
    ("all_trump_mid_deal", "coinche_officielles", {}, "AT", 7, 9, 7),
    ("hearts_mid_deal", "contree", {}, "H", 8, 13, 7),
]


def regenerate():
    out = []
    for name, vname, overrides, strain, seed, n_cards, depth in POSITIONS:
        rng = random.Random(seed)
        deck = [card_name(c) for c in range(32)]
        rng.shuffle(deck)
        hands = [" ".join(deck[8 * i:8 * i + 8]) for i in range(4)]
        dealer = seed % 4
        taker = (dealer + 1) % 4
        calls = [f"80 {strain}", "pass", "pass", "pass"]
        v = variant(vname, **overrides)
        pos = RefPosition(hands, taker, strain, v.overtrump_partner, v.undertrump)
        cards = []
        for _ in range(n_cards):
            c = sorted(pos.legal())[rng.randrange(len(pos.legal()))]
            pos.play(c)
            cards.append(c)
        st = DealState.from_hands(v, dealer, hands)
        for move in calls + cards:
            st.apply(parse_action(move))
        entry = _entry(name, [], st.format())
        entry["counts"] = ref_counts(ref_position(entry), depth)
        out.append(entry)
    lines = ["# Perft golden data: name ; legal-move counts at depths 1..N ; the position in the project's notation",
             "# (DealState.format / DealState.parse). Regenerate with: python -m tests.belote_env.rules.test_perft"]
    lines += [f"{e['name']} ; {' '.join(map(str, e['counts']))} ; {e['position']}" for e in out]
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    for e in regenerate():
        print(e["name"], e["counts"])
