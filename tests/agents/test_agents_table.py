"""The table runner: batched decisions, illegal actions, endless redeals."""

import numpy as np
import pytest

from agents.base import Agent
from agents.table import AgentActionError, Table, play_game, play_tables
from agents.random_agent import RandomAgent
from belote_env.observation import OBS_SIZE
from belote_env.rules.cards import cards_of
from belote_env.rules.actions import PASS
from belote_env.rules.game import GameState
from belote_env.variants import load_variant


class FirstLegalBatched(Agent):
    """Needs the observation; checks what it is given against the env's encoder."""

    name = "first-legal"

    def __init__(self):
        self.batch_sizes = []

    def act_batch(self, observations, action_masks, infos):
        self.batch_sizes.append(len(infos))
        assert observations.shape == (len(infos), OBS_SIZE)
        for o, m, info in zip(observations, action_masks, infos):
            assert info.to_act
            assert np.flatnonzero(m).tolist() == info.legal_actions()
            assert np.flatnonzero(o[:32]).tolist() == cards_of(info.hand)  # the 'hand' segment
        return [int(np.flatnonzero(m)[0]) for m in action_masks]


def test_observation_agents_are_batched_across_tables():
    variant = load_variant("coinche")
    nn, rnd = FirstLegalBatched(), RandomAgent(0)
    tables = [Table(GameState(variant, seed=s), (nn, rnd, nn, rnd)) for s in range(8)]
    play_tables(tables)
    assert all(t.game.over for t in tables)
    assert max(nn.batch_sizes) == 8


class Illegal(Agent):
    needs_observation = False

    def act(self, observation, action_mask, info):
        return 111  # en_face: never legal in coinche


def test_illegal_action_names_agent_and_legal_set():
    with pytest.raises(AgentActionError, match="seat 1 returned 111.*legal actions: pass"):
        play_game(GameState(load_variant("coinche"), seed=0), [RandomAgent(0), Illegal(), RandomAgent(1), Illegal()])


class AlwaysPass(Agent):
    needs_observation = False

    def act(self, observation, action_mask, info):
        return PASS


def test_endless_redeals_are_abandoned():
    t = play_game(GameState(load_variant("belote_classique"), seed=0), [AlwaysPass()] * 4, max_redeals=5)
    assert t.abandoned and not t.game.over
    assert len(t.game.results) == 5 and t.game.scores == [0, 0]
