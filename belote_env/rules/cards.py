"""Cards, strains, card orders and card points (RULES.md section 1).

A card is an int 0..31: ``suit * 8 + rank`` with suits S H D C (0..3) and
ranks 7 8 9 10 J Q K A (0..7). The rank index is also the sequence order used
by declarations. A set of cards (a hand) is a 32-bit int mask.

Card text is rank then suit letter: ``"JH"``, ``"10S"``; :func:`parse_card`
also accepts ``T`` for ten, lower case and the suit symbols.
"""

from __future__ import annotations

from .errors import NotationError, short_repr

SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
NO_TRUMP, ALL_TRUMP = 4, 5
SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "\u2660\u2665\u2666\u2663"
STRAIN_NAMES = ("S", "H", "D", "C", "NT", "AT")
RANK_NAMES = ("7", "8", "9", "10", "J", "Q", "K", "A")
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

FULL_DECK = (1 << 32) - 1
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))
CARD_NAMES = tuple(RANK_NAMES[c & 7] + SUIT_LETTERS[c >> 3] for c in range(32))

# Strength of each rank within its suit, higher wins (RULES.md 1).
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)  # J 9 A 10 K Q 8 7
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # A 10 K Q J 9 8 7
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
NO_TRUMP_POINTS = {"maison": PLAIN_POINTS, "officielles": (0, 0, 0, 10, 2, 3, 4, 19)}
ALL_TRUMP_POINTS = (0, 0, 9, 5, 14, 1, 3, 6)

_NAME_TO_CARD = {name: c for c, name in enumerate(CARD_NAMES)}


def card_suit(card: int) -> int:
    return card >> 3


def card_rank(card: int) -> int:
    return card & 7


def card_name(card: int) -> str:
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 32:
        raise NotationError(f"card id {short_repr(card)} is out of range 0..31")
    return CARD_NAMES[card]


def parse_card(text: str) -> int:
    """Parse ``"JH"``, ``"10S"``, ``"TS"``, ``"j♥"`` into a card id."""
    if not isinstance(text, str):
        raise NotationError(f"a card is text like 'JH' or '10S', got {short_repr(text)}")
    t = text.strip().upper()
    for i, sym in enumerate(SUIT_SYMBOLS):
        t = t.replace(sym, SUIT_LETTERS[i])
    if t[:1] == "T":
        t = "10" + t[1:]
    card = _NAME_TO_CARD.get(t)
    if card is None:
        raise NotationError(
            f"bad card {short_repr(text)}: expected rank (7 8 9 10 J Q K A) then suit (S H D C), e.g. 'JH' or '10S'"
        )
    return card


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# Card ids of each byte value at each of the four byte positions, so a mask
# turns into a list with four look-ups (the hot path of legal_actions).
_BYTE_CARDS = tuple(
    tuple(tuple(8 * pos + b for b in range(8) if v >> b & 1) for v in range(256)) for pos in range(4)
)
_B0, _B1, _B2, _B3 = _BYTE_CARDS


def cards_of(mask: int) -> list[int]:
    """Card ids in a mask, ascending."""
    return [*_B0[mask & 255], *_B1[mask >> 8 & 255], *_B2[mask >> 16 & 255], *_B3[mask >> 24 & 255]]


def format_cards(mask: int) -> str:
    return " ".join(CARD_NAMES[c] for c in cards_of(mask))


def parse_cards(text: str) -> int:
    """Parse a space-separated list of cards into a mask; duplicates are an error."""
    if not isinstance(text, str):
        raise NotationError(f"cards are text like 'AS 10S JH', got {short_repr(text)}")
    m = 0
    for tok in text.split():
        c = parse_card(tok)
        if m >> c & 1:
            raise NotationError(f"card {short_repr(tok)} is listed twice in {short_repr(text)}")
        m |= 1 << c
    return m


def strain_name(strain: int) -> str:
    return STRAIN_NAMES[strain]


def parse_strain(text: str) -> int:
    if not isinstance(text, str):
        raise NotationError(f"a strain is text like 'H' or 'NT', got {short_repr(text)}")
    t = text.strip().upper()
    for i, sym in enumerate(SUIT_SYMBOLS):
        if t == sym:
            return i
    if t in STRAIN_NAMES:
        return STRAIN_NAMES.index(t)
    raise NotationError(f"bad strain {short_repr(text)}: expected one of {', '.join(STRAIN_NAMES)}")


class StrainTable:
    """Per-contract card tables: points, trick strength, trump mask.

    ``strength[c]`` orders cards of one suit; trumps get +8 so a trump beats
    any plain card. ``higher[c]`` is the mask of cards of c's suit that beat c.
    """

    __slots__ = ("strain", "rules", "points", "strength", "trump_mask", "higher", "card_total")

    def __init__(self, strain: int, rules: str):
        self.strain = strain
        self.rules = rules
        points = []
        strength = []
        for c in range(32):
            s, r = c >> 3, c & 7
            if strain == ALL_TRUMP:
                points.append(ALL_TRUMP_POINTS[r])
                strength.append(TRUMP_STRENGTH[r])
            elif strain == NO_TRUMP:
                points.append(NO_TRUMP_POINTS[rules][r])
                strength.append(PLAIN_STRENGTH[r])
            elif s == strain:
                points.append(TRUMP_POINTS[r])
                strength.append(8 + TRUMP_STRENGTH[r])
            else:
                points.append(PLAIN_POINTS[r])
                strength.append(PLAIN_STRENGTH[r])
        self.points = tuple(points)
        self.strength = tuple(strength)
        self.trump_mask = SUIT_MASK[strain] if strain < 4 else 0
        self.higher = tuple(
            mask_of(d for d in range(32) if d >> 3 == c >> 3 and strength[d] > strength[c]) for c in range(32)
        )
        self.card_total = sum(points)


_TABLES: dict[tuple[int, str], StrainTable] = {}


def strain_table(strain: int, rules: str) -> StrainTable:
    key = (strain, rules)
    t = _TABLES.get(key)
    if t is None:
        t = _TABLES[key] = StrainTable(strain, rules)
    return t
