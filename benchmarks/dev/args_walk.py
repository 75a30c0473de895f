"""How far a training run's options travel: the functions that receive its ``Args`` (agents.training.options).

    python benchmarks/dev/args_walk.py [--config configs/train/tiny.yaml] [--resume] [--list] [TRAIN OPTIONS]

    # every part of a run: warm start and expert fit, opponent pool, central critic, curves, resume
    python benchmarks/dev/args_walk.py --resume --bc-agent heuristic --bc-decisions 2000 --bc-epochs 1 \
        --expert-agent heuristic --expert-decisions 1000 --pool-fraction 0.2 --pool-every 1 --central-critic \
        --plot-curves

Runs one training (``train.py``'s ``main`` in this process, in a temporary runs folder, with the training options
given after this script's own; ``--resume`` then resumes it once more) under ``sys.setprofile`` and records every function called with an ``Args`` instance among its
arguments: the project's modules they live in, and the ``return`` statements of their bodies (what a reader
following ``args`` must read through). A reader who wants to know what an option does follows these; the
fewer modules and returns, the shorter the walk. ``--list`` prints each function.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import io
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def _returns(code) -> int:
    """``return`` statements in the body of the function of ``code`` (nested functions excluded)."""
    try:
        source = textwrap.dedent(inspect.getsource(code))
    except (OSError, TypeError):
        return 0
    fn = ast.parse(source).body[0]
    count, todo = 0, list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            count += 1
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return count


def walk(config: str, resume: bool, extra: list[str]) -> dict:
    """{(file, qualified name): code} of the project's functions called with an ``Args`` among their arguments."""
    try:
        from agents.training import ppo as trainer  # the trainer since 2026-12-07
        from agents.training.options import Args
    except ImportError:  # earlier trees: the trainer was train.py itself
        import train as trainer
        from train import Args

    seen: dict = {}

    def profile(frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        path = Path(code.co_filename)
        if REPO not in path.parents or "site-packages" in path.parts:
            return
        nargs = code.co_argcount + code.co_kwonlyargcount
        names = code.co_varnames[:nargs + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
        local = frame.f_locals
        for name in names:
            value = local.get(name)
            if isinstance(value, Args) or (isinstance(value, (tuple, dict)) and any(
                    isinstance(v, Args) for v in (value.values() if isinstance(value, dict) else value))):
                seen[(str(path.relative_to(REPO)), code.co_qualname)] = code
                return

    with tempfile.TemporaryDirectory() as runs:
        argv = ["--config", config, *extra, "--runs-dir", runs, "--run-name", "walk"]
        runs_of = [argv] + ([[*argv, "--resume", "--total-timesteps", "4096"]] if resume else [])
        for run in runs_of:
            sys.setprofile(profile)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    trainer.main(run)
            finally:
                sys.setprofile(None)
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/train/tiny.yaml")
    ap.add_argument("--resume", action="store_true", help="then resume the run once")
    ap.add_argument("--list", action="store_true", help="print every function")
    a, extra = ap.parse_known_args()
    seen = walk(a.config, a.resume, extra)
    modules = sorted({f for f, _ in seen})
    returns = {key: _returns(code) for key, code in seen.items()}
    if a.list:
        for (f, name), n in sorted(returns.items()):
            print(f"{f}:{name}  returns {n}")
    print(f"args reaches {len(seen)} functions in {len(modules)} modules, {sum(returns.values())} return statements")
    print("modules:", ", ".join(modules))


if __name__ == "__main__":
    main()
