"""``env()``'s one wrapper layer behaves as PettingZoo's three standard wrappers stacked on ``raw_env``."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import belote_env
from belote_env.aec import ILLEGAL_REWARD


def _pettingzoo_stack(**kwargs):
    raw = belote_env.raw_env("coinche", **kwargs)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_REWARD)))


def _state(e):
    raw = e.unwrapped
    return (list(raw.agents), raw.agent_selection, dict(raw.rewards), dict(raw._cumulative_rewards),
            dict(raw.terminations), dict(raw.truncations), list(raw.game.scores), len(raw.game.results),
            raw.game.deal.phase, raw.game.legal_actions() if raw.agents else None)


def _play(e, script_seed: int, steps: int = 400):
    """Steps chosen by a seeded script (legal, illegal, out of bounds, None, numpy ints, steps after the end),
    the same for both envs; returns what each step left: the state, the exception's type and whether the step
    was illegal (ours warns with the action and the legal set where PettingZoo logs a generic line)."""
    rng = random.Random(script_seed)
    out = []
    e.reset(seed=script_seed)
    for _ in range(steps):
        obs = e.last()[0] if rng.random() < 0.9 and e.unwrapped.agents else None
        mask = e.unwrapped.observe(e.unwrapped.agent_selection)["action_mask"] if e.unwrapped.agents else None
        r = rng.random()
        if mask is not None and not mask.any():  # a dead agent's turn: None, as PettingZoo asks, or not
            action = None if r < 0.8 else 0
        elif mask is None or r < 0.03:
            action = None
        elif r < 0.06:
            action = rng.choice([112, -1, 500])
        elif r < 0.10:
            action = int(rng.choice(np.flatnonzero(mask == 0)))  # illegal, in bounds
        elif r < 0.15:
            action = np.int32(rng.choice(np.flatnonzero(mask)))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                e.step(action)
                error = None
            except Exception as exc:  # noqa: BLE001 - compared by type
                error = type(exc).__name__
        illegal = any("illegal action" in str(w.message) for w in caught)
        out.append((_state(e), error, illegal, obs is None))
        if not e.unwrapped.agents and rng.random() < 0.3:
            e.reset(seed=rng.randrange(1000))
    return out


@pytest.mark.parametrize("script_seed", range(6))
def test_every_step_leaves_what_pettingzoos_three_wrappers_leave(script_seed):
    ours, theirs = _play(belote_env.env("coinche"), script_seed), _play(_pettingzoo_stack(), script_seed)
    assert [step[2] for step in ours].count(True) >= 2  # the script made illegal moves, and ours said so
    illegal_ends = [prev[0][4] != step[0][4] and step[1] is None and -1.0 in step[0][2].values()
                    for prev, step in zip(theirs, theirs[1:])]
    assert [step[2] for step in ours[1:]] == illegal_ends
    assert [step[:2] + step[3:] for step in ours] == [step[:2] + step[3:] for step in theirs]


def test_out_of_order_calls_fail_as_with_pettingzoos_wrappers():
    for e in (belote_env.env("coinche"), _pettingzoo_stack()):
        for call in (lambda: e.agent_selection, lambda: e.rewards, lambda: e.agents, lambda: e.last()):
            with pytest.raises(AttributeError, match="cannot be accessed before reset"):
                call()
        for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.agent_iter()):
            with pytest.raises(Exception, match="reset"):
                call()
        e.reset(seed=0)
        it = iter(e.agent_iter())
        next(it)
        with pytest.raises(AssertionError, match="need to call step"):
            next(it)
