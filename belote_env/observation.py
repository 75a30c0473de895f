"""Observation encoding: what one seat knows, as a flat float32 vector.

The layout is the same for every variant, so one network can read them all.
Seats are relative to the observer: 0 = self, 1 = left opponent (next to
play), 2 = partner, 3 = right opponent. :data:`SEGMENTS` lists every segment
(name, offset, length); ``docs/observation.md`` describes each.

:func:`encode` builds the vector from scratch from a :class:`GameState`; it is
the reference that any faster (incremental) encoder is tested against.
:func:`action_mask` gives the int8 mask of the seat's legal actions.
"""

from __future__ import annotations

import numpy as np

from .rules.actions import BID_VALUES, FIRST_CALL, NUM_ACTIONS
from .rules.game import GameState
from .rules.state import BIDDING, PLAY

NUM_CALLS = NUM_ACTIONS - FIRST_CALL  # 80 call ids, 32..111
CONTRACT_KINDS = ("take", "bid", "capot", "generale", "couleur", "en_face", "en_voiture")
BIDDING_SYSTEMS = ("take_or_pass", "auction", "cobrecaf_81")
LEVELS = (1, 2, 4)

_SEGMENT_SPEC = (
    ("hand", 32, "own cards now held"),
    ("turnup", 32, "the turned-up card (turn-up deals), one-hot, shown the whole deal"),
    ("calls", 4 * NUM_CALLS, "per relative seat (4 blocks of 80), the non-pass calls it made, by call id - 32"),
    ("passes", 4, "per relative seat, number of passes / 8"),
    ("num_calls", 1, "calls made so far / 32"),
    ("high_call_seat", 4, "relative seat holding the highest call so far, one-hot"),
    ("contract_strain", 6, "contract strain S H D C NT AT, one-hot (zero while bidding)"),
    ("contract_value", 12, "bid value one-hot over 80..160, 250, 500, then 81 (81 points)"),
    ("contract_kind", 7, "take, bid, capot, generale, couleur, en_face, en_voiture"),
    ("taker", 4, "taker's relative seat, one-hot"),
    ("level", 3, "coinche level 1, 2, 4 (also during bidding), one-hot"),
    ("trick", 4 * 32, "current trick: per relative seat, the card it played, one-hot"),
    ("trick_leader", 4, "relative seat that led the current trick"),
    ("trick_winner", 4, "relative seat currently holding the trick"),
    ("played", 4 * 32, "every card played so far, per relative seat (current trick included)"),
    ("declarations", 4 * 32, "cards of public scoring declarations, per relative seat"),
    ("declaration_points", 2, "declaration points scored: own team, other team, / 100"),
    ("belote", 8, "per relative seat: belote announced, rebelote announced"),
    ("trick_number", 9, "tricks completed 0..8, one-hot"),
    ("dealer", 4, "dealer's relative seat"),
    ("card_points", 2, "card points won so far: own team, other team, / 162"),
    ("tricks_won", 2, "tricks won: own team, other team, / 8"),
    ("phase", 2, "bidding, play"),
    ("bidding_system", 3, "take_or_pass, auction, cobrecaf_81"),
    ("game", 4, "own score, other score, garde (/ target), target / 3000 (game episodes; zero otherwise)"),
)


def _segments():
    out, off = {}, 0
    for name, length, _ in _SEGMENT_SPEC:
        out[name] = (off, length)
        off += length
    return out, off


SEGMENTS, OBS_SIZE = _segments()
_BIT_TABLE = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)


def _put_mask(out: np.ndarray, offset: int, mask: int) -> None:
    """Write a 32-bit card mask as 32 floats at ``offset``."""
    for b in range(4):
        byte = mask >> (8 * b) & 255
        if byte:
            out[offset + 8 * b:offset + 8 * b + 8] = _BIT_TABLE[byte]


def encode(game: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` (absolute 0..3) in ``game``, built from scratch."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    st = game.deal
    S = SEGMENTS

    def rel(s: int) -> int:
        return (s - seat) & 3

    _put_mask(out, S["hand"][0], st.hands[seat])
    if st.turnup >= 0:
        out[S["turnup"][0] + st.turnup] = 1.0
    calls0 = S["calls"][0]
    passes0 = S["passes"][0]
    for s, a in st.calls:
        if a == FIRST_CALL:
            out[passes0 + rel(s)] += 1.0 / 8
        else:
            out[calls0 + NUM_CALLS * rel(s) + a - FIRST_CALL] = 1.0
    out[S["num_calls"][0]] = len(st.calls) / 32
    if st.high_seat >= 0:
        out[S["high_call_seat"][0] + rel(st.high_seat)] = 1.0
    c = st.contract
    level = c.level if c is not None else st.level
    out[S["level"][0] + LEVELS.index(level)] = 1.0
    if c is not None:
        out[S["contract_strain"][0] + c.strain] = 1.0
        if c.value in BID_VALUES:
            out[S["contract_value"][0] + BID_VALUES.index(c.value)] = 1.0
        elif c.value == 81:
            out[S["contract_value"][0] + 11] = 1.0
        out[S["contract_kind"][0] + CONTRACT_KINDS.index(c.kind)] = 1.0
        out[S["taker"][0] + rel(c.taker)] = 1.0
    if st.phase == PLAY:
        trick0 = S["trick"][0]
        for i, card in enumerate(st.trick):
            out[trick0 + 32 * rel(st.leader + i) + card] = 1.0
        out[S["trick_leader"][0] + rel(st.leader)] = 1.0
        if st.trick:
            out[S["trick_winner"][0] + rel(st.win_seat)] = 1.0
    played0 = S["played"][0]
    for s in range(4):
        if st.played[s]:
            _put_mask(out, played0 + 32 * rel(s), st.played[s])
    decl0 = S["declarations"][0]
    team_pts = [0, 0]
    for d in st.public_declarations():
        r = rel(d.seat)
        m = d.cards
        base = decl0 + 32 * r
        for card in range(32):
            if m >> card & 1:
                out[base + card] = 1.0
        team_pts[r & 1] += d.points
    out[S["declaration_points"][0]] = team_pts[0] / 100
    out[S["declaration_points"][0] + 1] = team_pts[1] / 100
    for ev in st.belote_events:
        out[S["belote"][0] + 2 * rel(ev.seat) + (ev.kind == "rebelote")] = 1.0
    out[S["trick_number"][0] + len(st.tricks)] = 1.0
    out[S["dealer"][0] + rel(st.dealer)] = 1.0
    me = seat & 1
    out[S["card_points"][0]] = st.points[me] / 162
    out[S["card_points"][0] + 1] = st.points[1 - me] / 162
    tw = st.tricks_won
    out[S["tricks_won"][0]] = (tw[seat] + tw[seat ^ 2]) / 8
    out[S["tricks_won"][0] + 1] = (tw[seat ^ 1] + tw[seat ^ 3]) / 8
    if st.phase == BIDDING:
        out[S["phase"][0]] = 1.0
    elif st.phase == PLAY:
        out[S["phase"][0] + 1] = 1.0
    out[S["bidding_system"][0] + BIDDING_SYSTEMS.index(game.variant.bidding)] = 1.0
    if game.variant.episode == "game":
        target = game.variant.target
        g0 = S["game"][0]
        out[g0] = game.scores[me] / target
        out[g0 + 1] = game.scores[1 - me] / target
        out[g0 + 2] = game.garde / target
        out[g0 + 3] = target / 3000
    return out


def action_mask(game: GameState, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask over the 112 actions: the legal ones when ``seat`` is to act, else zeros."""
    if out is None:
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
    else:
        out.fill(0)
    if not game.over and game.deal.seat == seat:
        out[game.deal.legal_actions()] = 1
    return out


class IncrementalEncoder:
    """The observations of the four seats of one :class:`GameState`, kept up to date.

    Equal, entry for entry, to :func:`encode` and :func:`action_mask` at every
    position (the tests check it), but each call only writes what changed since
    the seat's previous call: the calls and cards played since then, the trick
    bookkeeping, and the few counters. The PettingZoo env uses it so that an
    observation costs a few microseconds instead of rebuilding 853 floats.

    ``observation(seat)`` and ``action_mask(seat)`` return fresh arrays the
    caller may keep; the encoder's own rows are never handed out.
    """

    def __init__(self, game: GameState):
        self._obs = np.zeros((4, OBS_SIZE), dtype=np.float32)
        self.reset(game)

    def reset(self, game: GameState) -> None:
        """Follow a new game from its start (or from any position)."""
        self.game = game
        self._episode_game = game.variant.episode == "game"
        self._bidding_index = BIDDING_SYSTEMS.index(game.variant.bidding)
        self._deal = [None] * 4
        # Per seat: what its row already shows (indices set, counts consumed).
        self._hand = [0] * 4
        self._ncalls = [0] * 4
        self._ncards = [0] * 4
        self._ntricks = [0] * 4
        self._nbelote = [0] * 4
        self._high = [-1] * 4
        self._level = [-1] * 4
        self._contract = [False] * 4
        self._decl = [False] * 4
        self._trick_idx = [[] for _ in range(4)]
        self._leader = [-1] * 4
        self._winner = [-1] * 4
        self._phase = [-1] * 4
        self._results = [-1] * 4

    def observation(self, seat: int) -> np.ndarray:
        """A copy of ``encode(game, seat)``."""
        self._sync(seat)
        return self._obs[seat].copy()

    def action_mask(self, seat: int) -> np.ndarray:
        """``action_mask(game, seat)``: the legal actions if ``seat`` is to act, else zeros."""
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
        game = self.game
        if not game.over and game.deal.seat == seat:
            out[game.deal.legal_actions()] = 1
        return out

    # --- internals -------------------------------------------------------

    def _start_deal(self, seat: int, st) -> None:
        o = self._obs[seat]
        o.fill(0.0)
        self._deal[seat] = st
        self._hand[seat] = 0
        self._ncalls[seat] = self._ncards[seat] = self._ntricks[seat] = self._nbelote[seat] = 0
        self._high[seat] = self._level[seat] = self._leader[seat] = self._winner[seat] = -1
        self._phase[seat] = self._results[seat] = -1
        self._contract[seat] = self._decl[seat] = False
        self._trick_idx[seat] = []
        if st.turnup >= 0:
            o[_TURNUP + st.turnup] = 1.0
        o[_TRICK_NUMBER] = 1.0
        o[_DEALER + ((st.dealer - seat) & 3)] = 1.0
        o[_BIDDING_SYSTEM + self._bidding_index] = 1.0

    def _sync(self, seat: int) -> None:
        game = self.game
        st = game.deal
        o = self._obs[seat]
        if self._deal[seat] is not st:
            self._start_deal(seat, st)

        hand = st.hands[seat]
        old = self._hand[seat]
        if hand != old:
            diff = hand ^ old
            while diff:
                low = diff & -diff
                card = low.bit_length() - 1
                o[card] = 1.0 if hand & low else 0.0
                diff ^= low
            self._hand[seat] = hand

        calls = st.calls
        n = self._ncalls[seat]
        if n != len(calls):
            for s, a in calls[n:]:
                if a == FIRST_CALL:
                    o[_PASSES + ((s - seat) & 3)] += 0.125
                else:
                    o[_CALLS + NUM_CALLS * ((s - seat) & 3) + a - FIRST_CALL] = 1.0
            n = self._ncalls[seat] = len(calls)
            o[_NUM_CALLS] = n / 32
            if st.high_seat >= 0:
                idx = _HIGH_CALL_SEAT + ((st.high_seat - seat) & 3)
                if idx != self._high[seat]:
                    if self._high[seat] >= 0:
                        o[self._high[seat]] = 0.0
                    o[idx] = 1.0
                    self._high[seat] = idx

        c = st.contract
        idx = _LEVEL + LEVELS.index(c.level if c is not None else st.level)
        if idx != self._level[seat]:
            if self._level[seat] >= 0:
                o[self._level[seat]] = 0.0
            o[idx] = 1.0
            self._level[seat] = idx
        if c is not None and not self._contract[seat]:
            o[_CONTRACT_STRAIN + c.strain] = 1.0
            if c.value in BID_VALUES:
                o[_CONTRACT_VALUE + BID_VALUES.index(c.value)] = 1.0
            elif c.value == 81:
                o[_CONTRACT_VALUE + 11] = 1.0
            o[_CONTRACT_KIND + CONTRACT_KINDS.index(c.kind)] = 1.0
            o[_TAKER + ((c.taker - seat) & 3)] = 1.0
            self._contract[seat] = True

        phase = 0 if st.phase == BIDDING else 1 if st.phase == PLAY else 2
        if phase != self._phase[seat]:
            if self._phase[seat] in (0, 1):
                o[_PHASE + self._phase[seat]] = 0.0
            if phase < 2:
                o[_PHASE + phase] = 1.0
            self._phase[seat] = phase

        if phase:
            self._sync_play(seat, st, o, phase)

        if self._episode_game:
            nres = len(game.results)
            if nres != self._results[seat]:
                target = game.variant.target
                me = seat & 1
                o[_GAME] = game.scores[me] / target
                o[_GAME + 1] = game.scores[1 - me] / target
                o[_GAME + 2] = game.garde / target
                o[_GAME + 3] = target / 3000
                self._results[seat] = nres

    def _sync_play(self, seat: int, st, o: np.ndarray, phase: int) -> None:
        tricks = st.tricks
        ntricks = len(tricks)
        trick = st.trick
        total = 4 * ntricks + len(trick)
        k = self._ncards[seat]
        if k != total:
            while k < total:
                t, i = k >> 2, k & 3
                if t < ntricks:
                    done = tricks[t]
                    s, card = (done.leader + i) & 3, done.cards[i]
                else:
                    s, card = (st.leader + i) & 3, trick[i]
                o[_PLAYED + 32 * ((s - seat) & 3) + card] = 1.0
                k += 1
            self._ncards[seat] = total

        trick_idx = self._trick_idx[seat]
        if ntricks != self._ntricks[seat]:
            o[_TRICK_NUMBER + self._ntricks[seat]] = 0.0
            o[_TRICK_NUMBER + ntricks] = 1.0
            self._ntricks[seat] = ntricks
            for idx in trick_idx:
                o[idx] = 0.0
            trick_idx.clear()
            me = seat & 1
            o[_CARD_POINTS] = st.points[me] / 162
            o[_CARD_POINTS + 1] = st.points[1 - me] / 162
            tw = st.tricks_won
            o[_TRICKS_WON] = (tw[seat] + tw[seat ^ 2]) / 8
            o[_TRICKS_WON + 1] = (tw[seat ^ 1] + tw[seat ^ 3]) / 8
            if not self._decl[seat]:
                self._decl[seat] = True
                pts = [0, 0]
                for d in st.public_declarations():
                    r = (d.seat - seat) & 3
                    _put_mask(o, _DECLARATIONS + 32 * r, d.cards)
                    pts[r & 1] += d.points
                o[_DECLARATION_POINTS] = pts[0] / 100
                o[_DECLARATION_POINTS + 1] = pts[1] / 100

        events = st.belote_events
        nb = self._nbelote[seat]
        if nb != len(events):
            for ev in events[nb:]:
                o[_BELOTE + 2 * ((ev.seat - seat) & 3) + (ev.kind == "rebelote")] = 1.0
            self._nbelote[seat] = len(events)

        if phase == 1:
            leader = st.leader
            for i in range(len(trick_idx), len(trick)):
                idx = _TRICK + 32 * ((leader + i - seat) & 3) + trick[i]
                o[idx] = 1.0
                trick_idx.append(idx)
            idx = _TRICK_LEADER + ((leader - seat) & 3)
            if idx != self._leader[seat]:
                if self._leader[seat] >= 0:
                    o[self._leader[seat]] = 0.0
                o[idx] = 1.0
                self._leader[seat] = idx
            idx = _TRICK_WINNER + ((st.win_seat - seat) & 3) if trick else -1
        else:
            if self._leader[seat] >= 0:
                o[self._leader[seat]] = 0.0
                self._leader[seat] = -1
            idx = -1
        if idx != self._winner[seat]:
            if self._winner[seat] >= 0:
                o[self._winner[seat]] = 0.0
            if idx >= 0:
                o[idx] = 1.0
            self._winner[seat] = idx


_TURNUP = SEGMENTS["turnup"][0]
_CALLS = SEGMENTS["calls"][0]
_PASSES = SEGMENTS["passes"][0]
_NUM_CALLS = SEGMENTS["num_calls"][0]
_HIGH_CALL_SEAT = SEGMENTS["high_call_seat"][0]
_CONTRACT_STRAIN = SEGMENTS["contract_strain"][0]
_CONTRACT_VALUE = SEGMENTS["contract_value"][0]
_CONTRACT_KIND = SEGMENTS["contract_kind"][0]
_TAKER = SEGMENTS["taker"][0]
_LEVEL = SEGMENTS["level"][0]
_TRICK = SEGMENTS["trick"][0]
_TRICK_LEADER = SEGMENTS["trick_leader"][0]
_TRICK_WINNER = SEGMENTS["trick_winner"][0]
_PLAYED = SEGMENTS["played"][0]
_DECLARATIONS = SEGMENTS["declarations"][0]
_DECLARATION_POINTS = SEGMENTS["declaration_points"][0]
_BELOTE = SEGMENTS["belote"][0]
_TRICK_NUMBER = SEGMENTS["trick_number"][0]
_DEALER = SEGMENTS["dealer"][0]
_CARD_POINTS = SEGMENTS["card_points"][0]
_TRICKS_WON = SEGMENTS["tricks_won"][0]
_PHASE = SEGMENTS["phase"][0]
_BIDDING_SYSTEM = SEGMENTS["bidding_system"][0]
_GAME = SEGMENTS["game"][0]
