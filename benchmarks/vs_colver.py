"""Duplicate matches of our agents against colver's bots, on colver's rules (``pip install colver``).

    python benchmarks/vs_colver.py AGENT [--colver isdd] [--worlds 4] [--pairs 400] [--seed 0] [-j 2]

colver (a Rust Belote contrée engine with Python bindings, not a dependency of
this project) plays plain contrée: four suits, auction 80..160 and capot,
coinche and surcoinche, no declarations, belote-rebelote. Each deal is refereed
by colver's own ``Env``, so the rules and the scores are colver's ("points
faits + points demandés", the multiplier on the contract only, nothing rounded;
a failed contract gives the defense 162 plus the contract). The same deal is
mirrored move by move in our rules core under the ``contree`` variant (the same
card play, the same auction), from which our agent (any spec of
``agents.make_agent``) sees its ``InfoState`` and observation as at our tables.
At every decision the two engines' legal sets are compared: a difference stops
the run and prints the position.

Duplicate pairs as in ``agents.arena.match``: pair ``i`` is colver's deal from
seed ``pair_seed(seed, i)`` with dealer ``i % 4``, played once with our agent at
seats 0 and 2 and once at seats 1 and 3. Printed: the mean of our team's score
minus colver's per deal with its 95 % interval, scored by colver's rules and by
our ``contree`` variant's (the same deals), the contracts taken and made, and
the milliseconds of each decision of both sides (one decision at a time, one
core per process; ``-j`` processes share the pairs).

colver's bots are specs in its TOML format. ``--colver isdd`` (default) is its
IS-DD: double-dummy search over ``--worlds`` sampled worlds per card (drawn
uniformly among those consistent with what the seat saw: colver's world model
needs a GPU service), its ``improved_v2`` bidding, DD solves on one thread.
``--colver heuristic`` is its rule-based bot; ``--colver FILE.toml`` any spec.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena.match import MatchResult, derive_seed, pair_seed  # noqa: E402
from agents.arena.timing import percentile  # noqa: E402
from belote_env.rules.actions import (  # noqa: E402
    COINCHE,
    NUM_ACTIONS,
    PASS,
    SURCOINCHE,
    action_name,
    bid_action,
    bid_strain,
    bid_value,
    is_bid,
)
from belote_env.rules.cards import CARD_NAMES  # noqa: E402

# colver's cards: 8 * suit + rank, suits S H D C as ours, ranks 7 8 9 J Q K 10 A (ours: 7 8 9 10 J Q K A).
_RANK_TO_OURS = (0, 1, 2, 4, 5, 6, 3, 7)
_RANK_TO_COLVER = tuple(_RANK_TO_OURS.index(r) for r in range(8))
# colver's calls: 0 pass, 1..36 value index * 4 + suit + 1 (80..160), 37..40 capot, 41 coinche, 42 surcoinche.
_CAPOT, _COINCHE, _SURCOINCHE = 37, 41, 42

ISDD = """[bid]
strategy = "improved_v2"
[play]
method = "isdd"
time_ms = 0
determinizations = {worlds}
parallel = false
[worlds]
source = "uniform"
"""
HEURISTIC = """[bid]
strategy = "improved_v2"
[play]
method = "heuristic"
"""


def card_to_ours(card: int) -> int:
    return 8 * (card >> 3) + _RANK_TO_OURS[card & 7]


def card_to_colver(card: int) -> int:
    return 8 * (card >> 3) + _RANK_TO_COLVER[card & 7]


def to_ours(action: int, bidding: bool) -> int:
    """Our action id of colver's ``action`` (a call while ``bidding``, else a card)."""
    if not bidding:
        return card_to_ours(action)
    if action == 0:
        return PASS
    if action == _COINCHE:
        return COINCHE
    if action == _SURCOINCHE:
        return SURCOINCHE
    if action >= _CAPOT:
        return bid_action(250, action - _CAPOT)
    return bid_action(80 + 10 * ((action - 1) // 4), (action - 1) % 4)


def to_colver(action: int) -> int:
    """colver's action id of our ``action`` (the inverse of :func:`to_ours`)."""
    if action < 32:
        return card_to_colver(action)
    if action == PASS:
        return 0
    if action == COINCHE:
        return _COINCHE
    if action == SURCOINCHE:
        return _SURCOINCHE
    if not is_bid(action) or bid_strain(action) > 3 or bid_value(action) > 250:
        raise ValueError(f"{action_name(action)} has no colver equivalent")
    value = bid_value(action)
    if value == 250:
        return _CAPOT + bid_strain(action)
    return 1 + 4 * ((value - 80) // 10) + bid_strain(action)


def colver_spec(name: str, worlds: int) -> str:
    if name == "isdd":
        return ISDD.format(worlds=worlds)
    if name == "heuristic":
        return HEURISTIC
    path = Path(name)
    if not path.is_file():
        raise SystemExit(f"error: --colver takes isdd, heuristic or a TOML file of a colver bot spec, got {name!r}")
    return path.read_text()


_OURS = {}


def _our_agent(spec: str):
    agent = _OURS.get(spec)
    if agent is None:
        from agents.registry import make_agent

        agent = _OURS[spec] = make_agent(spec)
        if "torch" in sys.modules:  # one core per process, as colver's bot (its DD solves on one thread)
            sys.modules["torch"].set_num_threads(1)
    return agent


def play_table(agent, bot_spec: str, variant, deal_seed: int, dealer: int, ours: int, seed: int) -> dict:
    """One deal of colver's ``Env`` (seed ``deal_seed``) with ``agent`` at seats ``ours``, ``ours + 2`` and
    colver's bot at the other two, mirrored in our rules core under ``variant``: both engines' team scores,
    the taker's team and whether it made, and the seconds of each decision of each side."""
    import colver
    import numpy as np

    from belote_env.observation import encode
    from belote_env.rules.game import GameState
    from belote_env.rules.state import DealState

    env = colver.Env.deal(dealer=dealer, seed=deal_seed)
    hands = [" ".join(CARD_NAMES[card_to_ours(c)] for c in hand) for hand in env.get_hands()]
    game = GameState(variant, seed=0, dealer=dealer)
    game.deal = DealState.from_hands(variant, dealer, hands)
    bots = {s: colver.Agent(bot_spec, s, seed=derive_seed("colver", seed, s) & 0xFFFFFFFF)
            for s in (1 - ours, 3 - ours)}
    for bot in bots.values():
        bot.init_deal(env)
    agent.reset(derive_seed("ours", seed))
    times = {"ours": [], "colver": []}
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    while not env.is_terminal():
        seat = env.current_player()
        bidding = env.phase() == 0
        legal = sorted(to_ours(a, bidding) for a in env.legal_actions())
        if seat != game.current_seat or legal != game.legal_actions():
            names = [action_name(a) for a in game.legal_actions()]
            raise SystemExit(f"error: colver and the '{variant.name}' rules differ at this position: "
                             f"{game.deal.format()}\n  colver: seat {seat}, legal {[action_name(a) for a in legal]}\n"
                             f"  ours: seat {game.current_seat}, legal {names}")
        t0 = time.perf_counter()
        if seat in bots:
            action = to_ours(bots[seat].decide(env)["action"], bidding)
            times["colver"].append(time.perf_counter() - t0)
        else:
            info = game.info_state(seat)
            mask[:] = 0
            mask[legal] = 1
            obs = encode(game, seat) if agent.needs_observation else None
            action = int(agent.act(obs, mask, info))
            times["ours"].append(time.perf_counter() - t0)
        for bot in bots.values():
            bot.observe(env, to_colver(action))
        env.step(to_colver(action))
        game.apply(action)
    if not game.deal.is_over:
        raise SystemExit(f"error: colver's deal is over and ours is not: {game.deal.format()}")
    result = game.deal.result
    contract = env.get_contract()
    taken = result.outcome != "redeal"
    return {
        "colver": [float(x) for x in env.rewards()],
        "ours": [float(x) for x in result.scores],
        "taker": int(contract["team"]) if taken else -1,
        "made": taken and result.outcome == "made",
        "times": times,
    }


def play_pairs(task) -> list[dict]:
    """Worker: pairs ``start .. stop - 1``; per pair, its two tables (ours at seats 0/2, then 1/3)."""
    spec, bot_spec, variant_name, seed, start, stop = task
    from belote_env.variants import load_variant

    variant = load_variant(variant_name)
    agent = _our_agent(spec)
    out = []
    for i in range(start, stop):
        deal_seed = pair_seed(seed, i) & 0xFFFFFFFFFFFFFFFF
        out.append([play_table(agent, bot_spec, variant, deal_seed, i % 4, ours, derive_seed(seed, i, ours))
                    for ours in (0, 1)])
    return out


def match_result(pairs: list, scoring: str, label_a: str, label_b: str, variant: str, seed: int) -> MatchResult:
    """The duplicate statistics of our agent (A) against colver's bot (B), on ``scoring``'s scores."""
    diffs, wins = [], []
    taken_a = made_a = taken_b = made_b = 0
    for tables in pairs:
        d = w = 0.0
        for ours, t in enumerate(tables):
            sa, sb = t[scoring][ours], t[scoring][1 - ours]
            d += (sa - sb) / 2
            w += 0.5 + (sa > sb) / 2 - (sa < sb) / 2
            if t["taker"] == ours:
                taken_a += 1
                made_a += t["made"]
            elif t["taker"] >= 0:
                taken_b += 1
                made_b += t["made"]
        diffs.append(d)
        wins.append(w)
    return MatchResult.from_pairs(label_a, label_b, variant, False, seed, diffs, wins, taken_a, made_a, taken_b, made_b)


def _ms(xs: list[float]) -> str:
    xs = [1000 * x for x in xs]
    if not xs:
        return "no decisions"
    return (f"{len(xs)} decisions, median {statistics.median(xs):.1f} ms, p99 {percentile(xs, 0.99):.1f} ms, "
            f"max {max(xs):.1f} ms")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("agent", help="our agent: a registry spec or checkpoint path (search, ppo_contree, pimc...)")
    p.add_argument("--colver", default="isdd", help="colver's bot: isdd (default), heuristic, or a TOML spec file")
    p.add_argument("--worlds", type=int, default=4, help="IS-DD's sampled worlds per decision (default 4)")
    p.add_argument("--variant", default="contree", help="our variant the deal is mirrored in (default contree)")
    p.add_argument("--pairs", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-j", "--jobs", type=int, default=1, help="processes (default 1)")
    args = p.parse_args(argv)
    try:
        import colver
    except ImportError:
        print("error: colver is not installed: pip install colver", file=sys.stderr)
        return 2
    if args.pairs < 1 or args.jobs < 1 or args.worlds < 1:
        p.error("--pairs, --jobs and --worlds must be at least 1")
    bot_spec = colver_spec(args.colver, args.worlds)
    label_b = colver.Agent(bot_spec, 0).label
    from agents.errors import AgentSpecError

    try:
        _our_agent(args.agent)  # a bad spec fails here, before any worker starts
    except AgentSpecError as e:
        p.error(str(e))
    step = max(1, min(25, -(-args.pairs // args.jobs)))
    tasks = [(args.agent, bot_spec, args.variant, args.seed, s, min(s + step, args.pairs))
             for s in range(0, args.pairs, step)]
    t0 = time.perf_counter()
    pairs: list = []
    with contextlib.ExitStack() as stack:
        if args.jobs == 1:
            chunks = map(play_pairs, tasks)
        else:  # spawn: no fork of torch's or colver's threads
            chunks = stack.enter_context(mp.get_context("spawn").Pool(args.jobs)).imap(play_pairs, tasks)
        for chunk in chunks:
            pairs += chunk
            print(f"  {len(pairs)}/{args.pairs} pairs, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    wall = time.perf_counter() - t0
    print(f"{args.agent} vs colver {colver.__version__} '{label_b}', {args.pairs} duplicate pairs, seed {args.seed}, "
          f"{wall:.0f} s on {args.jobs} process(es)")
    for scoring, what in (("colver", "colver's scores"), ("ours", f"our '{args.variant}' scores")):
        r = match_result(pairs, scoring, args.agent, label_b, args.variant, args.seed)
        print(f"  {what}: {r.mean_diff:+.1f} [{r.ci_low:+.1f}, {r.ci_high:+.1f}] points a deal, "
              f"deals won {100 * r.win_rate:.1f}%")
    print(f"  contracts: ours made {r.made_a} of {r.taken_a}, colver's made {r.made_b} of {r.taken_b}")
    for side, label in (("ours", args.agent), ("colver", label_b)):
        print(f"  time per decision, {label}: {_ms([x for tables in pairs for t in tables for x in t['times'][side]])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
