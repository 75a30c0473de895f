"""VectorEnv stepped with random legal actions, compared at every step with the
rules core and the reference encoder: seat, observation, mask, every seat's
reward, done and the finished episodes' results, bit for bit
(belote_env.lockstep.lockstep; benchmarks/dev/soak_vector.py runs it longer)."""

from __future__ import annotations

import pytest

from belote_env.lockstep import lockstep
from belote_env.variants import variant_names

VARIANTS = tuple(variant_names())
TABLES = 16
STEPS_PER_FILE = 50_000  # table-steps per variant file, deal episodes


@pytest.mark.parametrize("name", VARIANTS)
def test_50000_steps_per_variant_file_equal_the_rules_core(name):
    counts = lockstep(name, STEPS_PER_FILE // TABLES, TABLES, seed=1, action_seed=hash(name) & 0xFFFF)
    assert counts["steps"] == STEPS_PER_FILE
    assert counts["episodes"] > STEPS_PER_FILE // 60  # a deal takes about 40 steps


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("reward", ["score_diff", "win"])
def test_game_episodes_equal_the_rules_core(name, reward):
    counts = lockstep(name, 400, TABLES, seed=2, reward=reward, episode="game", action_seed=7)
    assert counts["episodes"] > 0


OVERRIDES = [
    ("coinche", {"declarations": True}),
    ("coinche", {"rules": "officielles", "declarations": True, "generale": True}),
    ("coinche", {"undertrump": True, "overtrump_partner": True, "no_trump": False}),
    ("coinche", {"all_trump": False, "generale": True}),
    ("contree", {"must_beat_defense": True}),
    ("contree", {"rules": "maison", "no_trump": True, "all_trump": True}),
    ("cobrecaf_81", {"threshold_inclusive": True}),
    ("cobrecaf_81", {"rules": "officielles", "overtrump_partner": True}),
    ("belote_classique", {"declarations": False, "no_trump": False, "all_trump": False}),
    ("belote_classique", {"rules": "officielles", "undertrump": False, "target": 501}),
]


@pytest.mark.parametrize("name,overrides", OVERRIDES, ids=[f"{n}-{sorted(o)}" for n, o in OVERRIDES])
@pytest.mark.parametrize("episode", ["deal", "game"])
def test_rule_switches_equal_the_rules_core(name, overrides, episode):
    lockstep(name, 250, TABLES, seed=3, episode=episode, action_seed=5, **overrides)


@pytest.mark.parametrize("name,overrides", [(n, {}) for n in VARIANTS] + [("coinche", {"declarations": True})],
                         ids=[*VARIANTS, "coinche-declarations"])
def test_info_states_built_from_the_kernels_equal_the_rules_core(name, overrides):
    """VectorEnv.info_state(i, seat), for the four seats at every step, equals GameState.info_state(seat)."""
    lockstep(name, 150, 8, seed=6, action_seed=9, info_states=True, **overrides)


def _mostly_pass(mask, rng):
    """Pass whenever passing is legal (nine times in ten), else a random legal action."""
    actions = (rng.random(mask.shape) * mask).argmax(axis=1)
    passing = mask[:, 32] & (rng.random(len(mask)) < 0.9)
    actions[passing] = 32
    return actions


@pytest.mark.parametrize("name", ["coinche", "belote_classique", "cobrecaf_81"])
@pytest.mark.parametrize("episode", ["deal", "game"])
def test_max_redeals_cuts_episodes_as_the_aec_env_does(name, episode):
    counts = lockstep(name, 400, 8, seed=7, episode=episode, max_redeals=2, policy=_mostly_pass)
    assert counts["episodes"] > 10
