"""The state of one deal: dealing, bidding, card play, scoring.

A :class:`DealState` is a position: the variant, the dealer, the cards as
dealt, the garde carried into the deal and the actions so far. Everything
else (hands now, the trick, points, belote, the result) follows from those and
is kept up to date incrementally by :meth:`DealState.apply`.

States are cheap to copy with :meth:`DealState.clone` and never share mutable
data with their clones. Two states are equal when their defining data are.
"""

from __future__ import annotations

import copy
import random
from enum import StrEnum
from typing import NamedTuple

from . import bidding
from .actions import ACTION_NAMES, NUM_CARDS, PASS, action_id, action_name, parse_action
from .cards import (
    CARD_NAMES,
    FULL_DECK,
    KING,
    QUEEN,
    cards_of,
    format_cards,
    parse_card,
    parse_cards,
    strain_table,
)
from .declarations import Declaration, belote_pairs, best_team, hand_declarations
from .errors import IllegalActionError, NotationError, short_repr
from .info import info_state
from .play import beats, legal_cards
from .scoring import REDEAL, Contract, DealResult, score_deal
from .variant import SCHEMA, Variant


class Phase(StrEnum):
    """The phase of a deal; equal to its plain string (``Phase.PLAY == "play"``)."""

    BIDDING = "bidding"
    PLAY = "play"
    DONE = "done"


BIDDING, PLAY, DONE = Phase.BIDDING, Phase.PLAY, Phase.DONE
NOTATION_TAG = "belote-position-1"


class Trick(NamedTuple):
    leader: int
    cards: tuple[int, ...]  # in play order, from the leader
    winner: int
    points: int

    def seat_of(self, i: int) -> int:
        return (self.leader + i) & 3


class BeloteEvent(NamedTuple):
    seat: int
    card: int
    kind: str  # "belote" (first of the pair played) or "rebelote" (second)


class DealState:
    __slots__ = (
        "variant", "dealer", "garde", "initial", "turnup", "stock", "history",
        "phase", "seat", "hands", "calls", "high", "high_seat", "level", "passes",
        "contract", "table", "trick", "leader", "led", "win_card", "win_seat",
        "tricks", "points", "tricks_won", "played", "belote_cards", "belote_events",
        "belote_points", "declarations", "declaration_team", "declaration_points",
        "result", "_legal", "_legal_mask", "_legal_fn", "_apply_fn",
    )

    # --- construction ----------------------------------------------------

    @classmethod
    def from_hands(
        cls,
        variant: Variant,
        dealer: int,
        hands,
        turnup=None,
        stock=None,
        garde: int = 0,
    ) -> "DealState":
        """A deal from given cards.

        ``hands``: four hands (masks, card-id lists or text like ``"AS 10S JH"``),
        seat 0 first. For ``deal: full`` each has 8 cards. For ``deal:
        turn_up`` each has 5, ``turnup`` is the turned card and ``stock`` the
        11 remaining cards in the order they are dealt after the take (each
        non-taker from the dealer's left gets 3, the taker 2); with no
        ``stock`` the remaining cards are used in ascending order.
        """
        _check_seat(dealer, "dealer")
        _check_garde(garde)
        if isinstance(hands, (str, bytes, dict)) or not hasattr(hands, "__iter__"):  # None, a number...: no hands
            raise NotationError(f"hands: expected 4 hands (seat 0 first), got {short_repr(hands)}")
        masks = [_to_mask(h, f"hand of seat {i}") for i, h in enumerate(hands)]
        if len(masks) != 4:
            raise NotationError(f"need 4 hands, got {len(masks)}")
        union = 0
        for i, m in enumerate(masks):
            if union & m:
                raise NotationError(f"hand of seat {i} repeats {format_cards(union & m)}")
            union |= m
        size = 8 if variant.deal == "full" else 5
        for i, m in enumerate(masks):
            if m.bit_count() != size:
                raise NotationError(
                    f"hand of seat {i} has {m.bit_count()} cards; deal {variant.deal!r} gives {size}"
                )
        if variant.deal == "full":
            if turnup is not None or stock:
                raise NotationError("deal 'full' has no turn-up and no stock")
            tu, stk = -1, ()
        else:
            if turnup is None:
                raise NotationError("deal 'turn_up' needs the turn-up card")
            tu = _card_id(turnup, "turn-up")
            if union >> tu & 1:
                raise NotationError(f"turn-up {CARD_NAMES[tu]} is also in a hand")
            rest = FULL_DECK & ~union & ~(1 << tu)
            if stock is None:
                stk = tuple(cards_of(rest))
            else:
                items = stock.split() if isinstance(stock, str) else stock
                try:
                    stk = tuple(_card_id(c, "stock") for c in items)
                except TypeError:
                    raise NotationError(f"stock must be the 11 cards not dealt, got {short_repr(stock)}") from None
                if len(stk) != 11 or len(set(stk)) != 11 or sum(1 << c for c in stk) != rest:
                    raise NotationError(f"stock must be the 11 cards not dealt ({format_cards(rest)}), got "
                                        f"{short_repr(stock)}")
        st = cls.__new__(cls)
        st.variant = variant
        st.dealer = dealer
        st.garde = garde
        st.initial = tuple(masks)
        st.turnup = tu
        st.stock = stk
        st._reset()
        return st

    @classmethod
    def random(cls, variant: Variant, dealer: int, rng: random.Random, garde: int = 0) -> "DealState":
        """A uniformly shuffled deal drawn from ``rng``."""
        _check_seat(dealer, "dealer")
        _check_garde(garde)
        deck = list(range(32))
        rng.shuffle(deck)
        n = 8 if variant.deal == "full" else 5
        hands = [0, 0, 0, 0]
        for i in range(4):
            m = 0
            for c in deck[n * i:n * i + n]:
                m |= 1 << c
            hands[(dealer + 1 + i) & 3] = m
        st = cls.__new__(cls)
        st.variant = variant
        st.dealer = dealer
        st.garde = garde
        st.initial = tuple(hands)
        if n == 8:
            st.turnup, st.stock = -1, ()
        else:
            st.turnup, st.stock = deck[20], tuple(deck[21:])
        st._reset()
        return st

    def _reset(self) -> None:
        self.history = []
        self.phase = BIDDING
        self.seat = (self.dealer + 1) & 3
        self.hands = list(self.initial)
        self.calls = []
        self.high = -1
        self.high_seat = -1
        self.level = 1
        self.passes = 0
        self.contract = None
        self.table = None
        self.trick = []
        self.leader = self.seat
        self.led = -1
        self.win_card = -1
        self.win_seat = -1
        self.tricks = []
        self.points = [0, 0]
        self.tricks_won = [0, 0, 0, 0]
        self.played = [0, 0, 0, 0]
        self.belote_cards = [0, 0, 0, 0]
        self.belote_events = []
        self.belote_points = [0, 0]
        self.declarations = []
        self.declaration_team = -1
        self.declaration_points = [0, 0]
        self.result = None
        self._legal = None
        self._legal_mask = 0
        self._legal_fn, self._apply_fn = bidding.SYSTEMS[self.variant.bidding]

    def as_dealt(self) -> "DealState":
        """The same deal before any action: its cards, dealer and garde (replays start here)."""
        return DealState.from_hands(self.variant, self.dealer, self.initial,
                                    turnup=self.turnup if self.turnup >= 0 else None,
                                    stock=self.stock if self.turnup >= 0 else None, garde=self.garde)

    def clone(self) -> "DealState":
        st = DealState.__new__(DealState)
        for name in ("variant", "dealer", "garde", "initial", "turnup", "stock", "phase", "seat",
                     "high", "high_seat", "level", "passes", "contract", "table", "leader", "led",
                     "win_card", "win_seat", "declarations", "declaration_team", "_legal_mask",
                     "_legal_fn", "_apply_fn"):
            setattr(st, name, getattr(self, name))
        st.history = self.history[:]
        st.hands = self.hands[:]
        st.calls = self.calls[:]
        st.trick = self.trick[:]
        st.tricks = self.tricks[:]
        st.points = self.points[:]
        st.tricks_won = self.tricks_won[:]
        st.played = self.played[:]
        st.belote_cards = self.belote_cards[:]
        st.belote_events = self.belote_events[:]
        st.belote_points = self.belote_points[:]
        st.declaration_points = self.declaration_points[:]
        st._legal = None if self._legal is None else self._legal[:]
        st.result = None if self.result is None else copy.deepcopy(self.result)
        return st

    def __eq__(self, other) -> bool:
        if not isinstance(other, DealState):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self):
        return (self.variant, self.dealer, self.garde, self.initial, self.turnup, self.stock, tuple(self.history))

    def __repr__(self) -> str:
        return f"DealState({self.format()!r})"

    # --- queries ---------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == DONE

    @property
    def current_seat(self) -> int:
        """Seat to act, or -1 once the deal is over."""
        return -1 if self.phase == DONE else self.seat

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending; [] when the deal is over."""
        legal = self._legal
        if legal is None:
            if self.phase == PLAY:
                m = self._card_mask()
                legal = cards_of(m)
            elif self.phase == BIDDING:
                legal = self._legal_fn(self, self.seat)
                m = 0
                for a in legal:
                    m |= 1 << a
            else:
                legal, m = [], 0
            self._legal = legal
            self._legal_mask = m
        return legal

    def legal_mask(self) -> int:
        """Legal actions as an int bitmask over action ids."""
        if self._legal is None:
            self.legal_actions()
        return self._legal_mask

    def _card_mask(self) -> int:
        seat = self.seat
        v = self.variant
        return legal_cards(
            self.hands[seat], self.led, self.win_card, self.win_seat ^ seat == 2,
            self.table, v.overtrump_partner, v.undertrump,
        )

    @property
    def trick_number(self) -> int:
        """Index 0..7 of the trick being played (8 once all are played)."""
        return len(self.tricks)

    def trick_seats(self) -> list[tuple[int, int]]:
        """(seat, card) of the trick in progress, in play order."""
        return [((self.leader + i) & 3, c) for i, c in enumerate(self.trick)]

    def trick_history(self) -> list[tuple[int, tuple[int, ...]]]:
        """(leader, cards in play order) of every trick so far, the one in progress last."""
        out = [(t.leader, t.cards) for t in self.tricks]
        if self.trick:
            out.append((self.leader, tuple(self.trick)))
        return out

    def info_state(self, seat: int):
        """What ``seat`` knows of this deal, as an :class:`~belote_env.rules.info.InfoState`."""
        return info_state(self, seat)

    def public_declarations(self) -> list[Declaration]:
        """Scoring declarations, public once the first trick is complete."""
        if not self.tricks:
            return []
        return [d for d in self.declarations if d.seat & 1 == self.declaration_team]

    # --- acting ----------------------------------------------------------

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to act; raises IllegalActionError if it is not legal."""
        if self._legal is None:
            self.legal_actions()
        if type(action) is not int:
            given = action
            action = action_id(given)
            if action is None:
                self._illegal(given)
        if not (action >= 0 and self._legal_mask >> action & 1):
            self._illegal(action)
        self._legal = None
        self.history.append(action)
        if action < NUM_CARDS:
            self._play(action)
        else:
            self._call(action)

    def apply_name(self, name: str) -> None:
        self.apply(parse_action(name))

    def _illegal(self, action) -> None:
        try:
            shown = f"{action_name(action)!r} (id {action})"
        except NotationError:
            shown = repr(action)
        legal = self.legal_actions()
        if self.phase == DONE:
            msg = f"illegal action {shown}: the deal is over (phase {DONE}), no action is legal"
        else:
            names = ", ".join(ACTION_NAMES[a] for a in legal)
            msg = f"illegal action {shown} by seat {self.seat} in phase {self.phase}; legal: {names}"
        raise IllegalActionError(msg, action, self.current_seat, self.phase, legal)

    def _call(self, a: int) -> None:
        seat = self.seat
        self.calls.append((seat, a))
        outcome = self._apply_fn(self, seat, a)
        if outcome is None:
            self.seat = (seat + 1) & 3
        elif outcome == bidding.REDEAL:
            self.phase = DONE
            self.result = DealResult(contract=None, outcome=REDEAL, garde_in=self.garde, garde_out=self.garde)
        else:
            self._start_play(outcome)

    def _start_play(self, contract: Contract) -> None:
        self.contract = contract
        if self.turnup >= 0:
            hands = self.hands
            taker = contract.taker
            hands[taker] |= 1 << self.turnup
            it = iter(self.stock)
            for i in range(1, 5):
                seat = (self.dealer + i) & 3
                for _ in range(2 if seat == taker else 3):
                    hands[seat] |= 1 << next(it)
        self.table = strain_table(contract.strain, self.variant.rules)
        for seat, suit in belote_pairs(self.hands, contract.strain):
            self.belote_cards[seat] |= (1 << (8 * suit + KING)) | (1 << (8 * suit + QUEEN))
        if self.variant.declarations:
            decls = []
            for seat in range(4):
                decls.extend(hand_declarations(seat, self.hands[seat]))
            self.declarations = decls
            team = best_team(decls, contract.strain)
            self.declaration_team = team
            if team >= 0:
                self.declaration_points[team] = sum(d.points for d in decls if d.seat & 1 == team)
        self.phase = PLAY
        lead = contract.taker if contract.kind == "generale" else (self.dealer + 1) & 3
        self.leader = self.seat = lead

    def _play(self, card: int) -> None:
        seat = self.seat
        bit = 1 << card
        self.hands[seat] ^= bit
        self.played[seat] |= bit
        if self.belote_cards[seat] & bit:
            pair = self.belote_cards[seat] & (0xFF << (card & ~7))
            if self.played[seat] & pair == pair:
                self.belote_events.append(BeloteEvent(seat, card, "rebelote"))
                self.belote_points[seat & 1] += 20
            else:
                self.belote_events.append(BeloteEvent(seat, card, "belote"))
        trick = self.trick
        if not trick:
            self.led = card >> 3
            self.win_card = card
            self.win_seat = seat
        elif beats(card, self.win_card, self.table):
            self.win_card = card
            self.win_seat = seat
        trick.append(card)
        if len(trick) < 4:
            self.seat = (seat + 1) & 3
            return
        points = self.table.points
        pts = points[trick[0]] + points[trick[1]] + points[trick[2]] + points[trick[3]]
        winner = self.win_seat
        self.tricks.append(Trick(self.leader, tuple(trick), winner, pts))
        self.points[winner & 1] += pts
        self.tricks_won[winner] += 1
        self.trick = []
        self.led = -1
        self.leader = self.seat = winner
        if len(self.tricks) == 8:
            self.phase = DONE
            self.result = score_deal(
                self.variant, self.contract, self.points, self.tricks_won, winner,
                self.belote_points, self.declaration_points, self.garde,
            )

    # --- notation --------------------------------------------------------

    def format(self) -> str:
        """One-line text of the position; :meth:`parse` reads it back."""
        v = self.variant
        rules = " ".join(f"{k}={_fmt_value(getattr(v, k))}" for k in SCHEMA)
        hands = " / ".join(format_cards(m) for m in self.initial)
        fields = [
            NOTATION_TAG,
            f"variant: {rules}",
            f"dealer: {self.dealer}",
            f"garde: {self.garde}",
            f"hands: {hands}",
        ]
        if self.turnup >= 0:
            fields.append(f"turnup: {CARD_NAMES[self.turnup]}")
            fields.append(f"stock: {' '.join(CARD_NAMES[c] for c in self.stock)}")
        fields.append(f"moves: {', '.join(ACTION_NAMES[a] for a in self.history)}")
        return " | ".join(fields)

    @classmethod
    def parse(cls, text: str) -> "DealState":
        """Read a position written by :meth:`format`; raises NotationError naming the bad field."""
        parts = [p.strip() for p in text.strip().split("|")]
        if not parts or parts[0] != NOTATION_TAG:
            raise NotationError(f"a position starts with {NOTATION_TAG!r}, got {parts[0][:40]!r}")
        fields = {}
        for p in parts[1:]:
            key, sep, value = p.partition(":")
            if not sep:
                raise NotationError(f"position field {short_repr(p)} is not 'key: value'")
            fields[key.strip()] = value.strip()
        known = ("variant", "dealer", "garde", "hands", "turnup", "stock", "moves")
        for key in fields:
            if key not in known:
                raise NotationError(f"unknown position field {short_repr(key)}; fields are {', '.join(known)}")
        for key in ("variant", "dealer", "hands"):
            if key not in fields:
                raise NotationError(f"position has no {short_repr(key)} field")
        variant = Variant.from_dict(parse_switches(fields["variant"]), "position 'variant' field")
        try:
            dealer = int(fields["dealer"])
            garde = int(fields.get("garde", "0"))
        except ValueError:
            raise NotationError(f"dealer and garde must be integers, got {short_repr(fields['dealer'])}, "
                                f"{short_repr(fields.get('garde'))}") from None
        try:
            hands = [parse_cards(h) for h in fields["hands"].split("/")]
        except NotationError as e:
            raise NotationError(f"position field 'hands': {e}") from None
        st = cls.from_hands(variant, dealer, hands, fields.get("turnup"), fields.get("stock"), garde)
        moves = fields.get("moves", "")
        for i, name in enumerate(m for m in moves.split(",") if m.strip()):
            try:
                st.apply(parse_action(name))
            except (IllegalActionError, NotationError) as e:
                raise NotationError(f"move {i + 1} of the position ('moves' field): {e}") from None
        return st


def _card_id(c, what: str) -> int:
    if isinstance(c, str):
        return parse_card(c)
    given, c = c, action_id(c)  # card ids are the action ids 0..31
    if c is None:
        raise NotationError(f"{what}: {short_repr(given)} is not a card (a card id 0..31 or text like 'JH')")
    if not 0 <= c < 32:
        raise NotationError(f"{what}: card id {short_repr(c)} is out of range 0..31")
    return c


def _check_seat(value, what: str) -> int:
    if isinstance(value, bool) or type(value) is not int or not 0 <= value <= 3:
        raise NotationError(f"{what} must be a seat, an int 0..3, got {short_repr(value)}")
    return value


def _check_garde(value) -> int:
    if isinstance(value, bool) or type(value) is not int or value < 0:
        raise NotationError(f"garde must be a non-negative int (points held over from a litige), got "
                            f"{short_repr(value)}")
    return value


def _to_mask(h, what: str) -> int:
    if h is None or isinstance(h, bool):
        raise NotationError(f"{what}: expected a card mask, a list of cards or text like 'AS 10S JH', got "
                            f"{short_repr(h)}")
    if isinstance(h, int):
        if not 0 <= h <= FULL_DECK:
            raise NotationError(f"{what}: mask {short_repr(h)} is not a 32-bit card set")
        return h
    if isinstance(h, str):
        return parse_cards(h)
    try:
        cards = list(h)
    except TypeError:
        raise NotationError(f"{what}: expected a card mask, a list of cards or text like 'AS 10S JH', got "
                            f"{short_repr(h)}") from None
    m = 0
    for c in cards:
        c = _card_id(c, what)
        if m >> c & 1:
            raise NotationError(f"{what}: card {CARD_NAMES[c]} is listed twice")
        m |= 1 << c
    return m


def _fmt_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def parse_switches(text: str) -> dict:
    out = {}
    for tok in text.split():
        key, sep, value = tok.partition("=")
        if not sep:
            raise NotationError(f"variant switch {short_repr(tok)} is not 'key=value'")
        typ = SCHEMA.get(key, (str,))[0]
        if typ is bool:
            if value not in ("true", "false"):
                raise NotationError(f"variant switch {short_repr(key)} must be true or false, got {short_repr(value)}")
            out[key] = value == "true"
        elif typ is int:
            try:
                out[key] = int(value)
            except ValueError:
                raise NotationError(f"variant switch {short_repr(key)} must be an integer, got "
                                    f"{short_repr(value)}") from None
        else:
            out[key] = value
    return out


def play_random_deal(variant: Variant, rng: random.Random, dealer: int = 0) -> DealState:
    """Deal and play one deal with uniformly random legal actions."""
    st = DealState.random(variant, dealer, rng)
    choice = rng.choice
    while st.phase != DONE:
        st.apply(choice(st.legal_actions()))
    return st


__all__ = ["DealState", "Trick", "BeloteEvent", "Phase", "BIDDING", "PLAY", "DONE", "PASS", "play_random_deal"]
