"""SingleAgentEnv: a gymnasium.Env with one learning seat, checked with gymnasium's
check_env, registered ids, rewards summed over the other seats' moves, truncation
after all-pass redeals, and a short sb3-contrib MaskablePPO run."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import belote_env
from belote_env.rules import IllegalActionError
from belote_env.variants import variant_names
from belote_env.single_agent import ENV_IDS, SingleAgentEnv


@pytest.mark.parametrize("name", ["coinche", "belote_classique", "cobrecaf_81", "contree"])
def test_check_env_passes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium warns about the unbounded counters of the observation
        check_env(SingleAgentEnv(name, opponents="random"), skip_render_check=True)


def test_every_shipped_variant_is_registered():
    assert set(ENV_IDS) == set(variant_names())
    assert ENV_IDS["coinche"] == "belote_env/Coinche-v0" and ENV_IDS["cobrecaf_81"] == "belote_env/Cobrecaf81-v0"
    env = gymnasium.make("belote_env/ContreeFaitsEtAnnonces-v0", partner="random")
    assert env.unwrapped.variant.counting == "points_faits_et_annonces"


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_rewards_match_the_episode_scores(seat):
    env = SingleAgentEnv("coinche", seat=seat, partner="heuristic", opponents="random")
    rng = np.random.default_rng(seat)
    for episode in range(20):
        obs, info = env.reset(seed=100 * seat + episode)
        assert obs.shape == (853,) and info["seat"] == seat and info["info_state"].seat == seat
        total, done = 0.0, False
        while not done:
            assert (env.action_masks() == info["action_mask"]).all()
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        s = info["scores"]
        mine = s[seat & 1] - s[1 - (seat & 1)]
        assert total == pytest.approx(mine / 400)  # score_diff reward, coinche scale


def test_always_passing_learner_is_truncated():
    env = SingleAgentEnv("coinche", partner="random", opponents="random", max_redeals=3)

    class Pass:
        name, needs_observation, needs_info = "pass", False, False

        def reset(self, seed=None):
            pass

        def act(self, observation, mask, info):
            return 32

    env.partner = env.opponents = Pass()
    obs, info = env.reset(seed=0)
    steps = 0
    while True:
        obs, reward, terminated, truncated, info = env.step(32)
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and reward == 0 and steps == 3


def test_illegal_actions_terminate_or_raise():
    env = SingleAgentEnv("coinche", opponents="random")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(7)  # a card while bidding
    assert terminated and reward == -1.0 and "illegal action 7" in info["illegal_action"] and "pass" in info["illegal_action"]
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(32)
    env = SingleAgentEnv("coinche", opponents="random", illegal="raise")
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="legal: pass"):
        env.step(7)


def test_maskable_ppo_trains_briefly(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.logger import configure

    env = SingleAgentEnv("belote_classique", partner="random", opponents="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0,
                                    policy_kwargs={"net_arch": [32]})
    model.set_logger(configure(str(tmp_path / "sb3"), []))  # not SB3's default SB3-<date> folder in /tmp
    model.learn(total_timesteps=256)
    obs, info = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert info["action_mask"][int(action)]
    assert belote_env is not None


def first_legal(observation, action_mask):
    return int(np.flatnonzero(action_mask)[0])


def test_seats_take_agents_callables_and_spec_strings(monkeypatch):
    from agents import make_agent

    import belote_env.single_agent as single_agent

    by_object = SingleAgentEnv("coinche", partner=make_agent("random"), opponents=first_legal)
    by_spec = SingleAgentEnv("coinche", partner="random", opponents=first_legal)
    for env in (by_object, by_spec):
        obs, info = env.reset(seed=5)
        rewards, done = [], False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            rewards.append(reward)
            done = terminated or truncated
        env.rewards_seen = rewards
    assert by_object.rewards_seen == by_spec.rewards_seen  # the spec resolves to the same agent
    with pytest.raises(belote_env.errors.EnvArgumentError, match="partner must be an agent"):
        SingleAgentEnv("coinche", partner=3)
    # without an installed resolver a spec string is refused with what to do, not an ImportError
    monkeypatch.setattr("importlib.metadata.entry_points", lambda group: [])
    with pytest.raises(belote_env.errors.EnvArgumentError, match="entry-point group 'belote_env.agents'"):
        single_agent.seat_player("heuristic", "opponents")


def test_step_before_reset_and_numpy_seats():
    env = SingleAgentEnv("coinche", seat=np.int64(2), partner="random", opponents="random")
    assert env.seat == 2 and type(env.seat) is int
    with pytest.raises(gymnasium.error.ResetNeeded, match="call reset"):
        env.step(0)
    for bad in (2.0, np.float64(2), True, 4, -1, "north"):
        with pytest.raises(belote_env.errors.EnvArgumentError, match="seat must be 0..3 or 'random'"):
            SingleAgentEnv("coinche", seat=bad)


@pytest.mark.parametrize("answer, shown", [
    (lambda m: float(np.flatnonzero(m)[0]) + 0.7, "float 32.7"), (lambda m: True, "bool True"),
    (lambda m: float("nan"), "float nan"), (lambda m: "32", "str '32'"), (lambda m: np.flatnonzero(m), "ndarray"),
    (lambda m: 200, "int 200, which is not legal there"),
])
def test_other_seats_answering_no_legal_action_id_are_refused(answer, shown):
    """The other seats' answers are read by the rules core's rule (action_id) and checked against their mask:
    the error names the seat, the agent and the legal set, and nothing is applied."""
    env = SingleAgentEnv("coinche", seat=0, partner="random", opponents=lambda obs, mask: answer(mask))
    with pytest.raises(belote_env.errors.IllegalActionError, match="the opponents agent <callable") as e:
        env.reset(seed=0)
    assert f"at seat 1 returned {shown}" in str(e.value) and "legal: pass, 80 S" in str(e.value)
    assert e.value.seat == 1 and len(env.aec.game.deal.calls) == 0  # seat 1 is the first to speak: nothing applied
