"""Evaluation during and after training: duplicate matches, their table and TensorBoard tags."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path


from agents.arena.reports import no_nan
from agents.files import write_text
from agents.neural.agent import load_agent
from agents.neural.checkpoint import load_checkpoint
from agents.training.errors import RunWriteError
from belote_env.variants import load_variant


def evaluate(agent, variant, opponents: list[str], pairs: int, seed: int, progress: bool = False) -> dict:
    """Duplicate matches of ``agent`` against each opponent spec: {spec: MatchResult.to_dict()}."""
    from agents.arena.match import duplicate_match
    from agents.registry import make_agent

    out = {}
    for spec in opponents:
        res = duplicate_match(agent, make_agent(spec), variant, pairs, seed=seed, progress=progress)
        out[spec] = res.to_dict()
    return out


def _made(r: dict, side: str) -> str:
    rate, taken = r.get(f"made_rate_{side}"), r.get(f"taken_{side}", 0)
    return "never took" if not taken or rate is None or rate != rate else f"{100 * rate:.1f}%"


def _took(r: dict) -> str:
    """The share of the deals the agent's team took, and how many of those it made."""
    took = f"{100 * r.get('taken_a', 0) / max(2 * r['pairs'], 1):.1f}%"
    return took if not r.get("taken_a") else f"{took} (made {_made(r, 'a')})"


def format_table(results: dict, title: str) -> str:
    """A plain-text table of duplicate results, one opponent per line."""
    lines = [title, f"{'opponent':<12} {'pairs':>6} {'points/deal':>12} {'95% CI':>20} {'deals won':>10} "
                    f"{'took (agent)':>13} {'made (agent)':>13} {'made (opp)':>11}"]
    for spec, r in results.items():
        ci = f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]"
        took = f"{100 * r.get('taken_a', 0) / max(2 * r['pairs'], 1):.1f}%"  # share of the 2 x pairs deals
        lines.append(f"{spec:<12} {r['pairs']:>6} {r['mean_diff']:>+12.1f} {ci:>20} {100 * r['win_rate']:>9.1f}% "
                     f"{took:>13} {_made(r, 'a'):>13} {_made(r, 'b'):>11}")
    return "\n".join(lines)


def _tag(spec: str) -> str:
    """An agent spec as a TensorBoard tag component (a checkpoint path becomes its file stem)."""
    return Path(spec).stem if spec.endswith(".pt") else spec.replace(":", "_").replace("/", "_")


def log_eval(writer, results: dict, global_step: int) -> None:
    for spec, r in results.items():
        tag = _tag(spec)
        writer.add_scalar(f"eval/{tag}/points_per_deal", r["mean_diff"], global_step)
        writer.add_scalar(f"eval/{tag}/points_ci_low", r["ci_low"], global_step)
        writer.add_scalar(f"eval/{tag}/points_ci_high", r["ci_high"], global_step)
        writer.add_scalar(f"eval/{tag}/deals_won", r["win_rate"], global_step)
        writer.add_scalar(f"eval/{tag}/took", r.get("taken_a", 0) / max(2 * r["pairs"], 1), global_step)
        if r.get("taken_a") and r.get("made_rate_a") == r.get("made_rate_a"):  # made: of the contracts it took
            writer.add_scalar(f"eval/{tag}/made", r["made_rate_a"], global_step)


def evaluate_checkpoint(spec: str, variant: str | None, default_variant: str, opponents: list[str], pairs: int,
                        seed: int, runs_dir: str | Path, progress: bool = False) -> dict:
    """``--evaluate``: a duplicate table of a saved agent (a checkpoint path or a shipped agent's name) against
    ``opponents``, ``pairs`` pairs each from ``seed``, on ``variant`` (given on the command line), else the
    one it was trained on, else ``default_variant``. The JSON goes beside a checkpoint, or for a shipped agent
    into ``runs_dir`` (never into the package)."""
    from agents.pretrained import PRETRAINED_DIR, weights_path

    path = weights_path(spec)
    ckpt = load_checkpoint(path)
    trained = ckpt.get("args", {}).get("variant") or (ckpt.get("trained") or {}).get("variant")
    variant_name = variant or trained or default_variant
    agent = load_agent(path)
    t0 = time.time()
    results = evaluate(agent, load_variant(variant_name), opponents, pairs, seed, progress=progress)
    print(format_table(results, f"Duplicate evaluation of {spec} ({variant_name}, {pairs} pairs per opponent, "
                                f"seed {seed}, {time.time() - t0:.0f} s):"))
    summary = {"checkpoint": str(path), "variant": variant_name, "pairs": pairs, "seed": seed,
               "update": ckpt.get("update"), "global_step": ckpt.get("global_step"), "results": results}
    if path.resolve().parent == PRETRAINED_DIR:
        out = Path(runs_dir) / f"{path.stem}.eval.json"
        out.parent.mkdir(parents=True, exist_ok=True)
    else:
        out = Path(str(path) + ".eval.json")
    _write_summary(out, summary)
    print(f"wrote {out}")
    return summary


def _write_summary(path: Path, summary: dict) -> None:
    """An evaluation summary as JSON, whole or not at all; a full disk or an unwritable folder is a
    RunWriteError (one ``error:`` line from the commands)."""
    try:
        write_text(path, json.dumps(no_nan(summary), indent=2, allow_nan=False))
    except OSError as e:
        raise RunWriteError(f"cannot write {str(path)!r}: {e.strerror or e}") from None


def _mean(values) -> float:
    """The mean, exactly rounded (``math.fsum``): the same in whatever order the episodes arrive (a local run
    and the same run's episodes merged from Ray actors)."""
    return math.fsum(values) / len(values) if len(values) else float("nan")


def log_update(writer, global_step: int, lr: float, sps: float, collect_sps: float, decisions: int, stats: dict,
               losses: dict) -> None:
    """The ``charts/`` and ``losses/`` scalars of one PPO update (see docs/training.md)."""
    writer.add_scalar("charts/learning_rate", lr, global_step)
    writer.add_scalar("charts/SPS", sps, global_step)
    writer.add_scalar("charts/collect_SPS", collect_sps, global_step)
    writer.add_scalar("charts/decisions_trained", decisions, global_step)
    all_pass = stats.pop("all_pass", 0)
    lengths = stats.pop("episode_length", [])
    finished = sum(len(v) for k, v in stats.items() if k != "return_team1")
    writer.add_scalar("charts/all_pass_rate", all_pass / max(all_pass + finished, 1), global_step)
    returns = [r for values in stats.values() for r in values]  # the network's team, every finished episode
    if returns:  # CleanRL's names, for tools that expect them
        writer.add_scalar("charts/episodic_return", _mean(returns), global_step)
        writer.add_scalar("charts/episodic_length", _mean(lengths), global_step)
    for key, values in stats.items():
        if values:
            tag = key if key.startswith("return_team") else "return_vs_" + _tag(key)
            tag = tag.replace("return_team", "episodic_return_team")
            writer.add_scalar(f"charts/{tag}", _mean(values), global_step)
    writer.add_scalar("charts/deals_finished", finished, global_step)
    for k, v in losses.items():
        writer.add_scalar(f"losses/{k}", v, global_step)


def final_evaluation(agent, variant, variant_name: str, opponents: list[str], pairs: int, seed: int, run_dir: Path,
                     writer, update: int, global_step: int, wall: float, stopped_early: bool, checkpoint: Path,
                     progress: bool = False, plot: bool = False) -> dict:
    """The end-of-run duplicate table (``pairs`` pairs per opponent from ``seed``; none when ``pairs`` is 0),
    logged under ``eval/final_*``, printed, and written with the run's counters to ``<run_dir>/final_eval.json``;
    ``plot``: then the run's curves drawn, their path printed."""
    final = {}
    if pairs > 0 and opponents:
        final = evaluate(agent, variant, opponents, pairs, seed, progress=progress)
        log_eval(writer, {f"final_{k}": v for k, v in final.items()}, global_step)
        print(format_table(final, f"Final duplicate evaluation of {run_dir.name} ({variant_name}, "
                                  f"{pairs} pairs per opponent, update {update}, step {global_step}):"))
    summary = {"run_name": run_dir.name, "variant": variant_name, "update": update, "global_step": global_step,
               "wall_s": wall, "stopped_early": stopped_early, "checkpoint": str(checkpoint),
               "eval_seed": seed, "results": final}
    _write_summary(run_dir / "final_eval.json", summary)
    print(f"run {run_dir.name}: {update} updates, {global_step} steps, {wall / 60:.1f} min; checkpoint {checkpoint}")
    if plot:  # the curves of the run as a PNG, its path printed (train.py --plot)
        from agents.training.curves import plot_run

        writer.flush()
        print(f"training curves: {plot_run(run_dir)}")
    return summary


def periodic_evaluation(agent, variant, opponents: list[str], pairs: int, seed: int, writer, global_step: int,
                        write, where: str) -> dict:
    """A duplicate match against each of ``opponents`` (``pairs`` pairs from ``seed``), logged under
    ``eval/<opponent>/`` at ``global_step`` and reported with ``write`` (the progress bar's) after ``where``."""
    results = evaluate(agent, variant, opponents, pairs, seed)
    log_eval(writer, results, global_step)
    write(f"{where}: " + ", ".join(f"vs {k} {100 * r['win_rate']:.1f}% won, {r['mean_diff']:+.1f} pts, took "
                                   f"{_took(r)}" for k, r in results.items()))
    return results


def progress_figures(sps: float, last_eval: dict) -> dict:
    """The progress bar's postfix: steps/s, and deals won / points per deal of the latest evaluation."""
    post = {"sps": f"{sps:.0f}"}
    for k, r in last_eval.items():
        post[f"{k[:5]}"] = f"{100 * r['win_rate']:.0f}%/{r['mean_diff']:+.0f}"
    return post


def log_hyperparameters(writer, options: dict, command: str) -> None:
    """Every option of the run as a Markdown table, and the command line, as TensorBoard text."""
    table = "\n".join(f"|{k}|{v}|" for k, v in options.items())
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
    writer.add_text("command", command)
