"""Speed of the PettingZoo AEC environment: one figure per line.

    python benchmarks/bench_env.py [--deals 500] [--repeats 5] [--variants coinche ...]

For every shipped variant: AEC steps per second of the standard loop with the
standard wrappers on (``belote_env.env``): ``agent_iter()``, ``last()``, a
uniformly random legal action drawn from the observation's action mask, and
``step()`` (the dead steps at the end of each deal count as steps, as
PettingZoo's loop makes them), resets included; then full deals per second
of that same loop. Last, for scale, the same loop on ``raw_env`` (no
wrappers) for coinche. Each figure is the median of ``--repeats`` runs, with
the min and max beside it; the process runs on one core (Python is single
threaded), so the figures are per core.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import belote_env  # noqa: E402
from common import fmt  # noqa: E402
from belote_env.variants import variant_names  # noqa: E402


def run_loop(e, deals: int, seed: int) -> tuple[int, float]:
    """Play ``deals`` episodes with masked random actions; returns (steps, seconds)."""
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t = time.perf_counter()
    for d in range(deals):
        e.reset(seed=seed * 1_000_003 + d)
        for _agent in e.agent_iter():
            observation, reward, termination, truncation, info = e.last()
            if termination or truncation:
                action = None
            else:
                action = choice(observation["action_mask"].nonzero()[0])
            e.step(action)
            steps += 1
    return steps, time.perf_counter() - t


def run_raw_loop(e, deals: int, seed: int) -> tuple[int, float]:
    """The same loop on an unwrapped env (no agent_iter / last helpers)."""
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t = time.perf_counter()
    for d in range(deals):
        e.reset(seed=seed * 1_000_003 + d)
        while e.agents:
            agent = e.agent_selection
            observation = e.observe(agent)
            if e.terminations[agent] or e.truncations[agent]:
                action = None
            else:
                action = choice(observation["action_mask"].nonzero()[0])
            e.step(action)
            steps += 1
    return steps, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=500, help="deals per run")
    ap.add_argument("--repeats", type=int, default=5, help="runs per figure")
    ap.add_argument("--variants", nargs="*", default=None, help="variant names (default: all shipped)")
    args = ap.parse_args()
    names = args.variants or variant_names()
    deal_rates = {}
    for name in names:
        e = belote_env.env(name)
        runs = [run_loop(e, args.deals, seed) for seed in range(args.repeats)]
        print(fmt(f"AEC steps/s {name} (env, agent_iter + last + masked random)", [s / t for s, t in runs], "steps/s"),
              flush=True)
        deal_rates[name] = [args.deals / t for _, t in runs]
    for name in names:
        print(fmt(f"AEC deals/s {name} (env, full deals incl. bidding and redeals)", deal_rates[name], "deals/s"),
              flush=True)
    e = belote_env.raw_env("coinche")
    runs = [run_raw_loop(e, args.deals, seed) for seed in range(args.repeats)]
    print(fmt("AEC steps/s coinche (raw_env, no wrappers)", [s / t for s, t in runs], "steps/s"), flush=True)


if __name__ == "__main__":
    main()
