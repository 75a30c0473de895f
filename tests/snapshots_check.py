"""What the example tests check of a run with ``--snapshots``: the snapshots' log, and that the last snapshot (a
``.pt2`` file) plays the example's final duplicate match exactly as the library's own model did."""

from __future__ import annotations

import json
import re
from pathlib import Path


def check_snapshots(folder: Path, stdout: str, pairs: int, seed: int = 0, variant: str = "coinche") -> list[dict]:
    """The lines of ``folder/snapshots.jsonl`` (the first at minute 0 and step 0, steps growing); the last
    snapshot replays the example's printed ``vs random`` figure (same pairs, same deals) as an agent spec."""
    from agents.arena.match import duplicate_match
    from agents.registry import make_agent
    from belote_env.variants import load_variant

    log = [json.loads(line) for line in (folder / "snapshots.jsonl").read_text().splitlines()]
    assert len(log) >= 2 and log[0]["steps"] == 0 and log[0]["minutes"] < 0.5
    assert [s["steps"] for s in log] == sorted(s["steps"] for s in log) and log[-1]["steps"] > 0
    assert [s["minutes"] for s in log] == sorted(s["minutes"] for s in log)
    printed = re.search(r"vs random on \S+, \d+ duplicate pairs: ([+-]\d+\.\d) points per deal", stdout)
    assert printed, stdout[-2000:]
    agent = make_agent(str(folder / log[-1]["snapshot"]))
    r = duplicate_match(agent, make_agent("random"), load_variant(variant), pairs, seed=seed).to_dict()
    assert f"{r['mean_diff']:+.1f}" == printed.group(1)
    return log
