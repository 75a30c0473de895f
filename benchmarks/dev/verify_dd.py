"""The double-dummy solver against exhaustive minimax on the rules core, in full: one line per setting.

    python benchmarks/dev/verify_dd.py [--n 2000] [--seed 0] [--jobs 2]

For each strain and play-switch setting of ``belote_env.search.verify.SETTINGS``
(hearts trump under the four overtrump_partner / undertrump settings, no trump
maison and officielles, all trumps): ``--n`` random endgames of 3 or 4
tricks, from any point of a trick, on which the solver's value of every legal
card must equal plain minimax over ``DealState.legal_actions`` / ``apply``,
the position's value must be the best card's, and a line of best play must be
legal in the rules core and realise that value. tests/belote_env/search runs 40 per
setting of the same check.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from belote_env.search.verify import SETTINGS, verify_setting  # noqa: E402


def _run(task):
    index, n, seed = task
    t = time.perf_counter()
    label, n, failures = verify_setting(index, n, seed)
    return label, n, failures, time.perf_counter() - t


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    tasks = [(i, args.n, args.seed) for i in range(len(SETTINGS))]
    bad = 0
    with Pool(args.jobs) as pool:
        for label, n, failures, secs in pool.imap(_run, tasks):
            bad += len(failures)
            print(f"{label}: {n - len(failures)}/{n} endgames agree ({secs:.0f} s)", flush=True)
            for f in failures[:5]:
                print("  FAIL", f)
    print("all agree" if bad == 0 else f"{bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
