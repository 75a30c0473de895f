"""Training collection on Ray rollout actors (``train.py --ray-workers K``): steps/s with 1 and 2 actors, side by
side, and the bytes that cross the network per update.

    python benchmarks/dev/bench_ray_collect.py [--config configs/train/coinche.yaml] [--workers 1 2] [--updates 4]
                                           [--repeats 3] [--address ADDR] [--tables-per-worker T]

Each round times ``RayCollector.collect`` (weights out, every actor's rollout, trajectories back and merged)
for each actor count in turn, after one warm-up rollout; figures are medians with min and max over the rounds.
On a local Ray the actors share this machine's cores with the driver.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import fmt  # noqa: E402

from agents.neural.network import PolicyValueNet  # noqa: E402
from agents.training import ppo  # noqa: E402
from agents.training.options import network_config  # noqa: E402
from agents.training.ray_rollouts import BUFFER_FIELDS, RayCollector  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/train/coinche.yaml")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--updates", type=int, default=4)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--address", default="")
    p.add_argument("--tables-per-worker", type=int, default=0,
                   help="give each actor this many tables (num_envs = actors x this: weak scaling); "
                        "default: the config's num_envs shared among the actors")
    ns = p.parse_args()
    import ray

    torch.set_num_threads(1)
    rates: dict[int, list[float]] = {k: [] for k in ns.workers}
    sent = received = 0
    for r in range(ns.repeats):
        for k in ns.workers:
            extra = ["--num-envs", str(k * ns.tables_per_worker)] if ns.tables_per_worker else []
            args, _, _ = ppo.parse_args(["--config", ns.config, "--ray-workers", str(k), "--ray-address", ns.address,
                                           *extra])
            net = PolicyValueNet(hidden_sizes=args.hidden_sizes)
            collector = RayCollector(ppo.collect, load_variant(args.variant), args.num_envs, args.opponent_mix,
                                     np.random.default_rng(r), args.end_on_redeal, args.network,
                                     network_config(args), args.num_steps, args.ray_workers, args.ray_address)
            buf = ppo.Rollout(args.num_envs * args.num_steps)
            collector.collect(net, buf, args.num_steps, {})  # warm-up: actors import torch and numba
            t0 = time.perf_counter()
            for _ in range(ns.updates):
                collector.collect(net, buf, args.num_steps, {})
            rates[k].append(ns.updates * args.num_envs * args.num_steps / (time.perf_counter() - t0))
            sent = k * sum(v.numel() * v.element_size() for v in net.state_dict().values())
            received = collector.bytes_received
            dense = sum(buf.rows(f).nbytes for f in BUFFER_FIELDS)
            for a in collector.actors:
                ray.kill(a)
        print(f"round {r + 1}/{ns.repeats} done", file=sys.stderr)
    for k in ns.workers:
        tables = f"{ns.tables_per_worker} tables each" if ns.tables_per_worker else "the config's tables shared"
        print(fmt(f"Ray collection, {k} actor(s) [{Path(ns.config).stem}, {tables}]", rates[k], "steps/s"))
    if len(ns.workers) > 1:
        a, b = ns.workers[0], ns.workers[-1]
        print(f"{b} actors / {a}: {statistics.median(rates[b]) / statistics.median(rates[a]):.2f}x")
    print(f"per update: weights out {sent / 1e6:.2f} MB ({ns.workers[-1]} actors), trajectories back "
          f"{received / 1e6:.2f} MB ({buf.size} decisions, {received / max(buf.size, 1):,.0f} bytes each; "
          f"{dense / max(received, 1):.1f}x fewer than the dense buffer's {dense / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
