"""SingleSeatVectorEnv: a gymnasium VectorEnv of single-seat tables on the batched engine, checked bit for bit
against SingleAgentEnv (observations, masks, rewards, episode ends, final observations), registered for
gymnasium.make_vec, with its bad arguments refused."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from belote_env.errors import BeloteError, VectorIllegalActionError
from belote_env.observation import SEGMENTS
from belote_env.single_agent import SingleAgentEnv

single_seat = pytest.importorskip("agents.arena.single_seat")  # gymnasium >= 1.1
SingleSeatVectorEnv = single_seat.SingleSeatVectorEnv


def lowest_legal(observation, mask):
    return int(np.flatnonzero(mask)[0])


def _same_as_single_agent_envs(variant, seat, steps, n=6, seed=11, opponents="heuristic", finals=None, **kw):
    """Sub-env ``i`` against a SingleAgentEnv reset with ``seed + i``, step by step; returns the episodes ended.
    ``finals``: a list that receives every episode's final observation."""
    vec = SingleSeatVectorEnv(n, variant, seat=seat, partner="heuristic", opponents=opponents, **kw)
    assert (vec._fused is not None) == (opponents == "heuristic")  # heuristic everywhere: one kernel plays them
    singles = [SingleAgentEnv(variant, seat=seat, partner="heuristic", opponents=opponents, **kw) for _ in range(n)]
    obs, infos = vec.reset(seed=seed)
    for i, env in enumerate(singles):
        o, info = env.reset(seed=seed + i)
        assert np.array_equal(o, obs[i]) and np.array_equal(info["action_mask"], infos["action_mask"][i])
    rng = np.random.default_rng(seed)
    ends = 0
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        previous, kept = obs, obs.copy()
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        assert np.array_equal(previous, kept)  # a step's observations are handed over, never written again
        previous.fill(-1.0)  # and what the caller does with them changes nothing in the env
        assert rewards.dtype == np.float64 and obs.dtype == np.float32
        for i, env in enumerate(singles):
            o, r, term, trunc, info = env.step(int(actions[i]))
            assert r == rewards[i] and term == terminated[i] and trunc == truncated[i], (i, r, rewards[i])
            if term or trunc:
                ends += 1
                assert np.array_equal(o, infos["final_obs"][i]) and infos["_final_obs"][i]
                if finals is not None:
                    finals.append(o)
                assert tuple(infos["scores"][i]) == info["scores"] and infos["winner"][i] == info["winner"]
                o, info = env.reset()  # SAME_STEP: the vector env has started the next episode
            assert np.array_equal(o, obs[i]), i
            assert np.array_equal(info["action_mask"], infos["action_mask"][i])
    return ends


@pytest.mark.parametrize(("variant", "seat"), [("coinche", 0), ("belote_classique", 1), ("contree", 3)])
def test_sub_envs_are_single_agent_envs_bit_for_bit(variant, seat):
    assert _same_as_single_agent_envs(variant, seat, 120) > 20


def test_other_agents_play_through_the_play_loop_alike():
    assert _same_as_single_agent_envs("coinche", 1, 80, opponents=lowest_legal) > 5


def test_game_episodes_and_win_rewards_too():
    assert _same_as_single_agent_envs("belote_classique", 2, 150, n=4, episode="game", target=500,
                                      reward="win") > 0


def test_a_game_s_last_deal_ends_with_its_scored_garde_in_final_obs():
    """A game that ends on a litige: the final observation shows the garde that litige left (GameState.garde
    after the deal is scored, as the single env shows it), not the garde the deal started with."""
    finals = []
    assert _same_as_single_agent_envs("belote_classique", 2, 60, n=4, episode="game", target=1, finals=finals) > 20
    garde = SEGMENTS["game"][0] + 2
    assert any(o[garde] > 0 for o in finals)  # the deal the bug showed: a litige ends the game


def test_make_vec_and_the_gymnasium_contract():
    import belote_env.single_agent  # noqa: F401  (registers the ids)

    envs = gymnasium.make_vec("belote_env/Coinche-v0", num_envs=4, partner="heuristic", opponents="random")
    assert isinstance(envs.unwrapped, SingleSeatVectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert envs.observation_space.shape == (4, 853) and envs.action_space.shape == (4,)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert np.array_equal(envs.unwrapped.action_masks(), infos["action_mask"])
    actions = np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]])
    obs, rewards, terminated, truncated, infos = envs.step(actions)
    assert obs.shape == (4, 853) and rewards.shape == terminated.shape == truncated.shape == (4,)


def test_bad_arguments_and_illegal_actions_change_nothing():
    vec = SingleSeatVectorEnv(3, "coinche", partner="heuristic", opponents="heuristic")
    with pytest.raises(gymnasium.error.ResetNeeded):
        vec.step([0, 0, 0])
    for bad in (1.5, True, 4):
        with pytest.raises(BeloteError, match="seat must be 0..3"):
            SingleSeatVectorEnv(2, seat=bad)
    with pytest.raises(BeloteError, match="seed"):
        vec.reset(seed=-1)
    with pytest.raises(BeloteError, match="seed"):
        vec.reset(seed=[1, 2])
    obs, infos = vec.reset(seed=3)
    legal = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]
    illegal = int(np.flatnonzero(~infos["action_mask"][1])[0])
    with pytest.raises(VectorIllegalActionError, match="at table 1"):
        vec.step([legal[0], illegal, legal[2]])
    with pytest.raises(BeloteError, match="not an action id"):
        vec.step([legal[0], 1.5, legal[2]])
    assert np.array_equal(vec.reset(seed=3)[0], obs)
    again = SingleSeatVectorEnv(3, "coinche", partner="heuristic", opponents="heuristic")
    again.reset(seed=3)
    a = vec.step(legal)
    b = again.step(legal)
    assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))  # the refused steps changed nothing


def test_maskable_ppo_trains_on_the_sb3_adapter_and_plays_a_match():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from agents import make_agent
    from agents.arena.match import duplicate_match
    from agents.policy import sb3_agent
    from belote_env.variants import load_variant

    vec = single_seat.sb3_vec_env(SingleSeatVectorEnv(16, "coinche", partner="heuristic", opponents="random"))
    vec.seed(5)
    first = vec.reset()
    assert first.shape == (16, 853) and len(vec.env_method("action_masks")) == 16
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=128, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    vec.seed(5)
    assert np.array_equal(vec.reset(), first)  # seeds reach the sub-envs
    result = duplicate_match(sb3_agent(model), make_agent("random"), load_variant("coinche"), 4, seed=0)
    assert result.pairs == 4
    with pytest.raises(BeloteError, match="wraps a SingleSeatVectorEnv"):
        single_seat.sb3_vec_env(SingleAgentEnv("coinche"))


def test_the_cleanrl_style_example_trains_and_plays_a_match(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from tests.snapshots_check import check_snapshots

    repo = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, "examples/cleanrl_ppo_vector.py", "--total-timesteps", "1024",
                           "--num-envs", "16", "--num-steps", "32", "--pairs", "4", "--snapshots", str(tmp_path)],
                          cwd=repo, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "update 2/2: 1024 steps" in proc.stdout and "cleanrl_ppo vs random on coinche, 4 duplicate pairs" in proc.stdout
    assert check_snapshots(tmp_path, proc.stdout, pairs=4)[-1]["steps"] == 1024


def test_unseeded_envs_deal_from_the_os_as_gymnasium_make_does():
    """Parallel workers that never seed must not collect the same deals (gymnasium.make draws from OS entropy)."""
    import belote_env.single_agent  # noqa: F401  (registers the ids)

    first = [gymnasium.make_vec("belote_env/Coinche-v0", num_envs=2).reset()[0] for _ in range(3)]
    assert not np.array_equal(first[0], first[1]) and not np.array_equal(first[1], first[2])


def test_seeds_of_every_integer_kind_seed_every_seat_agent_alike():
    """A numpy array, numpy integers or a list of seeds reseed the tables and the seat agents (a random partner
    and random opponents included) exactly as the same Python ints; an entry None draws that sub-env's seed."""
    def run(seed):
        vec = SingleSeatVectorEnv(3, "coinche", partner="random", opponents="random")
        obs, infos = vec.reset(seed=seed)
        out = [obs]
        for _ in range(12):
            actions = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]
            obs, rewards, terminated, truncated, infos = vec.step(actions)
            out += [obs, rewards]
        return out

    reference = run([7, 8, 9])
    for seed in (7, np.int64(7), np.uint32(7), np.array([7, 8, 9]), np.array([7, 8, 9], dtype=np.uint64),
                 (np.int32(7), 8, np.int8(9)), [7, 8, 9]):
        assert all(np.array_equal(x, y) for x, y in zip(run(seed), reference)), seed
    vec = SingleSeatVectorEnv(3, "coinche", partner="random", opponents="random")
    obs, _ = vec.reset(seed=[7, None, 9])
    assert np.array_equal(obs[0], reference[0][0]) and np.array_equal(obs[2], reference[0][2])


@pytest.mark.parametrize("bad", [-1, 1.5, True, "7", [1, 2], [1, 2, -3], [1, 2.0, 3], np.array([[1, 2, 3]]),
                                 np.array([1.0, 2.0, 3.0]), [1, True, 3], {"a": 1}, b"abc", object()])
def test_a_refused_seed_names_it_and_changes_nothing(bad):
    vec = SingleSeatVectorEnv(3, "coinche", partner="random", opponents="random")
    obs, infos = vec.reset(seed=4)
    with pytest.raises(BeloteError, match="seed"):
        vec.reset(seed=bad)
    actions = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]
    again = SingleSeatVectorEnv(3, "coinche", partner="random", opponents="random")
    again.reset(seed=4)
    assert all(np.array_equal(x, y) for x, y in zip(vec.step(actions)[:4], again.step(actions)[:4]))


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "4", None])
def test_bad_num_envs_is_named_as_num_envs(bad):
    with pytest.raises(BeloteError, match="num_envs must be a positive int"):
        SingleSeatVectorEnv(bad, "coinche")


@pytest.mark.parametrize(("key", "value"), [("max_redeals", 2**80), ("max_redeals", 0), ("target", 2**70)])
def test_out_of_range_switches_are_refused_naming_them(key, value):
    with pytest.raises(BeloteError, match=key):
        SingleSeatVectorEnv(2, "coinche", **{key: value})
    with pytest.raises(BeloteError, match=key):
        SingleAgentEnv("coinche", **{key: value})


_NETWORK = {"belote_classique": "ppo_belote_classique", "belote_classique_officielles": "ppo_belote_classique",
            "cobrecaf_81": "ppo_cobrecaf_81", "coinche": "ppo_coinche", "coinche_officielles": "ppo_coinche",
            "contree": "ppo_contree", "contree_annonces": "ppo_contree", "contree_faits_et_annonces": "ppo_contree"}


@pytest.mark.parametrize("episode", ["deal", "game"])
@pytest.mark.parametrize("variant", sorted(_NETWORK))
def test_every_shipped_variant_and_kind_of_seat_agent_is_gymnasium_make_bit_for_bit(variant, episode):
    """make_vec against gymnasium.make, sub-env by sub-env, through autoresets: every shipped variant file, deal and
    game episodes, and each kind of deterministic seat agent in turn (the heuristic everywhere, fused into one
    kernel; a callable; the family's network beside the heuristic's kernel copy; a spec string for both)."""
    pytest.importorskip("torch")
    from belote_env.variants import variant_names

    assert sorted(variant_names()) == sorted(_NETWORK)  # a new shipped variant joins this test
    k = sorted(_NETWORK).index(variant) + (episode == "game")
    partner, opponents = [("heuristic", "heuristic"), ("heuristic", lowest_legal), (_NETWORK[variant], "heuristic"),
                          (lowest_legal, _NETWORK[variant])][k % 4]
    kw = {"episode": "game", "target": 300} if episode == "game" else {}
    vec = SingleSeatVectorEnv(3, variant, seat=k % 4, partner=partner, opponents=opponents, **kw)
    singles = [SingleAgentEnv(variant, seat=k % 4, partner=partner, opponents=opponents, **kw) for _ in range(3)]
    obs, infos = vec.reset(seed=[5, 2**40, 7])
    for i, (env, s) in enumerate(zip(singles, [5, 2**40, 7])):
        o, info = env.reset(seed=s)
        assert np.array_equal(o, obs[i]) and np.array_equal(info["action_mask"], infos["action_mask"][i])
    rng = np.random.default_rng(k)
    ends = 0
    for _ in range(45):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, info = env.step(int(actions[i]))
            assert (r, term, trunc) == (rewards[i], terminated[i], truncated[i]), (i, r, rewards[i])
            if term or trunc:
                ends += 1
                assert np.array_equal(o, infos["final_obs"][i]) and infos["_final_obs"][i]
                assert tuple(infos["scores"][i]) == info["scores"] and infos["winner"][i] == info["winner"]
                o, info = env.reset()
            assert np.array_equal(o, obs[i]) and np.array_equal(info["action_mask"], infos["action_mask"][i])
    assert ends >= 3


def test_seeds_beyond_64_bits_reseed_a_sampling_network_too():
    """Seeds are Python ints of any size (gymnasium.make takes them): a sampling network at a seat folds them into
    torch's 64 bits instead of failing inside torch."""
    pytest.importorskip("torch")
    from agents import make_agent

    net = make_agent("ppo_coinche")
    net.sample = True
    for env in (SingleSeatVectorEnv(2, "coinche", partner=net, opponents="heuristic"),
                SingleAgentEnv("coinche", partner=net, opponents="heuristic")):
        env.reset(seed=2**70)
        env.reset(seed=2**64 + 5)


@pytest.mark.parametrize("episode", ["deal", "game"])
@pytest.mark.parametrize("variant", ["belote_classique", "coinche"])
def test_truncated_episodes_are_gymnasium_make_bit_for_bit(variant, episode):
    """Every seat passes: each episode is cut after max_redeals all-pass deals, the same step, reward, final
    observation (the next deal's, as the rules core deals it) and result in both envs."""
    kw = {"episode": episode, "max_redeals": 2}
    vec = SingleSeatVectorEnv(2, variant, seat=1, partner=lowest_legal, opponents=lowest_legal, **kw)
    singles = [SingleAgentEnv(variant, seat=1, partner=lowest_legal, opponents=lowest_legal, **kw) for _ in range(2)]
    obs, infos = vec.reset(seed=3)
    for i, env in enumerate(singles):
        assert np.array_equal(env.reset(seed=3 + i)[0], obs[i])
    cut = 0
    for _ in range(20):
        actions = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]  # pass
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, info = env.step(actions[i])
            assert (r, term, trunc) == (rewards[i], terminated[i], truncated[i])
            if trunc:
                cut += 1
                assert np.array_equal(o, infos["final_obs"][i]) and tuple(infos["scores"][i]) == info["scores"]
                o, info = env.reset()
            assert np.array_equal(o, obs[i])
    assert cut >= 8
