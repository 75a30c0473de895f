"""VectorEnv(calls="factored"): a table whose factored call (or card) is complete takes the flat action it names,
exactly as a flat VectorEnv stepping that table alone: observations, masks, seats, rewards, done, info, final
observations and the replayed states, bit for bit, every variant; a table still deciding waits."""

from __future__ import annotations

import numpy as np
import pytest

from belote_env import factored as F
from belote_env.errors import VectorEnvError, VectorIllegalActionError
from belote_env.observation import OBS_SIZE
from belote_env.variants import variant_names
from belote_env.vector import VectorEnv


def _run(name: str, steps: int, n: int = 16, seed: int = 5, final: bool = False, mixed: bool = False, **kw) -> int:
    """Random factored choices on a factored VectorEnv, and the flat actions they complete on a flat one with the
    same seed; every output compared after every step. ``mixed``: about half the tables at their first decision
    take a random flat action instead (``flat=``). Returns the flat actions compared."""
    fac = VectorEnv(name, n, seed=seed, calls="factored", **kw)
    flat = VectorEnv(name, n, seed=seed, **kw)
    obs, mask, seat = fac.reset()
    fobs, fmask, fseat = flat.reset()
    stage, strain = np.full(n, F.WHAT), np.full(n, -1)
    rng = np.random.default_rng(seed)
    every, compared = np.arange(n), 0
    for step in range(steps):
        assert np.array_equal(obs[:, :OBS_SIZE], fobs) and np.array_equal(seat, fseat), step
        assert np.array_equal(obs[:, OBS_SIZE:], F.stage_cells(stage, strain)), step
        assert np.array_equal(mask, F.factored_mask(fmask, stage, strain)), step
        assert np.array_equal(fac.flat_masks(), fmask)
        choice = (rng.random(mask.shape) * mask).argmax(axis=1)
        flat_rows = (stage == F.WHAT) & (rng.random(n) < 0.5) if mixed else np.zeros(n, dtype=bool)
        stage, strain, action = F.advance(fmask, stage, strain, choice)
        direct = (rng.random(fmask.shape) * fmask).argmax(axis=1)
        choice[flat_rows], action[flat_rows], stage[flat_rows], strain[flat_rows] = direct[flat_rows], \
            direct[flat_rows], F.WHAT, -1
        seats = rng.integers(-1, 4, size=n) if final else None
        flat_arg = flat_rows if mixed else None
        obs, mask, seat, rew, done, info, final_obs = fac.step_tables(every, choice, seats, flat=flat_arg) if final \
            else (*fac.step(choice, flat=flat_arg), None)
        assert np.array_equal(fac.decisions()[0], stage) and np.array_equal(fac.decisions()[1], strain)
        t = np.flatnonzero(action >= 0)
        got = flat.step_tables(t, action[t], None if seats is None else seats[t])
        fobs[t], fmask[t], fseat[t] = got[0], got[1], got[2]
        wait = np.flatnonzero(action < 0)
        assert np.array_equal(rew[t], got[3]) and not rew[wait].any()
        assert np.array_equal(done[t], got[4]) and not done[wait].any()
        for key, value in info.items():
            assert np.array_equal(value[t], got[5][key]), key
            assert (value[wait] == (False if key == "truncated" else -1)).all(), key
        if final:
            assert np.array_equal(final_obs[t, :OBS_SIZE], got[6]) and not final_obs[wait].any()
            ended = t[got[4] & (seats[t] >= 0)]
            first = F.stage_cells(np.zeros(len(ended), int), np.full(len(ended), -1))
            assert np.array_equal(final_obs[ended, OBS_SIZE:], first)
        compared += len(t)
    for i in range(n):
        assert fac.state(i).deal.format() == flat.state(i).deal.format()
    return compared


@pytest.mark.parametrize("name", variant_names())
def test_factored_steps_are_the_flat_steps_bit_for_bit(name):
    assert _run(name, 160) > 1500


def test_game_episodes_win_rewards_and_final_observations():
    assert _run("coinche", 200, episode="game", reward="win", final=True) > 2000
    assert _run("cobrecaf_81", 120, n=8, final=True, max_redeals=2) > 500


@pytest.mark.parametrize("name", ["coinche", "belote_classique", "cobrecaf_81"])
def test_flat_actions_of_flat_agents_at_some_tables(name):
    """An opponent of the flat space (the heuristic, a checkpoint) acts in one step at a factored table."""
    assert _run(name, 160, mixed=True) > 1500
    assert _run(name, 80, mixed=True, final=True, episode="game") > 700


def test_a_flat_action_is_refused_mid_call_or_illegal():
    fac = VectorEnv("coinche", 2, seed=0, calls="factored")
    fac.reset()
    fac.step([F.CALL, F.CALL])
    with pytest.raises(VectorEnvError, match="a flat action at table 1, whose seat is deciding a factored call"):
        fac.step([F.STRAIN, 41], flat=np.array([False, True]))
    other = VectorEnv("coinche", 2, seed=0, calls="factored")
    other.reset()
    with pytest.raises(VectorIllegalActionError, match=r"illegal action 'AS' \(id 7\) at table 0"):
        other.step([7, 32], flat=np.array([True, False]))
    with pytest.raises(VectorEnvError, match="flat must be 2 bools"):
        other.step([32, 32], flat=[1, 0])
    plain = VectorEnv("coinche", 2)
    plain.reset()
    with pytest.raises(VectorEnvError, match="flat= is for calls=.factored."):
        plain.step([32, 32], flat=np.zeros(2, bool))


def test_observations_of_any_seat_carry_the_decision_of_the_seat_to_act():
    fac = VectorEnv("coinche", 4, seed=1, calls="factored")
    flat = VectorEnv("coinche", 4, seed=1)
    obs, mask, seat = fac.reset()
    flat.reset()
    obs, mask, seat, *_ = fac.step(np.full(4, F.CALL))  # every first speaker begins a call: now its strain
    tables, seats = np.repeat(np.arange(4), 4), np.tile(np.arange(4), 4)
    got = fac.observations(tables, seats)
    assert np.array_equal(got[:, :OBS_SIZE], flat.observations(tables, seats))
    acting = seats == seat[tables]
    assert (got[acting, OBS_SIZE + F.CHOOSE_STRAIN] == 1).all() and (got[~acting, OBS_SIZE + F.WHAT] == 1).all()
    assert np.array_equal(got[acting], obs[tables[acting]])


def test_spaces_and_bad_input():
    fac = VectorEnv("coinche", 3, seed=0, calls="factored")
    assert fac.single_observation_space.shape == (F.FACTORED_OBS_SIZE,)
    assert fac.single_action_space.n == F.NUM_FACTORED_ACTIONS == 56
    obs, mask, seat = fac.reset()
    assert obs.shape == (3, 862) and mask.shape == (3, 56)
    with pytest.raises(VectorIllegalActionError, match=r"illegal factored choice 'strain H' \(id 38\) at table 1 "
                                                       r"by seat 1 in phase bidding, deciding the what; legal: pass, "
                                                       r"call"):
        fac.step([F.CALL, F.STRAIN + 1, F.CALL])
    assert (fac.decisions()[0] == F.WHAT).all()  # nothing applied
    with pytest.raises(VectorIllegalActionError, match=r"-1 \(out of range 0..55\) at table 0"):
        fac.step([-1, 32, 32])
    with pytest.raises(VectorEnvError, match=r"actions\[2\] is str 'x', not a factored choice"):
        fac.step([32, 32, "x"])
    with pytest.raises(VectorEnvError, match=r"shape \(3,\)"):
        fac.step([32, 32])
    with pytest.raises(VectorEnvError, match=r"unknown calls 'nested'; accepted: flat, factored"):
        VectorEnv("coinche", 3, calls="nested")
    with pytest.raises(VectorEnvError, match="decisions.. is for calls=.factored."):
        VectorEnv("coinche", 3).decisions()
