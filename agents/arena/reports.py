"""Tournament reports: terminal and Markdown tables, CSV and JSON files, the rating plot.

:func:`write_reports` writes, for one variant, ``<variant>.md``,
``<variant>.json`` (every figure and the command), ``<variant>_matches.csv``,
``<variant>_ratings.csv`` and ``<variant>.png``. The matches come from
:mod:`agents.arena.match`, the ratings from :mod:`agents.arena.ratings`.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import hashlib
import json
import math
import os
import re
from pathlib import Path

from agents.arena.errors import ReportError
from agents.arena.match import MatchResult
from agents.files import remove_stale


def md_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "|".join("---" for _ in keys) + "|"]
    lines += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def text_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    keys = list(rows[0])
    widths = [max(len(k), *(len(str(r[k])) for r in rows)) for k in keys]
    out = ["  ".join(k.ljust(w) for k, w in zip(keys, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(r[k]).ljust(w) for k, w in zip(keys, widths)) for r in rows]
    return "\n".join(out)


def rating_rows(ratings, games: bool = False) -> list[dict]:
    unit = "games" if games else "deals"
    rows = []
    for rank, r in enumerate(ratings, 1):
        interval = "-" if math.isnan(r.low) else f"[{r.low:+.0f}, {r.high:+.0f}]"
        rows.append({"rank": rank, "agent": r.agent, "rating": f"{r.rating:+.0f}", "95% CI": interval,
                     unit: r.deals, f"{unit} won": f"{100 * r.score:.1f}%"})
    return rows


def stronger_first(matches: list[MatchResult], ratings) -> list[MatchResult]:
    """Matches seen from the better-rated agent's side, in rating order (for tables)."""
    rank = {r.agent: k for k, r in enumerate(ratings)}
    out = [m if rank[m.agent_a] <= rank[m.agent_b] else m.swapped() for m in matches]
    return sorted(out, key=lambda m: (rank[m.agent_a], rank[m.agent_b]))


def no_nan(d):
    """NaN and infinities (an undefined rate, the interval of a single pair) become null, so the JSON is standard;
    through nested dicts and lists."""
    if isinstance(d, dict):
        return {k: no_nan(v) for k, v in d.items()}
    if isinstance(d, (list, tuple)):
        return [no_nan(v) for v in d]
    return None if isinstance(d, float) and not math.isfinite(d) else d


def write_reports(out_dir: Path, variant_name: str, matches: list[MatchResult], ratings, command: str,
                  games: bool, seed: int) -> dict[str, Path]:
    """Markdown, CSV, JSON and PNG files of one variant's tournament; returns their paths.

    All or nothing: every file is first written in full under a hidden temporary name in ``out_dir``; a write
    that fails (a full disk, an unwritable folder: :class:`ReportError`, one line) or a kill then leaves the
    previous set as it was. Then the previous set's files are removed, its Markdown first, and the new ones
    renamed into place, the Markdown last: a kill in between leaves whole files of one run, never a mix of two,
    and no ``<variant>.md`` until the set is complete (the Markdown says so). The temporary files a killed run
    leaves are removed by the next write of the variant's reports in that folder.
    The PNG needs matplotlib (the ``plot`` or ``train`` extra); without it the
    other files are written and the Markdown says how to get the plot."""
    import importlib.util

    stem = out_dir / variant_name
    paths = {"md": stem.with_suffix(".md"), "json": stem.with_suffix(".json"),
             "csv": Path(f"{stem}_matches.csv"), "ratings_csv": Path(f"{stem}_ratings.csv"),
             "png": stem.with_suffix(".png")}
    can_plot = importlib.util.find_spec("matplotlib") is not None
    if not can_plot:
        del paths["png"]
    staged = {k: p.with_name(f".{os.getpid()}-{p.name}") for k, p in paths.items()}  # same suffix: savefig's format
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        remove_stale(out_dir, f".*-{glob.escape(variant_name)}[._]*", rf"\.(\d+)-{re.escape(variant_name)}[._].*")
        _write_set(staged, can_plot, stem, variant_name, matches, ratings, command, games, seed)
        order = ["md", *(k for k in paths if k != "md")]
        for k in order:  # the old set goes, its Markdown first (a plot of a set written without one goes too)
            paths[k].unlink(missing_ok=True)
        stem.with_suffix(".png").unlink(missing_ok=True)
        for k in reversed(order):  # the new set comes, its Markdown last
            os.replace(staged[k], paths[k])
    except OSError as e:
        raise ReportError(f"cannot write the reports in {str(out_dir)!r}: {e.strerror or e}; the reports there "
                          "are unchanged") from None
    finally:
        for tmp in staged.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
    return paths


STEM_CHARS = 80  # a file name holds two stems, a suffix and a temporary name's tail within 255 bytes


def file_stem(spec: str) -> str:
    """A file-name-safe form of an agent spec (plus a short hash of the spec when characters were replaced); a long
    spec (a deep path) keeps its last characters, the file name's, before the hash."""
    safe = re.sub(r"[^A-Za-z0-9_.=+-]", "-", spec)
    if safe == spec and len(safe) <= STEM_CHARS:
        return safe
    return f"{safe[-(STEM_CHARS - 9):]}-{hashlib.sha1(spec.encode()).hexdigest()[:8]}"


def write_deal_records(out_dir: Path, variant_name: str, matches: list[MatchResult], keep: int | None = None
                       ) -> dict[Path, int]:
    """The deals of each match (played with ``record=True``) as deal records (:mod:`belote_env.rules.record`), one
    JSON-lines file per match, ``out_dir/<variant>/<A>__<B>.jsonl``, each written whole: every pair, or the
    ``keep`` pairs with the largest absolute duplicate difference (ties: the earlier pair), in pair order. Each
    record's ``meta`` names the match, the pair, the table (0: A at seats 0 and 2; 1: A at seats 1 and 3), the
    episode's deal number and the pair's difference (A minus B, points per deal). Returns deals written per file."""
    from agents.files import replacing
    from belote_env.rules.record import record_line

    folder = Path(out_dir) / variant_name
    written = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for m in matches:
            if m.records is None:
                raise ValueError(f"the match {m.agent_a} v {m.agent_b} was played without record=True")
            pairs = range(m.pairs)
            if keep is not None and keep < m.pairs:
                top = sorted(pairs, key=lambda i: (-abs(float(m.pair_diffs[i])), i))[:keep]
                pairs = sorted(top)
            path = folder / f"{file_stem(m.agent_a)}__{file_stem(m.agent_b)}.jsonl"
            n = 0
            with replacing(path) as tmp, open(tmp, "w") as f:
                for i in pairs:
                    for table, deals in enumerate(m.records[i]):
                        for k, rec in enumerate(deals):
                            rec = dict(rec, meta={"match": [m.agent_a, m.agent_b], "seed": m.seed,
                                                  "pair": m.pair_start + i, "table": table, "deal": k,
                                                  "a_seats": [0, 2] if table == 0 else [1, 3],
                                                  "pair_diff": float(m.pair_diffs[i])})
                            f.write(record_line(rec))
                            n += 1
            written[path] = n
    except OSError as e:
        raise ReportError(f"cannot write the deal records in {str(folder)!r}: {e.strerror or e}") from None
    return written


def _write_set(paths: dict[str, Path], can_plot: bool, stem: Path, variant_name: str, matches: list[MatchResult],
               ratings, command: str, games: bool, seed: int) -> None:
    """The report files of :func:`write_reports`, written at ``paths``."""
    from agents.arena.ratings import plot_ratings
    unit = "game" if games else "deal"
    pairs = matches[0].pairs
    md = [
        f"### {variant_name}: {pairs} duplicate pairs per match ({2 * pairs} {unit}s), seed {seed}",
        "",
        f"Command: `{command}`",
        "",
        md_table(rating_rows(ratings, games)),
        "",
        md_table([m.row() for m in matches]),
        "",
        f"![ratings]({stem.with_suffix('.png').name})" if can_plot
        else "(no rating plot: matplotlib is not installed; `pip install belote_env[plot]`)",
        "",
        f"Written last of its set: {variant_name}.json, {variant_name}_matches.csv, {variant_name}_ratings.csv"
        f"{f' and {variant_name}.png' if can_plot else ''} beside it are of the same run.",
        "",
    ]
    paths["md"].write_text("\n".join(md))
    with open(paths["csv"], "w", newline="") as f:
        rows = [m.to_dict() for m in matches]
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open(paths["ratings_csv"], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["agent", "rating", "low", "high", "deals", "score"])
        w.writeheader()
        w.writerows(r.to_dict() for r in ratings)
    payload = {"variant": variant_name, "seed": seed, "games": games, "command": command,
               "ratings": [no_nan(r.to_dict()) for r in ratings], "matches": [no_nan(m.to_dict()) for m in matches]}
    paths["json"].write_text(json.dumps(payload, indent=2, allow_nan=False))
    if can_plot:
        plot_ratings(ratings, paths["png"], f"{variant_name}: {pairs} duplicate pairs per match")
