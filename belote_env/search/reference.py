"""Exhaustive minimax on the rules core: the reference the double-dummy solver is checked against.

Plain minimax (no pruning) over :meth:`DealState.legal_actions` and
:meth:`DealState.apply`, the rules core being the single truth for which cards
are legal and who wins a trick. Positions at trick starts are memoised (the
value of a position depends only on the hands, the seat to lead and, with the
capot bonus, the capot state), which keeps it exhaustive while making 3 to 4
trick endgames take milliseconds. Pure Python; meant for endgames.
"""

from __future__ import annotations


def _capot_state(state) -> int:
    teams = {t.winner & 1 for t in state.tricks}
    return 2 if not teams else (teams.pop() if len(teams) == 1 else 3)


def minimax_diff(state, capot_bonus: int = 0, memo: dict | None = None) -> int:
    """Team 0's take minus team 1's from ``state`` (see :mod:`belote_env.search`), by exhaustive minimax."""
    if memo is None:
        memo = {}
    return _diff(state, capot_bonus, memo)


def _diff(state, capot_bonus, memo) -> int:
    if state.phase != "play":
        return 0
    key = None
    if not state.trick:
        key = (tuple(state.hands), state.seat, _capot_state(state) if capot_bonus else 3)
        if key in memo:
            return memo[key]
    seat = state.seat
    values = [_card_diff(state, card, capot_bonus, memo) for card in state.legal_actions()]
    value = max(values) if seat & 1 == 0 else min(values)
    if key is not None:
        memo[key] = value
    return value


def _card_diff(state, card, capot_bonus, memo) -> int:
    """Team 0's take minus team 1's after ``card`` is played from ``state``: the trick it completes (points,
    dix de der, capot bonus) plus the minimax value of the position after it."""
    child = state.clone()
    before = list(child.points)
    ntricks = len(child.tricks)
    child.apply(card)
    gain = 0
    if len(child.tricks) > ntricks:  # the trick was completed
        trick = child.tricks[-1]
        pts = child.points[trick.winner & 1] - before[trick.winner & 1]
        if len(child.tricks) == 8:
            pts += 10
            if capot_bonus and all(t.winner & 1 == trick.winner & 1 for t in child.tricks):
                pts += capot_bonus
        gain = pts if trick.winner & 1 == 0 else -pts
    return gain + _diff(child, capot_bonus, memo)


def minimax_values(state, capot_bonus: int = 0) -> dict[int, int]:
    """Each legal card of the seat to act -> its team's take, by exhaustive minimax (no capot bonus: the
    take; with it, the take read from the difference as :meth:`Position.take` does)."""
    from . import Position

    pos = Position(state)
    memo: dict = {}
    team = state.seat & 1
    out = {}
    for card in state.legal_actions():
        out[card] = pos.take(_card_diff(state, card, capot_bonus, memo), team, capot_bonus)
    return out


def play_position(variant, strain: int, rng, tricks_left: int = 8, cards_in_trick: int = 0, dealer: int | None = None):
    """A random deal of ``variant`` (an auction variant) bid at 80 in ``strain`` by the first seat, then played
    with uniformly random legal cards until ``tricks_left`` tricks remain and ``cards_in_trick`` cards of the
    next one are down: a random position for the solver's tests and benchmarks."""
    from ..rules.actions import BID, PASS
    from ..rules.state import DealState

    if dealer is None:
        dealer = rng.randrange(4)
    st = DealState.random(variant, dealer, rng)
    st.apply(BID + strain)
    for _ in range(3):
        st.apply(PASS)
    while len(st.tricks) < 8 - tricks_left or (len(st.tricks) == 8 - tricks_left and len(st.trick) < cards_in_trick):
        st.apply(rng.choice(st.legal_actions()))
    return st
