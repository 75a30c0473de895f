"""A duplicate match played in resumable chunks: for long matches of slow agents (pimc).

    python benchmarks/dev/pimc_match.py pimc heuristic -v coinche -n 1000 [--jobs 2] [--minutes 9] [--out results/pimc]

The same pairs, seeds and figures as ``python -m agents.arena.tournament A B -v V -n N``
(``agents.arena.match.play_pairs`` over ranges of ``PAIRS_PER_BATCH`` = 128 pairs, merged): each chunk's
result is saved under ``--out/<A>_<B>_<variant>/`` as soon as it is played, a
run stops starting chunks after ``--minutes``, and the next run plays only the
missing ones. Prints the merged result of the chunks played so far.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agents.arena.match import PAIRS_PER_BATCH, MatchResult  # noqa: E402

CHUNK = PAIRS_PER_BATCH


def _play(task):
    spec_a, spec_b, variant_name, start, stop, seed = task
    from agents.arena.match import _worker_agent, play_pairs
    from belote_env.variants import load_variant

    a, b = _worker_agent(spec_a), _worker_agent(spec_b)
    return play_pairs(a, b, load_variant(variant_name), start, stop, seed, label_a=spec_a, label_b=spec_b)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("-v", "--variant", default="coinche")
    p.add_argument("-n", "--pairs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--minutes", type=float, default=9.0)
    p.add_argument("--out", default="results/pimc")
    args = p.parse_args()
    folder = Path(args.out) / f"{args.a}_{args.b}_{args.variant}".replace(":", "-").replace(",", "-").replace("=", "")
    folder.mkdir(parents=True, exist_ok=True)
    todo = [(s, min(s + CHUNK, args.pairs)) for s in range(0, args.pairs, CHUNK)
            if not (folder / f"{s}.pkl").exists()]
    deadline = time.time() + 60 * args.minutes
    tasks = [(args.a, args.b, args.variant, s, e, args.seed) for s, e in todo]
    t0 = time.time()
    if tasks:
        with Pool(args.jobs) as pool:
            pending = []
            it = iter(tasks)
            for _ in range(args.jobs):
                task = next(it, None)
                if task:
                    pending.append(pool.apply_async(_play, (task,)))
            while pending:
                res = pending.pop(0).get()
                with open(folder / f"{res.pair_start}.pkl", "wb") as f:
                    pickle.dump(res, f)
                print(f"pairs {res.pair_start}..{res.pair_start + res.pairs - 1}: {res.mean_diff:+.1f} "
                      f"({time.time() - t0:.0f} s)", flush=True)
                if time.time() < deadline:
                    task = next(it, None)
                    if task:
                        pending.append(pool.apply_async(_play, (task,)))
    parts = []
    for f in sorted(folder.glob("*.pkl"), key=lambda f: int(f.stem)):
        with open(f, "rb") as fh:
            parts.append(pickle.load(fh))
    expect, contiguous = 0, []
    for r in parts:
        if r.pair_start != expect:
            break
        contiguous.append(r)
        expect += r.pairs
    if contiguous:
        m = MatchResult.merge(contiguous)
        print(m.row())
        print(f"pairs played: {m.pairs} of {args.pairs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
