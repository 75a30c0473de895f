"""How much more a double-dummy declarer takes than one who plays without seeing the cards (pimc's ``bid_margin``).

    python benchmarks/dev/dd_bid_margin.py [--deals 40] [--seed 1] [-v coinche]

Each deal: the seat to bid takes the contract at 80 in its best strain by the heuristic's estimate, the others
pass; then the DD take of its team from the first lead, and the take when all four seats play it out with
``pimc`` (default options). Prints the means and the mean gap.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-v", "--variant", default="coinche")
    args = p.parse_args()
    from agents.heuristic import estimate_points
    from agents.pimc import _team_take, make_pimc
    from belote_env.rules.actions import PASS, bid_action
    from belote_env.rules.state import DealState
    from belote_env.search import Solver
    from belote_env.variants import load_variant

    variant = load_variant(args.variant)
    if variant.bidding != "auction":
        p.error(f"{args.variant} has no auction (bidding: {variant.bidding})")
    rng = random.Random(args.seed)
    solver = Solver(log2_tt=18)
    players = [make_pimc() for _ in range(4)]
    dd, played = [], []
    for d in range(args.deals):
        st = DealState.random(variant, d % 4, rng)
        seat = st.seat
        strain = max(variant.strains, key=lambda s: estimate_points(st.hands[seat], s, variant))
        st.apply(bid_action(80, strain))
        while st.phase == "bidding":
            st.apply(PASS)
        team = seat & 1
        dd.append(_team_take(solver, st, team))
        while st.phase == "play":
            st.apply(players[st.seat].act(None, None, st.info_state(st.seat)))
        played.append(st.points[team])
    gap = [a - b for a, b in zip(dd, played)]
    print(f"{args.deals} deals of {args.variant}: declarer's DD take {statistics.mean(dd):.1f}, "
          f"played by pimc {statistics.mean(played):.1f}; gap mean {statistics.mean(gap):+.1f}, "
          f"sd {statistics.stdev(gap):.1f} (95% interval of the mean "
          f"+-{1.96 * statistics.stdev(gap) / len(gap) ** 0.5:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
