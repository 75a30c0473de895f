"""The env's edges: actions of every type under env() and raw_env, illegal
actions without last(), and rewards kept when raw_env rejects a step."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import belote_env
from belote_env.rules import IllegalActionError

ACTIONS = st.one_of(
    st.integers(-5, 120), st.booleans(), st.booleans().map(np.bool_), st.integers(0, 111).map(np.int64),
    st.integers(0, 111).map(np.array), st.floats(), st.text(max_size=4), st.none(),
)


def _advance(e, rng, steps):
    for _ in range(steps):
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            return
        mask = e.observe(agent)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["coinche", "belote_classique", "cobrecaf_81", "contree"]), seed=st.integers(0, 10**6),
       steps=st.integers(0, 40), action=ACTIONS, look=st.booleans())
def test_env_actions_of_every_type(name, seed, steps, action, look):
    e = belote_env.env(name)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    _advance(e, rng, steps)
    agent = e.agent_selection
    if e.terminations[agent]:
        return
    mask = e.last()[0]["action_mask"] if look else e.unwrapped.observe(agent)["action_mask"]
    legal = np.flatnonzero(mask).tolist()
    is_id = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)) or (
        isinstance(action, np.ndarray) and action.ndim == 0)
    if action is None:
        with pytest.raises(Exception):  # PettingZoo: None only for agents that are done
            e.step(action)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            e.step(action)
        except AssertionError:  # AssertOutOfBoundsWrapper, as PettingZoo specifies: not in Discrete(112)
            assert not e.action_space(agent).contains(action)
            return
    if is_id and int(action) in legal:
        assert not e.terminations[agent] or e.unwrapped.game.over
        return
    assert all(e.terminations.values()) and e.rewards[agent] == -1.0
    messages = [str(w.message) for w in caught]
    assert any("illegal action" in m and agent in m and "legal:" in m for m in messages), messages


def test_illegal_action_without_last_names_the_action_and_legal_set():
    e = belote_env.env("coinche")
    e.reset(seed=0)
    with pytest.warns(UserWarning, match=r"illegal action 'AS' \(id 7\) by player_1 .*legal: pass \(32\)"):
        e.step(7)
    assert e.rewards["player_1"] == -1.0


def test_raw_env_keeps_pending_reward_when_a_step_is_rejected():
    e = belote_env.raw_env("belote_classique", episode="game")
    e.reset(seed=1)
    rng = random.Random(0)
    while True:  # play until a deal ends and the next agent has a reward to collect
        agent = e.agent_selection
        e.step(rng.choice(e.legal_actions()))
        if e.game.results and e.game.results[-1].outcome != "redeal" and not e.game.over:
            break
    agent = e.agent_selection
    pending = e._cumulative_rewards[agent]
    assert pending != 0
    with pytest.raises(IllegalActionError):
        e.step(111)
    assert e._cumulative_rewards[agent] == pending
    assert e.last()[1] == pending
    with pytest.raises(IllegalActionError):
        e.step(True)


@pytest.mark.parametrize("name,passes", [("coinche", 4), ("belote_classique", 8), ("cobrecaf_81", 8)])
def test_always_pass_policy_is_truncated_after_max_redeals(name, passes):
    e = belote_env.env(name, max_redeals=5)
    e.reset(seed=0)
    steps = 0
    for agent in e.agent_iter(10_000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term and reward == 0
            assert info["truncated_after_redeals"] == 5
            e.step(None)
        else:
            e.step(32)  # pass
        steps += 1
    assert steps == 5 * passes + 4  # the passes, then one dead step per agent
    assert e.unwrapped.max_redeals == 5


def test_max_redeals_default_and_bad_values():
    from belote_env.aec import DEFAULT_MAX_REDEALS
    from belote_env.errors import EnvArgumentError

    assert belote_env.raw_env("coinche").max_redeals == DEFAULT_MAX_REDEALS == 100
    assert belote_env.raw_env("coinche", max_redeals=None).max_redeals is None
    for bad in (0, -1, 1.5, True, "3"):
        with pytest.raises(EnvArgumentError, match="max_redeals"):
            belote_env.raw_env("coinche", max_redeals=bad)
