"""Where a step of ``ppo.collect`` goes, and what each part costs when it runs alone.

    python benchmarks/dev/bench_collect_parts.py [--config configs/train/coinche.yaml] [--num-envs N] [--rounds 5]
                                             [--clock cpu]

``ppo.collect`` times four parts of every step (its ``timing``): the engine's step (env), the
network's forward pass and sampling (forward), the fixed opponents (opponents) and the rest
(bookkeeping: which tables the network plays, the copy of their rows into the rollout buffer,
the links between decisions, rewards, episode ends). For each round this plays one rollout of the
config's tables and prints each part's µs per step there, next to the same work repeated alone,
the same call again with nothing in between, so that its data stay in the caches:

- forward: the batches of 8 steps of that rollout (their rows' non-zero entries copied from the rollout
  buffer), each through ``forward_nonzeros``, ``policy_terms`` and ``sample_rows`` 20 times;
- env: a second ``VectorEnv`` of as many tables and the same rules, stepped 64 times with random
  legal actions (drawn outside the timing);
- opponents: ``Runner.actions`` on the tables as the rollout left them, 20 times.

Then the steps/s collection would reach with each part at its speed alone and no bookkeeping at all
(a ceiling for this network on this machine), and the wrapped AEC env's steps/s (``bench_env.py``'s
loop), each as a ratio. Medians over ``--rounds``, each in this process after one warm-up rollout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

PARTS = ("env", "forward", "opponents", "bookkeeping")


def _repeat(fn, times: int, clock) -> float:
    """Median seconds of ``fn()`` over ``times`` calls after one more (not timed)."""
    fn()
    runs = []
    for _ in range(times):
        t = clock()
        fn()
        runs.append(clock() - t)
    return statistics.median(runs)


def forward_alone(net, weights, buf, steps: int, times: int, clock) -> float:
    """Mean over ``steps`` steps of the rollout in ``buf`` of the median seconds of their batch's forward pass and
    sampling, repeated (``ppo.collect``'s calls)."""
    import torch

    from agents.neural.network import padded_rows
    from agents.neural.sampling import policy_terms, sample_rows

    starts = np.concatenate([[0], np.cumsum(buf.per_step)])
    picks = np.linspace(0, len(buf.per_step) - 1, steps).round().astype(int)
    total = 0.0
    for s in picks:
        k = int(buf.per_step[s])
        if not k:
            continue
        indptr, idx, val = buf.nonzeros(starts[s], starts[s] + k)
        nonzeros = indptr.copy(), idx.copy(), val.copy()
        mask = np.ones((padded_rows(k), buf.mask.shape[1]), dtype=np.bool_)
        mask[:k] = buf.mask[starts[s]:starts[s] + k]
        m = torch.from_numpy(mask)
        u = np.random.default_rng(int(s)).random(k)
        actions, logp_out = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.float32)

        def one():
            logits, value = net.forward_nonzeros(nonzeros, m, k, weights)
            logp, probs = policy_terms(logits)
            sample_rows(probs.numpy(), logp.numpy(), u, actions, logp_out)
            value.numpy().copy()

        total += _repeat(one, times, clock)
    return total / len(picks)


def env_alone(variant, n: int, end_on_redeal: bool, steps: int, seed: int, clock) -> float:
    """Median seconds of a ``VectorEnv.step`` of ``n`` tables over ``steps`` steps with random legal actions."""
    from agents.loop import MAX_REDEALS
    from belote_env.vector import VectorEnv

    venv = VectorEnv(variant, num_tables=n, seed=seed, episode=variant.episode,
                     max_redeals=1 if end_on_redeal else MAX_REDEALS)
    _, mask, _ = venv.reset()
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(steps + 1):
        actions = np.argmax(mask * rng.random(mask.shape), axis=1)  # a random legal action per table
        t = clock()
        _, mask, *_ = venv.step(actions)
        runs.append(clock() - t)
    return statistics.median(runs[1:])


def opponents_alone(tables, times: int, clock) -> float:
    """Median seconds of the fixed opponents' decisions (``Runner.actions``) at the tables as they stand."""
    out = np.zeros(tables.n, dtype=np.int64)
    seeds = tables.agent_seeds()
    return _repeat(lambda: tables.runner.actions(tables.obs, tables.mask, tables.seat, out, seeds=seeds), times, clock)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/train/coinche.yaml")
    p.add_argument("--num-envs", type=int, default=0, help="tables, instead of the config's num_envs")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--aec-seconds", type=float, default=3.0)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="cpu: this process's CPU time (for a machine shared with other work)")
    ns = p.parse_args()
    clock = time.process_time if ns.clock == "cpu" else time.perf_counter

    import torch
    from bench_train import aec_rate

    from agents.neural.network import PolicyValueNet
    from agents.training import ppo
    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS
    from belote_env.variants import load_variant

    argv = ["--config", str(ROOT / ns.config)] + (["--num-envs", str(ns.num_envs)] if ns.num_envs else [])
    args, _, _ = ppo.parse_args(argv)
    torch.set_num_threads(1)  # collection's (ppo.collect runs on one thread)
    torch.manual_seed(0)
    net = PolicyValueNet(OBS_SIZE, args.hidden_sizes, NUM_ACTIONS, args.activation).eval()
    variant = load_variant(args.variant)
    tables = ppo.Collector(variant, args.num_envs, args.opponent_mix, np.random.default_rng(0), args.end_on_redeal)
    buf = ppo.Rollout(args.num_envs * args.num_steps)
    stats = {"return_team0": [], "return_team1": []}
    if ns.clock == "cpu":
        ppo.time.perf_counter = time.process_time  # collect's own timing, on the same clock
    ppo.collect(net, tables, buf, args.num_steps, stats)  # warm-up: numba's cache, allocator, first passes
    rows = []
    with torch.no_grad():
        for r in range(ns.rounds):
            timing = {}
            ppo.collect(net, tables, buf, args.num_steps, stats, timing)
            loop = {k: timing[k] / args.num_steps for k in PARTS}
            alone = {"forward": forward_alone(net, net.row_weights(), buf, 8, 20, clock),
                     "env": env_alone(variant, args.num_envs, args.end_on_redeal, 64, r, clock),
                     "opponents": opponents_alone(tables, 20, clock)}
            rows.append((loop, alone, float(np.mean(buf.per_step)), aec_rate(ns.aec_seconds, r, args.variant)))
            print(f"round {r + 1}/{ns.rounds} done", file=sys.stderr)
    med = statistics.median
    n = args.num_envs
    print(f"[{Path(ns.config).stem}, {n} tables, {med([x[2] for x in rows]):.0f} network rows a step, "
          f"{ns.clock} clock, medians of {ns.rounds} rounds]")
    print(f"{'part':12s} {'in collect':>12s} {'alone':>10s} {'ratio':>7s}   (µs per step of all the tables)")
    loop_total = 0.0
    for k in PARTS:
        lt = med([x[0][k] for x in rows]) * 1e6
        loop_total += lt
        if k in rows[0][1]:
            at = med([x[1][k] for x in rows]) * 1e6
            print(f"{k:12s} {lt:12.1f} {at:10.1f} {lt / at:6.2f}x")
        else:
            print(f"{k:12s} {lt:12.1f} {'-':>10s}")
    aec = med([x[3] for x in rows])
    ceiling = n / (sum(med([x[1][k] for x in rows]) for k in rows[0][1]))
    collect = n / (loop_total * 1e-6)
    print(f"collection: {collect:,.0f} steps/s, {collect / aec:.1f}x the wrapped AEC env ({aec:,.0f} steps/s)")
    print(f"ceiling (each part alone, no bookkeeping): {ceiling:,.0f} steps/s, {ceiling / aec:.1f}x the AEC env")


if __name__ == "__main__":
    main()
