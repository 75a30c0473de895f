"""What one seat knows: the information state handed to agents.

An :class:`InfoState` is built from a :class:`~belote_env.rules.state.DealState`
(or a :class:`~belote_env.rules.game.GameState`) for one seat, and holds only
what that player may know: its own cards, the turn-up, the calls, the
contract, the tricks and the trick in progress, belote announcements, the
public declarations, and in game episodes the scores, the garde and the
target. It is immutable and made of ints, tuples and the rules core's
immutable records (``Variant``, ``Contract``, ``Trick``, ``BeloteEvent``,
``Declaration``); nothing in it refers to the game state, so another seat's
cards cannot be reached from it (``tests/belote_env/rules/test_info.py`` checks that
resampling the hidden cards leaves it unchanged).

Agents receive an ``InfoState``, never the game state. Search agents draw
full deals consistent with it with
:func:`belote_env.rules.sampling.sample_deal`.

Field names follow :class:`DealState` where the fact is the same (``calls``,
``contract``, ``tricks``, ``trick``, ``led``, ``win_card``, ``played``...),
so code written against a deal reads an information state unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import StrainTable, strain_table
from .declarations import Declaration
from .errors import short_repr
from .scoring import Contract
from .variant import Variant


class InfoState(NamedTuple):
    """One seat's information; see the module docstring. Built by :func:`info_state`.

    A named tuple: immutable, cheap to build (the AEC env makes one per step),
    compared field by field."""

    variant: Variant
    seat: int
    hand: int  # the seat's cards now held (mask)
    initial_hand: int  # the seat's cards as dealt (5 in turn-up deals)
    dealer: int
    turnup: int  # -1 in full deals
    phase: str  # bidding, play, done
    current_seat: int  # seat to act, -1 once the deal is over
    calls: tuple[tuple[int, int], ...]  # (seat, action) in order
    high: int
    high_seat: int
    level: int
    contract: Contract | None
    tricks: tuple  # completed Tricks (leader, cards, winner, points)
    trick: tuple[int, ...]  # cards of the trick in progress, from its leader
    leader: int
    led: int
    win_card: int
    win_seat: int
    played: tuple[int, int, int, int]  # cards played by each seat (masks)
    points: tuple[int, int]  # card points won by each team so far
    tricks_won: tuple[int, int, int, int]
    belote_events: tuple
    declarations: tuple[Declaration, ...]  # the public (scoring) declarations
    legal: tuple[int, ...]  # legal actions when the seat is to act, else ()
    garde: int  # the garde carried into this deal
    scores: tuple[int, int]  # game scores before this deal (0, 0 in deal episodes' first deal)
    target: int

    # --- queries shaped like DealState's ----------------------------------

    @property
    def is_over(self) -> bool:
        return self.current_seat < 0

    @property
    def to_act(self) -> bool:
        """Whether this seat is the one to act."""
        return self.current_seat == self.seat

    def legal_actions(self) -> list[int]:
        """The seat's legal actions, ascending, when it is to act; [] otherwise."""
        return list(self.legal)

    @property
    def table(self) -> StrainTable | None:
        """The contract's card table (points, strength), None while bidding."""
        return None if self.contract is None else strain_table(self.contract.strain, self.variant.rules)

    @property
    def trick_number(self) -> int:
        return len(self.tricks)

    def trick_history(self) -> list[tuple[int, tuple[int, ...]]]:
        """(leader, cards in play order) of every trick so far, the one in progress last."""
        out = [(t.leader, t.cards) for t in self.tricks]
        if self.trick:
            out.append((self.leader, self.trick))
        return out

    def public_declarations(self) -> list[Declaration]:
        return list(self.declarations)

    @property
    def history(self) -> list[int]:
        """Every action of the deal so far, in order (calls, then cards): all public."""
        out = [a for _, a in self.calls]
        for _, cards in self.trick_history():
            out.extend(cards)
        return out


def info_state(state, seat: int) -> InfoState:
    """The :class:`InfoState` of ``seat`` (0..3) in a DealState or a GameState."""
    if type(seat) is not int or not 0 <= seat <= 3:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise ValueError(f"seat must be an int 0..3, got {short_repr(seat)}")
        seat = int(seat)
    deal = getattr(state, "deal", None)  # a GameState (a DealState has no 'deal')
    if deal is not None:
        scores = (state.scores[0], state.scores[1])
        over = state.over
    else:
        deal = state
        scores = (0, 0)
        over = deal.is_over
    phase = deal.phase
    current = -1 if over or phase == "done" else deal.seat
    decls = deal.declarations
    if decls and deal.tricks:  # public once the first trick is complete (DealState.public_declarations)
        team = deal.declaration_team
        decls = tuple(d for d in decls if d.seat & 1 == team)
    else:
        decls = ()
    variant = deal.variant
    return _new(InfoState, (
        variant, seat, deal.hands[seat], deal.initial[seat], deal.dealer, deal.turnup, phase, current,
        tuple(deal.calls), deal.high, deal.high_seat, deal.level, deal.contract, tuple(deal.tricks),
        tuple(deal.trick), deal.leader, deal.led, deal.win_card, deal.win_seat, tuple(deal.played),
        (deal.points[0], deal.points[1]), tuple(deal.tricks_won), tuple(deal.belote_events),
        decls, tuple(deal.legal_actions()) if current == seat else (), deal.garde, scores, variant.target,
    ))


_new = tuple.__new__

__all__ = ["InfoState", "info_state"]
