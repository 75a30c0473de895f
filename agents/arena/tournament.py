"""The tournament command: ``python -m agents.arena.tournament`` or ``belote-tournament``.

A round-robin of duplicate matches (:mod:`agents.arena.match`) over any number of
agents (registry names or checkpoint paths) and variants, spread over
processes, then ratings (:mod:`agents.arena.ratings`) and reports
(:mod:`agents.arena.reports`); see ``docs/agents.md``. ``--ray`` plays the
chunks of pairs as Ray tasks (:mod:`agents.arena.ray_tasks`, ``docs/distributed.md``). The names of the match
engine are re-exported here for older imports (``from agents.arena.tournament
import duplicate_match``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from agents.arena.match import (  # noqa: F401  (re-exported)
    CHUNK_PAIRS,
    PAIRS_PER_BATCH,
    MatchResult,
    derive_seed,
    duplicate_match,
    pair_seating,
    pair_seed,
    pair_tables,
    play_pairs,
    round_robin,
    t_quantile_975,
)
from agents.arena.reports import rating_rows, stronger_first, text_table, write_deal_records, write_reports
from agents.cli import CommandParser, bootstrap_count, check_writable, nonnegative_int, pairs_count, positive_int
from agents.pretrained import variant_notes
from agents.workers import max_workers

# A worker process costs seconds to start (spawn, numba's cached kernels) while one process plays thousands
# of heuristic-v-random pairs a second, so the default spreads a tournament over processes only from 20,000
# pairs in all (docs/notes/distributed.md has the measurements).
AUTO_PARALLEL_PAIRS = 20_000


def auto_workers(total_pairs: int) -> int:
    """Default process count: 1 below AUTO_PARALLEL_PAIRS pairs (the pool's start-up would cost more), else all cores."""
    return 1 if total_pairs < AUTO_PARALLEL_PAIRS else max(1, os.cpu_count() or 1)


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.arena.tournament`` / ``belote-tournament``: round-robin, ratings, tables, plot."""
    from agents.arena.ratings import rate
    from belote_env.variants import load_variant

    p = CommandParser(
        prog="belote-tournament",
        description="Round-robin duplicate tournament between agents (agent specs: registered names, shipped "
                    "agents, checkpoint paths, module:factory).",
    )
    p.add_argument("agents", nargs="+", help="agent specs: 'random', 'heuristic', 'pimc[:options]', a shipped agent "
                   "('ppo_coinche'...), a checkpoint path (.pt), 'openspiel:ismcts', or module:factory")
    p.add_argument("--variant", "-v", nargs="+", default=["coinche"],
                   help="variant names (configs/variants) or YAML paths; one tournament each (default coinche)")
    p.add_argument("--pairs", "-n", type=pairs_count, default=1000, help="duplicate pairs per match (default 1000)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the deal set (default 0)")
    p.add_argument("--games", action="store_true", help="play whole games to the variant's target instead of single deals")
    p.add_argument("--workers", "-j", type=positive_int, default=None,
                   help="processes (default: one for small tournaments, where starting processes costs more than "
                        f"it saves, else all cores; 'small' is under {AUTO_PARALLEL_PAIRS} pairs in all)")
    p.add_argument("--ray", action="store_true",
                   help="run the chunks of pairs as Ray tasks (pip install 'belote_env[ray]'): on a local Ray with "
                        "-j CPUs (default all), or on the cluster at --address; same results as a local run")
    p.add_argument("--address", default=None,
                   help="with --ray: the Ray cluster to join ('auto' for the one 'ray start' runs here, or HOST:PORT)")
    p.add_argument("--bootstrap", type=bootstrap_count, default=200,
                   help="bootstrap replicates for the rating intervals (default 200)")
    p.add_argument("--anchor", default=None, help="agent rated 0 (default random if it plays, else the first)")
    p.add_argument("--out", type=Path, default=None, help="folder for <variant>.md/.json/.png and CSV files")
    p.add_argument("--record", type=Path, default=None, metavar="DIR",
                   help="keep the deals played as deal records, DIR/<variant>/<A>__<B>.jsonl (belote_env.rules.record)")
    p.add_argument("--record-pairs", type=positive_int, default=None, metavar="K",
                   help="with --record: keep only the K pairs of each match with the largest duplicate difference "
                        "(default: every pair)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
    command = "python -m agents.arena.tournament " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        if args.out is not None:
            check_writable(args.out)  # before the tournament, not after it
        if args.record is not None:
            check_writable(args.record)
        elif args.record_pairs is not None:
            raise ValueError("--record-pairs is for --record")
        variants = [load_variant(v) for v in args.variant]
        if args.anchor is not None and args.anchor not in args.agents:  # before the tournament, not after it
            raise ValueError(f"--anchor {args.anchor!r} is not one of the agents {args.agents}")
        n_matches = len(args.agents) * (len(args.agents) - 1) // 2
        if args.address is not None and not args.ray:
            raise ValueError("--address is for --ray")
        if args.ray:
            from agents.arena.ray_tasks import connect

            t0 = time.perf_counter()
            connect(args.address, args.workers)
            print(f"Ray: connected in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            workers = args.workers
        else:
            if args.workers and args.workers > max_workers():  # a Ray cluster may have more CPUs than this machine
                raise ValueError(f"--workers {args.workers}: at most {max_workers()} processes on this machine's "
                                 f"{os.cpu_count()} cores")
            workers = args.workers or auto_workers(n_matches * args.pairs)
        for variant in variants:
            for note in variant_notes(args.agents, variant.name):
                print(note, file=sys.stderr)
            t0 = time.perf_counter()
            matches = round_robin(args.agents, variant, args.pairs, args.seed, args.games, workers,
                                  progress=not args.no_progress, ray=args.ray, ray_address=args.address,
                                  record=args.record is not None)
            if args.record is not None:
                kept = write_deal_records(args.record, variant.name, matches, args.record_pairs)
                print(f"recorded {sum(kept.values()):,} deals in {args.record / variant.name}", file=sys.stderr)
            ratings = rate(matches, args.agents, args.anchor, args.bootstrap, args.seed)
            matches = stronger_first(matches, ratings)
            unit = "games" if args.games else "deals"
            print(f"\n== {variant.name}: {args.pairs} duplicate pairs per match, seed {args.seed}, "
                  f"{time.perf_counter() - t0:.1f} s ==")
            print(text_table(rating_rows(ratings, args.games)))
            print()
            print(text_table([m.row() for m in matches]))
            print(f"(ratings: Bradley-Terry on {unit} won, Elo scale, 95% bootstrap over pairs)")
            if args.out is not None:
                paths = write_reports(args.out, variant.name, matches, ratings, command, args.games, args.seed)
                print("wrote " + ", ".join(str(x) for x in paths.values()))
    except ValueError as e:
        print(f"belote-tournament: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the workers end with the pool
        print("belote-tournament: interrupted" + ("; the reports of the variants finished before it are written"
                                                  if args.out is not None and len(args.variant) > 1 else ""),
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
