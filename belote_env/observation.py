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
from .rules.scoring import ContractKind
from .rules.state import BIDDING, PLAY

NUM_CALLS = NUM_ACTIONS - FIRST_CALL  # 80 call ids, 32..111
CONTRACT_KINDS = tuple(ContractKind)  # take, bid, capot, generale, couleur, en_face, en_voiture
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


def observation_high() -> np.ndarray:
    """The upper bound of every observation entry (1, or inf for the counts and scores): the ``Box`` high."""
    high = np.ones(OBS_SIZE, dtype=np.float32)
    unbounded = [SEGMENTS["num_calls"][0], SEGMENTS["declaration_points"][0], SEGMENTS["declaration_points"][0] + 1]
    g0 = SEGMENTS["game"][0]
    unbounded += [g0, g0 + 1, g0 + 2]
    high[unbounded] = np.inf
    return high

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
    seat = int(seat)  # numpy ints (VectorEnv's int8 seats) would overflow in the offsets below
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



def _rows_index(offset: int, block: int, items: int) -> tuple[tuple[np.ndarray, ...], ...]:
    """For a per-relative-seat segment: [abs seat][item] -> its flat index in each of the 4 rows."""
    return tuple(
        tuple(
            np.array([r * OBS_SIZE + offset + block * ((s - r) & 3) + x for r in range(4)], dtype=np.intp)
            for x in range(items)
        )
        for s in range(4)
    )


def _column(index: int) -> np.ndarray:
    return np.array([r * OBS_SIZE + index for r in range(4)], dtype=np.intp)


def _team_rows(index: int, team: int) -> np.ndarray:
    return np.array([r * OBS_SIZE + index for r in range(4) if r & 1 == team], dtype=np.intp)


class IncrementalEncoder:
    """The observations of the four seats of one :class:`GameState`, kept up to date.

    Equal, entry for entry, to :func:`encode` and :func:`action_mask` at every
    position (the tests check it), but each call only applies what happened
    since the previous call: every new call or card is written into the four
    seats' rows at once (one numpy write per fact, with precomputed indices),
    and the few counters are rewritten when they change. The PettingZoo env
    uses it so that an observation costs a few microseconds instead of
    rebuilding 853 floats. It may be created at any point of a game and
    catches up from the deal's history.

    ``observation(seat)`` and ``action_mask(seat)`` return fresh arrays the
    caller may keep; the encoder's own rows are never handed out.
    """

    def __init__(self, game: GameState):
        self._obs = np.zeros((4, OBS_SIZE), dtype=np.float32)
        self._flat = self._obs.reshape(-1)
        self._rows = [self._obs[s] for s in range(4)]
        self.reset(game)

    def reset(self, game: GameState) -> None:
        """Follow ``game`` (from its start or from any position)."""
        self.game = game
        self._episode_game = game.variant.episode == "game"
        self._bidding_column = _column(_BIDDING_SYSTEM + BIDDING_SYSTEMS.index(game.variant.bidding))
        self._deal = None
        self._results = -1

    def observation(self, seat: int) -> np.ndarray:
        """A copy of ``encode(game, seat)``."""
        self._sync()
        return self._rows[seat].copy()

    def action_mask(self, seat: int) -> np.ndarray:
        """``action_mask(game, seat)``: the legal actions if ``seat`` is to act, else zeros."""
        game = self.game
        st = game.deal
        if game.over or st.seat != seat:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        legal = st.legal_mask()
        arr = _MASK_CACHE.get(legal)
        if arr is None:
            if len(_MASK_CACHE) >= _MASK_CACHE_SIZE:
                _MASK_CACHE.clear()
            arr = np.zeros(NUM_ACTIONS, dtype=np.int8)
            arr[st.legal_actions()] = 1
            _MASK_CACHE[legal] = arr
        return arr.copy()

    # --- internals -------------------------------------------------------

    def _start_deal(self, st) -> None:
        self._obs.fill(0.0)
        self._deal = st
        self._results = -1
        self._nhist = 0
        self._ncalls = 0
        self._passes = [0, 0, 0, 0]
        self._high = -1
        self._level = 0
        self._contract = False
        self._ncards = 0
        self._ntricks = 0
        self._trick_written = 0
        self._leader = -1
        self._winner = -1
        self._nbelote = 0
        self._declared = False
        F = self._flat
        for s in range(4):
            _put_mask(self._rows[s], _HAND, st.hands[s])
        if st.turnup >= 0:
            F[_COLUMNS[_TURNUP + st.turnup]] = 1.0
        F[_COLUMNS[_TRICK_NUMBER]] = 1.0
        F[_COLUMNS[_LEVEL]] = 1.0
        F[_COLUMNS[_PHASE]] = 1.0
        self._phase = BIDDING
        F[_DEALER4[st.dealer][0]] = 1.0
        F[self._bidding_column] = 1.0

    def _sync(self) -> None:
        game = self.game
        st = game.deal
        if st is not self._deal:
            self._start_deal(st)
        if len(st.history) != self._nhist:
            self._advance(st)
        if self._episode_game and len(game.results) != self._results:
            self._results = len(game.results)
            F = self._flat
            target = game.variant.target
            s0, s1 = game.scores[0] / target, game.scores[1] / target
            F[_EVEN[_GAME]] = s0
            F[_ODD[_GAME]] = s1
            F[_EVEN[_GAME + 1]] = s1
            F[_ODD[_GAME + 1]] = s0
            F[_COLUMNS[_GAME + 2]] = game.garde / target
            F[_COLUMNS[_GAME + 3]] = target / 3000

    def _advance(self, st) -> None:
        F = self._flat
        self._nhist = len(st.history)
        calls = st.calls
        if self._ncalls != len(calls):
            passes = self._passes
            for s, a in calls[self._ncalls:]:
                if a == FIRST_CALL:
                    passes[s] += 1
                    F[_PASSES4[s][0]] = passes[s] / 8
                else:
                    F[_CALLS4[s][a - FIRST_CALL]] = 1.0
            self._ncalls = n = len(calls)
            F[_COLUMNS[_NUM_CALLS]] = n / 32
            high = st.high_seat
            if high != self._high:
                if self._high >= 0:
                    F[_HIGH4[self._high][0]] = 0.0
                F[_HIGH4[high][0]] = 1.0
                self._high = high
            c = st.contract
            level = LEVELS.index(c.level if c is not None else st.level)
            if level != self._level:
                F[_COLUMNS[_LEVEL + self._level]] = 0.0
                F[_COLUMNS[_LEVEL + level]] = 1.0
                self._level = level
            if c is not None and not self._contract:
                self._contract = True
                F[_COLUMNS[_CONTRACT_STRAIN + c.strain]] = 1.0
                if c.value in BID_VALUES:
                    F[_COLUMNS[_CONTRACT_VALUE + BID_VALUES.index(c.value)]] = 1.0
                elif c.value == 81:
                    F[_COLUMNS[_CONTRACT_VALUE + 11]] = 1.0
                F[_COLUMNS[_CONTRACT_KIND + CONTRACT_KINDS.index(c.kind)]] = 1.0
                F[_TAKER4[c.taker][0]] = 1.0
                if st.turnup >= 0:  # the turn-up and the stock were just dealt
                    for s in range(4):
                        row = self._rows[s]
                        row[_HAND:_HAND + 32] = 0.0
                        _put_mask(row, _HAND, st.hands[s])

        phase = st.phase
        if phase is not self._phase:
            if self._phase == BIDDING or self._phase == PLAY:
                F[_COLUMNS[_PHASE + (self._phase == PLAY)]] = 0.0
            if phase == BIDDING or phase == PLAY:
                F[_COLUMNS[_PHASE + (phase == PLAY)]] = 1.0
            self._phase = phase
        if phase == BIDDING:
            return

        tricks = st.tricks
        ntricks = len(tricks)
        trick = st.trick
        total = 4 * ntricks + len(trick)
        k = self._ncards
        if k != total:
            leader = st.leader
            while k < total:
                t, i = k >> 2, k & 3
                if t < ntricks:
                    done = tricks[t]
                    s, card = (done.leader + i) & 3, done.cards[i]
                else:
                    s, card = (leader + i) & 3, trick[i]
                F[_PLAYED4[s][card]] = 1.0
                F[s * OBS_SIZE + card] = 0.0  # no longer in the player's hand
                k += 1
            self._ncards = total
            if ntricks != self._ntricks:
                self._trick_changed(st, ntricks)
            if phase == PLAY:
                for i in range(self._trick_written, len(trick)):
                    F[_TRICK4[(leader + i) & 3][trick[i]]] = 1.0
                self._trick_written = len(trick)
            events = st.belote_events
            if self._nbelote != len(events):
                for ev in events[self._nbelote:]:
                    F[_BELOTE4[ev.seat][ev.kind == "rebelote"]] = 1.0
                self._nbelote = len(events)

        if phase == PLAY:
            leader = st.leader
            winner = st.win_seat if trick else -1
        else:
            leader = winner = -1
        if leader != self._leader:
            if self._leader >= 0:
                F[_LEADER4[self._leader][0]] = 0.0
            if leader >= 0:
                F[_LEADER4[leader][0]] = 1.0
            self._leader = leader
        if winner != self._winner:
            if self._winner >= 0:
                F[_WINNER4[self._winner][0]] = 0.0
            if winner >= 0:
                F[_WINNER4[winner][0]] = 1.0
            self._winner = winner

    def _trick_changed(self, st, ntricks: int) -> None:
        F = self._flat
        if self._trick_written:
            self._obs[:, _TRICK:_TRICK + 128] = 0.0
            self._trick_written = 0
        F[_COLUMNS[_TRICK_NUMBER + self._ntricks]] = 0.0
        F[_COLUMNS[_TRICK_NUMBER + ntricks]] = 1.0
        self._ntricks = ntricks
        p0, p1 = st.points[0] / 162, st.points[1] / 162
        F[_EVEN[_CARD_POINTS]] = p0
        F[_ODD[_CARD_POINTS]] = p1
        F[_EVEN[_CARD_POINTS + 1]] = p1
        F[_ODD[_CARD_POINTS + 1]] = p0
        tw = st.tricks_won
        w0, w1 = (tw[0] + tw[2]) / 8, (tw[1] + tw[3]) / 8
        F[_EVEN[_TRICKS_WON]] = w0
        F[_ODD[_TRICKS_WON]] = w1
        F[_EVEN[_TRICKS_WON + 1]] = w1
        F[_ODD[_TRICKS_WON + 1]] = w0
        if not self._declared:
            self._declared = True
            decls = st.public_declarations()
            if decls:
                for seat in range(4):
                    row = self._rows[seat]
                    pts = [0, 0]
                    cards = [0, 0, 0, 0]  # per relative seat: a seat's carré and sequence may share a card
                    for d in decls:
                        r = (d.seat - seat) & 3
                        cards[r] |= d.cards
                        pts[r & 1] += d.points
                    for r in range(4):
                        if cards[r]:
                            _put_mask(row, _DECLARATIONS + 32 * r, cards[r])
                    row[_DECLARATION_POINTS] = pts[0] / 100
                    row[_DECLARATION_POINTS + 1] = pts[1] / 100


_HAND = SEGMENTS["hand"][0]
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

# Flat indices into the (4, OBS_SIZE) block of the four rows, precomputed so
# that one fact is one numpy write for all four observers.
_COLUMNS = tuple(_column(i) for i in range(OBS_SIZE))
_EVEN = tuple(_team_rows(i, 0) for i in range(OBS_SIZE))
_ODD = tuple(_team_rows(i, 1) for i in range(OBS_SIZE))
_CALLS4 = _rows_index(_CALLS, NUM_CALLS, NUM_CALLS)
_PASSES4 = _rows_index(_PASSES, 1, 1)
_HIGH4 = _rows_index(_HIGH_CALL_SEAT, 1, 1)
_TAKER4 = _rows_index(_TAKER, 1, 1)
_TRICK4 = _rows_index(_TRICK, 32, 32)
_LEADER4 = _rows_index(_TRICK_LEADER, 1, 1)
_WINNER4 = _rows_index(_TRICK_WINNER, 1, 1)
_PLAYED4 = _rows_index(_PLAYED, 32, 32)
_BELOTE4 = _rows_index(_BELOTE, 2, 2)
_DEALER4 = _rows_index(_DEALER, 1, 1)

# Action masks by legal-action bitmask: bidding masks repeat constantly and
# building one from a list costs more than copying a cached one.
_MASK_CACHE: dict[int, np.ndarray] = {}
_MASK_CACHE_SIZE = 1 << 16
