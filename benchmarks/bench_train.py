"""Speed of train.py's two halves on this machine: one figure per line.

    python benchmarks/bench_train.py [--config configs/train/coinche.yaml] [--repeats 5] [--updates 3]

With the network, table count and rollout length of ``--config`` (opponent
mix included): decisions per second of collection (``train.collect``:
encoding, one batched forward pass per step, sampling, rules), decisions per
second of the PPO update (``train.ppo_update`` on those rollouts), and the
combined training throughput (steps per second as the ``charts/SPS`` curve
counts them, without evaluation). When the config sets ``bc_agent``, also
the warm start's two halves: decisions per second recorded from
``bc_agent`` (``train.record_demonstrations``) and decisions per second
of one cloning epoch (``train.behaviour_clone``), on ``--bc-decisions``
decisions. Each figure is printed as median, min and
max over ``--repeats`` runs of ``--updates`` updates each, on
``torch_threads`` threads.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import train  # noqa: E402
from common import fmt  # noqa: E402
from belote_env.observation import OBS_SIZE  # noqa: E402
from belote_env.rules.actions import NUM_ACTIONS  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def one_repeat(args: train.Args, updates: int, seed: int) -> tuple[float, float, float]:
    """(collected steps/s, updated decisions/s, overall steps/s) over ``updates`` updates."""
    torch.manual_seed(seed)
    net = train.PolicyValueNet(OBS_SIZE, args.hidden_sizes, NUM_ACTIONS, args.activation)
    opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    tables = train.Tables(load_variant(args.variant), args.num_envs, args.opponent_mix, np.random.default_rng(seed))
    buf = train.Rollout(args.num_envs * args.num_steps)
    t_collect = t_update = 0.0
    trained = 0
    for _ in range(updates):
        t0 = time.perf_counter()
        net.eval()
        collect_stats: dict = {"return_team0": [], "return_team1": []}
        train.collect(net, tables, buf, args.num_steps, collect_stats, args.end_on_redeal)
        t1 = time.perf_counter()
        adv, ret = train.compute_gae(buf, args.gamma, args.gae_lambda)
        net.train()
        train.ppo_update(net, opt, buf, adv, ret, args)
        t2 = time.perf_counter()
        t_collect += t1 - t0
        t_update += t2 - t1
        trained += buf.size
    steps = updates * args.num_envs * args.num_steps
    return steps / t_collect, trained / t_update, steps / (t_collect + t_update)


def bc_repeat(args: train.Args, decisions: int, seed: int) -> tuple[float, float]:
    """(recorded decisions/s, cloned decisions/s over one epoch) of the warm start."""
    torch.manual_seed(seed)
    variant = load_variant(args.variant)
    t0 = time.perf_counter()
    demo = train.record_demonstrations(variant, args.bc_agent, decisions, seed)
    t1 = time.perf_counter()
    net = train.PolicyValueNet(OBS_SIZE, args.hidden_sizes, NUM_ACTIONS, args.activation)
    one_epoch = train.Args(**{**vars(args), "bc_epochs": 1, "progress": False})
    train.behaviour_clone(net, demo, one_epoch)
    t2 = time.perf_counter()
    return decisions / (t1 - t0), decisions / (t2 - t1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/train/coinche.yaml")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--updates", type=int, default=3)
    p.add_argument("--bc-decisions", type=int, default=20_000, help="decisions per repeat of the warm-start figures")
    ns = p.parse_args()
    args, _, _ = train.parse_args(["--config", ns.config])
    torch.set_num_threads(args.torch_threads)
    one_repeat(args, 1, 0)  # warm-up: imports, allocator, first forward passes
    rows = [one_repeat(args, ns.updates, r + 1) for r in range(ns.repeats)]
    where = f"[{Path(ns.config).stem}, {args.num_envs} tables, torch_threads={args.torch_threads}]"
    names = (("collect", "steps/s"), ("PPO update", "decisions/s"), ("train, no eval", "steps/s"))
    for k, (name, unit) in enumerate(names):
        print(fmt(f"{name} {where}", [r[k] for r in rows], unit))
    if args.bc_agent:
        bc_rows = [bc_repeat(args, ns.bc_decisions, r + 1) for r in range(ns.repeats)]
        where = f"[{Path(ns.config).stem}, {args.bc_agent}, torch_threads={args.torch_threads}]"
        for k, name in enumerate(("bc record", "bc clone, one epoch")):
            print(fmt(f"{name} {where}", [r[k] for r in bc_rows], "decisions/s"))


if __name__ == "__main__":
    main()
