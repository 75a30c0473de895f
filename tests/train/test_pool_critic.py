"""train.py's opponent pool (agents.training.pool) and central critic (agents.training.critic): options, sampling, features,
exact resume, and the acting policy never reading the hidden hands."""

import numpy as np
import pytest
import torch

from agents.neural.agent import load_agent
from agents.neural.network import PolicyValueNet
from agents.training import ppo
from agents.training.collection import POOL, Collector
from agents.training.critic import HIDDEN_SIZE, hand_bits, hidden_features
from agents.training.curves import read_scalars
from agents.training.pool import OpponentPool
from belote_env.variants import load_variant
from belote_env.vector import VectorEnv

from .helpers import kill_after_first_checkpoint, run_train_here

TINY = ["--config", "configs/train/tiny.yaml", "--eval-every", "0", "--final-eval-pairs", "0"]


def test_options_are_checked_before_the_run(tmp_path):
    args, _, _ = ppo.parse_args([*TINY, "--pool-fraction", "0.5", "--opponent-mix", "random=0.5", "--central-critic"])
    assert (args.pool_fraction, args.pool_size, args.pool_every, args.central_critic) == (0.5, 5, 10, True)
    defaults, _, _ = ppo.parse_args(TINY)
    assert (defaults.pool_fraction, defaults.central_critic) == (0.0, False)
    for bad, match in ((["--pool-fraction", "1.5"], "pool_fraction"), (["--pool-fraction", "-0.1"], "pool_fraction"),
                       (["--pool-fraction", "0.6"], "sum to at most 1"),  # tiny.yaml's opponent_mix is 0.5
                       (["--pool-size", "0"], "pool_size"), (["--pool-every", "0"], "pool_every"),
                       (["--pool-fraction", "0.2", "--ray-workers", "2"], "not supported with ray_workers"),
                       (["--central-critic", "--ray-workers", "2"], "central_critic not supported")):
        with pytest.raises(ppo.ConfigError, match=match):
            ppo.parse_args([*TINY, *bad, "--runs-dir", str(tmp_path)])
    assert not any(tmp_path.iterdir())


def _tables(seed, pool, fraction=0.5, n=64):
    return Collector(load_variant("coinche"), n, {"random": 0.25}, np.random.default_rng(seed), True, pool, fraction)


def test_pool_tables_are_drawn_from_the_collection_rng():
    net = PolicyValueNet(hidden_sizes=[8])
    pool = OpponentPool(3, "mlp", net.config())
    empty = _tables(1, pool)  # no snapshot yet: the pool's share of tables plays itself
    assert not (empty.opponent == empty.labels.index(POOL)).any() and (empty.runner.seating <= 0).all()
    for u in range(5):
        with torch.no_grad():
            net.policy.bias.fill_(float(u))
        pool.add(net, u)
    assert len(pool) == 3 and pool.updates == [3, 4, 2] and pool.added == 5  # a ring: the oldest left
    a, b = _tables(2, pool), _tables(2, pool)
    assert np.array_equal(a.runner.seating, b.runner.seating) and np.array_equal(a.opponent, b.opponent)
    at_pool = np.flatnonzero(a.opponent == a.labels.index(POOL))
    assert 16 <= len(at_pool) <= 48  # half the tables, on average
    for t in at_pool:  # one team is a snapshot (agents 1..3 after the random agent), the other the learner
        team = a.opponent_team[t]
        assert set(a.runner.seating[t, [team, team + 2]]) <= {1, 2, 3}
        assert (a.runner.seating[t, [1 - team, 3 - team]] == -1).all()
    assert len({tuple(a.runner.seating[t]) for t in at_pool}) > 1  # several snapshots play
    assert not np.array_equal(_tables(3, pool).runner.seating, a.runner.seating)
    off = _tables(2, pool, fraction=0.0)  # pool off: the draws of a run without it
    plain = Collector(load_variant("coinche"), 64, {"random": 0.25}, np.random.default_rng(2))
    assert np.array_equal(off.runner.seating, plain.runner.seating) and off.labels == ["random"]


def test_pool_state_round_trips():
    net = PolicyValueNet(hidden_sizes=[8])
    pool = OpponentPool(3, "mlp", net.config())
    for u in range(4):
        with torch.no_grad():
            net.value.bias.fill_(float(u))
        pool.add(net, 10 * u)
    same = OpponentPool(3, "mlp", net.config())
    same.load_state(pool.state())
    assert (same.updates, same.added) == (pool.updates, pool.added)
    for x, y in zip(pool.agents, same.agents):
        assert all(torch.equal(x.net.state_dict()[k], v) for k, v in y.net.state_dict().items())
    small = OpponentPool(2, "mlp", net.config())  # a smaller pool on resume keeps the newest snapshots
    small.load_state(pool.state())
    assert small.updates == [20, 30] and [float(a.net.value.bias.detach()) for a in small.agents] == [2.0, 3.0]
    small.add(net, 40)
    assert small.updates == [40, 30]


@pytest.mark.parametrize("name", ["coinche", "belote_classique"])
def test_critic_features_are_the_other_seats_hands(name):
    venv = VectorEnv(name, num_tables=4, seed=5)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(0)
    for step in range(30):
        tables, seats = np.repeat(np.arange(4), 4), np.tile(np.arange(4), 4)
        got = hidden_features(venv, tables, seats)
        assert got.shape == (16, HIDDEN_SIZE) and got.dtype == np.float32
        for row, (t, s) in zip(got, zip(tables, seats)):
            hands = venv.state(int(t)).deal.hands
            want = [(hands[(s + i) & 3] >> c) & 1 for i in (1, 2, 3) for c in range(32)]
            assert row.tolist() == want
        legal = [rng.choice(np.flatnonzero(m)) for m in mask]
        obs, mask, seat, *_ = venv.step(np.array(legal))
    assert hand_bits(np.array([[1, 2, 4, 8]]), np.array([3]))[0, [0, 33, 66]].tolist() == [1.0, 1.0, 1.0]


def test_the_policy_acts_without_the_hidden_hands(monkeypatch):
    """Collection with a central critic samples the same actions whatever the hidden hands are (only the values
    change); the critic does read them."""
    torch.manual_seed(0)
    net = PolicyValueNet(hidden_sizes=[16])
    critic = ppo.CentralCritic(net.obs_size, [16])

    def run(features):
        monkeypatch.setattr(ppo, "hidden_features", features)
        torch.manual_seed(1)
        tables = Collector(load_variant("coinche"), 8, {"heuristic": 0.5}, np.random.default_rng(3))
        buf = ppo.Rollout(8 * 48, HIDDEN_SIZE)
        ppo.collect(net, tables, buf, 48, {"return_team0": [], "return_team1": []}, critic=critic)
        return buf

    true = run(hidden_features)
    noise = np.random.default_rng(9)
    fake = run(lambda venv, t, s: noise.integers(2, size=(len(t), HIDDEN_SIZE)).astype(np.float32))
    n = true.size
    assert n == fake.size and np.array_equal(true.actions[:n], fake.actions[:n])
    assert np.array_equal(true.logprobs[:n], fake.logprobs[:n]) and np.array_equal(true.observations(0, n), fake.observations(0, n))
    assert not np.array_equal(true.values[:n], fake.values[:n])


def test_pool_and_critic_resume_exactly_and_agents_load_the_policy_only(tmp_path):
    options = [*TINY, "--total-timesteps", str(12 * 512), "--checkpoint-every", "1", "--keep-checkpoints", "20",
               "--pool-fraction", "0.3", "--pool-every", "2", "--pool-size", "2", "--central-critic"]
    runs = tmp_path / "runs"
    killed_at = kill_after_first_checkpoint(options, runs, "cut")
    assert killed_at["update"] < 12 and "critic" in killed_at and "pool" in killed_at
    run_train_here(*options, "--runs-dir", str(runs), "--run-name", "cut", "--resume")
    run_train_here(*options, "--runs-dir", str(runs), "--run-name", "whole")
    cut, whole = (torch.load(runs / r / "checkpoints" / "latest.pt", weights_only=True) for r in ("cut", "whole"))
    assert cut["update"] == 12 and cut["pool"]["updates"] == whole["pool"]["updates"] == [10, 12]
    for a, b in [(cut["model"], whole["model"]), (cut["critic"]["model"], whole["critic"]["model"]),
                 *zip(cut["pool"]["weights"], whole["pool"]["weights"])]:
        assert all(torch.equal(a[k], b[k]) for k in b)
    assert read_scalars(runs / "whole")["charts/pool_size"][1].tolist()[:4] == [0, 1, 1, 2]
    # the agent of a central-critic checkpoint is the policy network alone: observation and mask in, action out
    agent = load_agent(runs / "whole" / "checkpoints" / "latest.pt")
    assert type(agent.net) is PolicyValueNet and set(agent.net.state_dict()) == set(whole["model"])
    with pytest.raises(ppo.ConfigError, match="central_critic"):
        args, _, cli = ppo.parse_args([*options, "--runs-dir", str(runs), "--run-name", "whole", "--total-timesteps",
                                         str(14 * 512), "--no-central-critic"])
        ppo.train(args, resume=True, cli_overrides=cli)


def test_the_options_leave_the_warm_start_as_it_was(tmp_path):
    bc = [*TINY, "--total-timesteps", "512", "--bc-agent", "heuristic", "--bc-decisions", "2000", "--bc-epochs", "2",
          "--runs-dir", str(tmp_path), "--keep-checkpoints", "5"]
    run_train_here(*bc, "--run-name", "plain")
    run_train_here(*bc, "--run-name", "both", "--central-critic", "--pool-fraction", "0.25")
    plain, both = (torch.load(tmp_path / r / "checkpoints" / "ckpt_0000000.pt", weights_only=True) for r in ("plain", "both"))
    assert plain["model_digest"] == both["model_digest"] and "critic" in both and both["pool"]["updates"] == []
