"""The ladder's page, ``docs/results.md``: how it was made, each agent's rating and time per decision in every
family, and each family's tables and plot. Presentation only: the figures come from the cache
(:mod:`agents.arena.ladder.cache`)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from agents.arena.ladder.cache import REPO, TIMING_FILE
from agents.arena.ladder.lineup import PRETRAINED, anchor_of
from agents.arena.match import MatchResult
from agents.arena.reports import md_table, rating_rows


@dataclass
class FamilyResult:
    family: str
    agents: list[str]
    matches: list[MatchResult]  # stronger first, in rating order
    ratings: list
    png: Path | None
    seconds: float
    timing: dict | None = None  # agent -> decision_ms(...) entry, or None without --timing-pairs
    timing_pairs: int = 0


def _rel(path: Path, start: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), Path(start).resolve())).as_posix()


def _from_repo(path: Path) -> str:
    """``path`` as a command run from the repository's root names it (absolute when outside the repository)."""
    path = Path(path).resolve()
    return path.relative_to(REPO.resolve()).as_posix() if path.is_relative_to(REPO.resolve()) else path.as_posix()


def _cell(r) -> str:
    return f"{r.rating:+.0f} [{r.low:+.0f}, {r.high:+.0f}]" if not math.isnan(r.low) else f"{r.rating:+.0f}"


def _agent_rows(results: list[FamilyResult], cell) -> list[dict]:
    """One row per agent of any family, ``cell(family_result, agent)`` in each family's column ('-' for None)."""
    agents: list[str] = []
    for fr in results:
        agents += [a for a in fr.agents if a not in agents]
    rows = []
    for a in agents:
        row = {"agent": a}
        for fr in results:
            text = cell(fr, a)
            row[fr.family] = "-" if text is None else text
        rows.append(row)
    return rows


def timing_rows(results: list[FamilyResult]) -> list[dict]:
    """One row per agent, its median / p99 milliseconds per decision in each family ('-' where it does not play)."""
    def cell(fr, a):
        t = (fr.timing or {}).get(a)
        return None if t is None else f"{t['median_ms']:.2f} / {t['p99_ms']:.2f}"

    return _agent_rows(results, cell)


def summary_rows(results: list[FamilyResult]) -> list[dict]:
    """One row per agent, its rating and interval in each family ('-' where it does not play)."""
    def cell(fr, a):
        r = next((r for r in fr.ratings if r.agent == a), None)
        return None if r is None else _cell(r)

    return _agent_rows(results, cell)


DEFAULT_LINEUP = ("`random`, `heuristic`, `pimc` (default options) and the trained agents shipped for that family "
                  "(`agents/pretrained/`, model cards beside the weights)")

READING = """\
How to read the tables (details in [agents.md]({agents_md})):

- every match is a duplicate match: each deal is played twice with the same
  hands, turn-up and dealer, the teams swapped between the seats, so card
  luck cancels; the deal set is seeded (seed {seed}) and the agents are
  reseeded every 128 pairs, so rerunning the command gives the same tables;
- *A-B points/deal*: A's team score minus B's team score per deal, averaged
  over the two deals of each pair; *95% CI*: Student-t interval over the
  {pairs:,} pair means;
- *A deals won*: deals in which A's team scored more (ties count half);
- *contracts made*: share of the contracts taken by that agent's team that
  were made;
- *rating*: Bradley-Terry fit on deals won over all the family's matches,
  Elo scale (a 400-point gap means 10:1 odds per deal), anchored at
  {anchor} = 0, 95% bootstrap interval over duplicate pairs ({bootstrap}
  replicates). A rating sums up all of an agent's matches; the matches table
  gives each head-to-head. Against an opponent that loses almost every deal
  the rating is held finite by one virtual tied deal per match, so large
  ratings (random's opponents in coinche and contree) mean "wins nearly
  always", not a precise figure; the points per deal say by how much.

The heuristic rarely takes against random in the auction variants because
random outbids it (and then fails nearly every contract, coinched or not);
in belote classique and 81 points, where bidding is take-or-pass, both take
often and the gap comes from bidding judgement and card play. `pimc` bids as
the heuristic does, so in their match the contracts are the same in each
pair and the difference is card play over the last five tricks ([search.md]({search_md})).
"""


def results_page(results: list[FamilyResult], command: str, docs_path: Path, cache_dir: Path, pairs: int,
                 seed: int, bootstrap: int, agents: list[str] | None = None) -> str:
    """The text of docs/results.md."""
    where = docs_path.parent
    seconds = sum(fr.seconds for fr in results)
    anchors = dict.fromkeys(anchor_of(fr.agents) for fr in results)
    anchor = " / ".join(f"`{a}`" if a != "random" else a for a in anchors)
    lines = [
        "# Results: the ladder",
        "",
        "<!-- Generated by agents/arena/ladder/page.py: edit the generator, not this file. -->",
        "",
        "Generated by",
        "",
        "```",
        command,
        "```",
        "",
        f"(`belote-ladder` once the package is installed; [agents.md]({_rel(REPO / 'docs' / 'agents.md', where)}"
        "#the-ladder) tells how it works). Each family is a round-robin of duplicate matches, "
        f"{pairs:,} duplicate pairs ({2 * pairs:,} deals) per match, between "
        + (DEFAULT_LINEUP if agents is None else "the agents given by `--agents`: "
           + ", ".join(f"`{a}`" for a in agents) + f" (`{PRETRAINED}`: the family's shipped trained agents)")
        + ". The command caches every chunk of 128 pairs as it is played "
        f"(`{_from_repo(cache_dir)}/<family>/<A>__<B>.json`: per-pair outcomes, seed, agent specs) and replays "
        "nothing already cached, so it can be run in pieces (`--max-minutes 7`, rerun until it exits with status 0; "
        "`-j 2` spreads the chunks over two processes with the same results); `--dry-run` lists what is left. "
        f"Play took {seconds / 60:.1f} minutes in all, summed over chunks (one core each). Any other agent is rated on "
        "this scale, against the agents here held fixed and without replaying their matches, by `belote-eval AGENT "
        f"-f FAMILY` ([agents.md]({_rel(REPO / 'docs' / 'agents.md', where)}#rating-one-agent-belote-eval)).",
        "",
        "## Summary: ratings per family",
        "",
        f"Bradley-Terry rating (Elo scale, {anchor} = 0) and 95% bootstrap interval; ratings compare agents "
        "within a family, not across families.",
        "",
        md_table(summary_rows(results)),
        "",
        *_timing_section(results),
        READING.format(agents_md=_rel(REPO / "docs" / "agents.md", where), search_md=_rel(REPO / "docs" / "search.md", where),
                       seed=seed, pairs=pairs, bootstrap=bootstrap, anchor=anchor).rstrip(),
        "",
        f"Earlier results played by hand (pimc against the heuristic on 1,000 pairs, the tables of the old "
        f"play loop): [notes/results.md]({_rel(REPO / 'docs' / 'notes' / 'results.md', where)}).",
    ]
    for fr in results:
        lines += [
            "",
            f"## {fr.family}",
            "",
            f"{pairs:,} duplicate pairs per match ({2 * pairs:,} deals), seed {seed}, "
            f"{len(fr.matches)} matches, {fr.seconds / 60:.1f} minutes of play.",
            "",
            md_table(rating_rows(fr.ratings)),
            "",
            md_table([m.row() for m in fr.matches]),
        ]
        if fr.png is not None:
            lines += ["", f"![{fr.family} ratings]({_rel(fr.png, where)})"]
    return "\n".join(lines) + "\n"


def _timing_section(results: list[FamilyResult]) -> list[str]:
    if not any(fr.timing for fr in results):
        return []
    pairs = next(fr.timing_pairs for fr in results if fr.timing)
    return [
        "Time per decision, median / 99th percentile in milliseconds: each decision asked alone, as at one table "
        f"(`agents.arena.timing`), over {pairs} duplicate pairs against the heuristic, one core, on the machine "
        f"that generated the page (kept in the cache's `{TIMING_FILE}` while the agents' weights are the same). "
        "Tournaments ask many tables at once, which is faster per decision for the networks.",
        "",
        md_table(timing_rows(results)),
        "",
    ]
