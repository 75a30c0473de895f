"""Declarations (annonces, RULES.md section 6) and belote-rebelote (section 5).

Declarations are made automatically from each player's eight cards at the
start of play; the team holding the single best declaration scores all of its
own. Belote pairs are the K+Q of trump held by one player (every suit at all
trumps, none at no trump).
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import ACE, ALL_TRUMP, CARD_NAMES, JACK, KING, NINE, NO_TRUMP, QUEEN, TEN, cards_of

CARRE_POINTS = {JACK: 200, NINE: 150, ACE: 100, TEN: 100, KING: 100, QUEEN: 100}
SEQUENCE_KINDS = {3: ("tierce", 20), 4: ("cinquante", 50)}


class Declaration(NamedTuple):
    seat: int
    kind: str  # tierce, cinquante, cent, carre
    points: int
    top: int  # rank index of the highest card (sequence order 7..A)
    suit: int  # -1 for a carre
    cards: int  # mask

    def describe(self) -> str:
        return f"{self.kind} {' '.join(CARD_NAMES[c] for c in cards_of(self.cards))}"


def _runs(bits: int) -> tuple[tuple[int, int], ...]:
    """(start rank, length) of each run of 3 or more consecutive ranks in an 8-bit suit pattern."""
    out, rank = [], 0
    while rank < 8:
        if bits >> rank & 1:
            start = rank
            while rank < 8 and bits >> rank & 1:
                rank += 1
            if rank - start >= 3:
                out.append((start, rank - start))
        else:
            rank += 1
    return tuple(out)


# Per 8-bit mask of one suit's ranks, its runs of 3 or more: ((start, length), ...).
SUIT_RUNS = tuple(_runs(b) for b in range(256))
# Per rank that scores a carré: (rank, points, the 32-bit mask of its four cards).
CARRE_MASKS = tuple((rank, pts, sum(1 << (8 * s + rank) for s in range(4))) for rank, pts in CARRE_POINTS.items())


def hand_declarations(seat: int, hand: int) -> list[Declaration]:
    out = []
    for suit in range(4):
        for start, length in SUIT_RUNS[hand >> (8 * suit) & 0xFF]:
            kind, pts = SEQUENCE_KINDS.get(length, ("cent", 100))
            cards = ((1 << length) - 1) << (8 * suit + start)
            out.append(Declaration(seat, kind, pts, start + length - 1, suit, cards))
    for rank, pts, cards in CARRE_MASKS:
        if hand & cards == cards:
            out.append(Declaration(seat, "carre", pts, rank, -1, cards))
    return out


def _compare(a: Declaration, b: Declaration, strain: int) -> int:
    """>0 if a beats b, <0 if b beats a, 0 for a tie (RULES.md 6)."""
    if a.points != b.points:
        return a.points - b.points
    if a.suit < 0 or b.suit < 0:
        return 0  # a carre ties any declaration of equal points
    if a.top != b.top:
        return a.top - b.top
    a_trump = strain == ALL_TRUMP or a.suit == strain
    b_trump = strain == ALL_TRUMP or b.suit == strain
    return int(a_trump) - int(b_trump)


def best_team(declarations: list[Declaration], strain: int) -> int:
    """Team (0/1) holding the single best declaration, or -1 (none, or a tie)."""
    by_team = ([d for d in declarations if d.seat & 1 == 0], [d for d in declarations if d.seat & 1 == 1])
    for team in (0, 1):
        other = by_team[1 - team]
        for d in by_team[team]:
            if all(_compare(d, e, strain) > 0 for e in other):
                return team
    return -1


def belote_pairs(hands: list[int], strain: int) -> list[tuple[int, int]]:
    """(seat, suit) for each K+Q of trump held by one player."""
    if strain == NO_TRUMP:
        return []
    suits = range(4) if strain == ALL_TRUMP else (strain,)
    out = []
    for suit in suits:
        pair = (1 << (8 * suit + KING)) | (1 << (8 * suit + QUEEN))
        for seat in range(4):
            if hands[seat] & pair == pair:
                out.append((seat, suit))
    return out
