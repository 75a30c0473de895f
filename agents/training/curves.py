"""Training curves: TensorBoard scalars of a run, drawn as one PNG (``train.py --plot``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from agents.files import replacing
from agents.training.errors import ConfigError


def _tracked_by_git(path: Path) -> bool:
    """Whether ``path`` is a file tracked by a git repository (False when git or the repository is absent)."""
    path = path.resolve()
    if not path.is_file():
        return False
    try:
        r = subprocess.run(["git", "ls-files", "--error-unmatch", path.name], cwd=path.parent,
                           capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0

def read_scalars(run_dir: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every scalar series of a run's TensorBoard logs: {tag: (steps, values)}."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        by_step = {e.step: e.value for e in acc.Scalars(tag)}  # a resumed run rewrites steps; keep the last
        steps = np.array(sorted(by_step))
        out[tag] = (steps, np.array([by_step[s] for s in steps]))
    return out


def draw_points(ax, series: list[dict], xlabel: str, title: str = "Duplicate points per deal (95% CI)") -> None:
    """Curves of duplicate points per deal on ``ax``, each with its 95% interval as a band: ``series`` holds
    dicts {"label", "x", "mean", "low", "high", "color"} ("low"/"high" None for no band, "color" optional). The
    one drawing of a strength curve: ``train.py --plot`` and the baselines page (``benchmarks/baselines.py``)."""
    for k, c in enumerate(series):
        color = c.get("color") or f"C{k}"
        ax.plot(c["x"], c["mean"], marker="o", ms=3, color=color, label=c["label"])
        if c.get("low") is not None and c.get("high") is not None:
            ax.fill_between(c["x"], c["low"], c["high"], color=color, alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set(title=title, xlabel=xlabel, ylabel="points")


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Training curves of a run as a PNG (default ``<run_dir>/training_curves.png``): evaluations (periodic, and the final table as stars), the
    network's reward against fixed opponents, entropy, explained variance and all-pass rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ConfigError(f"run directory {str(run_dir)!r} does not exist")
    s = read_scalars(run_dir)
    if not s:
        raise ConfigError(f"{run_dir}: no TensorBoard scalars found (is it a run directory of train.py?)")
    out = Path(out) if out else run_dir / "training_curves.png"
    if out.is_dir():  # a folder: the image goes in it, under its usual name
        out = out / "training_curves.png"
    if out.suffix.lower() != ".png":
        raise ConfigError(f"--plot-out {str(out)!r}: the curves are a PNG image; give a path ending in .png or a folder")
    if _tracked_by_git(out):
        raise ConfigError(f"{out} is a file tracked by git; --plot never overwrites one: give another --plot-out "
                          "(or copy the PNG there yourself)")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        blocking = next((str(p) for p in out.parents if p.exists() and not p.is_dir()), None)
        why = f"{blocking!r} is a file, not a folder" if blocking else (e.strerror or str(e))
        raise ConfigError(f"--plot-out {str(out)!r}: its folder cannot be made ({why})") from None
    opponents = sorted({t.split("/")[1] for t in s if t.startswith("eval/") and not t.startswith("eval/final_")})
    colors = {opp: f"C{i}" for i, opp in enumerate(opponents)}

    def final_point(ax, opp, key, scale=1.0):
        """The end-of-run table's figure, as a star at its step."""
        if f"eval/final_{opp}/{key}" in s:
            x, y = s[f"eval/final_{opp}/{key}"]
            ax.plot(x, scale * y, marker="*", ms=12, ls="", color=colors[opp], label=f"vs {opp}, final table")

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax = axes[0, 0]
    for opp in opponents:
        if f"eval/{opp}/deals_won" in s:
            x, y = s[f"eval/{opp}/deals_won"]
            ax.plot(x, 100 * y, marker="o", ms=3, color=colors[opp], label=f"vs {opp}")
        final_point(ax, opp, "deals_won", 100.0)
    ax.axhline(50, color="grey", lw=0.8, ls=":")
    ax.set(title="Duplicate deals won (%)", xlabel="global step", ylabel="%")
    ax = axes[0, 1]
    draw_points(ax, [{"label": f"vs {opp}", "x": s[f"eval/{opp}/points_per_deal"][0],
                      "mean": s[f"eval/{opp}/points_per_deal"][1], "color": colors[opp],
                      "low": s[f"eval/{opp}/points_ci_low"][1] if f"eval/{opp}/points_ci_low" in s else None,
                      "high": s[f"eval/{opp}/points_ci_high"][1] if f"eval/{opp}/points_ci_high" in s else None}
                     for opp in opponents if f"eval/{opp}/points_per_deal" in s], "global step")
    for opp in opponents:
        final_point(ax, opp, "points_per_deal")
    ax = axes[1, 0]
    for tag in sorted(t for t in s if t.startswith("charts/return_vs_")):
        ax.plot(*s[tag], lw=0.8, label=tag.split("return_")[1].replace("_", " ") + " (training tables)")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set(title="Network's mean deal reward against fixed opponents", xlabel="global step")
    ax = axes[1, 1]
    if "losses/entropy" in s:
        ax.plot(*s["losses/entropy"], label="entropy")
    if "losses/explained_variance" in s:
        ax.plot(*s["losses/explained_variance"], label="explained variance")
    if "charts/all_pass_rate" in s:
        ax.plot(*s["charts/all_pass_rate"], lw=0.8, label="all-pass deals (share of episodes)")
    ax.set(title="Entropy, explained variance, all-pass rate", xlabel="global step")
    for a in axes.flat:
        a.grid(alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=8)
    fig.suptitle(f"train.py run {run_dir.name}")
    fig.tight_layout()
    try:
        with replacing(out) as tmp:  # whole or not at all
            fig.savefig(tmp, dpi=110, format="png")
    except OSError as e:
        raise ConfigError(f"--plot-out {str(out)!r} cannot be written ({e.strerror or e})") from None
    finally:
        plt.close(fig)
    return out
