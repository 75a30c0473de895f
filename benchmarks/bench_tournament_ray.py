"""Duplicate tournament speed: one process (-j 1), the local process pool (-j N) and Ray tasks.

    pip install -e ".[ray]"
    python benchmarks/bench_tournament_ray.py [--pairs 2000] [--cpus 2] [--repeats 3] [--address ADDR]

The round-robin of ``heuristic`` against ``random`` (coinche, seed 0) timed
around ``agents.arena.match.round_robin``: in this process, on a process pool of
``--cpus`` workers, and as Ray tasks on a local Ray with ``--cpus`` CPUs (or
on the cluster at ``--address``). Ray is started and its workers warmed up
(one tournament) before the clock runs; the start-up is printed apart. The
runs alternate (-j 1, pool, Ray, -j 1, ...) so load from other processes
hits all three alike; the speed-ups are the ratios of the medians, and each
Ray result is checked equal to the -j 1 one.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from agents.arena.ray_tasks import connect  # noqa: E402
from agents.arena.match import round_robin  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def timed(**kw) -> tuple[float, object]:
    t0 = time.perf_counter()
    [r] = round_robin(["heuristic", "random"], kw.pop("variant"), kw.pop("pairs"), seed=0, progress=False, **kw)
    return time.perf_counter() - t0, r


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--address", default=None)
    args = ap.parse_args(argv)
    variant = load_variant("coinche")
    t0 = time.perf_counter()
    connect(args.address, None if args.address else args.cpus)
    t1 = time.perf_counter()
    warm, _ = timed(variant=variant, pairs=args.pairs, ray=True, ray_address=args.address)
    print(f"Ray start-up {t1 - t0:.1f} s, first tournament (workers starting) {warm:.2f} s")
    times = {"-j 1": [], f"pool -j {args.cpus}": [], f"ray {args.cpus} CPUs": []}
    for _ in range(args.repeats):
        t, ref = timed(variant=variant, pairs=args.pairs, workers=1)
        times["-j 1"].append(t)
        t, _ = timed(variant=variant, pairs=args.pairs, workers=args.cpus)
        times[f"pool -j {args.cpus}"].append(t)
        t, r = timed(variant=variant, pairs=args.pairs, ray=True, ray_address=args.address)
        times[f"ray {args.cpus} CPUs"].append(t)
        assert np.array_equal(r.pair_diffs, ref.pair_diffs), "Ray and -j 1 results differ"
    base = statistics.median(times["-j 1"])
    for label, runs in times.items():
        med = statistics.median(runs)
        print(f"{label}: {args.pairs} pairs in {med:.2f} s median (min {min(runs):.2f}, max {max(runs):.2f}, "
              f"{len(runs)} runs), {args.pairs / med:,.0f} pairs/s, speed-up {base / med:.2f}x")


if __name__ == "__main__":
    main()
