"""The ``heuristic`` agent: a rule-based player for every bidding system and for card play.

It uses only what its seat may know: its own hand (``info.hand``), the
turn-up, the calls, the contract, the cards played so far (tricks and the
trick in progress), belote events. It never reads another seat's hand.

Bidding. For each strain the hand gets an estimate of the card points its
team would make as taker (:func:`estimate_points`): trump jack and nine count
heavily, then trump ace and ten, trump length, outside aces and guarded tens,
voids next to long trumps, belote where it counts. Constants were fitted by
regressing the points actually made in heuristic-played deals on the hand
features, per deal type (8 known cards; 5 cards plus the turn-up).

- take or pass (belote classique): take when the estimate beats half the deal;
- auction (coinche, contree): open or overcall at the estimate (rounded down
  to tens, at most 160); raise a partner's bid only with support (trump jack
  or nine, outside aces) and by at most 20; coinche an opposing contract when
  the own hand's defensive strength in its strain says it cannot be made;
  surcoinche only with a contract well above the bid;
- 81 points: call En voiture (it pays 162 where Couleur pays the points made,
  for the same risk) in the best suit when the estimate clears 81 with a
  margin; call En face in the turn-up's suit when the turn-up is a strong
  trump and the hand supports it; pass over a partner's call; coinche as above.

Card play keeps track of played cards and of voids shown (a seat that did not
follow suit, or did not trump when it had to). It leads master cards; as
taker's team pulls trumps while the defense may still hold some; as defender
keeps its trumps and leads its masters or low cards; gives points (tens, then
kings) to a partner whose card holds the trick safely; wins a trick with the
cheapest sure card; trumps when the trick is worth it or when forced; plays
its cheapest card when it cannot win.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import Agent, InfoState
from belote_env.rules.actions import (
    BID,
    BID_VALUES,
    COINCHE,
    EN_FACE,
    EN_VOITURE,
    PASS,
    SURCOINCHE,
    TAKE,
)
from belote_env.rules.cards import JACK, NINE, NO_TRUMP, SUIT_MASK, card_rank, card_suit
from belote_env.rules.play import beats
from belote_env.rules.state import BIDDING

# Rank bits within a suit byte: 7 8 9 10 J Q K A.
_R7, _R8, _R9, _R10, _RJ, _RQ, _RK, _RA = (1 << r for r in range(8))
MASTER_PENALTY = 12  # points a master card is worth keeping rather than giving away


def _byte(hand: int, suit: int) -> int:
    return hand >> (8 * suit) & 0xFF


def trump_features(hand: int, trump: int, belote_counts: bool) -> float:
    """Taker strength of ``hand`` with ``trump`` as trump, in rough card points (before calibration)."""
    tr = _byte(hand, trump)
    n = tr.bit_count()
    v = 0.0
    if tr & _RJ:
        v += 22
    if tr & _R9:
        v += 16 if (tr & _RJ or n >= 3) else 9
    if tr & _RA:
        v += 10
    if tr & _R10:
        v += 7
    v += 4 * bool(tr & _RK) + 4 * bool(tr & _RQ) + 2 * bool(tr & _R8) + 2 * bool(tr & _R7)
    if belote_counts and tr & _RK and tr & _RQ:
        v += 20
    if n >= 4:
        v += 8 * (n - 3)
    for o in range(4):
        if o == trump:
            continue
        x = _byte(hand, o)
        cnt = x.bit_count()
        if x & _RA:
            v += 13
            if x & _R10:
                v += 9
        elif x & _R10 and cnt >= 3:
            v += 3
        if n >= 3:
            if cnt == 0:
                v += 6
            elif cnt == 1 and not x & _RA:
                v += 2
    return v


def no_trump_features(hand: int, officielles: bool) -> float:
    """Taker strength at no trump: aces, tens behind them, long solid suits."""
    v = 0.0
    ace = 19 if officielles else 11
    for s in range(4):
        x = _byte(hand, s)
        cnt = x.bit_count()
        if x & _RA:
            v += ace + 6
            if x & _R10:
                v += 14
                if x & _RK:
                    v += 6
                v += 4 * max(0, cnt - 3)
        elif x & _R10 and cnt >= 3:
            v += 2
        elif cnt == 0:
            v -= 4
    return v


def all_trump_features(hand: int) -> float:
    """Taker strength at all trumps: jacks, nines behind them, length."""
    v = 0.0
    for s in range(4):
        x = _byte(hand, s)
        cnt = x.bit_count()
        if x & _RJ:
            v += 20
            if x & _R9:
                v += 14
                v += 3 * max(0, cnt - 2)
        elif x & _R9 and cnt >= 3:
            v += 4
        if cnt == 0:
            v -= 3
    return v


# Calibration: expected team points = BASE + SCALE * features, per deal type
# ("full": 8 cards known; "turn_up": 5 cards + the turn-up). See module docstring.
CALIBRATION = {
    "full": {"suit": (52.9, 1.07), "nt": (51.2, 0.60), "at": (73.2, 0.61)},
    "turn_up": {"suit": (65.3, 0.95), "nt": (60.0, 0.60), "at": (80.0, 0.61)},
}


def estimate_points(hand: int, strain: int, variant, deal_type: str | None = None) -> float:
    """Expected points (cards + last trick, plus belote where it counts) of the taker's team."""
    cal = CALIBRATION[deal_type or variant.deal]
    if strain < 4:
        base, scale = cal["suit"]
        f = trump_features(hand, strain, variant.scoring != "cobrecaf_81")
    elif strain == NO_TRUMP:
        base, scale = cal["nt"]
        f = no_trump_features(hand, variant.rules == "officielles")
    else:
        base, scale = cal["at"]
        f = all_trump_features(hand)
    return base + scale * f


def defense_points(hand: int, strain: int) -> float:
    """Rough card points the own hand takes against a contract in ``strain``."""
    if strain >= 4:
        return sum(11 * bool(_byte(hand, s) & _RA) + 8 * bool(_byte(hand, s) & _RA and _byte(hand, s) & _R10)
                   for s in range(4))
    tr = _byte(hand, strain)
    n = tr.bit_count()
    v = 0.0
    if tr & _RJ:
        v += 25
    if tr & _R9 and (tr & _RJ or n >= 2):
        v += 14
    if tr & _RA and n >= 2:
        v += 8
    if n >= 3:
        v += 8 * (n - 2)
    for o in range(4):
        if o == strain:
            continue
        x = _byte(hand, o)
        if x & _RA:
            v += 11
            if x & _R10:
                v += 8
    return v


class HeuristicAgent(Agent):
    """Rule-based bidding and card play; deterministic, fast, uses only the seat's information."""

    name = "heuristic"
    needs_observation = False

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray | None, info: InfoState) -> int:
        deal = info
        legal = deal.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if deal.phase == BIDDING:
            a = self._bid(info, legal)
        else:
            a = self._play(info, legal)
        if a not in legal:  # every branch picks from legal: reaching this is a bug to report, not to hide
            raise RuntimeError(f"heuristic chose {a!r}, not legal in {legal}; please report this position")
        return a

    def act_rows(self, params: np.ndarray, rows: np.ndarray):
        """:meth:`act` at many engine tables at once, by its kernel copy (:mod:`agents.heuristic.kernels`,
        tested equal); None for subclasses, which may change the decisions."""
        if type(self) is not HeuristicAgent:
            return None
        out = np.empty(len(rows), dtype=np.int64)
        k = kernels()
        k.act_rows(params, rows, out, *k.decide_scratch())
        return out

    # ------------------------------------------------------------------ bidding

    def _bid(self, info: InfoState, legal: list[int]) -> int:
        system = info.variant.bidding
        if system == "take_or_pass":
            return self._bid_take_or_pass(info, legal)
        if system == "auction":
            return self._bid_auction(info, legal)
        return self._bid_81(info, legal)

    def _bid_take_or_pass(self, info: InfoState, legal: list[int]) -> int:
        deal, variant = info, info.variant
        hand = info.hand | (1 << deal.turnup)
        best, best_e = PASS, -1.0
        for a in legal:
            if a == PASS:
                continue
            e = estimate_points(hand, a - TAKE, variant)
            if e > best_e:
                best, best_e = a, e
        # The taker's total must beat the defense's: half the deal plus a margin.
        need = 92 if len(deal.calls) < 4 else 96
        return best if best_e >= need else PASS

    def _bid_auction(self, info: InfoState, legal: list[int]) -> int:
        deal, variant, seat, hand = info, info.variant, info.seat, info.hand
        legal_set = set(legal)
        high, high_seat = deal.high, deal.high_seat
        if deal.level > 1:
            # Coinched: surcoinche only with a contract comfortably above the bid.
            if SURCOINCHE in legal_set and high_seat == seat:
                strain = (high - BID) % 6
                if estimate_points(hand, strain, variant) >= BID_VALUES[(high - BID) // 6] + 30:
                    return SURCOINCHE
            return PASS
        high_value = BID_VALUES[(high - BID) // 6] if high >= 0 else 0
        high_strain = (high - BID) % 6 if high >= 0 else -1
        ests = {s: estimate_points(hand, s, variant) for s in variant.strains}
        best_s = max(ests, key=ests.get)
        own_value = min(160, int(ests[best_s] - 12) // 10 * 10)
        partner_high = high >= 0 and (high_seat ^ seat) == 2
        if partner_high:
            # Support the partner's strain: trump jack / nine, outside aces; at most +20.
            tr = _byte(hand, high_strain) if high_strain < 4 else 0
            support = 0
            if high_strain < 4:
                support += 10 * bool(tr & _RJ) + 10 * bool(tr & _R9 and tr.bit_count() >= 2)
                support += 10 * sum(bool(_byte(hand, o) & _RA) for o in range(4) if o != high_strain)
            elif high_strain == NO_TRUMP:
                support += 10 * sum(bool(_byte(hand, o) & _RA) for o in range(4))
            else:
                support += 10 * sum(bool(_byte(hand, o) & _RJ) for o in range(4))
            raise_to = min(high_value + min(support - 10, 20), 160)
            if raise_to > high_value:
                a = BID + 6 * BID_VALUES.index(raise_to) + high_strain
                if a in legal_set:
                    return a
            # A much better own strain with little support: change strain.
            if support <= 10 and own_value >= high_value + 20:
                a = BID + 6 * BID_VALUES.index(own_value) + best_s
                if a in legal_set:
                    return a
            return PASS
        if own_value >= 80 and own_value > high_value:
            a = BID + 6 * BID_VALUES.index(own_value) + best_s
            if a in legal_set:
                return a
        if high >= 0 and COINCHE in legal_set and high_value <= 160:
            # Their contract cannot be made if our side takes more than 162 - bid.
            ours = defense_points(hand, high_strain) + 25
            if 162 - ours < high_value - 25:
                return COINCHE
        return PASS

    def _bid_81(self, info: InfoState, legal: list[int]) -> int:
        deal, variant, seat = info, info.variant, info.seat
        hand = info.hand | (1 << deal.turnup)
        legal_set = set(legal)
        if deal.level > 1:
            return PASS
        high, high_seat = deal.high, deal.high_seat
        if high >= 0 and (high_seat ^ seat) == 2:
            return PASS  # partner called; their call is ours
        up = card_suit(deal.turnup)
        ests = {s: estimate_points(hand, s, variant) for s in range(4)}
        best_s = max(ests, key=ests.get)
        if high < 0 or (high_seat ^ seat) & 1:
            need = 96 if high < 0 else 104
            a = EN_VOITURE + best_s
            if ests[best_s] >= need and a in legal_set:
                return a
        if high >= 0 and (high_seat ^ seat) & 1 and COINCHE in legal_set:
            if high == EN_FACE:
                strain = up
            elif high >= EN_VOITURE:
                strain = high - EN_VOITURE
            elif high >= BID:
                strain = (high - BID) % 6
            else:
                strain = high - TAKE
            if defense_points(info.hand, strain) + 25 > 100:
                return COINCHE
        if high < 0 and EN_FACE in legal_set:
            # The partner takes the turn-up: worth it when the turn-up is a top trump and we support it.
            tr = _byte(info.hand, up)
            top_up = card_rank(deal.turnup) in (JACK, NINE)  # jack or nine turned up
            aces = sum(bool(_byte(info.hand, o) & _RA) for o in range(4) if o != up)
            if top_up and (tr & (_RJ | _R9) or tr.bit_count() >= 2) and aces >= 1 and ests[up] >= 84:
                return EN_FACE
        return PASS

    # ---------------------------------------------------------------- card play

    def _play(self, info: InfoState, legal: list[int]) -> int:
        deal, seat = info, info.seat
        table = deal.table
        hand = info.hand
        contract = deal.contract
        trump = contract.strain if contract.strain < 4 else -1
        played_all = deal.played[0] | deal.played[1] | deal.played[2] | deal.played[3]
        unseen = ~(played_all | hand) & 0xFFFFFFFF
        points = table.points
        strength = table.strength
        higher = table.higher
        our_team = seat & 1
        taking = contract.team == our_team

        def is_master(c: int) -> bool:
            return not higher[c] & unseen

        if not deal.trick:
            return self._lead(info, legal, trump, unseen, is_master, taking, contract)

        voids = _voids(deal, trump)
        trick = deal.trick
        n_after = 3 - len(trick)
        after = [(seat + k) & 3 for k in range(1, n_after + 1)]
        led = deal.led
        win_card, win_seat = deal.win_card, deal.win_seat
        trick_pts = sum(points[c] for c in trick)
        trump_unseen = unseen & SUIT_MASK[trump] if trump >= 0 else 0

        def can_be_beaten(card: int, by: list[int]) -> bool:
            """Whether a seat in ``by`` (opponents still to play) may take the trick from ``card``."""
            opp = [s for s in by if (s ^ seat) & 1]
            if not opp:
                return False
            if higher[card] & unseen:
                # a higher card of the suit is out; an opponent still to play may hold it
                if card_suit(card) == led or card_suit(card) == trump:
                    if any(not voids[s] >> (card_suit(card)) & 1 for s in opp):
                        return True
            if trump >= 0 and card_suit(card) != trump and trump_unseen:
                if any(voids[s] >> led & 1 and not voids[s] >> trump & 1 for s in opp):
                    return True
            return False

        partner_wins = win_seat == seat ^ 2
        if partner_wins and not can_be_beaten(win_card, after):
            return self._give(legal, points, is_master, trump)
        winners = [c for c in legal if beats(c, win_card, table)]
        if winners:
            safe = [c for c in winners if not can_be_beaten(c, after)]
            if safe:
                c = min(safe, key=lambda c: (card_suit(c) == trump, strength[c]))
                # Trumping a cheap trick costs a trump; worth it when points or tempo are at stake.
                if card_suit(c) != trump or led == trump or trick_pts >= 10 or not self._can_discard(legal, trump) \
                        or len(deal.tricks) >= 6:
                    return c
            elif not partner_wins:
                # No sure winner: a strong card of the led suit may still hold (e.g. an ace second in hand).
                same = [c for c in winners if card_suit(c) == led and card_suit(c) != trump]
                if same and trick_pts + points[max(same, key=lambda c: strength[c])] >= 10:
                    return max(same, key=lambda c: strength[c])
                trumps = [c for c in winners if card_suit(c) == trump]
                if trumps and led != trump and trick_pts >= 10:
                    return min(trumps, key=lambda c: strength[c])
        if partner_wins:
            return self._low(legal, points, strength, trump)
        return self._low(legal, points, strength, trump)

    @staticmethod
    def _can_discard(legal: list[int], trump: int) -> bool:
        return any(card_suit(c) != trump for c in legal)

    @staticmethod
    def _low(legal, points, strength, trump) -> int:
        """The cheapest card: fewest points, not a trump, lowest rank."""
        return min(legal, key=lambda c: (points[c], card_suit(c) == trump, strength[c]))

    @staticmethod
    def _give(legal, points, is_master, trump) -> int:
        """Points for a partner who holds the trick: tens and kings first, keep trumps and masters."""
        def value(c):
            v = points[c]
            if card_suit(c) == trump:
                v -= 30
            if is_master(c):
                v -= MASTER_PENALTY
            return v
        return max(legal, key=value)

    def _lead(self, info, legal, trump, unseen, is_master, taking, contract) -> int:
        deal, seat = info, info.seat
        table = deal.table
        points, strength = table.points, table.strength
        hand = info.hand
        voids = _voids(deal, trump)
        opps = (seat ^ 1, seat ^ 3)
        if trump >= 0:
            my_trumps = [c for c in legal if card_suit(c) == trump]
            opp_may_have_trump = bool(unseen & SUIT_MASK[trump]) and any(not voids[s] >> trump & 1 for s in opps)
            if taking and my_trumps and opp_may_have_trump:
                masters = [c for c in my_trumps if is_master(c)]
                if masters:
                    return max(masters, key=lambda c: strength[c])
                if contract.taker == seat and len(my_trumps) >= 3 or contract.taker == seat ^ 2:
                    return min(my_trumps, key=lambda c: strength[c])
            plain = [c for c in legal if card_suit(c) != trump]
        else:
            plain = list(legal)
        # Masters in suits the opponents can follow (or where they cannot trump).
        def safe_suit(s: int) -> bool:
            if trump < 0 or not unseen & SUIT_MASK[trump]:
                return True
            return not any(voids[o] >> s & 1 and not voids[o] >> trump & 1 for o in opps)
        masters = [c for c in plain if is_master(c) and safe_suit(card_suit(c))]
        if masters:
            return max(masters, key=lambda c: (points[c], strength[c]))
        if plain:
            # A low card from a suit the partner may win; never lead a ten that is not master.
            def lead_key(c):
                s = card_suit(c)
                partner_void = voids[seat ^ 2] >> s & 1
                suit_cards = (hand & SUIT_MASK[s]).bit_count()
                return (points[c] >= 10, partner_void and not (trump >= 0 and not voids[seat ^ 2] >> trump & 1),
                        points[c], -suit_cards, strength[c])
            return min(plain, key=lead_key)
        return min(legal, key=lambda c: strength[c]) if not taking else max(legal, key=lambda c: strength[c])


_kernels = None


def kernels():
    """:mod:`agents.heuristic.kernels`, compiled on first use and cached with the engine's kernels (its digest
    covers this file, whose constants the kernels freeze)."""
    global _kernels
    if _kernels is None:
        from belote_env.numba_cache import import_cached

        here = Path(__file__).resolve().parent
        _kernels = import_cached("agents.heuristic.kernels", "numba-heuristic", here / "agent.py",
                                 here / "kernels.py")
    return _kernels


def _voids(deal, trump: int) -> list[int]:
    """Per seat, a 4-bit mask of suits that seat has shown it no longer holds."""
    voids = [0, 0, 0, 0]
    table = deal.table
    for leader, cards in deal.trick_history():
        led = card_suit(cards[0])
        win_card, win_seat = cards[0], leader
        for i in range(1, len(cards)):
            s = (leader + i) & 3
            c = cards[i]
            if card_suit(c) != led:
                voids[s] |= 1 << led
                if trump >= 0 and card_suit(c) != trump and win_seat != s ^ 2:
                    voids[s] |= 1 << trump  # did not trump when it had to
            if beats(c, win_card, table):
                win_card, win_seat = c, s
    return voids


__all__ = ["HeuristicAgent", "estimate_points", "defense_points", "trump_features"]
