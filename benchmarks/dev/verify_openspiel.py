"""OpenSpiel's ``python_belote`` against the rules core, in full: one line per family.

    python benchmarks/dev/verify_openspiel.py [--deals 10000] [--seed 0] [--variants NAME ...]

For each variant (default: one per family), ``--deals`` random deal episodes of the OpenSpiel game (uniform
chance and legal actions) are replayed on ``DealState.from_hands`` from the cards its chance nodes dealt
(``belote_env.integrations.openspiel.verify_against_rules_core``): the seat to act and the legal actions at every
step, the chance outcomes and the returns must agree. tests/belote_env/integrations/test_openspiel.py runs 150
deals per family of the same check.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from belote_env.integrations.openspiel import verify_against_rules_core  # noqa: E402

FAMILIES = ("belote_classique", "coinche", "contree", "cobrecaf_81")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variants", nargs="+", default=list(FAMILIES))
    args = p.parse_args(argv)
    failed = 0
    for name in args.variants:
        t = time.perf_counter()
        problems = verify_against_rules_core(name, args.deals, args.seed)
        failed += len(problems)
        print(f"{name:<28} {args.deals} deals  {len(problems)} disagreements  {time.perf_counter() - t:.1f} s",
              flush=True)
        for line in problems[:5]:
            print("   ", line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
