"""The one play loop (agents.loop): batched decisions, information states, illegal actions,
endless redeals, and agreement with the rules core."""

import re

import numpy as np
import pytest

from agents import make_agent
from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.loop import AgentActionError, Runner, play_episodes, play_game
from belote_env.observation import OBS_SIZE, action_mask, encode
from belote_env.rules.actions import PASS
from belote_env.rules.cards import cards_of
from belote_env.rules.game import GameState
from belote_env.variants import load_variant
from belote_env.vector import VectorEnv


class FirstLegalBatched(Agent):
    """Needs the observation and the information state; checks them against each other."""

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
    nn, rnd = FirstLegalBatched(), RandomAgent(0)
    venv = VectorEnv("coinche", num_tables=8, seed=0)
    ep = play_episodes(venv, [nn, rnd], [[0, 1, 0, 1]] * 8)
    assert max(nn.batch_sizes) == 8
    assert (ep.deals >= 1).all() and not ep.truncated.any()
    assert (ep.decisions >= 4).all()


class Recorder(Agent):
    """Plays like the agent it wraps and records each decision's position (rules-core notation)."""

    needs_observation = False

    def __init__(self, inner):
        self.inner = inner
        self.log = []

    def act(self, observation, action_mask, info):
        a = self.inner.act(observation, action_mask, info)
        self.log.append(a)
        return a


@pytest.mark.parametrize("name", ["coinche", "belote_classique", "cobrecaf_81"])
@pytest.mark.parametrize("episode", ["deal", "game"])
def test_episodes_agree_with_the_rules_core(name, episode):
    """The loop's scores, winner and contract counts are those of the same actions replayed on GameState."""
    variant = load_variant(name, episode=episode)
    agents = [Recorder(make_agent("heuristic")), Recorder(RandomAgent(5))]
    for seed, seating in ((11, [0, 1, 0, 1]), (11, [1, 0, 1, 0]), (12, [0, 0, 1, 1])):
        agents[0].log.clear(), agents[1].log.clear()
        ep = play_episodes(VectorEnv(variant, num_tables=1, table_seeds=[seed], episode=episode), agents, [seating])
        game = GameState(variant, seed=seed)
        logs = [list(agents[0].log), list(agents[1].log)]
        played = 0
        while not game.over:
            game.apply(logs[seating[game.current_seat]].pop(0))
            played += 1
        assert logs == [[], []]
        assert ep.scores[0].tolist() == list(game.scores) and ep.winner[0] == game.winner
        contracts = [r for r in game.results if r.contract is not None]
        assert ep.taken[0].tolist() == [sum(r.contract.team == k for r in contracts) for k in (0, 1)]
        assert ep.made[0].tolist() == [sum(r.contract.team == k and r.outcome == "made" for r in contracts) for k in (0, 1)]
        assert ep.deals[0] == len(game.results) and ep.decisions[0] == played


def test_runner_leaves_the_callers_seats_alone():
    venv = VectorEnv("coinche", num_tables=6, seed=3)
    obs, mask, seat = venv.reset()
    runner = Runner(venv, [RandomAgent(1)], [[0, -1, 0, -1]] * 6)
    out = np.full(6, -7, dtype=np.int64)
    runner.actions(obs, mask, seat, out)
    mine = runner.acting(seat) == -1
    assert (out[mine] == -7).all() and (out[~mine] >= 0).all()
    assert mask[np.flatnonzero(~mine), out[~mine]].all()
    for i in range(6):  # the observation the loop hands out is the AEC env's
        g = venv.state(i)
        assert np.array_equal(obs[i], encode(g, int(seat[i])))
        assert np.array_equal(mask[i], action_mask(g, int(seat[i])).astype(bool))


class Illegal(Agent):
    needs_observation = False

    def act(self, observation, action_mask, info):
        return 111  # en_face: never legal in coinche


def test_illegal_action_names_agent_and_legal_set():
    with pytest.raises(AgentActionError, match="seat 1 of table 0 returned 111.*legal actions: pass"):
        play_game(load_variant("coinche"), [RandomAgent(0), Illegal(), RandomAgent(1), Illegal()])


class OutOfRange(Agent):
    needs_observation = False

    def __init__(self, bad_row: int, action: int):
        self.bad_row, self.action = bad_row, action

    def act_batch(self, observations, action_masks, infos):
        acts = [int(np.flatnonzero(m)[0]) for m in action_masks]
        acts[self.bad_row] = self.action
        return acts


@pytest.mark.parametrize("action", [-1, 112, 10**6])
def test_an_answer_outside_the_actions_names_its_table(action):
    from belote_env.vector import VectorEnv

    venv = VectorEnv("coinche", num_tables=5, seed=3)
    obs, mask, seat = venv.reset()
    runner = Runner(venv, [OutOfRange(3, action)], np.zeros((5, 4), dtype=np.int64))
    with pytest.raises(AgentActionError, match=f"of table 3 returned {action}, which is not legal there"):
        runner.actions(obs, mask, seat)
    runner = Runner(venv, [OutOfRange(0, int(np.flatnonzero(mask[0])[0]))], np.zeros((5, 4), dtype=np.int64))
    assert (runner.actions(obs, mask, seat) == [int(np.flatnonzero(m)[0]) for m in mask]).all()


class Garbage(Agent):
    """Answers ``answer`` at every decision (``batch``: as the whole batch's answer)."""

    needs_observation = False

    def __init__(self, answer, batch=False):
        self.answer, self.batch = answer, batch

    def act_batch(self, observations, action_masks, infos):
        return self.answer if self.batch else [self.answer] * len(infos)


@pytest.mark.parametrize("answer, shown", [
    ("x", "str 'x'"), (3.7, "float 3.7"), (32.0, "float 32.0"), (True, "bool True"), (float("nan"), "float nan"),
    (np.float32(32), "float32"), (np.bool_(True), "bool"), (np.array([32, 33]), "ndarray array"), (None, "NoneType"),
])
def test_answers_that_are_not_action_ids_are_refused(answer, shown):
    """One rule for every agent's answer (action_id's): a float, bool, NaN, string or array is not an action,
    even where int() would make one of it (3.7 would play card 3, True card 1)."""
    with pytest.raises(AgentActionError, match=rf"at seat 1 of table 0 returned {re.escape(shown)}.*not an action "
                                               r"id.*legal actions: pass, 80 S"):
        play_game(load_variant("coinche"), [Garbage(answer)] * 4)


@pytest.mark.parametrize("answer", [32, np.int64(32), np.uint8(32), np.array(32)])
def test_integers_of_any_library_are_actions(answer):
    ep = play_game(load_variant("belote_classique"), [Garbage(answer)] * 4, max_redeals=2)  # pass, pass...
    assert ep.truncated[0] and ep.deals[0] == 2


@pytest.mark.parametrize("answer", [32, "32", np.zeros((1, 1), dtype=np.int64), {1: 2}])
def test_a_batch_answer_that_is_not_a_sequence_is_refused(answer):
    with pytest.raises(AgentActionError, match="not one action id per decision"):
        play_game(load_variant("coinche"), [Garbage(answer, batch=True)] * 4)


def test_a_uint64_answer_beyond_int64_is_shown_as_given():
    big = np.array([2**63 + 5], dtype=np.uint64)
    with pytest.raises(AgentActionError, match=f"returned {2**63 + 5}, which is not legal there"):
        play_game(load_variant("coinche"), [Garbage(big, batch=True)] * 4)


class AlwaysPass(Agent):
    needs_observation = False

    def act(self, observation, action_mask, info):
        return PASS


def test_endless_redeals_are_truncated():
    ep = play_game(load_variant("belote_classique"), [AlwaysPass()] * 4, max_redeals=5)
    assert ep.truncated[0] and ep.winner[0] == -1
    assert ep.deals[0] == 5 and ep.scores[0].tolist() == [0, 0] and ep.taken[0].tolist() == [0, 0]


def test_any_answer_is_played_exactly_when_it_is_a_legal_action_id():
    """Property (hypothesis): whatever an agent answers, the tables play it exactly when the rules core's
    action_id reads a legal id from it, and refuse it with AgentActionError otherwise, before anything is
    applied."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from belote_env.rules.actions import action_id

    venv = VectorEnv("coinche", num_tables=2, seed=6)
    obs, mask, seat = venv.reset()
    answers = st.one_of(st.integers(-5, 120), st.integers(-2**70, 2**70), st.floats(allow_nan=True), st.booleans(),
                        st.none(), st.text(max_size=3), st.integers(0, 111).map(np.int16),
                        st.integers(0, 111).map(float), st.integers(30, 50).map(lambda i: np.array(i)))

    @settings(max_examples=300, deadline=None)
    @given(st.lists(answers, min_size=2, max_size=2))
    def check(answer):
        agent = Garbage(answer, batch=True)
        ids = [action_id(a) for a in answer]
        legal = all(i is not None and 0 <= i < 112 and mask[t, i] for t, i in enumerate(ids))
        try:
            got = Runner(venv, [agent], np.zeros((2, 4), dtype=np.int64)).actions(obs, mask, seat)
        except AgentActionError:
            assert not legal
        else:
            assert legal and got.tolist() == ids

    check()
