"""Sampling complete deals consistent with what one seat knows (for search agents).

A search agent (determinized Monte Carlo, information-set MCTS...) must not
read the other hands, and is only handed its seat's
:class:`~belote_env.rules.info.InfoState`. :func:`sample_deal` draws from it a
complete deal that the seat cannot tell apart from the real one:

- its own cards are the real ones, the turn-up is the real one;
- every card played is where it was played, by the seat that played it;
- the hidden cards are dealt so that every card played so far was legal for
  its player (a player who did not follow suit holds none of it, a player who
  did not trump or overtrump when bound to holds no trump or no higher trump,
  and so on, as ``rules/play.py`` decides), belote and rebelote are announced
  exactly as they were (and not where they were not), and the public
  declarations are the same (so is the absence of any);
- calls constrain nothing (a bid does not prove a holding).

The result is a full :class:`DealState` of the same variant, dealer and garde
on which the real history has been replayed action by action, so it is a
legal continuation by construction and ``encode`` shows the seat exactly the
same observation. Draws are uniform over the consistent deals (rejection
sampling from uniform deals of the hidden cards, after a per-seat filter of
the forbidden cards); in the rare positions where that keeps failing, a
constrained draw that is no longer exactly uniform takes over.
"""

from __future__ import annotations

import random

from .actions import ACTION_NAMES, NUM_CARDS
from .cards import KING, QUEEN, cards_of
from .errors import IllegalActionError, SamplingError, short_repr
from .info import InfoState, info_state
from .play import beats, legal_cards
from .state import DealState

STOCK_SIZE = 11  # turn-up deals: 32 cards - 4 x 5 dealt - the turn-up
UNIFORM_TRIES = 300
FALLBACK_TRIES = 20000


def sample_deal(info: InfoState, rng: random.Random, *more) -> DealState:
    """A complete deal consistent with an :class:`InfoState`; see the module doc.

    ``sample_deal(info, rng)``; the older form ``sample_deal(deal, seat, rng)``
    builds ``deal.info_state(seat)`` first. Raises :class:`SamplingError` if
    no consistent deal exists (or the seat is not 0..3).
    """
    if isinstance(info, DealState):
        deal, seat = info, rng
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            raise SamplingError(f"seat must be 0..3, got {short_repr(seat)}")
        if len(more) != 1:
            raise TypeError("sample_deal(deal, seat, rng) takes a deal, a seat and a random.Random")
        info, rng = info_state(deal, seat), more[0]
    elif not isinstance(info, InfoState) or more:
        raise TypeError("sample_deal(info, rng): info is an InfoState (or use sample_deal(deal, seat, rng))")
    info = _SeatInfo(info)
    # Exact rejection sampling first, then the constrained (not exactly uniform) draw.
    for draw, tries in ((info.draw_uniform, UNIFORM_TRIES), (info.draw_constrained, FALLBACK_TRIES)):
        for _ in range(tries):
            hidden = draw(rng)
            if hidden is not None:
                st = info.build(hidden, rng)
                if st is not None:
                    return st
    raise SamplingError(f"no deal consistent with {_describe(info.info)} was found")


def _describe(info: InfoState) -> str:
    from .cards import format_cards

    return (f"seat {info.seat}'s information (hand {format_cards(info.hand)}, "
            f"moves {', '.join(ACTION_NAMES[a] for a in info.history)})")


class _SeatInfo:
    """What ``seat`` knows, as card sets per holder, and what each holder cannot hold."""

    def __init__(self, info: InfoState):
        self.info = deal = info
        self.seat = seat = info.seat
        self.history = info.history
        self.turn_up = deal.turnup >= 0
        self.dealt = deal.contract is not None or not self.turn_up  # all 32 cards in hands
        played = deal.played
        known = [played[s] for s in range(4)]
        if self.dealt:
            known[seat] = deal.hand | played[seat]
        else:
            known[seat] = deal.initial_hand
        # Cards the others must still hold: the pair of an announced belote,
        # public declarations, the turn-up given to the taker.
        if deal.contract is not None and self.turn_up:
            known[deal.contract.taker] |= 1 << deal.turnup
        for ev in deal.belote_events:
            if ev.kind == "belote":
                pair = (1 << (8 * (ev.card >> 3) + KING)) | (1 << (8 * (ev.card >> 3) + QUEEN))
                known[ev.seat] |= pair
        for d in deal.public_declarations():
            known[d.seat] |= d.cards
        self.known = known
        assigned = 0
        for m in known:
            assigned |= m
        if self.turn_up:
            assigned |= 1 << deal.turnup
        self.unknown = cards_of(((1 << NUM_CARDS) - 1) & ~assigned)
        size = 8 if self.dealt else 5
        # Holders of hidden cards: the other seats, then (turn-up deals before the take) the stock.
        self.holders = [s for s in range(4) if s != seat]
        self.need = [size - known[s].bit_count() for s in self.holders]
        self.forbidden = [self._forbidden(s) for s in self.holders]
        if not self.dealt:
            self.holders.append(4)
            self.need.append(STOCK_SIZE)
            self.forbidden.append(0)
        if sum(self.need) != len(self.unknown) or min(self.need) < 0:
            raise SamplingError(f"inconsistent card counts in {_describe(info)}")

    def _forbidden(self, s: int) -> int:
        """Cards that, held by ``s`` when it played, would have made one of its plays illegal."""
        deal = self.info
        v = deal.variant
        table = deal.table
        if table is None:
            return 0
        out = 0
        unknown = 0
        for c in self.unknown:
            unknown |= 1 << c
        for leader, cards in deal.trick_history():
            led = cards[0] >> 3
            win_card, win_seat = cards[0], leader
            for i, card in enumerate(cards):
                player = (leader + i) & 3
                if i and player == s:
                    partner = (win_seat ^ player) == 2
                    for x in cards_of(unknown & ~out):
                        hand = (1 << card) | (1 << x)
                        if not legal_cards(hand, led, win_card, partner, table, v.overtrump_partner, v.undertrump) >> card & 1:
                            out |= 1 << x
                if i and beats(card, win_card, table):
                    win_card, win_seat = card, player
        # Belote is announced automatically: a trump king or queen played
        # without an announcement means its partner card was not held.
        played_by_s = deal.played[s]
        announced = {ev.card for ev in deal.belote_events if ev.seat == s}
        for suit in range(4):
            if table.strain == 4 or (table.strain < 4 and suit != table.strain):
                continue
            king, queen = 8 * suit + KING, 8 * suit + QUEEN
            for mine, other in ((king, queen), (queen, king)):
                if played_by_s >> mine & 1 and mine not in announced:
                    out |= 1 << other
        return out & unknown

    def draw_uniform(self, rng: random.Random) -> list[int] | None:
        """Uniformly shuffled hidden cards; None if a holder got a forbidden card."""
        cards = self.unknown[:]
        rng.shuffle(cards)
        out = []
        i = 0
        for need, bad in zip(self.need, self.forbidden):
            m = 0
            for c in cards[i:i + need]:
                m |= 1 << c
            if m & bad:
                return None
            out.append(m)
            i += need
        return out

    def draw_constrained(self, rng: random.Random) -> list[int] | None:
        """Most constrained cards first, each to an allowed holder with room, chosen by room left."""
        room = self.need[:]
        masks = [0] * len(room)
        allowed = {c: [h for h, bad in enumerate(self.forbidden) if not bad >> c & 1] for c in self.unknown}
        order = self.unknown[:]
        rng.shuffle(order)
        order.sort(key=lambda c: len(allowed[c]))
        for c in order:
            options = [h for h in allowed[c] if room[h]]
            if not options:
                return None
            h = rng.choices(options, weights=[room[o] for o in options])[0]
            room[h] -= 1
            masks[h] |= 1 << c
        return masks

    def build(self, hidden: list[int], rng: random.Random) -> DealState | None:
        """The deal with these hidden cards, history replayed; None if the replay differs."""
        deal = self.info
        full = self.known[:]
        stock_cards = 0
        for holder, m in zip(self.holders, hidden):
            if holder == 4:
                stock_cards = m
            else:
                full[holder] |= m
        if not self.turn_up:
            st = DealState.from_hands(deal.variant, deal.dealer, full, garde=deal.garde)
        elif not self.dealt:
            stock = cards_of(stock_cards)
            rng.shuffle(stock)
            st = DealState.from_hands(deal.variant, deal.dealer, full, deal.turnup, stock, deal.garde)
        else:
            st = self._build_dealt_turn_up(full, rng)
        try:
            for a in self.history:
                st.apply(a)
        except IllegalActionError:
            return None
        if tuple(st.belote_events) != deal.belote_events or tuple(st.public_declarations()) != deal.declarations:
            return None
        if st.hands[self.seat] != deal.hand:
            return None
        return st

    def _build_dealt_turn_up(self, full: list[int], rng: random.Random) -> DealState:
        """Split each 8-card hand into the 5 dealt first and the cards dealt after the take."""
        deal = self.info
        taker = deal.contract.taker
        initial = [0] * 4
        portions = [[] for _ in range(4)]
        for s in range(4):
            if s == self.seat:
                initial[s] = deal.initial_hand
                portions[s] = cards_of(full[s] & ~deal.initial_hand & ~(1 << deal.turnup))
                continue
            rest = cards_of(full[s] & ~(1 << deal.turnup)) if s == taker else cards_of(full[s])
            rng.shuffle(rest)
            for c in rest[:5]:
                initial[s] |= 1 << c
            portions[s] = rest[5:]
        stock = []
        for i in range(1, 5):
            stock.extend(portions[(deal.dealer + i) & 3])
        return DealState.from_hands(deal.variant, deal.dealer, initial, deal.turnup, stock, deal.garde)


def sample_game_deal(game, seat: int, rng: random.Random):
    """A clone of ``game`` (a GameState) whose current deal is replaced by :func:`sample_deal`."""
    g = game.clone()
    g.deal = sample_deal(info_state(game.deal, seat), rng)
    return g


__all__ = ["sample_deal", "sample_game_deal", "SamplingError"]
