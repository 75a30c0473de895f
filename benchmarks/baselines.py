"""The baselines page: every supported library trained on coinche for the same wall-clock budget, its learning
curve against the heuristic and its rating on the ladder's scale.

    python benchmarks/baselines.py [--recipes train_py sb3 ...] [--minutes 15] [--docs]

Each recipe (``RECIPES``) is one training command of this repository (``train.py`` or a script of
``examples/``) given the same options: ``--minutes`` of training by the wall clock, a snapshot every
``--snapshot-minutes`` (``.pt2`` agent specs, :mod:`agents.exported`; ``train.py``'s own checkpoints). For each
recipe, in order, and resumable (run the command again: what is done is read back):

1. **train**: the command runs in the main environment, or for RLlib and Tianshou in the integrations' virtual
   environment (Ray pins an older gymnasium; made once by ``.ci/integrations --prepare``); its output goes to
   ``<runs>/<recipe>/train.log``. A finished training (``done.json``) is kept (``--retrain`` runs it again); an
   interrupted one starts over, since its budget is wall-clock time.
2. **curve**: each snapshot plays ``--curve-pairs`` duplicate pairs against the heuristic, on the same deals
   (seed 0) for every point; cached by the snapshot's SHA-256 (``curve.json``).
3. **rating**: the last snapshot is rated by ``belote-eval`` against the ladder's pool (``--eval-pairs`` pairs
   per pool agent; its matches cached in ``runs/eval``).
4. **page**: ``baselines.md`` with the table, the curves (one image per recipe and one of all, drawn by
   :func:`agents.training.curves.draw_points`), each recipe's command and library versions. ``--docs`` writes it
   into ``docs/`` as ``baselines.md`` (images and figures in ``docs/results/baselines/``); otherwise to ``<runs>``.

The budget assumes the machine does nothing else meanwhile: run one recipe at a time, nothing beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

FAMILY = "coinche"
OPPONENT = "heuristic"
CURVE_SEED = 0
BIG = 10**12  # step limits of the recipes: the budget stops them


@dataclass(frozen=True)
class Recipe:
    name: str
    title: str  # the algorithm, as the table shows it
    packages: tuple[str, ...]  # distributions whose versions the page states
    script: tuple[str, ...]  # the command after the python executable, before the budget options
    setting: str  # who the learner plays with and against
    integrations: bool = False  # runs in the integrations' virtual environment (Ray, Tianshou)
    note: str = ""


RECIPES = {r.name: r for r in [
    Recipe("train_py", "this project's PPO (`train.py`)", ("torch",),
           ("train.py", "--config", "configs/train/coinche_fast.yaml", "--seed", "0", "--final-eval-pairs", "0"),
           "self-play on 128 batched tables, 70% of them against the heuristic, after a behaviour-cloning warm start "
           "from the heuristic (1M decisions, inside the budget)",
           note="The recipe of `configs/train/coinche_fast.yaml`: the only one with a warm start."),
    Recipe("sb3", "sb3-contrib MaskablePPO", ("stable-baselines3", "sb3-contrib", "torch"),
           ("examples/sb3_maskable_ppo.py", "--opponents", "heuristic", "--envs", "8", "--batch-size", "256",
            "--timesteps", str(BIG), "--pairs", "0", "--seed", "0"),
           "seat 0 of `SingleAgentEnv` (8 copies in a `DummyVecEnv`), heuristic partner and opponents",
           note="SB3's default `MlpPolicy` (64x64 tanh) from scratch; one Python table per copy."),
    Recipe("cleanrl", "CleanRL-style PPO on `make_vec`", ("torch", "gymnasium"),
           ("examples/cleanrl_ppo_vector.py", "--opponents", "heuristic", "--total-timesteps", str(BIG),
            "--pairs", "0", "--seed", "0"),
           "seat 0 of `gymnasium.make_vec` (64 tables on the batched engine), heuristic partner and opponents",
           note="One file in CleanRL's shape (256x256 tanh actor and critic), from scratch."),
    Recipe("rllib", "RLlib PPO (new API stack)", ("ray", "torch", "gymnasium"),
           ("examples/rllib_ppo.py", "--iterations", str(BIG), "--pairs", "0", "--seed", "0"),
           "self-play: one shared module for the four seats of the multi-agent env", integrations=True,
           note="RLlib's default masked PPO module, sampling on the driver (2 cores: no EnvRunner actors)."),
    Recipe("tianshou", "Tianshou PPO", ("tianshou", "torch", "gymnasium"),
           ("examples/tianshou_ppo.py", "--opponents", "heuristic", "--steps", str(BIG), "--pairs", "0",
            "--seed", "0"),
           "seat 0 of `SingleAgentEnv` (4 copies in a `DummyVectorEnv`), heuristic partner and opponents",
           integrations=True, note="`MaskedActor` and `Critic` of `belote_env.integrations.tianshou` (256x256)."),
    Recipe("openspiel", "OpenSpiel A2C (`policy_gradient`, PyTorch)", ("open_spiel", "torch"),
           ("examples/openspiel_policy_gradient.py", "--episodes", str(BIG), "--pairs", "0", "--seed", "0"),
           "self-play on `python_belote` through `rl_environment`: one agent per seat, seat 0's network rated",
           note="OpenSpiel's own loop: one decision at a time, one 128-unit hidden layer."),
]}


def read_json(path: Path, default=None):
    return json.loads(path.read_text()) if path.is_file() else default


def write_json(path: Path, data) -> None:
    from agents.files import write_text

    write_text(path, json.dumps(data, indent=1) + "\n")


def integrations_python(runs: Path) -> Path:
    """The integrations' virtual environment's python (``<runs>/venv-integrations``), made on first use."""
    venv = runs / "venv-integrations"
    python = venv / "bin" / "python"
    if not (venv / "baselines-ready").is_file():
        print(f"preparing the integrations' virtual environment in {venv} (Ray, Tianshou; once)", flush=True)
        subprocess.run(["bash", str(REPO / ".ci" / "integrations"), "--prepare", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(REPO)], check=True)
        (venv / "baselines-ready").write_text("prepared\n")
    return python


def versions(python: str, packages: tuple[str, ...]) -> dict[str, str]:
    code = ("import importlib.metadata as m, json, sys\nout = {}\nfor p in sys.argv[1:]:\n    try: out[p] = "
            "m.version(p)\n    except m.PackageNotFoundError: out[p] = 'absent'\nprint(json.dumps(out))")
    got = subprocess.run([python, "-c", code, *packages], capture_output=True, text=True, check=True)
    return json.loads(got.stdout)


def command_of(recipe: Recipe, folder: Path, minutes: float, every: float) -> list[str]:
    """The recipe's command after the python executable, with the budget options (paths from the repository
    where they lie in it: the commands run there)."""
    folder = folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder
    if recipe.name == "train_py":
        return [*recipe.script, "--max-minutes", f"{minutes:g}", "--runs-dir", str(folder), "--run-name", "run",
                "--keep-checkpoints", "100000"]
    return [*recipe.script, "--minutes", f"{minutes:g}", "--snapshots", str(folder / "snapshots"),
            "--snapshot-minutes", f"{every:g}"]


def train(recipe: Recipe, folder: Path, args) -> dict:
    """Run the recipe's training unless ``done.json`` says it ran with this budget; returns done.json."""
    done = read_json(folder / "done.json")
    if done and not args.retrain and done["minutes"] == args.minutes:
        return done
    python = str(integrations_python(args.runs)) if recipe.integrations else sys.executable
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    argv = command_of(recipe, folder, args.minutes, args.snapshot_minutes)
    shown = " ".join(["python", *argv])
    print(f"[{recipe.name}] training {args.minutes:g} min: {shown}\n  (output: {folder / 'train.log'})", flush=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.monotonic()
    with open(folder / "train.log", "w") as log:
        code = subprocess.run([python, *argv], cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    wall = time.monotonic() - t0
    if code != 0:
        tail = (folder / "train.log").read_text().splitlines()[-15:]
        raise SystemExit(f"[{recipe.name}] training failed (exit {code}); the end of {folder / 'train.log'}:\n"
                         + "\n".join(tail))
    done = {"recipe": recipe.name, "minutes": args.minutes, "snapshot_minutes": args.snapshot_minutes,
            "command": shown, "wall_s": round(wall, 1), "versions": versions(python, recipe.packages),
            "python": platform.python_version(), "cores": os.cpu_count(), "finished": time.strftime("%Y-%m-%d")}
    write_json(folder / "done.json", done)
    return done


def snapshots(recipe: Recipe, folder: Path, every: float) -> list[dict]:
    """The recipe's policies over training: [{"path", "minutes", "steps"}], the first at or after each multiple of
    ``every`` minutes (5% of ``every`` early still counts: a snapshot due at 3.0 may be written at 2.999) and the
    last."""
    if recipe.name == "train_py":
        import torch

        points = []
        for path in sorted((folder / "run" / "checkpoints").glob("ckpt_*.pt")):
            ckpt = torch.load(path, weights_only=True, map_location="cpu")
            points.append({"path": str(path), "minutes": ckpt.get("elapsed_s", 0.0) / 60,
                           "steps": int(ckpt["global_step"])})
        points.sort(key=lambda p: p["minutes"])
    else:
        from agents.exported import read_snapshots

        points = [{"path": str(folder / "snapshots" / s["snapshot"]), "minutes": s["minutes"], "steps": s["steps"]}
                  for s in read_snapshots(folder / "snapshots")]
    if not points:
        raise SystemExit(f"[{recipe.name}] training left no snapshot in {folder}")
    kept, next_at, slack = [], 0.0, 0.05 * every
    for p in points[:-1]:
        if p["minutes"] >= next_at - slack:
            kept.append(p)
            next_at = (int((p["minutes"] + slack) // every) + 1) * every
    return kept + [points[-1]]


def curve(recipe: Recipe, folder: Path, points: list[dict], pairs: int) -> list[dict]:
    """Each point's duplicate match against the heuristic (cached by the policy file's digest)."""
    from agents.arena.ladder.cache import agent_digest
    from agents.arena.match import duplicate_match
    from agents.registry import make_agent
    from belote_env.variants import load_variant

    cache = read_json(folder / "curve.json", {})
    opponent, variant, out = make_agent(OPPONENT), load_variant(FAMILY), []
    for p in points:
        key = f"{agent_digest(p['path'])}:{pairs}:{CURVE_SEED}"  # the weights file's SHA-256, as the ladder keys it
        if key not in cache:
            r = duplicate_match(make_agent(p["path"]), opponent, variant, pairs, seed=CURVE_SEED).to_dict()
            cache[key] = {k: r[k] for k in ("mean_diff", "ci_low", "ci_high", "win_rate")}
            write_json(folder / "curve.json", cache)
            print(f"[{recipe.name}] {p['minutes']:5.1f} min, {p['steps']:>11,} steps: {r['mean_diff']:+7.1f} "
                  f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}] against the {OPPONENT}", flush=True)
        out.append({**p, "path": str(Path(p["path"]).relative_to(REPO)) if Path(p["path"]).is_relative_to(REPO)
                    else p["path"], **cache[key]})
    return out


def rating(recipe: Recipe, folder: Path, final: dict, pairs: int) -> dict:
    """belote-eval of the last policy: its rating with interval, rank and placement on the ladder's scale."""
    from agents.arena.evaluate import main as belote_eval
    from agents.arena.reports import file_stem

    spec = final["path"]
    argv = [spec, "-f", FAMILY, "-n", str(pairs), "--out", str(folder / "eval"), "--no-progress"]
    print(f"[{recipe.name}] belote-eval {' '.join(argv)}", flush=True)
    if belote_eval(argv) != 0:
        raise SystemExit(f"[{recipe.name}] belote-eval failed")
    got = read_json(folder / "eval" / f"{file_stem(spec)}_{FAMILY}.json")
    return {"spec": spec, "pairs": pairs, "rating": got["rating"], "rank": got["rank"],
            "placement": got["placement"], "pool": [r for r in got["ratings"] if r["agent"] != spec]}


def plot(results: list[dict], out: Path, minutes: float) -> list[Path]:
    """One small image per recipe and one of every recipe: points a deal against the heuristic over minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from agents.training.curves import draw_points

    def series(r, color=None):
        c = r["curve"]
        return {"label": r["title"], "x": [p["minutes"] for p in c], "mean": [p["mean_diff"] for p in c],
                "low": [p["ci_low"] for p in c], "high": [p["ci_high"] for p in c], "color": color}

    def image(curves: list[dict], path: Path, size: tuple[float, float], dpi: int) -> Path:
        fig, ax = plt.subplots(figsize=size)
        draw_points(ax, curves, "training minutes (2 cores)", f"Points a deal against the {OPPONENT} (95% CI)")
        ax.set_xlim(0, minutes)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(path, dpi=dpi)
        plt.close(fig)
        return path

    paths = [image([series(r, f"C{k}")], out / f"{r['recipe']}.png", (4.8, 3.0), 80) for k, r in enumerate(results)]
    all_curves = [series(r, f"C{k}") for k, r in enumerate(results)]
    return paths + [image(all_curves, out / f"{FAMILY}.png", (7.0, 4.2), 90)]


def trend(curve: list[dict]) -> str:
    """Whether the curve still rose over its last third: the last point against the first point of that third,
    read with their intervals."""
    end = curve[-1]
    start = next((p for p in curve if p["minutes"] >= end["minutes"] * 2 / 3), None)
    if start is None or start is end:
        return ""
    change = end["mean_diff"] - start["mean_diff"]
    span = f"{end['minutes'] - start['minutes']:.1f} minutes"
    if end["ci_low"] > start["ci_high"]:
        return f"Still rising at the end: {change:+.1f} over its last {span}, beyond both intervals."
    if end["ci_high"] < start["ci_low"]:
        return f"Falling at the end: {change:+.1f} over its last {span}, beyond both intervals."
    return f"Flat at the end: {change:+.1f} over its last {span}, within the intervals."


def page(results: list[dict], missing: list[str], args, images: Path, page_path: Path) -> str:
    rel = os.path.relpath(images, page_path.parent)
    flags = f" --minutes {args.minutes:g}" if args.minutes != 15 else ""
    lines = [
        "# Baselines: every supported library on the same budget",
        "",
        f"Generated by `python benchmarks/baselines.py{flags} --docs` (resumable: a rerun trains only what is "
        "missing; `--recipes` picks some). Each recipe trains on "
        f"{FAMILY} for **{args.minutes:g} minutes of wall-clock time** on this project's reference machine "
        f"({results[0]['done']['cores'] if results else os.cpu_count()} CPU cores, no GPU, nothing else running), "
        f"seed 0. Its snapshots (every {args.snapshot_minutes:g} minutes) each play {args.curve_pairs:,} duplicate "
        f"pairs against the {OPPONENT} on the same deals (seed {CURVE_SEED}); the last one is rated by "
        f"`belote-eval` ({args.eval_pairs:,} pairs against each agent of the ladder's pool, docs/results.md's "
        "scale: random = 0). Intervals are 95%. The rated policies are `.pt2` files that play without their "
        "library (`agents.exported`): `belote-eval <file.pt2>` rates one, any tournament takes one as an agent.",
        "",
        f"![every recipe]({rel}/{FAMILY}.png)",
        "",
        "| recipe | library | steps in budget | vs heuristic at the end | belote-eval rating | on the ladder |",
        "|---|---|---:|---|---|---|",
    ]
    for r in results:
        c, e = r["curve"][-1], r["rating"]
        lib = ", ".join(f"{p} {v}" for p, v in r["done"]["versions"].items())
        lines.append(f"| [{r['title']}](#recipe-{r['recipe']}) | {lib} | {c['steps']:,} | {c['mean_diff']:+.1f} "
                     f"[{c['ci_low']:+.1f}, {c['ci_high']:+.1f}] | {e['rating']['rating']:+.0f} "
                     f"[{e['rating']['low']:+.0f}, {e['rating']['high']:+.0f}] | {e['placement']} |")
    if results:
        pool = ", ".join(f"{p['agent']} {p['rating']:+.0f}" for p in results[0]["rating"]["pool"])
        lines += ["", f"The pool on the same scale: {pool}."]
        won = [r["recipe"] for r in results if r["curve"][-1]["ci_low"] > 0]
        lost = [r["recipe"] for r in results if r["curve"][-1]["ci_low"] <= 0]
        said = []
        if won:
            said.append("beat the heuristic within the budget (interval above 0): " + ", ".join(f"`{x}`" for x in won))
        if lost:
            said.append("did not: " + ", ".join(f"`{x}`" for x in lost) + " (each section below gives its curve, "
                        "its steps a second and whether it was still rising at the end)")
        lines += ["", "Measured: " + "; ".join(said) + ". First and last points against the heuristic: "
                  + ", ".join(f"`{r['recipe']}` {r['curve'][0]['mean_diff']:+.1f} at {r['curve'][0]['minutes']:.1f} min "
                              f"to {r['curve'][-1]['mean_diff']:+.1f}" for r in results) + "."]
    if missing:
        lines += ["", "Not measured yet: " + ", ".join(f"`{m}`" for m in missing) + f" (run `python "
                  f"benchmarks/baselines.py --recipes {' '.join(missing)} --docs`)."]
    def rate(r) -> float:
        return r["curve"][-1]["steps"] / max(60 * r["curve"][-1]["minutes"], 1e-9)

    reference = next((r for r in results if r["recipe"] == "train_py"), None)
    for r in results:
        c = r["curve"][-1]
        beat = c["ci_low"] > 0
        beside = (f"; `train.py`'s recipe: {rate(reference):,.0f}, {rate(reference) / rate(r):.0f}x more" if reference
                  and r is not reference and rate(r) > 0 else "")
        verdict = (f"It beats the {OPPONENT} within its budget: {c['mean_diff']:+.1f} [{c['ci_low']:+.1f}, "
                   f"{c['ci_high']:+.1f}] at the end." if beat else
                   f"It does not beat the {OPPONENT} within its budget: {c['mean_diff']:+.1f} [{c['ci_low']:+.1f}, "
                   f"{c['ci_high']:+.1f}] at the end.")
        best = max(r["curve"], key=lambda p: p["mean_diff"])
        lines += ["", f"## Recipe `{r['recipe']}`", "",
                  f"![{r['recipe']}]({rel}/{r['recipe']}.png)", "",
                  f"`{r['done']['command']}`" + (" (in the integrations' virtual environment, which the script "
                  "makes once with `.ci/integrations --prepare`: Ray pins an older gymnasium)"
                  if RECIPES[r["recipe"]].integrations else ""), "",
                  f"**{r['title']}.** Learner: {r['setting']}. {r['note']} {verdict} {trend(r['curve'])} Best "
                  f"snapshot: {best['mean_diff']:+.1f} after {best['minutes']:.1f} minutes. {c['steps']:,} steps (the "
                  f"library's count: {rate(r):,.0f} a second{beside}) in "
                  f"{r['done']['wall_s'] / 60:.1f} minutes of process time, start-up and snapshots included; "
                  f"trained {r['done']['finished']}, Python {r['done']['python']}.", "",
                  "| minutes | steps | vs heuristic | 95% CI |", "|---:|---:|---:|---|"]
        lines += [f"| {p['minutes']:.1f} | {p['steps']:,} | {p['mean_diff']:+.1f} | [{p['ci_low']:+.1f}, "
                  f"{p['ci_high']:+.1f}] |" for p in r["curve"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--recipes", nargs="*", choices=list(RECIPES), default=list(RECIPES),
                   help="which recipes (default all, in this order; none: only write the page again)")
    p.add_argument("--minutes", type=float, default=15.0, help="training budget per recipe (default 15)")
    p.add_argument("--snapshot-minutes", type=float, default=1.5, help="minutes between curve points (default 1.5)")
    p.add_argument("--curve-pairs", type=int, default=1000, help="pairs against the heuristic per point (default 1000)")
    p.add_argument("--eval-pairs", type=int, default=2000, help="belote-eval pairs per pool agent (default 2000)")
    p.add_argument("--runs", type=Path, default=REPO / "runs" / "baselines", help="training folders (default runs/baselines)")
    p.add_argument("--retrain", action="store_true", help="train again recipes whose training finished")
    p.add_argument("--docs", action="store_true", help="write the page into docs/ (baselines.md) and docs/results/baselines/ "
                   "(default: <runs>/baselines.md and <runs>/page/)")
    args = p.parse_args(argv)
    if args.minutes <= 0 or args.snapshot_minutes <= 0 or args.curve_pairs < 2 or args.eval_pairs < 2:
        p.error("--minutes and --snapshot-minutes must be positive, --curve-pairs and --eval-pairs at least 2")
    args.runs = args.runs.resolve()
    os.chdir(REPO)  # the recipes and the snapshots' specs are paths from the repository
    images = REPO / "docs" / "results" / "baselines" if args.docs else args.runs / "page"
    page_path = REPO / "docs" / "baselines.md" if args.docs else args.runs / "baselines.md"
    images.mkdir(parents=True, exist_ok=True)
    for name in args.recipes:
        recipe, folder = RECIPES[name], args.runs / name
        done = train(recipe, folder, args)
        points = curve(recipe, folder, snapshots(recipe, folder, args.snapshot_minutes), args.curve_pairs)
        done = {**done, "command": done["command"].replace(str(REPO) + "/", "")}  # as run from the repository
        result = {"recipe": name, "title": recipe.title, "setting": recipe.setting, "note": recipe.note,
                  "done": done, "curve": points, "rating": rating(recipe, folder, points[-1], args.eval_pairs)}
        write_json(images / f"{name}.json", result)
        write_page(args, images, page_path)  # after each recipe: an interrupted run still leaves its page
    if not args.recipes:
        write_page(args, images, page_path)
    return 0


def write_page(args, images: Path, page_path: Path) -> None:
    """The page and its images from every recipe measured so far with this budget, in the table's order."""
    from agents.files import write_text

    results, missing = [], []
    for name in RECIPES:
        got = read_json(images / f"{name}.json")
        if got and got["done"]["minutes"] == args.minutes:
            results.append(got)
        else:
            missing.append(name)
    paths = plot(results, images, args.minutes) if results else []
    write_text(page_path, page(results, missing, args, images, page_path))
    print(f"wrote {page_path}" + "".join(f", {x}" for x in paths), flush=True)


if __name__ == "__main__":
    sys.exit(main())
