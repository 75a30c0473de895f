"""Training collection on Ray: ``train.py --ray-workers K [--ray-address ADDR]``.

:class:`RayCollector` stands in for ``Collector`` (``agents.training.collection``) and ``agents.training.ppo.collect``:
``K`` rollout actors (one CPU each) each run the trainer's own collection
(``Collector`` on a :class:`~belote_env.vector.VectorEnv`, ``collect``) on their
share of the ``num_envs`` tables with a CPU copy of the policy. Every update
the learner (the driver, on its own device) sends the weights once
(``ray.put``), every actor plays ``num_steps`` steps and sends back its
decisions as numpy arrays (observations as their non-zero entries, masks as
bits, actions, log-probabilities, values, rewards, episode ends, the successor
links of each seat's trajectory and the bootstrap values: ``pack_rollout``);
they are merged into the learner's rollout buffer in the order a local run
makes them (:func:`merge_rollouts`: step by step, tables ascending), and GAE
and the PPO update run as in a local run.

Seeds: actor ``k`` holds tables ``a_k .. b_k - 1`` of the run, and every
random draw of a table is a number of the run's key, the table and the step
(``agents.counter_rng``); the key is drawn from the run's collection generator
at the start and after every checkpoint, as in a local run. With one torch
thread (the default) the network's forward pass gives each row the same
result in any batch (``PolicyValueNet.forward_rows``). So **a Ray run and a
local run with the same seed play the same tables and train the same
weights, bit for bit** (``tests/train/test_ray.py``), and ``--resume``
continues either exactly. An actor that dies is replaced by a new one,
which re-deals its tables from another key and plays its share of the
rollout again; the run goes on (its results then differ from an
uninterrupted run's, as any re-dealt cards would).

The module of the collection function (``agents.training.ppo``) is sent to
the actors by value (cloudpickle), so the workers need the ``agents`` and
``belote_env`` packages but not ``train.py``.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from agents.training.collection import Collector, Rollout

BUFFER_FIELDS = ("obs", "mask", "actions", "logprobs", "values", "rewards", "dones", "next_value", "next_index",
                 "bidding")
PLAIN_FIELDS = BUFFER_FIELDS[2:]  # sent as they are; observations and masks are compacted (pack_rollout)


def pack_rollout(buf, n: int) -> dict:
    """The first ``n`` decisions of the rollout ``buf`` as an actor sends them: the observations as their
    non-zero entries (as the buffer keeps them, in ``to_csr``'s form: about 37 of 853 per row), the legal-action
    masks as bits, the other fields as they are (about 12x fewer bytes than dense observations and masks on
    coinche.yaml: ``benchmarks/dev/bench_ray_collect.py``)."""
    out = {f: getattr(buf, f)[:n] for f in PLAIN_FIELDS}
    out["per_step"] = np.asarray(buf.per_step, dtype=np.int32)
    out["obs_csr"] = buf.csr_observations(n)  # the buffer's own form, columns as int16
    out["mask_bits"] = np.packbits(buf.mask[:n], axis=1)
    return out


def unpack_rollout(part: dict, buf, off: int = 0) -> int:
    """Write an actor's ``pack_rollout`` into ``buf`` as its decisions ``off, off + 1, ...`` (the decisions
    before ``off`` are kept, the observations of those after dropped); the number of decisions. Successor links
    are written as they are (see :func:`merge_rollouts`)."""
    n = len(part["actions"])
    _unpack_fields(part, buf, np.arange(off, off + n))
    buf.write_observations(off, *part["obs_csr"])
    return n


def _unpack_fields(part: dict, buf, rows: np.ndarray) -> None:
    """Every field of ``part`` but the observations, decision ``i`` at ``rows[i]``."""
    for name in PLAIN_FIELDS:
        getattr(buf, name)[rows] = part[name]
    buf.mask[rows] = np.unpackbits(part["mask_bits"], axis=1, count=buf.mask.shape[1]).view(np.bool_)


def packed_bytes(part: dict) -> int:
    """The bytes of the arrays of a ``pack_rollout`` (what crosses the network, Ray's framing aside)."""
    arrays = [v for k, v in part.items() if k in PLAIN_FIELDS or k in ("mask_bits", "per_step")] + list(part["obs_csr"])
    return sum(a.nbytes for a in arrays)


def merge_rollouts(parts: list[dict], buf) -> None:
    """Write the ``pack_rollout`` of each actor (in the order of their tables) into ``buf`` in the order of a
    local run over all the tables: step by step and, within a step, actor by actor (so tables ascending).
    Successor links are renumbered."""
    buf.clear()
    steps = [np.repeat(np.arange(len(p["per_step"])), p["per_step"]) for p in parts]  # the step of each decision
    total = sum(len(s) for s in steps)
    order = np.argsort(np.concatenate(steps) if parts else np.zeros(0, np.int64), kind="stable")
    where = np.empty(total, dtype=np.int64)
    where[order] = np.arange(total)  # actor after actor -> the local run's position (step-major, actors in order)
    off, entries = 0, 0
    indptr, idx, val = [np.zeros(1, dtype=np.int64)], [], []
    for part in parts:
        n = len(part["actions"])
        rows = where[off:off + n]
        _unpack_fields(part, buf, rows)
        links = part["next_index"]
        buf.next_index[rows] = np.where(links >= 0, where[off + np.maximum(links, 0)], -1)
        p, i, v = part["obs_csr"]
        indptr.append(entries + p[1:].astype(np.int64))
        idx.append(i)
        val.append(v)
        entries += int(p[-1])
        off += n
    if parts:  # every actor's observations at once, in the local run's order (the buffer keeps them row after row)
        buf.write_observations(0, np.concatenate(indptr), np.concatenate(idx), np.concatenate(val), order=where)
    buf.per_step = np.sum([p["per_step"] for p in parts], axis=0).tolist() if parts else []
    buf.size = total


class RolloutWorker:
    """One actor: ``n_tables`` tables of ``Collector`` (``agents.training.collection``) and a copy of the network
    (run as a Ray actor)."""

    def __init__(self, collect, variant, table_ids: list[int], opponent_mix: dict, end_on_redeal: bool,
                 network: str, net_config: dict, num_steps: int):
        import torch

        from agents.neural.protocol import build_network

        torch.set_num_threads(1)  # one thread: forward_rows is row-invariant (the local run's default too)
        self.collect_fn = collect
        self.variant, self.ids, self.mix, self.end_on_redeal = variant, table_ids, opponent_mix, end_on_redeal
        self.net = build_network(network, net_config)
        self.net.eval()
        self.buf = Rollout(len(table_ids) * num_steps)
        self.tables = None

    def pid(self) -> int:
        return os.getpid()

    def reset(self, key: int) -> None:
        """This actor's tables of the run, dealt from the run's ``key`` (``Collector.reset_all``)."""
        if self.tables is None:
            self.tables = Collector(self.variant, len(self.ids), self.mix, np.random.default_rng(key),
                                             self.end_on_redeal, table_ids=self.ids, key=key)
        else:
            self.tables.reset_all(key)

    def collect(self, weights: dict, num_steps: int) -> dict:
        import torch

        self.net.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})  # copies: Ray arrays are read-only
        stats = {"return_team0": [], "return_team1": []}
        t0 = time.perf_counter()
        self.collect_fn(self.net, self.tables, self.buf, num_steps, stats)
        out = pack_rollout(self.buf, self.buf.size)
        out.update(stats=stats, seconds=time.perf_counter() - t0, steps=len(self.ids) * num_steps)
        return out


class RayCollector:
    """``K`` rollout actors standing in for a :class:`~agents.training.collection.Collector` (``rng``,
    ``reset_all``) and for ``collect``, the trainer's collection function, which every actor runs on its tables
    (sent with its module by value)."""

    def __init__(self, collect, variant, num_envs: int, opponent_mix: dict, rng: np.random.Generator,
                 end_on_redeal: bool, network: str, net_config: dict, num_steps: int, workers: int, address: str = ""):
        """``workers`` actors share ``num_envs`` tables (``opponent_mix`` and ``end_on_redeal`` as the local
        ``Collector``'s), each playing ``num_steps`` steps a rollout with a ``network`` built from ``net_config``;
        ``address``: the Ray cluster to join, empty for a local Ray."""
        import ray

        from agents.arena.ray_tasks import connect

        k = workers
        connect(address or None, num_cpus=None if address else max(k, os.cpu_count() or 1))
        module = sys.modules[collect.__module__]
        if module.__name__ != "__main__":  # (a __main__ script's functions go by value anyway)
            ray.cloudpickle.register_pickle_by_value(module)  # the actors get the trainer as it is here
        self.ray = ray
        self.rng = rng
        self.num_steps = num_steps
        self.table_ids = [a.tolist() for a in np.array_split(np.arange(num_envs), k)]  # actor i: a_i .. b_i - 1
        self.key = 0
        self._spawn = lambda i: ray.remote(num_cpus=1, max_restarts=0)(RolloutWorker).remote(
            collect, variant, self.table_ids[i], dict(opponent_mix), end_on_redeal, network, net_config, num_steps)
        self.actors = [self._spawn(i) for i in range(k)]
        self.replaced = 0  # actors that died and were replaced
        self.worker_sps: list[float] = [0.0] * k
        self.bytes_received = 0  # by the last collect: the actors' packed rollouts (packed_bytes)
        self.reset_all()

    def reset_all(self) -> None:
        """A new key from the collection generator, every actor's tables dealt from it (the same draw as the
        local ``Collector.reset_all``)."""
        self.key = int(self.rng.integers(2**31))
        self.ray.get([a.reset.remote(self.key) for a in self.actors])

    def _replace(self, i: int) -> None:
        """A new actor for actor ``i``, its tables dealt from another key (the run's generator is not drawn)."""
        self.replaced += 1
        self.actors[i] = self._spawn(i)
        key = int(np.random.default_rng([self.key, self.replaced]).integers(2**31))
        self.ray.get(self.actors[i].reset.remote(key))

    def collect(self, net, buf, num_steps: int, stats: dict, writer=None, global_step: int = 0) -> None:
        """One rollout of every actor with ``net``'s weights, merged into ``buf``; ``stats`` as ``agents.training.ppo.collect``.
        With ``writer``: each actor's steps/s (``charts/worker_SPS/<k>``) and the replacements so far."""
        from ray.exceptions import RayActorError

        weights = self.ray.put({k: v.detach().cpu().numpy() for k, v in net.state_dict().items()})
        futures = [a.collect.remote(weights, num_steps) for a in self.actors]
        parts = []
        for i, f in enumerate(futures):
            while True:
                try:
                    parts.append(self.ray.get(f))
                    break
                except RayActorError:  # the actor's process died: a new one plays its share again
                    self._replace(i)
                    f = self.actors[i].collect.remote(weights, num_steps)
        merge_rollouts(parts, buf)
        self.bytes_received = sum(packed_bytes(p) for p in parts)
        for i, p in enumerate(parts):
            for key, v in p["stats"].items():
                if isinstance(v, list):
                    stats.setdefault(key, []).extend(v)
                else:
                    stats[key] = stats.get(key, 0) + v
            self.worker_sps[i] = p["steps"] / max(p["seconds"], 1e-9)
        if writer is not None:
            for i, sps in enumerate(self.worker_sps):
                writer.add_scalar(f"charts/worker_SPS/{i}", sps, global_step)
            writer.add_scalar("charts/workers_replaced", self.replaced, global_step)

