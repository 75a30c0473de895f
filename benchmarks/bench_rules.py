"""Speed of the pure-Python rules core: one figure per line.

    python benchmarks/bench_rules.py [--deals 2000] [--repeats 5]

For every shipped variant: random full deals per second (deal, bidding and
card play with uniformly random legal actions, scoring included); then
legal_actions() calls per second on positions taken from random deals. Each
figure is the median of ``--repeats`` runs, with the min and max beside it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from belote_env.rules import DealState, play_random_deal  # noqa: E402
from common import fmt  # noqa: E402
from belote_env.variants import load_variant, variant_names  # noqa: E402


def deals_per_second(variant, n: int, seed: int) -> float:
    rng = random.Random(seed)
    t = time.perf_counter()
    for i in range(n):
        play_random_deal(variant, rng, i & 3)
    return n / (time.perf_counter() - t)


def legal_calls_per_second(variant, n_positions: int, seed: int) -> float:
    rng = random.Random(seed)
    positions: list[DealState] = []
    while len(positions) < n_positions:
        st = DealState.random(variant, 0, rng)
        while not st.is_over:
            if rng.random() < 0.2:
                positions.append(st.clone())
            st.apply(rng.choice(st.legal_actions()))
    t = time.perf_counter()
    for st in positions:
        st._legal = None  # time the computation, not the cache
        st.legal_actions()
    return len(positions) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=2000, help="random deals per run")
    ap.add_argument("--repeats", type=int, default=5, help="runs per figure")
    ap.add_argument("--variants", nargs="*", default=None, help="variant names (default: all shipped)")
    args = ap.parse_args()
    names = args.variants or variant_names()
    for name in names:
        v = load_variant(name)
        runs = [deals_per_second(v, args.deals, seed) for seed in range(args.repeats)]
        print(fmt(f"random deals/s {name}", runs, "deals/s"), flush=True)
    v = load_variant("coinche")
    runs = [legal_calls_per_second(v, 20000, seed) for seed in range(args.repeats)]
    print(fmt("legal_actions calls/s coinche", runs, "calls/s"), flush=True)


if __name__ == "__main__":
    main()
