"""Lockstep check of :class:`~belote_env.vector.VectorEnv` against the rules core.

:func:`lockstep` plays random legal actions on a ``VectorEnv`` and, for every
table, on a rules-core ``GameState`` dealt from the same seed, and compares
after every step: the seat to act, the observation (``observation.encode``),
the mask (``observation.action_mask``), each seat's reward (as the AEC env
computes it), ``done`` and the finished episode's result. The first
difference raises :class:`Mismatch` with the table's position in the rules
core's notation, so it can be replayed. Used by ``tests/belote_env/fast/`` and
``benchmarks/dev/soak_vector.py``.
"""

from __future__ import annotations

import random

import numpy as np

from .fast import OUTCOMES
from .observation import CONTRACT_KINDS, action_mask, encode
from .rewards import scored_deal_reward
from .rules.game import GameState
from .rules.scoring import REDEAL


class Mismatch(AssertionError):
    """The kernels and the rules core disagree."""


def lockstep(variant, steps: int, num_tables: int = 16, seed: int = 0, reward: str = "score_diff",
             episode: str = "deal", action_seed: int = 0, progress=None, info_states: bool = False,
             max_redeals: int | None = 100, policy=None, **overrides) -> dict:
    """Step ``steps`` times (each step moves every table) and compare; returns counts.
    ``info_states``: also compare ``VectorEnv.info_state(i, seat)`` for the four seats. ``policy``:
    ``policy(mask, rng) -> actions`` instead of uniformly random legal actions. After ``max_redeals``
    all-pass deals in a row the episode is cut, as the AEC env does."""
    from .vector import VectorEnv

    venv = VectorEnv(variant, num_tables=num_tables, seed=seed, reward=reward, episode=episode,
                     max_redeals=max_redeals, **overrides)
    redeals = [0] * num_tables
    v = venv.variant
    rngs = [random.Random(venv.table_seed(i)) for i in range(num_tables)]
    games = [GameState(v, rng=rngs[i]) for i in range(num_tables)]
    obs, mask, seat = venv.reset()
    pick = np.random.default_rng(action_seed)
    episodes = 0
    compared = 0
    for step in range(steps):
        for i, g in enumerate(games):
            _compare_obs(g, i, step, obs, mask, seat)
            if info_states:
                for s in range(4):
                    if venv.info_state(i, s) != g.info_state(s):
                        raise Mismatch(f"step {step} table {i}: info_state({s}) differs: {venv.info_state(i, s)} "
                                       f"!= {g.info_state(s)}; position {g.deal.format()}")
        compared += num_tables
        # A uniformly random legal action per table, drawn with numpy.
        if policy is None:
            actions = (pick.random(mask.shape) * mask).argmax(axis=1)
        else:
            actions = policy(mask, pick)
        obs, mask, seat, rewards, done, info = venv.step(actions)
        for i, g in enumerate(games):
            before = g.deal.format()
            res = g.apply(int(actions[i]))
            want = np.zeros(4, dtype=np.float32)
            if res is not None and res.outcome != REDEAL:
                r = scored_deal_reward(reward, v, res, g.over, g.winner)  # what the AEC env gives
                if r is not None:
                    want[:] = [r[s & 1] for s in range(4)]
            if not np.array_equal(rewards[i], want):
                raise Mismatch(f"step {step} table {i}: rewards {rewards[i]} != {want}; position {before}")
            if res is not None:
                redeals[i] = redeals[i] + 1 if res.outcome == REDEAL else 0
                _compare_deal_info(res, info, i, step)
            elif info["outcome"][i] != -1:
                raise Mismatch(f"step {step} table {i}: deal results written though no deal ended")
            cut = max_redeals is not None and redeals[i] >= max_redeals and not g.over
            if bool(done[i]) != (g.over or cut) or bool(info["truncated"][i]) != cut:
                raise Mismatch(f"step {step} table {i}: done {done[i]} / truncated {info['truncated'][i]} != "
                               f"{g.over} / {cut}; position {before}")
            if cut:
                if info["scores"][i].tolist() != list(g.scores) or info["deals"][i] != len(g.results):
                    raise Mismatch(f"step {step} table {i}: truncated episode info differs")
                episodes += 1
                redeals[i] = 0
                games[i] = GameState(v, rng=rngs[i])
            elif g.over:
                _compare_info(g, info, i, step)
                episodes += 1
                redeals[i] = 0
                games[i] = GameState(v, rng=rngs[i])
            elif info["winner"][i] != -1:
                raise Mismatch(f"step {step} table {i}: info written for a table that is not done")
        if progress is not None:
            progress(1)
    for i, g in enumerate(games):
        _compare_obs(g, i, steps, obs, mask, seat)
        if venv.state(i).deal.format() != g.deal.format():
            raise Mismatch(f"table {i}: state() replays to a different position")
    return {"steps": steps * num_tables, "compared": compared + num_tables, "episodes": episodes}


def _compare_obs(g, i, step, obs, mask, seat):
    s = g.deal.seat
    if seat[i] != s:
        raise Mismatch(f"step {step} table {i}: seat {seat[i]} != {s}; position {g.deal.format()}")
    want = encode(g, s)
    if not np.array_equal(obs[i], want):
        bad = np.flatnonzero(obs[i] != want)
        raise Mismatch(
            f"step {step} table {i}: observation differs at {bad.tolist()[:10]} "
            f"(kernels {obs[i][bad][:10].tolist()}, rules {want[bad][:10].tolist()}); position {g.deal.format()}"
        )
    want_mask = action_mask(g, s).astype(bool)
    if not np.array_equal(mask[i], want_mask):
        raise Mismatch(
            f"step {step} table {i}: mask {np.flatnonzero(mask[i]).tolist()} != "
            f"{np.flatnonzero(want_mask).tolist()}; position {g.deal.format()}"
        )


def _compare_deal_info(res, info, i, step):
    """The deal fields of ``info``, written at every deal's end (an all-pass one has no contract: -1)."""
    c = res.contract
    want = {
        "deal_scores": list(res.scores), "outcome": OUTCOMES.index(res.outcome),
        "taker": c.taker if c else -1, "strain": c.strain if c else -1, "value": c.value if c else -1,
        "kind": CONTRACT_KINDS.index(c.kind) if c else -1, "level": c.level if c else -1,
        "caller": c.caller if c else -1, "card_points": list(res.card_points),
    }
    _compare_fields(want, info, i, step)


def _compare_info(g, info, i, step):
    """The episode fields of ``info``, written when the episode ends."""
    _compare_fields({"scores": list(g.scores), "winner": g.winner, "deals": len(g.results)}, info, i, step)


def _compare_fields(want, info, i, step):
    for key, w in want.items():
        got = info[key][i]
        got = got.tolist() if hasattr(got, "tolist") else got
        if got != w:
            raise Mismatch(f"step {step} table {i}: info[{key!r}] {got} != {w}")
