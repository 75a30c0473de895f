"""The ladder command, ``belote-ladder`` / ``python -m agents.arena.ladder``: plays what the cache lacks
(:mod:`~agents.arena.ladder.schedule`), rates every family, writes the reports and, with ``--docs``, the page
(:mod:`~agents.arena.ladder.page`)."""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from agents.arena.errors import LadderError
from agents.arena.ladder.cache import MatchCache, decision_ms, verify_cache
from agents.arena.ladder.lineup import FAMILIES, anchor_of, check_agent, family_agents
from agents.arena.ladder.page import FamilyResult, results_page
from agents.arena.ladder.schedule import Job, play_jobs
from agents.arena.match import CHUNK_PAIRS
from agents.arena.reports import rating_rows, stronger_first, text_table, write_reports
from agents.cli import CommandParser, bootstrap_count, check_writable, nonnegative_int, pairs_count, workers_count
from agents.files import write_text
from belote_env.rules.errors import BeloteError

DEFAULT_PAIRS = 2000
DEFAULT_BOOTSTRAP = 200
DEFAULT_OUT = Path("docs/results")
DEFAULT_DOCS = Path("docs/results.md")
INCOMPLETE = 3  # exit status: stopped by --max-minutes with pairs left
DEFAULT_TIMING_PAIRS = 20


def canonical_command(args, prog: str = "python -m agents.arena.ladder") -> str:
    """The command line that gives these results (run-control options, -j and --max-minutes, left out)."""
    parts = [prog]
    if list(args.families) != list(FAMILIES):
        parts += ["--families", *args.families]
    if args.agents is not None:
        parts += ["--agents", *args.agents]
    parts += ["--pairs", str(args.pairs), "--seed", str(args.seed)]
    if args.bootstrap != DEFAULT_BOOTSTRAP:
        parts += ["--bootstrap", str(args.bootstrap)]
    if args.timing_pairs != DEFAULT_TIMING_PAIRS:
        parts += ["--timing-pairs", str(args.timing_pairs)]
    for flag, value, default in (("--out", args.out, DEFAULT_OUT), ("--cache", args.cache, None)):
        if value is not None and value != default:
            parts += [flag, str(value)]
    if args.docs is not None:
        parts += ["--docs"] if args.docs == DEFAULT_DOCS else ["--docs", str(args.docs)]
    return " ".join(parts)


# ----------------------------------------------------------------------------- the command

def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"expected a number of minutes >= 0, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="belote-ladder",
        description="Every family's round-robin of random, heuristic, pimc and its shipped trained agents; "
                    "ratings, reports and docs/results.md. Resumable: finished chunks of 128 pairs are cached.",
    )
    p.add_argument("--families", "-f", nargs="+", default=list(FAMILIES), metavar="FAMILY",
                   help=f"families to play (default all: {' '.join(FAMILIES)})")
    p.add_argument("--agents", "-a", nargs="+", default=None, metavar="AGENT",
                   help="agents of every family's round-robin instead of random heuristic pimc pretrained "
                        "('pretrained': the family's shipped trained agents)")
    p.add_argument("--pairs", "-n", type=pairs_count, default=DEFAULT_PAIRS,
                   help=f"duplicate pairs per match (default {DEFAULT_PAIRS})")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the deal set (default 0)")
    p.add_argument("--workers", "-j", type=workers_count, default=1,
                   help="processes playing chunks of 128 pairs (default 1; same results for any number)")
    p.add_argument("--max-minutes", type=_minutes, default=None, metavar="M",
                   help="start no new chunk after M minutes (chunks in play end and are saved); rerun to go on. "
                        "Exit status 3 while pairs are left")
    p.add_argument("--dry-run", action="store_true", help="list the matches, what is cached and what is left; play nothing")
    p.add_argument("--verify", action="store_true",
                   help="re-check every file of the cache (format, agents' weights, each chunk's ranges, values and "
                        "digest); play and write nothing. Exit status 1 when a file has a problem")
    p.add_argument("--timing-pairs", type=nonnegative_int, default=DEFAULT_TIMING_PAIRS, metavar="K",
                   help="duplicate pairs against the heuristic over which each agent's time per decision is measured, "
                        f"one decision at a time (default {DEFAULT_TIMING_PAIRS}; 0: no timing on the page)")
    p.add_argument("--bootstrap", type=bootstrap_count, default=DEFAULT_BOOTSTRAP,
                   help=f"bootstrap replicates for the rating intervals (default {DEFAULT_BOOTSTRAP})")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help=f"folder of the per-family reports <family>.md/.json/.png/CSV (default {DEFAULT_OUT})")
    p.add_argument("--docs", type=Path, nargs="?", const=DEFAULT_DOCS, default=None, metavar="FILE",
                   help=f"also write the page FILE ({DEFAULT_DOCS} when no FILE is given) with each agent's time per "
                        "decision; without --docs only the reports under --out are written")
    p.add_argument("--cache", type=Path, default=None,
                   help="folder of the match cache (default OUT/ladder)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.arena.ladder`` / ``belote-ladder``."""
    args = parser().parse_args(argv)
    try:
        return run(args)
    except BeloteError as e:  # LadderError, AgentSpecError, VariantError...: one line, no traceback
        print(f"belote-ladder: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the workers end with the pool; every chunk played so far is in the cache
        print("belote-ladder: interrupted; the chunks already played are cached: the same command goes on from "
              "them", file=sys.stderr)
        return 130


def run(args) -> int:
    from agents.arena.ratings import rate
    from belote_env.variants import load_variant

    t0 = time.monotonic()
    if args.verify:
        lines, checked, problems = verify_cache(args.cache if args.cache is not None else args.out / "ladder")
        print("\n".join(lines))
        print(f"{checked} match files checked, {problems} with a problem")
        return 1 if problems else 0
    unknown = [f for f in args.families if f not in FAMILIES]
    if unknown:
        raise LadderError(f"unknown famil{'ies' if len(unknown) > 1 else 'y'} {', '.join(map(repr, unknown))}: "
                          f"the families are {', '.join(FAMILIES)}")
    families = list(dict.fromkeys(args.families))
    cache_dir = args.cache if args.cache is not None else args.out / "ladder"
    lineup = {f: family_agents(f, args.agents) for f in families}
    for spec in dict.fromkeys(s for specs in lineup.values() for s in specs):
        check_agent(spec)
    if not args.dry_run:
        check_writable(args.out, "--out", LadderError)
        check_writable(cache_dir, "--cache", LadderError)
        if args.docs is not None:
            check_writable(args.docs.parent, "--docs", LadderError)
            if args.docs.is_dir():
                raise LadderError(f"--docs {str(args.docs)!r} is a folder, not a file")
    variants = {f: load_variant(f) for f in families}
    matches = {f: [MatchCache.open(cache_dir, f, specs[x], specs[y])
                   for x in range(len(specs)) for y in range(x + 1, len(specs))]
               for f, specs in lineup.items()}
    jobs = [Job(m, variants[f], s, e) for f in families for m in matches[f] for s, e in m.missing(args.seed, args.pairs)]
    for line in (line for f in families for m in matches[f] for line in m.replay_notes()):
        print(line)

    total = sum(len(matches[f]) for f in families) * args.pairs
    left = sum(j.stop - j.start for j in jobs)
    if args.dry_run:
        rows = [{"family": f, "A": m.agent_a, "B": m.agent_b,
                 "pairs cached": f"{m.played(args.seed, args.pairs)} of {args.pairs}",
                 "minutes of play cached": f"{m.seconds(args.seed, args.pairs) / 60:.1f}",
                 "cache file": str(m.path)} for f in families for m in matches[f]]
        print(text_table(rows))
        print(f"\n{left:,} of {total:,} pairs left to play ({len(jobs)} chunks of up to {CHUNK_PAIRS} pairs); "
              f"seed {args.seed}")
        return 0

    deadline = t0 + 60 * args.max_minutes if args.max_minutes is not None else math.inf
    if jobs:
        print(f"{left:,} of {total:,} pairs to play in {len(jobs)} chunks on {args.workers} process"
              f"{'es' if args.workers > 1 else ''}", flush=True)
        play_jobs(jobs, args.seed, args.pairs, args.workers, deadline, not args.no_progress)

    command = canonical_command(args)
    done: list[FamilyResult] = []
    waiting = []
    for f in families:
        missing = [m for m in matches[f] if m.missing(args.seed, args.pairs)]
        if missing:
            waiting.append(f"{f}: {len(missing)} of {len(matches[f])} matches unfinished, "
                           f"{sum(args.pairs - m.played(args.seed, args.pairs) for m in missing):,} pairs left")
            continue
        results = [m.result(args.seed, args.pairs) for m in matches[f]]
        for m, r in zip(matches[f], results):
            m.remember(r)
        ratings = rate(results, lineup[f], anchor_of(lineup[f]), args.bootstrap, args.seed)
        ordered = stronger_first(results, ratings)
        paths = write_reports(args.out, f, ordered, ratings, command, False, args.seed)
        print(f"\n== {f}: {args.pairs} duplicate pairs per match, seed {args.seed} ==")
        print(text_table(rating_rows(ratings)))
        print()
        print(text_table([m.row() for m in ordered]))
        print("wrote " + ", ".join(str(x) for x in paths.values()))
        timing = None
        if args.timing_pairs and args.docs is not None:  # shown on the page only
            timing = {a: decision_ms(cache_dir, f, a, variants[f], args.timing_pairs, args.seed) for a in lineup[f]}
        done.append(FamilyResult(f, lineup[f], ordered, ratings, paths.get("png"),
                                 sum(m.seconds(args.seed, args.pairs) for m in matches[f]), timing, args.timing_pairs))
    if waiting:
        print(f"\nstopped after {args.max_minutes:g} minutes with pairs left; run the same command again to go on:"
              if args.max_minutes is not None else "\npairs left:")
        for line in waiting:
            print("  " + line)
        if args.docs is not None:
            print(f"({args.docs} is written once every match is played)")
        return INCOMPLETE
    if args.docs is None:
        print(f"\nno page written: add --docs to write {DEFAULT_DOCS} ({(time.monotonic() - t0) / 60:.1f} minutes)")
        return 0
    text = results_page(done, command, args.docs, cache_dir, args.pairs, args.seed, args.bootstrap, args.agents)
    try:
        write_text(args.docs, text)
    except OSError as e:
        raise LadderError(f"--docs {str(args.docs)!r} cannot be written: {e.strerror or e}") from None
    print(f"\nwrote {args.docs} ({(time.monotonic() - t0) / 60:.1f} minutes)")
    left_out = [f for f in FAMILIES if f not in families]
    if left_out:
        print(f"note: the page covers {', '.join(families)} only; run without --families to put "
              f"{', '.join(left_out)} back (matches already cached are not played again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
