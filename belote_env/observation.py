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
