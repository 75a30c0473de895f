"""How much the table's calls and cards tell about the hidden hands: uniform worlds against worlds weighted by a
policy (agents/beliefs.py), on held-out deals.

    python benchmarks/bench_beliefs.py [--variant coinche] [--policy ppo_coinche] [--deals 60] [--draws 100]

Deals are played by the policy at all four seats (greedy), from seeds the policy never trained on (1e9 + k). At
the observer's card decisions of tricks 1, 3, 5 and 7 (the observer turns round the table deal by deal), both
beliefs use the same ``--draws`` uniform worlds consistent with the observer's information; the weighted ones
weigh them by the policy's probability of every action the other seats took (agents.beliefs.weighted_worlds).
Printed per trick and overall: the mean log probability given to the true holder of each hidden card (higher is
better; log(1/3) = -1.10 is a blind guess among three seats), the weighted minus the uniform (the gain per card),
the effective number of worlds left by the weights (median), and the time to weigh the worlds of one decision.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.beliefs import card_log_likelihood, holder_probabilities, weighted_worlds  # noqa: E402
from belote_env.observation import action_mask, encode  # noqa: E402
from belote_env.rules.game import GameState  # noqa: E402
from belote_env.rules.info import info_state  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def play_deal(variant, agent, seed: int):
    """One deal played by ``agent`` at every seat on the rules core; None when everyone passed."""
    game = GameState(variant, seed=seed)
    deal = game.deal
    while deal.phase != "done":
        seat = deal.seat
        game.apply(agent.act(encode(game, seat), action_mask(game, seat), game.info_state(seat)))
    return deal if deal.contract is not None else None


def effective_worlds(logw: np.ndarray) -> float:
    w = np.exp(logw - logw.max())
    return float(w.sum() ** 2 / (w ** 2).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--policy", default="ppo_coinche", help="the model of the other seats' play (a neural agent)")
    ap.add_argument("--players", default=None,
                    help="the agent that plays the held-out deals at every seat (default: the policy itself)")
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--draws", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--beta", type=float, nargs="+", default=[1.0],
                    help="exponents on the policy's likelihood (log weights times beta); one column each")
    args = ap.parse_args()
    variant = load_variant(args.variant)
    agent = make_agent(args.policy)
    net = agent.net
    players = make_agent(args.players) if args.players else agent
    rows = {t: [] for t in (1, 3, 5, 7)}
    ess, times = [], []
    played = 0
    for k in range(args.deals):
        truth = play_deal(variant, players, 10**9 + args.seed * 10**6 + k)
        if truth is None:
            continue
        played += 1
        observer = k & 3
        st = truth.as_dealt()
        for a in truth.history:
            trick = len(st.tricks) + 1
            if st.phase == "play" and st.seat == observer and trick in rows:  # once a trick
                info = info_state(st, observer)
                rng = random.Random(f"{args.seed}/{k}/{trick}")
                t = time.perf_counter()
                worlds, logw = weighted_worlds(info, net, args.draws, rng)
                times.append(time.perf_counter() - t)
                ess.append([effective_worlds(b * logw) for b in args.beta])
                uniform = card_log_likelihood(holder_probabilities(worlds, np.zeros(len(worlds))), truth, info)
                weighted = [card_log_likelihood(holder_probabilities(worlds, b * logw), truth, info)
                            for b in args.beta]
                rows[trick].append((k, uniform, weighted))
            st.apply(a)
    print(f"{args.variant}: {played} deals played by {args.players or args.policy} at every seat (of {args.deals}; "
          f"the others: everyone passed), the policy {args.policy}, {args.draws} worlds a decision")
    print("gain per card of the weighted beliefs over the uniform ones (mean log probability of the true holder)")
    print("trick  decisions  uniform LL/card  " + "  ".join(f"beta={b:<5g}" for b in args.beta))
    every = []
    for trick, got in list(rows.items()) + [("all", None)]:
        got = every if got is None else got
        if not got:
            continue
        if trick != "all":
            every = every + got
        u = statistics.mean(r[1] for r in got)
        gains = [statistics.mean(r[2][j] for r in got) - u for j in range(len(args.beta))]
        print(f"{trick:>5}  {len(got):>9}  {u:>15.3f}  " + "  ".join(f"{g:>+10.3f}" for g in gains))
    print("effective worlds (median)                 " + "  ".join(
        f"{statistics.median(e[j] for e in ess):>10.1f}" for j in range(len(args.beta))) + f"  of {args.draws}")
    print(f"weighing one decision's worlds: median {1000 * statistics.median(times):.0f} ms")


if __name__ == "__main__":
    main()
