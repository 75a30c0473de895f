"""Soak test of the batched engine: VectorEnv against the rules core, bit for bit.

    python benchmarks/dev/soak_vector.py [--steps 1000000] [--tables 64] [--variants coinche ...] [--episode deal]

For every shipped variant file, steps ``--tables`` tables with uniformly
random legal actions until ``--steps`` table-steps were played, and compares
at every step the seat, observation, mask, each seat's reward, done and the
finished episodes' results with the rules core and the reference encoder
(``belote_env.lockstep.lockstep``). Prints one line per variant; the first
difference stops the run with the table's position in the rules core's
notation. Not part of the test suite (``tests/belote_env/fast/`` runs 50,000 steps per
file).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tqdm import tqdm  # noqa: E402

from belote_env.lockstep import lockstep  # noqa: E402
from belote_env.variants import variant_names  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1_000_000, help="table-steps per variant file")
    ap.add_argument("--tables", type=int, default=64, help="tables stepped together")
    ap.add_argument("--episode", choices=("deal", "game"), default="deal")
    ap.add_argument("--reward", choices=("score_diff", "win"), default="score_diff")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", nargs="*", default=None, help="variant names (default: all shipped)")
    args = ap.parse_args()
    if args.steps < args.tables or args.tables < 1:
        ap.error("--steps must be at least --tables, and --tables at least 1")
    for name in args.variants or variant_names():
        t = time.perf_counter()
        rounds = args.steps // args.tables
        with tqdm(total=rounds * args.tables, desc=name, unit="step", unit_scale=True, leave=False) as bar:
            counts = lockstep(name, rounds, args.tables, seed=args.seed, reward=args.reward, episode=args.episode,
                              action_seed=args.seed, progress=lambda k: bar.update(k * args.tables))
        print(f"{name}: {counts['steps']:,} steps, {counts['episodes']:,} episodes ({args.episode}, {args.reward}) "
              f"identical to the rules core in {time.perf_counter() - t:,.0f} s", flush=True)


if __name__ == "__main__":
    main()
