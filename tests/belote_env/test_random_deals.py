"""Random masked agents play 4,000 deals per variant through the raw env without error (the batched engine's lockstep
tests and benchmarks/dev/soak_vector.py play many more against the rules core)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import belote_env
from belote_env.rules.scoring import REDEAL

from .helpers import VARIANTS

DEALS = 4_000


@pytest.mark.parametrize("name", VARIANTS)
def test_random_masked_agents_finish_their_deals(name):
    """Drives raw_env.step directly (no wrappers) with a uniformly random action from the mask."""
    e = belote_env.raw_env(name)
    rng = random.Random(name)
    choice = rng.choice
    outcomes = {}
    for d in range(DEALS):
        e.reset(seed=d)
        while True:
            agent = e.agent_selection
            if e.terminations[agent]:
                break
            mask = e.observe(agent)["action_mask"]
            e.step(choice(mask.nonzero()[0].tolist()))
        result = e.game.results[-1]
        assert result.outcome != REDEAL
        assert e.rewards["player_0"] == -e.rewards["player_1"] == e.rewards["player_2"]
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
    assert sum(outcomes.values()) == DEALS
    assert outcomes.get("made", 0) and outcomes.get("failed", 0)  # random play both makes and fails contracts
    assert not np.isnan(e.observe("player_0")["observation"]).any()
