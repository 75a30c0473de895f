"""Card play (RULES.md section 4): which cards are legal, who wins a trick.

Both functions work on masks and the per-contract :class:`StrainTable`, so the
whole rule is a handful of integer operations.
"""

from __future__ import annotations

from .cards import ALL_TRUMP, SUIT_MASK, StrainTable


def legal_cards(
    hand: int,
    led: int,
    win_card: int,
    partner_winning: bool,
    table: StrainTable,
    overtrump_partner: bool,
    undertrump: bool,
) -> int:
    """Mask of the cards of ``hand`` that may be played.

    ``led`` is the suit led (-1 when leading), ``win_card`` the card that
    currently holds the trick, ``partner_winning`` whether it is the player's
    partner who holds it.
    """
    if led < 0:
        return hand
    follow = hand & SUIT_MASK[led]
    strain = table.strain
    if strain < 4:
        if follow:
            # Monter at a trump lead, except over a partner under maison rules.
            if led == strain and (overtrump_partner or not partner_winning):
                higher = follow & table.higher[win_card]
                if higher:
                    return higher
            return follow
        if partner_winning:
            return hand
        trumps = hand & table.trump_mask
        if not trumps:
            return hand
        if win_card >> 3 == strain:
            higher = trumps & table.higher[win_card]
            if higher:
                return higher
            # Unable to overtrump: undertrump ("pisser") or, without the switch, anything.
            return trumps if undertrump else hand
        return trumps
    if follow:
        if strain == ALL_TRUMP:
            higher = follow & table.higher[win_card]
            if higher:
                return higher
        return follow
    return hand


def beats(card: int, win_card: int, table: StrainTable) -> bool:
    """Whether ``card`` takes the trick from ``win_card``."""
    if card >> 3 == win_card >> 3:
        return table.strength[card] > table.strength[win_card]
    return bool(table.trump_mask >> card & 1)
