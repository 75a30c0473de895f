"""Double-dummy solver: the exact value of a card-play position with all four hands known.

>>> from belote_env.search import dd_values
>>> dd_values(deal)            # deal: a DealState in its play phase
{4: 81, 12: 64, ...}           # each legal card of the seat to act -> its team's take

A team's *take* from a position is the card points it wins from there to the
end of the deal: the cards of the trick in progress, those of the tricks left,
10 for the last trick (dix de der) and, when asked for (``capot_bonus=90``,
where a capot scores 252 instead of 162), the capot bonus when it wins every
trick of the deal. Best play means both teams, seeing every hand, maximise
their own take (without the bonus the two takes add up to a constant; with it
each team maximises its take minus the other's).

Suit, no-trump and all-trump contracts and every play switch of the variant
(``overtrump_partner``, ``undertrump``, the no-trump points of ``rules``) are
solved. The search is an alpha-beta in numba (:mod:`.dd`); importing this
package loads numba and the kernels are compiled on first use (cached on disk,
like ``belote_env.fast``'s).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import SolverError

MIN_LOG2_TT, MAX_LOG2_TT = 2, 30  # the table holds buckets of 4 entries (dd.TT_WAYS); 2**30 entries take 16 GiB
_dd = None


def kernels():
    """The :mod:`.dd` kernel module, imported with numba's cache in a folder named after the sources' digest
    (``belote_env.numba_cache.import_cached``: numba checks only the defining file's timestamp; the kernels freeze
    constants of other modules)."""
    global _dd
    if _dd is None:
        from ..numba_cache import import_cached

        _dd = import_cached(f"{__name__}.dd", "numba-search", *Path(__file__).resolve().parent.glob("*.py"))
    return _dd


def check_position(state) -> None:
    """TypeError unless ``state`` is a :class:`~belote_env.rules.state.DealState`, ValueError unless it is in its
    play phase: what the solver's entry points take."""
    from ..rules.state import DealState

    if not isinstance(state, DealState):
        hint = " (for a GameState, pass its deal: game.deal)" if hasattr(state, "deal") else ""
        raise TypeError(f"the double-dummy solver takes a DealState in its play phase{hint}, "
                        f"got {type(state).__name__}")
    if state.phase != "play":
        raise ValueError(f"the double-dummy solver needs a deal in its play phase, got phase {str(state.phase)!r}")


class Position:
    """A card-play position as the solver reads it, from a :class:`DealState` in its play phase."""

    __slots__ = ("strain", "rules", "overtrump_partner", "undertrump", "hands", "seat", "led", "win_card",
                 "win_seat", "ntrick", "trick_pts", "trick_mask", "tricks_left", "cap", "total")

    def __init__(self, state):
        check_position(state)
        table = state.table
        v = state.variant
        self.strain = table.strain
        self.rules = 1 if v.rules == "officielles" else 0
        self.overtrump_partner = int(v.overtrump_partner)
        self.undertrump = int(v.undertrump)
        self.hands = np.array(state.hands, dtype=np.int64)
        self.seat = state.seat
        self.led = state.led if state.trick else -1
        self.win_card = state.win_card if state.trick else -1
        self.win_seat = state.win_seat if state.trick else -1
        self.ntrick = len(state.trick)
        self.trick_pts = sum(table.points[c] for c in state.trick)
        m = 0
        for c in state.trick:
            m |= 1 << c
        self.trick_mask = m
        self.tricks_left = 8 - len(state.tricks)
        teams = {t.winner & 1 for t in state.tricks}
        self.cap = 2 if not teams else (teams.pop() if len(teams) == 1 else 3)
        # cards still to be won: the trick in progress and every card in a hand, plus dix de der
        self.total = self.trick_pts + sum(table.points[c] for h in state.hands for c in _cards(h)) + 10

    def take(self, diff: int, team: int, capot_bonus: int) -> int:
        """The take of ``team`` from team 0's take minus team 1's."""
        d = diff if team == 0 else -diff
        if capot_bonus:
            if d == self.total + capot_bonus:
                return d
            if -d == self.total + capot_bonus:
                return 0
        return (d + self.total) // 2


def _cards(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Solver:
    """A double-dummy solver with its own transposition table (``2**log2_tt`` entries, 16 bytes each).

    ``capot_bonus``: points added to the take of a team that wins every trick of the deal (0: none,
    90: a capot scores 252 rather than 162). ``dd_module``: the compiled kernels to search with
    (``belote_env.search.dd`` by default; ``benchmarks/dev/dd_ab.py`` passes other versions of it)."""

    def __init__(self, log2_tt: int = 20, capot_bonus: int = 0, dd_module=None):
        if isinstance(log2_tt, bool) or not isinstance(log2_tt, (int, np.integer)) \
                or not MIN_LOG2_TT <= log2_tt <= MAX_LOG2_TT:
            raise SolverError(f"log2_tt must be an int from {MIN_LOG2_TT} (one bucket of 4 entries) to {MAX_LOG2_TT} "
                              f"(2**{MAX_LOG2_TT} entries, {16 << MAX_LOG2_TT >> 30} GiB), got {log2_tt!r}")
        if isinstance(capot_bonus, bool) or not isinstance(capot_bonus, (int, np.integer)) or capot_bonus < 0:
            raise SolverError(f"capot_bonus must be a non-negative int, got {capot_bonus!r}")
        dd = dd_module if dd_module is not None else kernels()
        self._dd = dd
        self.capot_bonus = int(capot_bonus)
        self.ctx, self.tt, self.history, self.killers = dd.new_tables(log2_tt)
        self._out = np.zeros(32, dtype=np.int64)
        self.nodes = 0

    def _prepare(self, pos: Position) -> None:
        dd, ctx = self._dd, self.ctx
        ctx[dd.C_STRAIN] = pos.strain
        ctx[dd.C_RULES] = pos.rules
        ctx[dd.C_OVERTRUMP_PARTNER] = pos.overtrump_partner
        ctx[dd.C_UNDERTRUMP] = pos.undertrump
        ctx[dd.C_CAPOT_BONUS] = self.capot_bonus
        if ctx[dd.C_STAMP] >= dd.STAMP_LIMIT:  # stamps wrap: clear the table
            self.tt[:] = 0
            ctx[dd.C_STAMP] = 0
        ctx[dd.C_STAMP] += 1  # a new solve: every table entry of an earlier one is stale
        ctx[dd.C_NODES] = 0
        ctx[dd.C_ITERS] = 0
        ctx[dd.C_TTHITS] = 0
        self.history[:] = 0
        self.killers[:] = -1

    def diffs_of(self, pos: Position) -> dict[int, int]:
        """Each legal card of the seat to act -> team 0's take minus team 1's with best play after it (the
        capot bonus included), the zero-sum value the search computes; :meth:`values_of` reads takes from it."""
        self._prepare(pos)
        cap = pos.cap if self.capot_bonus else 3
        legal = self._dd.root_values(
            self.ctx, self.tt, self.history, self.killers, pos.hands.copy(),
            pos.seat, pos.led, pos.win_card, pos.win_seat, pos.ntrick, pos.trick_pts, pos.trick_mask,
            pos.tricks_left, cap, self._out)
        self.nodes = int(self.ctx[self._dd.C_NODES])
        return {c: int(self._out[c]) for c in _cards(int(legal))}

    def values_of(self, pos: Position) -> dict[int, int]:
        """Each legal card of the seat to act -> its team's take (see the module doc)."""
        team = pos.seat & 1
        return {c: pos.take(d, team, self.capot_bonus) for c, d in self.diffs_of(pos).items()}

    def value_of(self, pos: Position) -> int:
        """The take of the seat to act's team with best play (one search with a full window)."""
        dd = self._dd
        self._prepare(pos)
        cap = pos.cap if self.capot_bonus else 3
        diff = dd.root_value(
            self.ctx, self.tt, self.history, self.killers, pos.hands.copy(),
            pos.seat, pos.led, pos.win_card, pos.win_seat, pos.ntrick, pos.trick_pts, pos.trick_mask,
            pos.tricks_left, cap, -dd.INF, dd.INF)
        self.nodes = int(self.ctx[dd.C_NODES])
        return pos.take(int(diff), pos.seat & 1, self.capot_bonus)

    def values(self, state) -> dict[int, int]:
        return self.values_of(Position(state))

    def value(self, state) -> int:
        return self.value_of(Position(state))


_default: Solver | None = None


def default_solver() -> Solver:
    global _default
    if _default is None:
        _default = Solver()
    return _default


def dd_values(state) -> dict[int, int]:
    """For a deal in its play phase: each legal card of the seat to act -> the card points its team wins
    from there to the end of the deal (trick in progress included, +10 for the last trick, no capot bonus),
    with best play by all four seats seeing all hands."""
    return default_solver().values(state)


def dd_value(state) -> int:
    """The take of the seat to act's team with best play (the best of :func:`dd_values`)."""
    return default_solver().value(state)


def dd_line(state) -> list[int]:
    """A line of best play from ``state`` to the end of the deal (the cards, in order), each card the best of
    :func:`dd_values` for the seat that plays it. Replaying it on ``state`` gives every team its take."""
    check_position(state)
    st = state.clone()
    line = []
    while st.phase == "play":
        vals = dd_values(st)
        card = max(vals, key=lambda c: (vals[c], -c))
        st.apply(card)
        line.append(card)
    return line


__all__ = ["dd_values", "dd_value", "dd_line", "Solver", "SolverError", "Position", "check_position", "default_solver",
           "kernels"]
