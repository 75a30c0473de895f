"""``belote-eval AGENT``: rate any agent on the ladder's scale, in minutes.

The ladder (:mod:`agents.arena.ladder`, ``docs/results.md``) rates a fixed line-up per family by a round-robin
of 2,000 duplicate pairs per match. Rating one more agent by replaying that round-robin would cost hours; here
the line-up is a frozen reference pool instead:

- the pool's own matches are read from the ladder's cache (``docs/results/ladder``, shipped with the
  repository), never replayed, and the pool's ratings are exactly those of ``docs/results.md``;
- only the new agent's matches are played, one against each pool agent (``--pairs`` duplicate pairs, default
  the ladder's 2,000, on the ladder's deals: seed 0), and cached as the ladder caches (``--cache``, default
  ``runs/eval``): a rerun plays only what is missing, new weights (or a changed ``module:factory`` module)
  replay their matches;
- the agent's rating is fitted against the pool's ratings held fixed
  (:func:`agents.arena.ratings.rate_against_pool`), with a 95 % bootstrap interval over the duplicate pairs of
  its matches and of the pool's, and placed among the ladder's agents.

An agent of the pool (``ppo_coinche``...) is rated as a newcomer: its matches against the rest of the pool are
played again, on the same deals (pair for pair the ladder's figures where neither agent draws random numbers:
``ppo_coinche`` against ``heuristic`` and ``search``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from agents.arena.errors import LadderError
from agents.arena.ladder.cache import SHIPPED_CACHE, MatchCache
from agents.arena.ladder.command import DEFAULT_BOOTSTRAP, DEFAULT_PAIRS
from agents.arena.ladder.lineup import FAMILIES, anchor_of, check_agent, family_agents
from agents.arena.ladder.schedule import Job, play_jobs
from agents.arena.reports import file_stem, md_table, no_nan, rating_rows, text_table
from agents.cli import CommandParser, bootstrap_count, check_writable, pairs_count, workers_count
from agents.files import write_text
from belote_env.rules.errors import BeloteError

LADDER_SEED = 0  # the ladder's deals (belote-ladder's default seed): the pool's matches were played on them
POOL_PAIRS = DEFAULT_PAIRS  # pairs of each pool match: the ladder's
DEFAULT_EVAL_PAIRS = DEFAULT_PAIRS  # the ladder's: its figures, pair for pair where the agents are deterministic
DEFAULT_CACHE = Path("runs/eval")
DEFAULT_LADDER_CACHE = SHIPPED_CACHE


def pool_matches(ladder_cache: Path, family: str) -> tuple[list[str], list]:
    """The family's ladder line-up and its round-robin's results (``POOL_PAIRS`` pairs, the ladder's seed),
    read from the ladder's cache; a LadderError saying what to run when any of it is missing or stale."""
    lineup = family_agents(family)
    results = []
    for x in range(len(lineup)):
        for y in range(x + 1, len(lineup)):
            m = MatchCache.open(ladder_cache, family, lineup[x], lineup[y])
            left = POOL_PAIRS - m.played(LADDER_SEED, POOL_PAIRS)
            if m.stale or m.dropped or left:
                why = m.stale or (m.dropped[0] if m.dropped else f"{left:,} of its {POOL_PAIRS:,} pairs are not cached")
                raise LadderError(f"the ladder's match {lineup[x]} v {lineup[y]} in {family} cannot be read from "
                                  f"{str(ladder_cache)!r} ({why}); play it with: belote-ladder --families {family}"
                                  + ("" if ladder_cache == DEFAULT_LADDER_CACHE else f" --cache {ladder_cache}"))
            results.append(m.result(LADDER_SEED, POOL_PAIRS))
    return lineup, results


def placement(pool, rating) -> tuple[int, str]:
    """Where ``rating`` would sit among the pool's ratings (best first): its rank, 1-based, and a sentence."""
    others = [r for r in pool if r.agent != rating.agent]
    rank = 1 + sum(r.rating > rating.rating for r in others)
    above = [r for r in others if r.rating > rating.rating]
    below = [r for r in others if r.rating <= rating.rating]
    parts = []
    if above:
        parts.append(f"below {above[-1].agent} ({above[-1].rating:+.0f})")
    if below:
        parts.append(f"above {below[0].agent} ({below[0].rating:+.0f})")
    return rank, f"rank {rank} of {len(others) + 1}, " + " and ".join(parts)


def marked_rows(table, mine, label: str) -> list[dict]:
    """The rating table's rows (:func:`~agents.arena.reports.rating_rows`), the evaluated agent's named ``label``."""
    rows = rating_rows(table)
    rows[table.index(mine)]["agent"] = label
    return rows


def parser() -> CommandParser:
    p = CommandParser(
        prog="belote-eval",
        description="Rate an agent against the ladder's frozen reference pool of a family (the agents of "
                    "docs/results.md): only the agent's own matches are played, on the ladder's deals.")
    p.add_argument("agent", help="agent spec: a registered name ('heuristic', 'pimc:worlds=8'), a shipped agent "
                   "('ppo_coinche'), a checkpoint path (.pt) or module:factory")
    p.add_argument("--family", "-f", default="coinche", help=f"the pool's family: {', '.join(FAMILIES)} (default coinche)")
    p.add_argument("--pairs", "-n", type=pairs_count, default=DEFAULT_EVAL_PAIRS,
                   help=f"duplicate pairs against each pool agent (default {DEFAULT_EVAL_PAIRS}; the ladder plays "
                        f"{POOL_PAIRS})")
    p.add_argument("--workers", "-j", type=workers_count, default=None, help="processes (default: every core)")
    p.add_argument("--bootstrap", type=bootstrap_count, default=DEFAULT_BOOTSTRAP,
                   help=f"bootstrap replicates for the interval (default {DEFAULT_BOOTSTRAP})")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                   help=f"where the agent's matches are cached (default {DEFAULT_CACHE})")
    p.add_argument("--ladder-cache", type=Path, default=DEFAULT_LADDER_CACHE,
                   help="the ladder's cache, read only (default: the repository's docs/results/ladder)")
    p.add_argument("--out", type=Path, default=None, help="folder for <agent>_<family>.json and .md")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    """``belote-eval`` / ``python -m agents.arena.evaluate``."""
    args = parser().parse_args(argv)
    try:
        return run(args, "belote-eval " + " ".join(sys.argv[1:] if argv is None else argv))
    except BeloteError as e:  # LadderError, AgentSpecError, VariantError...: one line, no traceback
        print(f"belote-eval: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the workers end with the pool; every chunk played so far is in the cache
        print("belote-eval: interrupted; the chunks already played are cached: the same command goes on from them",
              file=sys.stderr)
        return 130


def run(args, command: str) -> int:
    from agents.arena.ratings import rate_against_pool
    from agents.pretrained import variant_notes
    from belote_env.variants import load_variant

    t0 = time.monotonic()
    if args.family not in FAMILIES:
        raise LadderError(f"unknown family {args.family!r}: the families are {', '.join(FAMILIES)}")
    check_agent(args.agent)
    lineup, pool = pool_matches(args.ladder_cache, args.family)
    check_writable(args.cache, "--cache", LadderError)
    if args.out is not None:
        check_writable(args.out, "--out", LadderError)
    for note in variant_notes([args.agent], args.family):
        print(note, file=sys.stderr)
    opponents = [a for a in reversed(lineup) if a != args.agent]  # the slowest (search, pimc) first: even load
    variant = load_variant(args.family)
    matches = [MatchCache.open(args.cache, args.family, args.agent, o) for o in opponents]
    for line in (line for m in matches for line in m.replay_notes()):
        print(line, file=sys.stderr)
    jobs = [Job(m, variant, s, e) for m in matches for s, e in m.missing(LADDER_SEED, args.pairs)]
    if jobs:
        left = sum(j.stop - j.start for j in jobs)
        workers = min(args.workers or os.cpu_count() or 1, len(jobs))
        print(f"{args.agent} in {args.family}: {left:,} of {len(matches) * args.pairs:,} pairs to play against "
              f"{len(opponents)} pool agents, on {workers} process{'es' if workers > 1 else ''}", flush=True)
        play_jobs(jobs, LADDER_SEED, args.pairs, workers, progress=not args.no_progress)
    results = [m.result(LADDER_SEED, args.pairs) for m in matches]
    ratings, mine = rate_against_pool(pool, lineup, anchor_of(lineup), results, args.agent, args.bootstrap, LADDER_SEED)
    rank, where = placement(ratings, mine)
    seconds = time.monotonic() - t0
    table = sorted([r for r in ratings if r.agent != args.agent] + [mine], key=lambda r: -r.rating)
    rows = marked_rows(table, mine, f"{args.agent} (evaluated)")
    print(f"\n== {args.family}: {args.agent} against the ladder's pool, {args.pairs:,} duplicate pairs per match "
          f"(pool: {POOL_PAIRS:,} per match, from {args.ladder_cache}) ==")
    print(text_table(rows))
    print()
    print(text_table([m.row() for m in results]))
    print(f"\n{args.agent}: {mine.rating:+.0f} [{mine.low:+.0f}, {mine.high:+.0f}] ({where} in docs/results.md's "
          f"{args.family} ratings; {seconds / 60:.1f} min)")
    if args.out is not None:
        paths = write_eval(args.out, args.agent, args.family, args.pairs, command, table, mine, results, rank, where)
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def write_eval(out: Path, agent: str, family: str, pairs: int, command: str, table, mine, results, rank: int,
               where: str) -> list[Path]:
    """``<agent>_<family>.json`` (every figure) and ``.md`` (the tables) in ``out``."""
    stem = f"{file_stem(agent)}_{family}"
    data = {"command": command, "agent": agent, "family": family, "pairs": pairs, "seed": LADDER_SEED,
            "pool_pairs": POOL_PAIRS, "rating": mine.to_dict(), "rank": rank, "placement": where,
            "ratings": [r.to_dict() for r in table], "matches": [m.to_dict() for m in results]}
    rows = marked_rows(table, mine, f"**{agent}** (evaluated)")
    md = [f"# {agent} in {family}", "", f"`{command}`", "",
          f"Rated against the ladder's pool held fixed ({POOL_PAIRS:,} pairs per pool match, seed {LADDER_SEED}); "
          f"{pairs:,} duplicate pairs against each pool agent. {agent}: "
          f"{mine.rating:+.0f} [{mine.low:+.0f}, {mine.high:+.0f}], {where}.", "",
          md_table(rows), "", md_table([m.row() for m in results]), ""]
    json_path, md_path = out / f"{stem}.json", out / f"{stem}.md"
    write_text(json_path, json.dumps(no_nan(data), indent=1, allow_nan=False) + "\n")
    write_text(md_path, "\n".join(md))
    return [json_path, md_path]


if __name__ == "__main__":
    sys.exit(main())
