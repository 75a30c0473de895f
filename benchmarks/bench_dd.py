"""Speed of the double-dummy solver and of the pimc agent: one figure per line.

    python benchmarks/bench_dd.py [--deals 200] [--pimc-pairs 20] [--jobs 2] [--seed 0] [--pimc pimc:tricks=7]
                                  [--variant coinche]

- Full-deal solve: ``--deals`` random deals per strain (hearts trump, no trump,
  all trumps; coinche rules, the first seat bids 80 in the strain, nobody has
  played), the value of the position (``Solver.value``: one search, exact) at
  the first lead, on one core per strain: mean, median, p99 and max in ms, and
  nodes per second. Strains run in parallel processes (``--jobs``), each on its
  own core when the machine has them free.
- pimc at its default options, or the agent ``--pimc`` names (``search``...):
  the milliseconds of each decision of the agent, asked one at a time as at a
  single table, over ``--pimc-pairs`` duplicate pairs against the heuristic in
  ``--variant`` (coinche): all decisions, and the card decisions that search
  (the others are the base agent's). Compilation is done before timing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from agents.arena.timing import percentile  # noqa: E402
from belote_env.rules.cards import ALL_TRUMP, HEARTS, NO_TRUMP  # noqa: E402

STRAINS = (("hearts", HEARTS), ("no trump", NO_TRUMP), ("all trump", ALL_TRUMP))


def solve_deals(task):
    label, strain, n, seed = task
    from common import dd_positions

    from belote_env.search import Position, Solver

    solver = Solver()
    warm, positions = dd_positions(strain, seed)
    solver.value(warm)  # compile
    times, nodes = [], []
    for _ in range(n):
        pos = Position(next(positions))
        t = time.perf_counter()
        solver.value_of(pos)
        times.append(time.perf_counter() - t)
        nodes.append(solver.nodes)
    return label, times, nodes


def pimc_times(pairs: int, seed: int, spec: str = "pimc", variant: str = "coinche"):
    """The milliseconds of each decision of the agent ``spec`` (pimc or search), one decision at a time as at
    a single table, over ``pairs`` duplicate pairs against the heuristic: all its decisions, and its
    searched card decisions (``agents.arena.timing.decision_times``, the ladder's figures)."""
    from agents import make_agent
    from agents.arena.timing import decision_times
    from belote_env.search import Solver
    from belote_env.search.reference import play_position
    from belote_env.variants import load_variant

    v = load_variant(variant)
    Solver(log2_tt=10).values(play_position(v, 1, random.Random(0), tricks_left=3))  # compile
    return decision_times(make_agent(spec), v, pairs, seed)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--pimc-pairs", type=int, default=20)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pimc", default="pimc", help="the pimc agent spec timed (default: its default options), "
                                                   "e.g. pimc:tricks=7 or search")
    p.add_argument("--variant", default="coinche", help="the variant of the timed agent's pairs (default coinche)")
    args = p.parse_args()
    tasks = [(label, strain, args.deals, args.seed) for label, strain in STRAINS] if args.deals else []
    with Pool(args.jobs) as pool:
        for label, times, nodes in pool.imap(solve_deals, tasks):
            ms = [1000 * t for t in times]
            print(f"full-deal solve, {label}, {len(ms)} deals: mean {statistics.mean(ms):,.1f} ms, "
                  f"median {statistics.median(ms):,.1f} ms, p99 {percentile(ms, 0.99):,.1f} ms, max {max(ms):,.1f} ms")
            print(f"nodes/s, {label}: {sum(nodes) / sum(times):,.0f} (mean {statistics.mean(nodes):,.0f} nodes a deal)")
    if args.pimc_pairs:
        all_ms, search_ms = pimc_times(args.pimc_pairs, args.seed, args.pimc, args.variant)
        for label, xs in (("all decisions", all_ms), ("searched card decisions", search_ms)):
            if not xs:
                print(f"{args.pimc}: no {label} (it does not search)")
                continue
            print(f"{args.pimc} ms per decision, {label} ({len(xs)}): median {statistics.median(xs):.1f}, "
                  f"mean {statistics.mean(xs):.1f}, p99 {percentile(xs, 0.99):.1f}, max {max(xs):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
