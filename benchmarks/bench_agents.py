"""Speed of the rule-based agents: decisions per second, one figure per line.

    python benchmarks/bench_agents.py [--deals 300] [--repeats 3] [--agents heuristic random]

For each agent and variant family: random deals played by the agent at all
four seats; the clock runs only around ``agent.act`` (``act``), and around
building the seat's InfoState plus ``act`` (``with InfoState``), which is what
a rules-core table pays per decision; then whole episodes of ``--tables``
engine tables through the play loop (``at engine tables``: what tournaments,
evaluation, training opponents and warm-start recording pay; an agent with a
kernel copy, ``Agent.act_rows``, is asked through it). Median of ``--repeats``
runs, min and max beside it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.loop import play_episodes  # noqa: E402
from belote_env.vector import VectorEnv  # noqa: E402
from belote_env.rules import DealState  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def run(agent, variant, deals: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    n, t_act, t_all = 0, 0.0, 0.0
    for k in range(deals):
        d = DealState.random(variant, k & 3, rng)
        while not d.is_over:
            t0 = time.perf_counter()
            info = d.info_state(d.seat)
            t1 = time.perf_counter()
            a = agent.act(None, None, info)
            t2 = time.perf_counter()
            t_act += t2 - t1
            t_all += t2 - t0
            d.apply(a)
            n += 1
    return n / t_act, n / t_all


def run_tables(agent, name: str, tables: int, seed: int) -> float:
    """Decisions/s of one episode at each of ``tables`` engine tables, the agent at every seat."""
    venv = VectorEnv(name, tables, seed=seed)
    t0 = time.perf_counter()
    episodes = play_episodes(venv, [agent], np.zeros((tables, 4), dtype=np.int64))
    return int(episodes.decisions.sum()) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--agents", nargs="*", default=["heuristic", "random"])
    ap.add_argument("--variants", nargs="*", default=["belote_classique", "coinche", "contree", "cobrecaf_81"])
    args = ap.parse_args()
    for spec in args.agents:
        agent = make_agent(spec)
        for name in args.variants:
            v = load_variant(name)
            run(agent, v, 2, 0)  # loads (or compiles) the agent's kernels outside the clock
            runs = [run(agent, v, args.deals, seed) for seed in range(args.repeats)]
            print(fmt(f"{spec} {name} act", [r[0] for r in runs], "decisions/s"), flush=True)
            print(fmt(f"{spec} {name} with InfoState", [r[1] for r in runs], "decisions/s"), flush=True)
            run_tables(agent, name, 4, 0)  # compiles the kernels outside the clock
            rates = [run_tables(agent, name, args.tables, seed) for seed in range(args.repeats)]
            print(fmt(f"{spec} {name} at engine tables", rates, "decisions/s"), flush=True)


if __name__ == "__main__":
    main()
