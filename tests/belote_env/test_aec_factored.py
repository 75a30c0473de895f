"""The AEC env with ``calls="factored"``: the flat env's game, observations and rewards bit for bit, a call made as
small decisions; the same observations and masks as ``VectorEnv(calls="factored")`` at every step."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from belote_env import env, factored as F, raw_env
from belote_env.errors import EnvArgumentError
from belote_env.observation import OBS_SIZE
from belote_env.rules.errors import IllegalActionError
from belote_env.variants import variant_names
from belote_env.vector import VectorEnv


@pytest.mark.parametrize("name", variant_names())
def test_factored_aec_plays_the_flat_game_and_the_vector_env_table(name):
    seed, rng = 11, np.random.default_rng(4)
    fac, flat = env(name, calls="factored", episode="game"), env(name, episode="game")
    venv = VectorEnv(name, 1, table_seeds=[seed], calls="factored", episode="game")
    vobs, vmask, vseat = venv.reset()
    steps, episodes = 0, 0
    while steps < 200:  # episodes one after the other: the vector table deals the next one at once, as reset()
        fac.reset(seed=seed if episodes == 0 else None)
        flat.reset(seed=seed if episodes == 0 else None)
        stage, strain = F.WHAT, -1
        for agent in fac.agent_iter(2000):
            obs, reward, term, trunc, _ = fac.last()
            assert agent == flat.agent_selection
            # a reward is seen once, at the first decision of the next action (the agent's own steps reset it)
            assert reward == (flat._cumulative_rewards[agent] if stage == F.WHAT else 0.0)
            assert (term, trunc) == (flat.terminations[agent], flat.truncations[agent])
            if term or trunc:
                fac.step(None)
                flat.step(None)
                continue
            want = flat.observe(agent)
            assert np.array_equal(obs["observation"][:OBS_SIZE], want["observation"])
            cells = obs["observation"][OBS_SIZE:]
            assert cells[stage] == 1 and cells.sum() == 1 + (strain >= 0) and (strain < 0 or cells[3 + strain] == 1)
            assert np.array_equal(obs["action_mask"], F.factored_mask(want["action_mask"], [stage], [strain])[0])
            assert np.array_equal(obs["observation"], vobs[0]) and np.array_equal(obs["action_mask"], vmask[0])
            assert fac.unwrapped.legal_actions() == np.flatnonzero(vmask[0]).tolist()
            for other in fac.agents:  # the others see the first decision and no choice
                if other != agent:
                    seen = fac.observe(other)
                    assert seen["observation"][OBS_SIZE + F.WHAT] == 1 and not seen["action_mask"].any()
            choice = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            stage, strain, action = (int(x[0]) for x in F.advance(want["action_mask"], [stage], [strain], [choice]))
            fac.step(choice)
            vobs, vmask, vseat, *_ = venv.step([choice])
            if action >= 0:
                flat.step(action)
            else:
                assert fac.agent_selection == agent and all(r == 0 for r in fac.rewards.values())
            steps += 1
        assert not fac.agents and not flat.agents
        assert fac.unwrapped.game.results == flat.unwrapped.game.results
        episodes += 1


def test_illegal_choices():
    e = raw_env("coinche", calls="factored")
    e.reset(seed=0)
    assert e.action_space("player_1").n == 56 and e.observation_space("player_1")["observation"].shape == (862,)
    with pytest.raises(IllegalActionError, match=r"illegal factored choice 'strain H' \(id 38\) by seat 1 in phase "
                                                 r"bidding; legal: pass, call"):
        e.step(F.STRAIN + 1)
    with pytest.raises(IllegalActionError, match=r"illegal factored choice 56 by seat 1"):
        e.step(56)
    e.step(F.CALL)
    assert e.agent_selection == "player_1" and e.legal_actions() == list(range(F.STRAIN, F.LEVEL))
    wrapped = env("coinche", calls="factored")
    wrapped.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrapped.step(F.LEVEL)
    assert "illegal factored choice 'level 80' (id 43) by player_1 in phase bidding; legal: pass (32), call (35)" in \
        str(caught[0].message)
    assert wrapped.rewards["player_1"] == -1 and all(wrapped.terminations.values())
    with pytest.raises(EnvArgumentError, match="unknown calls 'tree'; accepted: flat, factored"):
        raw_env("coinche", calls="tree")


def test_pettingzoo_api_and_seed_tests():
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env("coinche", calls="factored"), num_cycles=300)
        api_test(env("cobrecaf_81", calls="factored", episode="game"), num_cycles=300)
    problems = {str(w.message) for w in caught} - {
        "Observation is not a NumPy array",
        "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete"}
    assert not problems
    seed_test(lambda: env("coinche", calls="factored"), num_cycles=300)
