"""Checking the double-dummy solver against exhaustive minimax on the rules core (tests and benchmarks).

:func:`check_position` compares, on one position, the solver's value of every
legal card with :func:`.reference.minimax_values`, checks that the solver's
value of the position is the best of its cards, and replays a line of best
play (:func:`belote_env.search.dd_line`) on the rules core, which must accept
every card and give the seat's team the take announced.
"""

from __future__ import annotations

import random

from ..rules.cards import ALL_TRUMP, HEARTS, NO_TRUMP
from ..rules.variant import Variant
from . import dd_line, dd_value, dd_values
from .reference import minimax_values, play_position

BASE = dict(name="verify", deal="full", bidding="auction", scoring="coinche")
# (label, strain, switches): the suit strain under the four play switch settings, no trump under both point
# tables, all trumps (the switches and the rules do not change the all-trump or no-trump play).
SETTINGS = (
    ("suit otp=0 ut=0", HEARTS, dict(overtrump_partner=False, undertrump=False)),
    ("suit otp=0 ut=1", HEARTS, dict(overtrump_partner=False, undertrump=True)),
    ("suit otp=1 ut=0", HEARTS, dict(overtrump_partner=True, undertrump=False)),
    ("suit otp=1 ut=1", HEARTS, dict(overtrump_partner=True, undertrump=True)),
    ("no trump maison", NO_TRUMP, dict(rules="maison")),
    ("no trump officielles", NO_TRUMP, dict(rules="officielles")),
    ("all trump", ALL_TRUMP, dict()),
)


def setting_variant(switches: dict) -> Variant:
    return Variant.from_dict({**BASE, **switches}, "verify setting")


def realized_take(state, line) -> int:
    """The take of the seat to act's team when ``line`` is played out on the rules core (apply checks every card)."""
    team = state.seat & 1
    st = state.clone()
    before = st.points[team]
    for card in line:
        st.apply(card)
    assert st.phase == "done"
    return st.points[team] - before + (10 if st.tricks[-1].winner & 1 == team else 0)


def check_position(state) -> list[str]:
    """Problems found on ``state`` (empty when the solver agrees with the reference everywhere)."""
    problems = []
    got = dd_values(state)
    want = minimax_values(state)
    if got != want:
        problems.append(f"card values {got} != minimax {want}")
    best = max(got.values())
    if dd_value(state) != best:
        problems.append(f"position value {dd_value(state)} != best card value {best}")
    line = dd_line(state)
    take = realized_take(state, line)
    if take != best:
        problems.append(f"line {line} realises {take}, not {best}")
    return problems


def random_endgame(variant: Variant, strain: int, rng: random.Random):
    return play_position(variant, strain, rng, tricks_left=rng.choice((3, 4)), cards_in_trick=rng.randrange(4))


def verify_setting(index: int, n: int, seed: int = 0) -> tuple[str, int, list[str]]:
    """Check ``n`` random endgames of 3 or 4 tricks of setting ``index``; returns (label, n, failures)."""
    label, strain, switches = SETTINGS[index]
    variant = setting_variant(switches)
    rng = random.Random(f"{seed}:{index}")
    failures = []
    for _ in range(n):
        st = random_endgame(variant, strain, rng)
        for p in check_position(st):
            failures.append(f"{st.format()}: {p}")
    return label, n, failures
