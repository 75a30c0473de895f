"""The solver's arguments: table sizes it cannot hold are refused (a 2-entry table once corrupted the heap), the
smallest allowed table gives the exact values, and the entry points name what they take."""

from __future__ import annotations

import random

import pytest

from belote_env.errors import SolverError
from belote_env.rules import GameState
from belote_env.search import MIN_LOG2_TT, Solver, dd_line, dd_value, dd_values
from belote_env.search.reference import play_position
from belote_env.search.verify import setting_variant
from belote_env.variants import load_variant


@pytest.mark.parametrize("bad", [-1, 0, 1, 31, 2.5, True, "20", None])
def test_table_sizes_outside_what_the_solver_can_hold_are_refused(bad):
    with pytest.raises(SolverError, match="log2_tt must be an int from 2"):
        Solver(log2_tt=bad)


@pytest.mark.parametrize("bad", [-90, 1.5, False, "90"])
def test_a_bad_capot_bonus_is_refused(bad):
    with pytest.raises(SolverError, match="capot_bonus must be a non-negative int"):
        Solver(capot_bonus=bad)


def test_the_smallest_table_gives_the_exact_values_over_many_positions():
    small, default = Solver(log2_tt=MIN_LOG2_TT), Solver()
    rng = random.Random(11)
    v = setting_variant({})
    for _ in range(400):
        st = play_position(v, 1, rng, tricks_left=rng.choice((3, 4, 5)), cards_in_trick=rng.randrange(4))
        assert small.values(st) == default.values(st)
        assert small.value(st) == default.value(st)


def test_the_entry_points_name_what_they_take():
    game = GameState(load_variant("coinche"), seed=1)
    for call in (dd_values, dd_value, dd_line):
        with pytest.raises(TypeError, match=r"takes a DealState in its play phase \(for a GameState, pass its deal"):
            call(game)
        with pytest.raises(TypeError, match="got NoneType"):
            call(None)
        with pytest.raises(ValueError, match="needs a deal in its play phase, got phase 'bidding'"):
            call(game.deal)
