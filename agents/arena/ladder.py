"""The ladder: ``python -m agents.arena.ladder`` or ``belote-ladder`` writes ``docs/results.md``.

For every family (``belote_classique``, ``coinche``, ``contree``,
``cobrecaf_81``) a round-robin of duplicate matches (:mod:`agents.arena.match`)
between ``random``, ``heuristic``, ``pimc`` and every shipped trained agent
of that family (the variant its weights file records,
:func:`agents.pretrained.pretrained_variant`), 2,000 duplicate pairs per
match by default; then Bradley-Terry ratings with bootstrap intervals
(:mod:`agents.arena.ratings`), the per-family reports of the tournament command
(:func:`agents.arena.reports.write_reports`: Markdown, CSV, JSON, plot) and one
generated page, ``docs/results.md``, with every family's tables and plot and
a summary of each agent's rating per family.

Resumable: every chunk of 128 pairs (the unit of :func:`agents.arena.match.play_pairs`,
so any split of a match gives the same pairs) is saved, as soon as it is
played, in ``<cache>/<family>/<A>__<B>.json`` (default cache
``docs/results/ladder``) with the per-pair outcomes the bootstrap needs, the
seed, the range of pairs and the agent specs (and the SHA-256 of a trained
agent's weights: new weights replay the match). A rerun plays only what is
missing; ``--max-minutes M`` starts no new chunk after M minutes, so the
ladder can be played in pieces (exit status 3 while pairs are left);
``--dry-run`` lists what is played and what is left. The reports and the
page are written once every match of the run is complete.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import math
import os
import queue
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from agents.arena.errors import LadderError
from agents.arena.match import CHUNK_PAIRS, MatchResult, run_chunk
from agents.arena.reports import file_stem, md_table, no_nan, rating_rows, stronger_first, text_table, write_reports
from agents.cli import CommandParser, check_writable, nonnegative_int, positive_int
from agents.files import replacing, write_text
from belote_env.rules.errors import BeloteError, short_repr

FAMILIES = ("belote_classique", "coinche", "contree", "cobrecaf_81")
BASE_AGENTS = ("random", "heuristic", "pimc")
PRETRAINED = "pretrained"  # in --agents: the family's shipped trained agents
SEARCH_AGENTS = ("search",)  # after the trained agents: pimc on the family's shipped policy
CACHE_FORMAT = "belote_env.ladder/2"  # /2: a chunk's digest covers the match it belongs to (/1: its contents only)
OLD_FORMATS = ("belote_env.ladder/1",)  # files of an older ladder: their matches are played again
DEFAULT_PAIRS = 2000
DEFAULT_BOOTSTRAP = 200
DEFAULT_OUT = Path("docs/results")
DEFAULT_DOCS = Path("docs/results.md")
INCOMPLETE = 3  # exit status: stopped by --max-minutes with pairs left
DEFAULT_TIMING_PAIRS = 20
TIMING_FILE = "timing.json"  # in the cache folder: the agents' time per decision (outside */*.json, the matches)
REPO = Path(__file__).resolve().parents[2]



# ----------------------------------------------------------------------------- who plays

def family_agents(family: str, agents: list[str] | None = None) -> list[str]:
    """The agents of ``family``'s round-robin: ``random``, ``heuristic``, ``pimc``, the shipped agents trained on
    it and ``search`` (pimc on the first of them, when there is one); or ``agents``, where the word
    ``pretrained`` stands for those shipped agents."""
    from agents.pretrained import trained_on

    trained = trained_on(family)
    specs = list(BASE_AGENTS) + [PRETRAINED] + list(SEARCH_AGENTS) * bool(trained) if agents is None else list(agents)
    out: list[str] = []
    for spec in specs:
        out.extend(trained if spec == PRETRAINED else [spec])
    if len(set(out)) != len(out):
        raise LadderError(f"{family}: an agent is listed twice in {out}")
    if len(out) < 2:
        raise LadderError(f"{family}: a round-robin needs at least two agents, got {out}")
    return out


def check_agent(spec: str) -> None:
    """Fail early, with an AgentSpecError, on a spec ``make_agent`` cannot build (registered names are not
    built here: pimc and the trained agents load numba or torch; ``pimc:OPTIONS`` is built, which compiles
    nothing yet)."""
    from agents.registry import agent_names, make_agent

    if spec not in agent_names():
        make_agent(spec)


def agent_digest(spec: str, family: str | None = None) -> str | None:
    """SHA-256 of the weights file behind a trained agent or a checkpoint spec, or of the digests of the
    policies a ``pimc``/``search`` spec loads in ``family`` (None for agents without weights): a cached match
    whose agent's weights have changed is played again."""
    from agents.pretrained import available, weights_path
    from agents.registry import is_checkpoint_spec

    if spec in available() or is_checkpoint_spec(spec):
        path = weights_path(spec)
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    if spec.partition(":")[0] in ("pimc", "search") and family is not None:
        from agents.pimc import policies

        digests = [agent_digest(p) or "" for p in policies(spec, family)]
        return hashlib.sha256(" ".join(digests).encode()).hexdigest() if digests else None
    return _factory_digest(spec)


def _factory_digest(spec: str) -> str | None:
    """For a ``module:factory`` spec (not a registered name with options), the SHA-256 of the module's source
    file, so that a cached match of an outside agent is played again once its module changes (modules it
    imports are not covered); None for other specs or a module without a file."""
    import importlib.util

    from agents.registry import is_factory_spec

    if not is_factory_spec(spec):
        return None
    head = spec.rpartition(":")[0]
    try:
        found = importlib.util.find_spec(head)
    except (ImportError, ValueError):
        return None
    origin = Path(found.origin) if found is not None and found.origin else None
    return hashlib.sha256(origin.read_bytes()).hexdigest() if origin is not None and origin.is_file() else None


def chunk_ranges(pairs: int) -> list[tuple[int, int]]:
    """The ranges of pairs a match of ``pairs`` pairs is played (and cached) in."""
    return [(s, min(s + CHUNK_PAIRS, pairs)) for s in range(0, pairs, CHUNK_PAIRS)]


# ----------------------------------------------------------------------------- the cache

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
            with _folder_lock(self.path.parent):
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
def _folder_lock(folder: Path):
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


# ----------------------------------------------------------------------------- playing

def _timed_chunk(task) -> tuple[MatchResult, float]:
    """Worker: one chunk (agents.arena.match's task tuple) and the seconds it took."""
    t0 = time.perf_counter()
    result = run_chunk(task)
    return result, time.perf_counter() - t0


@dataclass
class Job:
    match: MatchCache
    variant: object
    start: int
    stop: int


class _Bars:
    """A tqdm bar per match being played (total: the match's pairs, starting at those already cached)."""

    def __init__(self, seed: int, pairs: int, enabled: bool):
        self.seed, self.pairs, self.enabled = seed, pairs, enabled
        self.bars: dict[int, object] = {}
        self.slots: dict[int, int] = {}

    def open(self, m: MatchCache) -> None:
        if not self.enabled or id(m) in self.bars:
            return
        from tqdm import tqdm

        slot = min(set(range(len(self.slots) + 1)) - set(self.slots.values()))
        self.slots[id(m)] = slot
        self.bars[id(m)] = tqdm(total=self.pairs, initial=m.played(self.seed, self.pairs), unit="pair",
                                desc=f"{m.family}: {m.agent_a} v {m.agent_b}", position=slot, leave=False,
                                dynamic_ncols=True)

    def update(self, m: MatchCache, n: int) -> None:
        if id(m) in self.bars:
            self.bars[id(m)].update(n)

    def close(self, m: MatchCache) -> None:
        bar = self.bars.pop(id(m), None)
        if bar is not None:
            bar.close()
            self.slots.pop(id(m))

    def write(self, line: str) -> None:
        if self.enabled:
            from tqdm import tqdm

            tqdm.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def close_all(self) -> None:
        for bar in self.bars.values():
            bar.close()
        self.bars.clear()
        self.slots.clear()


def play_jobs(jobs: list[Job], seed: int, pairs: int, workers: int = 1, deadline: float = math.inf,
              progress: bool = True) -> int:
    """Play the chunks of ``jobs`` (in order), saving each as it ends; no new chunk starts after
    ``deadline`` (time.monotonic()), though at least one does. Returns the number of chunks played."""
    bars = _Bars(seed, pairs, progress)
    t_start = time.monotonic()
    played = 0

    def task(job: Job):
        return (job.match.agent_a, job.match.agent_b, job.variant, job.start, job.stop, seed, False, False)

    def record(job: Job, result: MatchResult, seconds: float) -> None:
        m = job.match
        m.add(result, seconds)
        bars.update(m, result.pairs)
        if not m.missing(seed, pairs):
            bars.close(m)
            r = m.result(seed, pairs)
            m.remember(r)
            r = r if r.mean_diff >= 0 else r.swapped()  # told from the winner's side
            bars.write(f"{m.family}: {r.agent_a} v {r.agent_b}, {r.pairs} pairs: {r.mean_diff:+.1f} points/deal "
                       f"[{r.ci_low:+.1f}, {r.ci_high:+.1f}], {100 * r.win_rate:.1f}% of deals won "
                       f"({m.seconds(seed, pairs) / 60:.1f} min of play, {(time.monotonic() - t_start) / 60:.1f} "
                       "min into this run)")

    pending = iter(jobs)
    try:
        if workers <= 1:
            for job in pending:
                if played and time.monotonic() >= deadline:
                    break
                bars.open(job.match)
                result, seconds = _timed_chunk(task(job))
                record(job, result, seconds)
                played += 1
        else:
            import multiprocessing as mp

            done: queue.Queue = queue.Queue()
            with mp.get_context("spawn").Pool(workers) as pool:
                def submit() -> bool:
                    job = next(pending, None)
                    if job is None:
                        return False
                    bars.open(job.match)
                    pool.apply_async(_timed_chunk, (task(job),), callback=lambda r, job=job: done.put((job, r, None)),
                                     error_callback=lambda e, job=job: done.put((job, None, e)))
                    return True

                in_flight = sum(submit() for _ in range(workers))
                while in_flight:
                    job, out, error = done.get()
                    in_flight -= 1
                    if error is not None:
                        raise error
                    record(job, *out)
                    played += 1
                    if time.monotonic() < deadline:
                        in_flight += submit()
    finally:
        bars.close_all()
    return played


# ----------------------------------------------------------------------------- the page

def canonical_command(args, prog: str = "python -m agents.arena.ladder") -> str:
    """The command line that gives these results (run-control options, -j and --max-minutes, left out)."""
    parts = [prog]
    if list(args.families) != list(FAMILIES):
        parts += ["--families", *args.families]
    if args.agents is not None:
        parts += ["--agents", *args.agents]
    parts += ["--pairs", str(args.pairs), "--seed", str(args.seed)]
    if args.bootstrap != DEFAULT_BOOTSTRAP:
        parts += ["--bootstrap", str(args.bootstrap)]
    if args.timing_pairs != DEFAULT_TIMING_PAIRS:
        parts += ["--timing-pairs", str(args.timing_pairs)]
    for flag, value, default in (("--out", args.out, DEFAULT_OUT), ("--docs", args.docs, DEFAULT_DOCS),
                                 ("--cache", args.cache, None)):
        if value is not None and value != default:
            parts += [flag, str(value)]
    return " ".join(parts)


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


def anchor_of(agents: list[str]) -> str:
    """The agent rated 0: random when it plays, else the first of the line-up."""
    return "random" if "random" in agents else agents[0]


def _rel(path: Path, start: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), Path(start).resolve())).as_posix()


def _from_repo(path: Path) -> str:
    """``path`` as a command run from the repository's root names it (absolute when outside the repository)."""
    path = Path(path).resolve()
    return path.relative_to(REPO.resolve()).as_posix() if path.is_relative_to(REPO.resolve()) else path.as_posix()


def _cell(r) -> str:
    return f"{r.rating:+.0f} [{r.low:+.0f}, {r.high:+.0f}]" if not math.isnan(r.low) else f"{r.rating:+.0f}"


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
    with _folder_lock(cache_dir):
        data = read()
        data[key] = entry
        write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return entry


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
        "<!-- Generated by agents/arena/ladder.py: edit the generator, not this file. -->",
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
        f"Play took {seconds / 60:.1f} minutes in all, summed over chunks (one core each).",
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


# ----------------------------------------------------------------------------- the command

def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"expected a number of minutes >= 0, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="belote-ladder",
        description="Every family's round-robin of random, heuristic, pimc and its shipped trained agents; "
                    "ratings, reports and docs/results.md. Resumable: finished chunks of 128 pairs are cached.",
    )
    p.add_argument("--families", "-f", nargs="+", default=list(FAMILIES), metavar="FAMILY",
                   help=f"families to play (default all: {' '.join(FAMILIES)})")
    p.add_argument("--agents", "-a", nargs="+", default=None, metavar="AGENT",
                   help="agents of every family's round-robin instead of random heuristic pimc pretrained "
                        "('pretrained': the family's shipped trained agents)")
    p.add_argument("--pairs", "-n", type=positive_int, default=DEFAULT_PAIRS,
                   help=f"duplicate pairs per match (default {DEFAULT_PAIRS})")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the deal set (default 0)")
    p.add_argument("--workers", "-j", type=positive_int, default=1,
                   help="processes playing chunks of 128 pairs (default 1; same results for any number)")
    p.add_argument("--max-minutes", type=_minutes, default=None, metavar="M",
                   help="start no new chunk after M minutes (chunks in play end and are saved); rerun to go on. "
                        "Exit status 3 while pairs are left")
    p.add_argument("--dry-run", action="store_true", help="list the matches, what is cached and what is left; play nothing")
    p.add_argument("--verify", action="store_true",
                   help="re-check every file of the cache (format, agents' weights, each chunk's ranges, values and "
                        "digest); play and write nothing. Exit status 1 when a file has a problem")
    p.add_argument("--timing-pairs", type=nonnegative_int, default=DEFAULT_TIMING_PAIRS, metavar="K",
                   help="duplicate pairs against the heuristic over which each agent's time per decision is measured, "
                        f"one decision at a time (default {DEFAULT_TIMING_PAIRS}; 0: no timing on the page)")
    p.add_argument("--bootstrap", type=positive_int, default=DEFAULT_BOOTSTRAP,
                   help=f"bootstrap replicates for the rating intervals (default {DEFAULT_BOOTSTRAP})")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help=f"folder of the per-family reports <family>.md/.json/.png/CSV (default {DEFAULT_OUT})")
    p.add_argument("--docs", type=Path, default=DEFAULT_DOCS,
                   help=f"the generated page (default {DEFAULT_DOCS})")
    p.add_argument("--cache", type=Path, default=None,
                   help="folder of the match cache (default OUT/ladder)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.arena.ladder`` / ``belote-ladder``."""
    args = parser().parse_args(argv)
    try:
        return run(args)
    except BeloteError as e:  # LadderError, AgentSpecError, VariantError...: one line, no traceback
        print(f"belote-ladder: error: {e}", file=sys.stderr)
        return 2


def run(args) -> int:
    from agents.arena.ratings import rate
    from belote_env.variants import load_variant

    t0 = time.monotonic()
    if args.verify:
        lines, checked, problems = verify_cache(args.cache if args.cache is not None else args.out / "ladder")
        print("\n".join(lines))
        print(f"{checked} match files checked, {problems} with a problem")
        return 1 if problems else 0
    unknown = [f for f in args.families if f not in FAMILIES]
    if unknown:
        raise LadderError(f"unknown famil{'ies' if len(unknown) > 1 else 'y'} {', '.join(map(repr, unknown))}: "
                          f"the families are {', '.join(FAMILIES)}")
    families = list(dict.fromkeys(args.families))
    cache_dir = args.cache if args.cache is not None else args.out / "ladder"
    lineup = {f: family_agents(f, args.agents) for f in families}
    for spec in dict.fromkeys(s for specs in lineup.values() for s in specs):
        check_agent(spec)
    if not args.dry_run:
        check_writable(args.out, "--out", LadderError)
        check_writable(cache_dir, "--cache", LadderError)
        check_writable(args.docs.parent, "--docs", LadderError)
        if args.docs.is_dir():
            raise LadderError(f"--docs {str(args.docs)!r} is a folder, not a file")
    variants = {f: load_variant(f) for f in families}
    matches = {f: [MatchCache.open(cache_dir, f, specs[x], specs[y])
                   for x in range(len(specs)) for y in range(x + 1, len(specs))]
               for f, specs in lineup.items()}
    jobs = [Job(m, variants[f], s, e) for f in families for m in matches[f] for s, e in m.missing(args.seed, args.pairs)]
    for f in families:
        for m in matches[f]:
            if m.stale:
                print(f"{m.path}: {m.stale}; playing the match again")
            for line in m.dropped:
                print(f"{m.path}: {line}; it is played again")

    total = sum(len(matches[f]) for f in families) * args.pairs
    left = sum(j.stop - j.start for j in jobs)
    if args.dry_run:
        rows = [{"family": f, "A": m.agent_a, "B": m.agent_b,
                 "pairs cached": f"{m.played(args.seed, args.pairs)} of {args.pairs}",
                 "minutes of play cached": f"{m.seconds(args.seed, args.pairs) / 60:.1f}",
                 "cache file": str(m.path)} for f in families for m in matches[f]]
        print(text_table(rows))
        print(f"\n{left:,} of {total:,} pairs left to play ({len(jobs)} chunks of up to {CHUNK_PAIRS} pairs); "
              f"seed {args.seed}")
        return 0

    deadline = t0 + 60 * args.max_minutes if args.max_minutes is not None else math.inf
    if jobs:
        print(f"{left:,} of {total:,} pairs to play in {len(jobs)} chunks on {args.workers} process"
              f"{'es' if args.workers > 1 else ''}", flush=True)
        play_jobs(jobs, args.seed, args.pairs, args.workers, deadline, not args.no_progress)

    command = canonical_command(args)
    done: list[FamilyResult] = []
    waiting = []
    for f in families:
        missing = [m for m in matches[f] if m.missing(args.seed, args.pairs)]
        if missing:
            waiting.append(f"{f}: {len(missing)} of {len(matches[f])} matches unfinished, "
                           f"{sum(args.pairs - m.played(args.seed, args.pairs) for m in missing):,} pairs left")
            continue
        results = [m.result(args.seed, args.pairs) for m in matches[f]]
        for m, r in zip(matches[f], results):
            m.remember(r)
        ratings = rate(results, lineup[f], anchor_of(lineup[f]), args.bootstrap, args.seed)
        ordered = stronger_first(results, ratings)
        paths = write_reports(args.out, f, ordered, ratings, command, False, args.seed)
        print(f"\n== {f}: {args.pairs} duplicate pairs per match, seed {args.seed} ==")
        print(text_table(rating_rows(ratings)))
        print()
        print(text_table([m.row() for m in ordered]))
        print("wrote " + ", ".join(str(x) for x in paths.values()))
        timing = None
        if args.timing_pairs:
            timing = {a: decision_ms(cache_dir, f, a, variants[f], args.timing_pairs, args.seed) for a in lineup[f]}
        done.append(FamilyResult(f, lineup[f], ordered, ratings, paths.get("png"),
                                 sum(m.seconds(args.seed, args.pairs) for m in matches[f]), timing, args.timing_pairs))
    if waiting:
        print(f"\nstopped after {args.max_minutes:g} minutes with pairs left; run the same command again to go on:"
              if args.max_minutes is not None else "\npairs left:")
        for line in waiting:
            print("  " + line)
        print(f"({args.docs} is written once every match is played)")
        return INCOMPLETE
    text = results_page(done, command, args.docs, cache_dir, args.pairs, args.seed, args.bootstrap, args.agents)
    try:
        write_text(args.docs, text)
    except OSError as e:
        raise LadderError(f"--docs {str(args.docs)!r} cannot be written: {e.strerror or e}") from None
    print(f"\nwrote {args.docs} ({(time.monotonic() - t0) / 60:.1f} minutes)")
    left_out = [f for f in FAMILIES if f not in families]
    if left_out:
        print(f"note: the page covers {', '.join(families)} only; run without --families to put "
              f"{', '.join(left_out)} back (matches already cached are not played again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
