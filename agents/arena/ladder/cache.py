"""The ladder's match cache: one file per match, ``<cache>/<family>/<A>__<B>.json``, holding the chunks of 128
pairs played so far (per-pair outcomes, seed, range, a digest binding each chunk to its match), written
atomically under a lock on the family's folder; its checks (``--verify``) and the agents' time per decision
(``timing.json``). Storage only: what is played is :mod:`agents.arena.ladder.schedule`'s, what is shown
:mod:`agents.arena.ladder.page`'s."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from agents.arena.errors import LadderError
from agents.arena.ladder.lineup import FAMILIES
from agents.arena.match import CHUNK_PAIRS, MatchResult
from agents.arena.reports import file_stem, no_nan
from agents.files import replacing, write_text
from agents.registry import agent_digest  # noqa: F401  (the cache's key of an agent's weights; re-exported)
from belote_env.rules.errors import short_repr

CACHE_FORMAT = "belote_env.ladder/2"  # /2: a chunk's digest covers the match it belongs to (/1: its contents only)
OLD_FORMATS = ("belote_env.ladder/1",)  # files of an older ladder: their matches are played again
TIMING_FILE = "timing.json"  # in the cache folder: the agents' time per decision (outside */*.json, the matches)
REPO = Path(__file__).resolve().parents[3]
SHIPPED_CACHE = REPO / "docs" / "results" / "ladder"  # the cache of docs/results.md, in the repository


def chunk_ranges(pairs: int) -> list[tuple[int, int]]:
    """The ranges of pairs a match of ``pairs`` pairs is played (and cached) in."""
    return [(s, min(s + CHUNK_PAIRS, pairs)) for s in range(0, pairs, CHUNK_PAIRS)]


@dataclass
class MatchCache:
    """One match of the ladder and its cache file: the chunks played so far, for any seed and range."""

    family: str
    agent_a: str
    agent_b: str
    path: Path
    digests: dict[str, str | None] = field(default_factory=dict)
    chunks: dict[tuple[int, int, int], dict] = field(default_factory=dict)  # (seed, start, stop) -> record
    results: dict[str, dict] = field(default_factory=dict)  # "seed=S pairs=N" -> MatchResult.to_dict()
    stale: str = ""  # why cached chunks were dropped
    dropped: list[str] = field(default_factory=list)  # chunks of the file that did not check out, and why

    @classmethod
    def open(cls, cache_dir: Path, family: str, a: str, b: str) -> "MatchCache":
        path = cache_dir / family / f"{file_stem(a)}__{file_stem(b)}.json"
        m = cls(family, a, b, path, {a: agent_digest(a, family), b: agent_digest(b, family)})
        if not path.exists():
            return m
        try:
            data = json.loads(path.read_text())
            if data.get("format") in OLD_FORMATS:
                m.stale = (f"it was written by an older ladder (format {data['format']}, whose chunks are not bound "
                           "to their match)")
                return m
            if data.get("format") != CACHE_FORMAT:
                raise ValueError(f"format {short_repr(data.get('format'))}, expected {CACHE_FORMAT!r}")
            if (data["family"], data["agent_a"], data["agent_b"]) != (family, a, b):
                raise ValueError(f"it holds {data['agent_a']} v {data['agent_b']} in {data['family']}")
            old = {data["agent_a"]: data["digest_a"], data["agent_b"]: data["digest_b"]}
            changed = [x for x in (a, b) if old[x] != m.digests[x]]
            if changed:
                m.stale = f"the weights of {', '.join(changed)} changed since it was cached"
                return m
            m.chunks, m.dropped = checked_chunks(data["chunks"], m.identity)
            m.results = dict(data.get("results", {}))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise LadderError(f"cache file {str(path)!r} cannot be used ({e}); delete it to play the match again") from None
        return m

    @property
    def identity(self) -> tuple:
        """What a chunk's digest binds it to: the family, the agents and their weights' digests."""
        return (self.family, self.agent_a, self.agent_b, self.digests[self.agent_a], self.digests[self.agent_b])

    def replay_notes(self) -> list[str]:
        """A line for each reason why cached chunks of this match are played again (changed weights, an older
        format, chunks that do not check out)."""
        return ([f"{self.path}: {self.stale}; playing the match again"] if self.stale else []) + \
            [f"{self.path}: {line}; it is played again" for line in self.dropped]

    def missing(self, seed: int, pairs: int) -> list[tuple[int, int]]:
        return [(s, e) for s, e in chunk_ranges(pairs) if (seed, s, e) not in self.chunks]

    def played(self, seed: int, pairs: int) -> int:
        return sum(e - s for s, e in chunk_ranges(pairs) if (seed, s, e) in self.chunks)

    def seconds(self, seed: int, pairs: int) -> float:
        return sum(self.chunks[(seed, s, e)].get("seconds", 0.0) for s, e in chunk_ranges(pairs)
                   if (seed, s, e) in self.chunks)

    def add(self, result: MatchResult, seconds: float) -> None:
        """Record a played chunk (with the digest of its contents) and rewrite the file (atomically)."""
        record = {
            "seed": result.seed, "start": result.pair_start, "stop": result.pair_start + result.pairs,
            "seconds": round(seconds, 2),
            "taken_a": result.taken_a, "made_a": result.made_a, "taken_b": result.taken_b, "made_b": result.made_b,
            "abandoned": result.abandoned,
            "pair_diffs": [_num(x) for x in result.pair_diffs], "pair_wins": [_num(x) for x in result.pair_wins],
        }
        record["digest"] = chunk_digest(record, self.identity)
        self.chunks[(result.seed, result.pair_start, result.pair_start + result.pairs)] = record
        self.save()

    def result(self, seed: int, pairs: int) -> MatchResult:
        """The match of ``pairs`` pairs seeded ``seed``, merged from its chunks (all must be played)."""
        parts = []
        for s, e in chunk_ranges(pairs):
            c = self.chunks[(seed, s, e)]
            parts.append(MatchResult.from_pairs(
                self.agent_a, self.agent_b, self.family, False, seed, c["pair_diffs"], c["pair_wins"],
                c["taken_a"], c["made_a"], c["taken_b"], c["made_b"], c["abandoned"], pair_start=s))
        return MatchResult.merge(parts)

    def remember(self, result: MatchResult) -> None:
        """Keep the summary of a complete match in the file, for readers of the cache."""
        key = f"seed={result.seed} pairs={result.pairs}"
        summary = no_nan(result.to_dict())
        if self.results.get(key) != summary:
            self.results[key] = summary
            self.save()

    def save(self) -> None:
        """Rewrite the file (temporary name, fsync, rename) under a lock on its folder, merged with the chunks
        another process sharing the cache wrote since this one read it: concurrent ladders lose nothing."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with folder_lock(self.path.parent):
                self._merge_from_disk()
                head = {"format": CACHE_FORMAT, "family": self.family, "agent_a": self.agent_a,
                        "agent_b": self.agent_b, "digest_a": self.digests[self.agent_a],
                        "digest_b": self.digests[self.agent_b], "results": self.results}
                chunks = [self.chunks[k] for k in sorted(self.chunks)]
                text = json.dumps(head, indent=2, allow_nan=False)[:-2] + ',\n  "chunks": [\n'
                text += ",\n".join("    " + json.dumps(c, allow_nan=False) for c in chunks) + "\n  ]\n}\n"
                with replacing(self.path) as tmp:
                    tmp.write_text(text)
        except OSError as e:
            raise LadderError(f"cannot write the cache file {str(self.path)!r}: {e.strerror or e}") from None

    def _merge_from_disk(self) -> None:
        """The chunks and results of the file as it is now (another process may have added some), where they
        check out and this match's agents and weights are the same; this process's own win on a clash."""
        try:
            data = json.loads(self.path.read_text())
            same = (data.get("format"), data.get("family"), data.get("agent_a"), data.get("agent_b"),
                    data.get("digest_a"), data.get("digest_b")) == (
                CACHE_FORMAT, self.family, self.agent_a, self.agent_b, self.digests[self.agent_a],
                self.digests[self.agent_b])
            if not same:
                return
            chunks, _ = checked_chunks(data.get("chunks", []), self.identity)
            results = dict(data.get("results", {}))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return  # no file yet, or one this process will replace (its problems were reported on open)
        self.chunks = {**chunks, **self.chunks}
        self.results = {**results, **self.results}


@contextlib.contextmanager
def folder_lock(folder: Path):
    """An exclusive ``flock`` on the folder itself (no lock file is left in the cache)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def chunk_digest(record: dict, match: tuple) -> str:
    """SHA-256 of a chunk record's contents (every field but ``digest`` and ``seconds``) and of the match it belongs
    to (``MatchCache.identity``: family, agents, their weights' digests), in canonical JSON: a chunk copied into
    another match's file does not check out there."""
    body = {k: v for k, v in record.items() if k not in ("digest", "seconds")}
    text = json.dumps({"match": list(match), "chunk": body}, sort_keys=True, allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def chunk_problem(c, match: tuple) -> str | None:
    """Why a cached chunk record cannot be used in the match ``match`` (``MatchCache.identity``), or None: its range
    must be one of :func:`chunk_ranges`', its per-pair lists as long as the range, differences finite, wins 0..2 in
    halves, the counts whole and consistent, and its digest that of its contents in this match."""
    if not isinstance(c, dict):
        return "not a record"
    ints = ("seed", "start", "stop", "taken_a", "made_a", "taken_b", "made_b", "abandoned")
    if any(isinstance(c.get(k), bool) or not isinstance(c.get(k), int) for k in ints):
        return f"{', '.join(k for k in ints if not isinstance(c.get(k), int) or isinstance(c.get(k), bool))} " \
               "missing or not whole numbers"
    start, stop = c["start"], c["stop"]
    if start < 0 or start % CHUNK_PAIRS or not 0 < stop - start <= CHUNK_PAIRS:
        return f"pairs {start}..{stop} is not a chunk of {CHUNK_PAIRS} pairs"
    diffs, wins = c.get("pair_diffs"), c.get("pair_wins")
    if not isinstance(diffs, list) or not isinstance(wins, list) or not len(diffs) == len(wins) == stop - start:
        return f"pairs {start}..{stop} need {stop - start} pair outcomes"
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in diffs):
        return "a point difference is not a finite number"
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x in (0, 0.5, 1, 1.5, 2) for x in wins):
        return "a pair's deals won is not 0, 0.5, 1, 1.5 or 2"
    deals = 2 * (stop - start)
    if not (0 <= c["made_a"] <= c["taken_a"] <= deals and 0 <= c["made_b"] <= c["taken_b"] <= deals
            and 0 <= c["abandoned"] <= stop - start):
        return "contracts taken, made or abandoned pairs out of range"
    if "digest" not in c:
        return "it has no digest"
    if c["digest"] != chunk_digest(c, match):
        return "its contents do not match its digest in this match (changed, or copied from another match)"
    return None


def checked_chunks(records, match: tuple) -> tuple[dict, list[str]]:
    """The cached chunk records that check out in the match ``match`` (:func:`chunk_problem`), by (seed, start,
    stop), and a line per record that does not."""
    if not isinstance(records, list):
        raise ValueError(f"its chunks are not a list but {type(records).__name__}")
    good, bad = {}, []
    for c in records:
        problem = chunk_problem(c, match)
        if problem is None:
            good[(c["seed"], c["start"], c["stop"])] = c
        else:
            where = f"seed {c.get('seed')} pairs {c.get('start')}..{c.get('stop')}" if isinstance(c, dict) else repr(c)
            bad.append(f"chunk {where}: {problem}")
    return good, bad


def _num(x: float) -> float | int:
    """Pair outcomes are multiples of 1/4: ints where they are whole, so the cache reads easily."""
    x = float(x)
    return int(x) if x.is_integer() else x


def verify_cache(cache_dir: Path) -> tuple[list[str], int, int]:
    """Re-check every match file of a cache folder (``--verify``): its format, that it is named for its agents,
    that their weights are those it was played with, and every chunk (:func:`chunk_problem`). Returns a line per
    file, the number of files and the number with a problem; reads only (the next ladder run plays bad chunks
    again)."""
    if not cache_dir.is_dir():
        raise LadderError(f"--cache {str(cache_dir)!r} is not a folder")
    lines, problems = [], 0
    files = sorted(p for p in cache_dir.glob("*/*.json"))
    for path in files:
        family = path.parent.name
        try:
            data = json.loads(path.read_text())
            a, b = data["agent_a"], data["agent_b"]
            if family not in FAMILIES:
                raise ValueError(f"{family!r} is not a family ({', '.join(FAMILIES)})")
            if not isinstance(a, str) or not isinstance(b, str) or path.name != f"{file_stem(a)}__{file_stem(b)}.json":
                raise ValueError(f"its name is not that of its agents {a!r} and {b!r}")
            m = MatchCache.open(cache_dir, family, a, b)
        except LadderError as e:  # names the file
            lines.append(f"BAD: {e}")
            problems += 1
            continue
        except (OSError, ValueError, KeyError, TypeError) as e:
            lines.append(f"BAD: cache file {str(path)!r} cannot be used ({e}); delete it to play the match again")
            problems += 1
            continue
        pairs: dict[int, int] = {}
        for seed, start, stop in m.chunks:
            pairs[seed] = pairs.get(seed, 0) + stop - start
        held = ", ".join(f"seed {k}: {v:,} pairs" for k, v in sorted(pairs.items())) or "nothing played"
        if m.stale or m.dropped:
            problems += 1
            why = [m.stale] if m.stale else m.dropped
            lines.append(f"BAD: {path}: {'; '.join(why)} (the next run plays it again; {held} check out)")
        else:
            lines.append(f"{path}: ok, {len(m.chunks)} chunks ({held})")
    if not files:
        lines.append(f"{cache_dir}: no match file (<family>/<A>__<B>.json)")
    return lines, len(files), problems


def decision_ms(cache_dir: Path, family: str, spec: str, variant, pairs: int, seed: int) -> dict:
    """The time per decision of ``spec`` in ``family``, asked one decision at a time as at a single table
    (:func:`agents.arena.timing.decision_times`, ``pairs`` duplicate pairs against the heuristic, seed ``seed``):
    ``{"decisions", "median_ms", "p99_ms", "digest"}``. Read from the cache's ``timing.json`` when it was measured
    there for the same agent weights, pairs and seed, so a rerun writes the same page; measured and saved
    otherwise."""
    from agents.arena.timing import decision_times, percentile
    from agents.registry import make_agent

    path = cache_dir / TIMING_FILE
    key = f"{family} {spec} seed={seed} pairs={pairs}"
    digest = agent_digest(spec, family)

    def read() -> dict:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    hit = read().get(key)
    if isinstance(hit, dict) and hit.get("digest") == digest and {"decisions", "median_ms", "p99_ms"} <= hit.keys():
        return hit
    ms, _ = decision_times(make_agent(spec), variant, pairs, seed)
    entry = {"digest": digest, "decisions": len(ms), "median_ms": round(percentile(ms, 0.5), 3),
             "p99_ms": round(percentile(ms, 0.99), 3)}
    with folder_lock(cache_dir):
        data = read()
        data[key] = entry
        write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return entry
