"""The PettingZoo AEC environment: API conformance, seeding, rendering, rewards, illegal actions."""

from __future__ import annotations

import functools
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers

import belote_env
from belote_env.errors import EnvArgumentError
from belote_env.observation import action_mask, encode
from belote_env.rewards import deal_reward
from belote_env.rules import GameState, IllegalActionError, VariantError

from .helpers import VARIANTS

AGENTS = ["player_0", "player_1", "player_2", "player_3"]
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


@pytest.mark.parametrize("name", VARIANTS)
def test_pettingzoo_api_seed_and_render_tests(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # api_test reports problems as warnings
        api_test(belote_env.env(name), num_cycles=300)
        api_test(belote_env.env(name, episode="game", target=501), num_cycles=300)
    # The two warnings every classic env with {"observation", "action_mask"} dicts gets (chess too).
    problems = {str(w.message) for w in caught} - DICT_OBSERVATION_WARNINGS
    assert not problems
    seed_test(functools.partial(belote_env.env, name), num_cycles=300)
    render_test(functools.partial(belote_env.env, name))


def test_env_applies_the_standard_wrappers_and_exposes_the_rules_state():
    e = belote_env.env("contree", rules="maison")
    assert isinstance(e, wrappers.OrderEnforcingWrapper)  # the three standard wrappers' work in one layer
    assert type(e.env) is belote_env.raw_env and e.unwrapped is e.env
    assert e.metadata["name"] == "belote_v0"
    e.reset(seed=1)
    assert isinstance(e.unwrapped.game, GameState)
    assert e.unwrapped.variant.name == "contree" and e.unwrapped.variant.rules == "maison"
    assert e.possible_agents == AGENTS
    for a in AGENTS:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
        assert e.action_space(a).n == 112
        assert e.observation_space(a)["observation"].shape == (853,)


def test_variant_by_path_and_bad_arguments(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("deal: full\nbidding: auction\nscoring: coinche\nundertrump: true\n")
    e = belote_env.raw_env(str(path))
    assert e.variant.undertrump and e.variant.name == "mine"
    with pytest.raises(VariantError, match="no_such_switch"):
        belote_env.raw_env("coinche", no_such_switch=True)
    with pytest.raises(VariantError, match="unknown variant"):
        belote_env.raw_env("tarot")
    with pytest.raises(EnvArgumentError, match="score_diff"):
        belote_env.raw_env("coinche", reward="points")
    with pytest.raises(EnvArgumentError, match="ansi"):
        belote_env.raw_env("coinche", render_mode="rgb_array")
    assert issubclass(EnvArgumentError, ValueError)


def test_seed_gives_the_same_deals_as_the_rules_game_and_unseeded_resets_continue():
    e = belote_env.raw_env("belote_classique")
    e.reset(seed=123)
    assert e.game.deal.initial == GameState(e.variant, seed=123).deal.initial
    e.reset()
    second = e.game.deal.initial
    e.reset(seed=123)
    e.reset()
    assert e.game.deal.initial == second


def play(e, rng, check=None):
    """Masked random play through agent_iter; returns the summed reward per agent."""
    total = dict.fromkeys(AGENTS, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if check:
            check(e, agent, obs)
        e.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return total


def test_observations_equal_encode_and_masks_are_zero_for_others():
    rng = random.Random(0)

    def check(e, agent, obs):
        game = e.unwrapped.game
        for seat, other in enumerate(AGENTS):
            o = e.observe(other)
            assert o["observation"].dtype == np.float32 and o["action_mask"].dtype == np.int8
            np.testing.assert_array_equal(o["observation"], encode(game, seat))
            np.testing.assert_array_equal(o["action_mask"], action_mask(game, seat))
            if other != agent or game.over:
                assert not o["action_mask"].any()

    for name in ("coinche", "belote_classique_officielles", "cobrecaf_81"):
        e = belote_env.env(name, episode="game", target=501)
        e.reset(seed=7)
        play(e, rng, check)


@pytest.mark.parametrize("name", ["coinche", "contree_faits_et_annonces", "belote_classique"])
def test_score_diff_rewards_are_zero_sum_team_rewards(name):
    rng = random.Random(1)
    e = belote_env.env(name)
    for seed in range(30):
        e.reset(seed=seed)
        total = play(e, rng)
        game = e.unwrapped.game
        r0, r1 = deal_reward(game.variant, game.results[-1])
        assert total["player_0"] == total["player_2"] == pytest.approx(r0)
        assert total["player_1"] == total["player_3"] == pytest.approx(r1) == pytest.approx(-r0)


def test_game_episode_pays_every_deal_and_win_pays_the_winner():
    rng = random.Random(2)
    e = belote_env.env("belote_classique", episode="game", target=501)
    e.reset(seed=5)
    total = play(e, rng)
    game = e.unwrapped.game
    assert len([r for r in game.results if r.contract is not None]) >= 2
    expected = sum(deal_reward(game.variant, r)[0] for r in game.results if r.contract is not None)
    assert total["player_0"] == pytest.approx(expected) == pytest.approx(-total["player_1"])

    e = belote_env.env("coinche", episode="game", target=1000, reward="win")
    e.reset(seed=6)
    total = play(e, rng)
    winner = e.unwrapped.game.winner
    assert winner in (0, 1)
    assert total[AGENTS[winner]] == total[AGENTS[winner + 2]] == 1.0
    assert total[AGENTS[1 - winner]] == total[AGENTS[3 - winner]] == -1.0


def test_illegal_action_under_env_ends_the_episode_and_names_the_action():
    e = belote_env.env("coinche")
    e.reset(seed=3)
    agent = e.agent_selection
    obs, *_ = e.last()
    illegal = 0  # a card while bidding
    assert not obs["action_mask"][illegal]
    with pytest.warns(UserWarning, match=r"illegal action '7S' \(id 0\) by player_1 in phase bidding; legal: pass"):
        e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1.0
    assert all(r == 0 for a, r in e.rewards.items() if a != agent)
    for agent in e.agent_iter():
        e.step(None)
    assert e.agents == []


def test_illegal_action_under_raw_env_raises_the_rules_error():
    e = belote_env.raw_env("coinche")
    e.reset(seed=3)
    with pytest.raises(IllegalActionError, match="illegal action '7S'"):
        e.step(0)
    assert issubclass(IllegalActionError, ValueError)


def test_render_ansi_shows_the_table_with_unicode_suits():
    e = belote_env.env("coinche", render_mode="ansi")
    e.reset(seed=11)
    rng = random.Random(11)
    for _ in range(12):
        obs, *_ = e.last()
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    text = e.render()
    assert isinstance(text, str)
    assert "♠" in text and "♥" in text and "Contract:" in text and "Calls:" in text
    for a in AGENTS:
        assert a in text
    viewer = belote_env.env("coinche", render_mode="ansi", render_view="player_2")
    viewer.reset(seed=11)
    lines = viewer.render().splitlines()
    assert sum("cards)" in line for line in lines) == 3  # the other three hands are hidden


def test_render_human_prints(capsys):
    e = belote_env.env("belote_classique", render_mode="human")
    e.reset(seed=0)
    assert e.render() is None
    assert "Turn-up:" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["coinche", "belote_classique"])
def test_acting_agent_gets_its_info_state(name):
    e = belote_env.env(name, episode="game")
    e.reset(seed=3)
    rng = random.Random(0)
    for agent in e.agent_iter(max_iter=120):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert "info_state" not in info
            e.step(None)
            continue
        seat = int(agent[-1])
        assert info["info_state"] == e.unwrapped.game.info_state(seat)
        assert info["info_state"].legal_actions() == np.flatnonzero(obs["action_mask"]).tolist()
        assert all("info_state" not in e.infos[a] for a in e.agents if a != agent)
        e.step(rng.choice(info["info_state"].legal_actions()))


def test_info_state_is_built_only_when_read(monkeypatch):
    import copy
    import pickle

    import belote_env.aec as aec

    built = []
    real = aec.info_state
    monkeypatch.setattr(aec, "info_state", lambda game, seat: built.append(seat) or real(game, seat))
    e = belote_env.env("coinche")
    e.reset(seed=5)
    rng = random.Random(1)
    for _ in range(20):  # a loop that never reads it builds none
        obs, *_ = e.last()
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert built == []
    agent = e.agent_selection
    seat = int(agent[-1])
    expect = {"info_state": e.unwrapped.game.info_state(seat)}
    # every way of reading the dict sees the entry, as if it had been built at the step; built once
    for read in (lambda d: d["info_state"], lambda d: d.get("info_state"), lambda d: "info_state" in d, len, list,
                 lambda d: dict(d), lambda d: {**d}, lambda d: d == expect, lambda d: expect == d, repr,
                 lambda d: d.copy(), lambda d: list(d.items()), lambda d: pickle.loads(pickle.dumps(d)),
                 copy.deepcopy):
        e.reset(seed=5)
        for _ in range(20):
            obs, *_ = e.last()
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        info = e.infos[e.agent_selection]
        read(info)
        assert dict(info) == {"info_state": e.unwrapped.game.info_state(int(e.agent_selection[-1]))}
    assert isinstance(e.infos[e.agent_selection], dict)
    assert pickle.loads(pickle.dumps(e.infos[e.agent_selection])) == e.infos[e.agent_selection]
    # the previous agent's entry is gone once the game moves on, built or not
    prev = e.agent_selection
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    if e.agent_selection != prev:
        assert "info_state" not in e.infos[prev] and dict(e.infos[prev]) == {}
