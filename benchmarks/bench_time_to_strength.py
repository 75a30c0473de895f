"""Time to strength: the wall-clock minutes a training run took to reach a result against an opponent.

    python benchmarks/bench_time_to_strength.py RUN_DIR [RUN_DIR ...] [--opponent heuristic] [--targets 30 60]
                                                [--pairs 2000] [--seed 0] [--stride 1]

For each run folder of ``train.py``, every ``--stride``-th checkpoint it kept (``ckpt_<update>.pt``: keep them
with ``--keep-checkpoints``) plays a duplicate match of ``--pairs`` pairs against ``--opponent`` (deal seed
``--seed``; the same deals for every checkpoint), and the curve is printed with each checkpoint's minutes of
training (``elapsed_s``: the warm start included, the process start-up not). A target counts as reached at the
first checkpoint whose mean is at or above it with its 95% interval's low end above ``target - 15`` (for +60:
an interval above +45). The run's own periodic evaluations (``eval_pairs`` pairs, noisy) are printed beside.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def periodic(run_dir: Path, opponent: str) -> list[tuple[int, float]]:
    """(step, points per deal) of the run's periodic evaluations against ``opponent`` (none if not logged)."""
    from agents.training.curves import read_scalars

    steps, values = read_scalars(run_dir).get(f"eval/{opponent}/points_per_deal", ((), ()))
    return list(zip((int(s) for s in steps), (float(v) for v in values)))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", type=Path, help="run folders of train.py (runs/<run_name>)")
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--targets", nargs="+", type=float, default=[30.0, 60.0], help="points per deal")
    p.add_argument("--pairs", type=int, default=2000, help="duplicate pairs per checkpoint")
    p.add_argument("--seed", type=int, default=0, help="seed of the matches' deals")
    p.add_argument("--stride", type=int, default=1, help="evaluate every N-th kept checkpoint (the last always)")
    a = p.parse_args()
    if a.pairs < 2 or a.stride < 1:
        print("error: --pairs must be at least 2 and --stride at least 1", file=sys.stderr)
        return 2
    import torch

    from agents.arena.match import duplicate_match
    from agents.registry import make_agent
    from belote_env.variants import load_variant

    opponent = make_agent(a.opponent)
    for run in a.runs:
        kept = sorted((run / "checkpoints").glob("ckpt_*.pt"))
        if not kept:
            print(f"error: {run} has no ckpt_*.pt checkpoints", file=sys.stderr)
            return 2
        chosen = kept[::a.stride] + ([kept[-1]] if (len(kept) - 1) % a.stride else [])
        logged = dict(periodic(run, a.opponent))
        print(f"{run.name}: {len(chosen)} of {len(kept)} checkpoints, {a.pairs} pairs each against {a.opponent}")
        print(f"  {'minutes':>7} {'step':>12} {'points/deal':>11} {'95% CI':>17} {'periodic':>9}")
        reached = {}
        for path in chosen:
            ckpt = torch.load(path, weights_only=True)
            variant = load_variant(ckpt["args"]["variant"])
            r = duplicate_match(make_agent(str(path)), opponent, variant, a.pairs, seed=a.seed).to_dict()
            minutes, step = ckpt.get("elapsed_s", 0.0) / 60, int(ckpt["global_step"])
            seen = f"{logged[step]:+9.1f}" if step in logged else f"{'':>9}"
            print(f"  {minutes:7.1f} {step:12,} {r['mean_diff']:+11.1f} "
                  f"{'[%+.1f, %+.1f]' % (r['ci_low'], r['ci_high']):>17} {seen}")
            for target in a.targets:
                if target not in reached and r["mean_diff"] >= target and r["ci_low"] > target - 15:
                    reached[target] = (minutes, step, r)
        for target in a.targets:
            if target in reached:
                minutes, step, r = reached[target]
                print(f"  {target:+.0f} reached after {minutes:.1f} minutes (step {step:,}): {r['mean_diff']:+.1f} "
                      f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]")
            else:
                print(f"  {target:+.0f} not reached")
    return 0


if __name__ == "__main__":
    sys.exit(main())
