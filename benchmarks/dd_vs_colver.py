"""Our double-dummy solver and colver's, side by side on the same full deals (``pip install colver``).

    python benchmarks/dd_vs_colver.py [--deals 50] [--seed 0]

For each trump suit (spades, hearts, diamonds, clubs), ``--deals`` random deals
(``random.Random(f"{seed}:{suit}")``, dealer ``i % 4``) at the first lead of
their play, bid 80 in the suit by the seat after the dealer, under the
``contree`` variant's card play (the rules ``vs_colver.py`` checks are colver's).
Both solvers give the value of every legal card of the seat to lead, with best
play by four seats that see every hand and a capot scoring 252:

- colver: ``Env.deal_with_hands``, ``set_contract``, ``set_phase_playing``,
  ``solve_scores()`` (its ``scores``: the card points of seats 0 and 2 at the
  end of the deal, 0 to 252);
- ours: ``Solver(capot_bonus=90).diffs_of`` (team 0's take minus team 1's), read
  on colver's scale with ``Position.take(diff, 0, 90)``.

Every card's value must be the same: a difference stops the run and prints the
deal. Each deal is solved by both, one after the other (the first of the two
alternates from deal to deal), on one core, each solver's compilation and first
call done before timing. Printed per suit and over all deals: each solver's
milliseconds per deal (mean, median, p99), our time over colver's (total time,
and the median of the per-deal ratios).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from agents.arena.timing import percentile  # noqa: E402
from belote_env.rules.cards import CARD_NAMES, SUIT_LETTERS  # noqa: E402

CAPOT_BONUS = 90  # colver's capot scores 252: 162 + 90


def deals(suit: int, n: int, seed: int):
    """``n`` deals for ``suit``: ``(dealer, hands)``, hands as four sorted lists of our card ids."""
    rng = random.Random(f"{seed}:{suit}")
    for i in range(n):
        cards = list(range(32))
        rng.shuffle(cards)
        yield i % 4, [sorted(cards[8 * k:8 * k + 8]) for k in range(4)]


def our_position(variant, dealer: int, hands: list, suit: int):
    """The deal at the first lead of its play, 80 in ``suit`` bid by the seat after the dealer."""
    from belote_env.rules.actions import PASS, bid_action
    from belote_env.rules.state import DealState
    from belote_env.search import Position

    state = DealState.from_hands(variant, dealer, [" ".join(CARD_NAMES[c] for c in h) for h in hands])
    state.apply(bid_action(80, suit))
    for _ in range(3):
        state.apply(PASS)
    return Position(state)


def colver_env(dealer: int, hands: list, suit: int):
    """colver's ``Env`` at the same point of the same deal."""
    import colver
    from vs_colver import card_to_colver

    env = colver.Env.deal_with_hands(dealer, [sorted(card_to_colver(c) for c in h) for h in hands])
    env.set_contract(suit, 80, (dealer + 1) & 1, 0)
    env.set_phase_playing()
    return env


def colver_scores(env) -> dict[int, int]:
    """Each legal card (our id) -> the card points of seats 0 and 2 at the end, from colver's solve."""
    from vs_colver import card_to_ours

    return {card_to_ours(c): v for c, v in env.solve_scores()["scores"]}


def our_scores(solver, pos) -> dict[int, int]:
    """Each legal card -> the card points of seats 0 and 2 at the end (a capot 252), from our solve."""
    return {c: pos.take(d, 0, CAPOT_BONUS) for c, d in solver.diffs_of(pos).items()}


def compare(suit: int, n: int, seed: int) -> tuple[list[float], list[float]]:
    """Solve ``n`` deals of ``suit`` with both solvers: (colver's seconds, ours), deal by deal. SystemExit at
    the first card whose values differ."""
    from belote_env.search import Solver
    from belote_env.variants import load_variant

    variant = load_variant("contree")
    solver = Solver(capot_bonus=CAPOT_BONUS)
    theirs, ours = [], []
    for i, (dealer, hands) in enumerate(deals(suit, n, seed)):
        pos = our_position(variant, dealer, hands, suit)
        env = colver_env(dealer, hands, suit)
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            t = time.perf_counter()
            if side == 0:
                a = colver_scores(env)
                theirs.append(time.perf_counter() - t)
            else:
                b = our_scores(solver, pos)
                ours.append(time.perf_counter() - t)
        if a != b:
            cards = " / ".join(" ".join(CARD_NAMES[c] for c in h) for h in hands)
            raise SystemExit(f"error: the solvers differ on {SUIT_LETTERS[suit]} deal {i} (dealer {dealer}; {cards}):\n"
                             f"  colver: {_named(a)}\n  ours:   {_named(b)}")
    return theirs, ours


def _named(values: dict[int, int]) -> str:
    return ", ".join(f"{CARD_NAMES[c]} {v}" for c, v in sorted(values.items()))


def warm_up(seed: int) -> None:
    """Compile our kernels and make colver's first call before anything is timed."""
    compare(0, 2, seed + 1)


def _ms(xs: list[float]) -> str:
    ms = [1000 * x for x in xs]
    return f"mean {statistics.mean(ms):6.1f} ms, median {statistics.median(ms):6.1f}, p99 {percentile(ms, 0.99):6.1f}"


def report(label: str, theirs: list[float], ours: list[float]) -> None:
    ratios = sorted(o / t for o, t in zip(ours, theirs))
    print(f"{label}, {len(ours)} deals: colver {_ms(theirs)} | ours {_ms(ours)} | ours / colver: total "
          f"{sum(ours) / sum(theirs):.2f}x, per deal median {statistics.median(ratios):.2f}x", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=50, help="deals per trump suit (default 50)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.deals < 1:
        p.error(f"--deals must be at least 1, got {args.deals}")
    try:
        import colver
    except ImportError:
        print("error: colver is not installed: pip install colver", file=sys.stderr)
        return 2
    print(f"colver {getattr(colver, '__version__', '(version unknown)')}: every legal card's value at the first "
          f"lead, {args.deals} deals per trump suit, seed {args.seed}", flush=True)
    warm_up(args.seed)
    all_theirs, all_ours = [], []
    for suit, name in enumerate(("spades", "hearts", "diamonds", "clubs")):
        theirs, ours = compare(suit, args.deals, args.seed)
        report(name, theirs, ours)
        all_theirs += theirs
        all_ours += ours
    report("all suits", all_theirs, all_ours)
    print("values: identical on every legal card of every deal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
