"""Node counts (deterministic) and CPU time of full-deal solves on fixed deals, one line per deal with -v.

    python benchmarks/dev/dd_nodes.py [--deals 30] [--strain hearts|notrump|alltrump] [--seed 0] [-v] [--values]

The deals are the same as bench_dd.py's (seed ``{seed}:{strain}``, one 3-trick warm-up drawn first);
``--tricks K`` plays them at random down to K tricks left, ``--all-cards`` times ``values_of`` (every legal card).
``--values`` prints each deal's value, to compare two versions of the solver.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from belote_env.rules.cards import ALL_TRUMP, HEARTS, NO_TRUMP  # noqa: E402

STRAINS = {"hearts": HEARTS, "notrump": NO_TRUMP, "alltrump": ALL_TRUMP}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=30)
    p.add_argument("--strain", default="hearts", choices=sorted(STRAINS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip", type=int, default=0, help="skip this many deals first")
    p.add_argument("--only", type=str, default="", help="comma separated deal indices to solve")
    p.add_argument("--tt", type=int, default=20)
    p.add_argument("--tricks", type=int, default=8, help="tricks left in the positions (8: full deals)")
    p.add_argument("--all-cards", action="store_true", help="values_of (every legal card) rather than value_of")
    p.add_argument("-v", action="store_true")
    p.add_argument("--values", action="store_true")
    args = p.parse_args()
    from common import dd_positions

    from belote_env.search import Position, Solver

    solver = Solver(log2_tt=args.tt)
    warm, positions = dd_positions(STRAINS[args.strain], args.seed, args.tricks)
    t = time.process_time()
    solver.value(warm)  # compile
    solver.values(warm)
    print(f"compile {time.process_time() - t:.1f} s cpu", file=sys.stderr)
    only = {int(x) for x in args.only.split(",") if x}
    cpu, nodes = [], []
    for i in range(args.skip + args.deals):
        st = next(positions)
        if i < args.skip or (only and i not in only):
            continue
        pos = Position(st)
        t = time.process_time()
        val = solver.values_of(pos) if args.all_cards else solver.value_of(pos)
        dt = time.process_time() - t
        cpu.append(dt)
        nodes.append(solver.nodes)
        if args.v or args.values:
            iters = int(solver.ctx[solver._dd.C_ITERS])
            print(f"deal {i}: value {val} nodes {solver.nodes:,} iters {iters} tthits {int(solver.ctx[solver._dd.C_TTHITS]):,} cpu {1000 * dt:.1f} ms", flush=True)
    ms = [1000 * x for x in cpu]
    print(f"{args.strain}: {len(ms)} deals, nodes total {sum(nodes):,} mean {statistics.mean(nodes):,.0f} "
          f"median {statistics.median(nodes):,.0f} max {max(nodes):,}; cpu mean {statistics.mean(ms):,.1f} ms "
          f"median {statistics.median(ms):,.1f} ms max {max(ms):,.1f} ms; {sum(nodes) / max(sum(cpu), 1e-9):,.0f} nodes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
