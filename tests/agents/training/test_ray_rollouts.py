"""The compact form in which Ray rollout actors send their rollouts (agents.training.ray_rollouts.pack_rollout): it
restores the buffer exactly and is several times smaller. Needs no Ray (tests/train/test_ray.py runs
the actors)."""

import numpy as np
import pytest

from agents.neural.network import PolicyValueNet
from agents.neural.sparse import from_csr, to_csr
from agents.training.collection import Rollout
from agents.training.ray_rollouts import BUFFER_FIELDS, pack_rollout, packed_bytes, unpack_rollout


def _collected_rollout():
    from agents.training import ppo
    from agents.training.collection import Collector
    from belote_env.variants import load_variant

    args, _, _ = ppo.parse_args(["--config", "configs/train/tiny.yaml"])
    tables = Collector(load_variant(args.variant), args.num_envs, dict(args.opponent_mix), np.random.default_rng(3),
                    args.end_on_redeal)
    buf = ppo.Rollout(args.num_envs * args.num_steps)
    ppo.collect(PolicyValueNet(hidden_sizes=args.hidden_sizes), tables, buf, args.num_steps,
                  {"return_team0": [], "return_team1": []})
    return buf


def test_a_packed_rollout_unpacks_to_the_same_buffer_and_is_smaller():
    buf = _collected_rollout()
    n = buf.size
    part = pack_rollout(buf, n)
    other = Rollout(2 * n + 5)
    other.add_observations(0, np.ones((2 * n + 5, other.obs_size), dtype=np.float32), np.arange(2 * n + 5))
    other.mask[:] = True  # stale values must be overwritten
    assert unpack_rollout(part, other, 5) == n
    assert (other.observations(0, 5) == 1.0).all()  # the rows before are kept
    for name in BUFFER_FIELDS:
        assert np.array_equal(other.rows(name, 5, 5 + n), buf.rows(name, 0, n)), name
    dense = sum(buf.rows(f, 0, n).nbytes for f in BUFFER_FIELDS)
    assert packed_bytes(part) * 4 < dense


def test_csr_round_trip_and_errors():
    x = np.zeros((4, 9), dtype=np.float32)
    x[0, 0], x[0, 8], x[2, 3], x[3, 0] = 1.0, -2.5, 0.25, 3.0
    indptr, idx, val = to_csr(x)
    assert indptr.tolist() == [0, 2, 2, 3, 4] and idx.tolist() == [0, 8, 3, 0]
    assert np.array_equal(from_csr(indptr, idx, val, np.ones_like(x)), x)
    with pytest.raises(ValueError, match="rows"):
        from_csr(indptr, idx, val, np.zeros((3, 9), dtype=np.float32))
    with pytest.raises(ValueError, match="int16"):
        to_csr(np.zeros((1, 40000), dtype=np.float32))
