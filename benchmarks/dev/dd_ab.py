"""A/B of versions of the double-dummy kernels in one process, the deals alternated between them.

    python benchmarks/dev/dd_ab.py [REV_OR_FILE ...] [--strain notrump] [--deals 40] [--rounds 2] [--skip 0] [--tt 20]

Compares this tree's ``belote_env/search/dd.py`` with each other version named: a git revision
(its ``dd.py``) or the path of a variant file. Each version is imported as a module of the package
``belote_env.search`` from a file in a temporary folder (so that its relative imports resolve; nothing is written
into the package, and the folder and its numba cache are removed at the end), and every deal of
``bench_dd.py`` (the same seed and positions) is solved by each version in turn, the order
reversed from one deal to the next and from one round to the next, so that the machine's drift
falls on all of them alike. Prints, per version: the nodes of the first round (exact, the same
every run), the CPU mean per deal of each round (``time.process_time``), their min and median,
and whether its values equal the first version's.

On a shared machine wall-clock figures of separate runs differ by 10 to 20%; rounds of one run
differ by about 5%. A change smaller than the spread of its rounds is none.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from belote_env.rules.cards import ALL_TRUMP, HEARTS, NO_TRUMP  # noqa: E402

STRAINS = {"hearts": HEARTS, "notrump": NO_TRUMP, "alltrump": ALL_TRUMP}
SEARCH = ROOT / "belote_env" / "search"


def _source(name: str) -> str:
    """The text of a version: this tree's dd.py (``tree``), a variant file, or a git revision's dd.py."""
    if name == "tree":
        return (SEARCH / "dd.py").read_text()
    path = Path(name)
    if path.is_file():
        return path.read_text()
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"{name}:belote_env/search/dd.py"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ValueError(f"{name!r} is neither a file nor a git revision with belote_env/search/dd.py "
                         f"({done.stderr.strip()})")
    return done.stdout


def _load_version(source: str, stem: str, folder: Path):
    """``source`` imported as the module ``belote_env.search.<stem>`` from a file in ``folder``: its relative
    imports (``..fast.kernels``) resolve in the package, and numba caches it beside that file, not in the package."""
    path = folder / f"{stem}.py"
    path.write_text(source)
    name = f"belote_env.search.{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("versions", nargs="*", help="git revisions or variant files to compare with this tree's dd.py")
    p.add_argument("--strain", default="notrump", choices=sorted(STRAINS))
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--skip", type=int, default=0, help="skip this many deals first")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tt", type=int, default=20, help="log2 of the table's entries")
    args = p.parse_args()
    if args.deals < 1 or args.rounds < 1 or args.skip < 0:
        print("error: --deals and --rounds must be at least 1, --skip at least 0", file=sys.stderr)
        return 2
    names = ["tree"] + args.versions
    try:
        sources = [_source(name) for name in names]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    from common import dd_positions

    from belote_env.search import Position, Solver

    solvers = {}
    scratch = tempfile.TemporaryDirectory(prefix="dd_ab-")
    try:
        for k, name in enumerate(names):
            solvers[name] = Solver(args.tt, dd_module=_load_version(sources[k], f"_ab_{k}", Path(scratch.name)))
        warm, positions = dd_positions(STRAINS[args.strain], args.seed)
        for _ in range(args.skip):
            next(positions)
        deals = [Position(next(positions)) for _ in range(args.deals)]
        for s in solvers.values():  # compile (or load the cache) before timing
            s.value(warm)
        cpu = {name: [] for name in names}
        nodes = dict.fromkeys(names, 0)
        values = {name: [] for name in names}
        for r in range(args.rounds):
            total = dict.fromkeys(names, 0.0)
            for i, pos in enumerate(deals):
                for name in (names if (i + r) % 2 == 0 else names[::-1]):
                    t = time.process_time()
                    v = solvers[name].value_of(pos)
                    total[name] += time.process_time() - t
                    if r == 0:
                        nodes[name] += solvers[name].nodes
                        values[name].append(v)
            for name in names:
                cpu[name].append(1000 * total[name] / args.deals)
        print(f"{args.strain}, deals {args.skip}..{args.skip + args.deals - 1}, {args.rounds} rounds, "
              f"table 2^{args.tt}:")
        for name in names:
            same = "same values" if values[name] == values["tree"] else "VALUES DIFFER"
            rounds = " ".join(f"{x:.1f}" for x in cpu[name])
            print(f"{name:>14}: nodes {nodes[name]:>12,}  CPU ms a deal by round: {rounds}  "
                  f"min {min(cpu[name]):.1f}, median {statistics.median(cpu[name]):.1f}  {same}")
    finally:
        for name in list(sys.modules):
            if name.startswith("belote_env.search._ab_"):
                del sys.modules[name]
        scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
