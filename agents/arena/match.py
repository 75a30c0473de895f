"""Duplicate matches between agents, and the round-robin that schedules them.

Duplicate deals: pair ``i`` of a match is one deal (or one game with
``games=True``) played twice from the same seed, hence the same hands, the
same turn-up and the same dealer: first with agent A at seats 0/2 and B at
1/3, then with the teams swapped. Card luck cancels in the pair's mean.
The deal seed of pair ``i`` depends only on the match seed and ``i``, so every
match of a tournament, and every run with the same seed, plays the same
deals. (Should the bidding of one table end in a redeal and the other not,
the two tables score different deals of the same seeded sequence; that is
rare and is part of the duplicate comparison.)

Statistics of a :class:`MatchResult`:

- ``mean_diff``: A's team score minus B's team score per deal (per game with
  ``games``), averaged over both deals of every pair;
- ``ci_low`` / ``ci_high``: 95 % Student-t interval of that mean over the
  pairs (the pair means are the independent samples);
- ``win_rate``: fraction of the deals (games) in which A's team scored more
  than B's, a tie counting one half;
- ``made_rate_a`` / ``made_rate_b``: fraction of the contracts taken by that
  agent's team that were made (NaN when it never took).

Reports (tables, CSV, JSON, the rating plot) are written by
:mod:`agents.arena.reports`; the command line is :mod:`agents.arena.tournament`.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass, field, fields

import numpy as np

from agents.loop import MAX_REDEALS, play_episodes
from agents.base import Agent
from belote_env.rules.variant import Variant

PAIRS_PER_BATCH = 128  # pairs played together on one VectorEnv (one act_batch per agent and step); the reseed unit
CHUNK_PAIRS = PAIRS_PER_BATCH  # pairs per worker task in a tournament

# Two-sided 95 % Student-t quantiles for 1..30 degrees of freedom; the normal one above.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)


def t_quantile_975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (normal beyond 30)."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = statistics.NormalDist().inv_cdf(0.975)
    # Cornish-Fisher correction: exact to 3 decimals for df > 30.
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def derive_seed(*parts) -> int:
    """A 63-bit seed from a tuple of ints / strings; stable across processes and Python runs."""
    return random.Random(":".join(str(p) for p in parts)).getrandbits(63)


def pair_seed(seed: int, pair: int) -> int:
    """The deal seed of duplicate pair ``pair`` of a match seeded ``seed``."""
    return derive_seed("belote-duplicate", seed, pair)


@dataclass
class MatchResult:
    """The outcome of a duplicate match of agent A against agent B.

    Per-pair data (``pair_diffs``, ``pair_wins``) are kept for merging,
    confidence intervals and ratings; ``to_dict`` / ``row`` leave them out.
    """

    agent_a: str
    agent_b: str
    variant: str
    pairs: int
    games: bool
    seed: int
    mean_diff: float
    ci_low: float
    ci_high: float
    win_rate: float
    made_rate_a: float
    made_rate_b: float
    taken_a: int
    made_a: int
    taken_b: int
    made_b: int
    abandoned: int
    pair_diffs: np.ndarray = field(repr=False)  # A minus B, mean of the pair's two deals
    pair_wins: np.ndarray = field(repr=False)  # A's wins in the pair's two deals, 0..2 (ties 1/2)
    pair_start: int = 0
    # with record=True: per pair (in order), its two tables' deal records (belote_env.rules.record)
    records: list | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pairs(
        cls, agent_a: str, agent_b: str, variant: str, games: bool, seed: int,
        pair_diffs, pair_wins, taken_a: int, made_a: int, taken_b: int, made_b: int,
        abandoned: int = 0, pair_start: int = 0,
    ) -> "MatchResult":
        diffs = np.asarray(pair_diffs, dtype=np.float64)
        wins = np.asarray(pair_wins, dtype=np.float64)
        n = len(diffs)
        if n == 0:
            raise ValueError("a match result needs at least one duplicate pair")
        mean = float(diffs.mean())
        if n > 1:
            half = t_quantile_975(n - 1) * float(diffs.std(ddof=1)) / math.sqrt(n)
        else:
            half = math.inf
        return cls(
            agent_a=agent_a, agent_b=agent_b, variant=variant, pairs=n, games=games, seed=seed,
            mean_diff=mean, ci_low=mean - half, ci_high=mean + half,
            win_rate=float(wins.sum() / (2 * n)),
            made_rate_a=made_a / taken_a if taken_a else math.nan,
            made_rate_b=made_b / taken_b if taken_b else math.nan,
            taken_a=taken_a, made_a=made_a, taken_b=taken_b, made_b=made_b, abandoned=abandoned,
            pair_diffs=diffs, pair_wins=wins, pair_start=pair_start,
        )

    @classmethod
    def merge(cls, parts: list["MatchResult"]) -> "MatchResult":
        """Join the results of consecutive pair ranges of one match (any order)."""
        if not parts:
            raise ValueError("MatchResult.merge needs at least one part")
        parts = sorted(parts, key=lambda r: r.pair_start)
        first = parts[0]
        key = (first.agent_a, first.agent_b, first.variant, first.games, first.seed)
        expect = first.pair_start
        for p in parts:
            if (p.agent_a, p.agent_b, p.variant, p.games, p.seed) != key:
                raise ValueError(f"cannot merge results of different matches: {key} and "
                                 f"{(p.agent_a, p.agent_b, p.variant, p.games, p.seed)}")
            if p.pair_start != expect:
                raise ValueError(f"cannot merge: pairs {expect}.. are missing or repeated (next part starts at {p.pair_start})")
            expect += p.pairs
        merged = cls.from_pairs(
            first.agent_a, first.agent_b, first.variant, first.games, first.seed,
            np.concatenate([p.pair_diffs for p in parts]), np.concatenate([p.pair_wins for p in parts]),
            sum(p.taken_a for p in parts), sum(p.made_a for p in parts),
            sum(p.taken_b for p in parts), sum(p.made_b for p in parts),
            sum(p.abandoned for p in parts), first.pair_start,
        )
        if all(p.records is not None for p in parts):
            merged.records = [r for p in parts for r in p.records]
        return merged

    def swapped(self) -> "MatchResult":
        """The same match seen from B's side (its deal records too: each pair's tables in B's order, table 0
        being the one where B, now A, sits at seats 0 and 2)."""
        out = MatchResult.from_pairs(
            self.agent_b, self.agent_a, self.variant, self.games, self.seed, -self.pair_diffs,
            2.0 - self.pair_wins, self.taken_b, self.made_b, self.taken_a, self.made_a,
            self.abandoned, self.pair_start,
        )
        if self.records is not None:
            out.records = [[tables[1], tables[0]] for tables in self.records]
        return out

    def to_dict(self) -> dict:
        """Every summary figure as plain Python values (a made rate with no contract taken stays NaN)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)
             if f.name not in ("pair_diffs", "pair_wins", "pair_start", "records")}  # the deals: --record's files
        return d

    def row(self) -> dict:
        """The figures of a results table, formatted for reading."""
        unit = "game" if self.games else "deal"
        return {
            "A": self.agent_a,
            "B": self.agent_b,
            "pairs": str(self.pairs),
            f"A-B points/{unit}": f"{self.mean_diff:+.1f}",
            "95% CI": f"[{self.ci_low:+.1f}, {self.ci_high:+.1f}]" if math.isfinite(self.ci_high - self.ci_low)
            else "- (one pair)",
            f"A {unit}s won": f"{100 * self.win_rate:.1f}%",
            "A contracts made": _pct(self.made_rate_a, self.taken_a),
            "B contracts made": _pct(self.made_rate_b, self.taken_b),
        }


def _pct(rate: float, n: int) -> str:
    return "-" if not n else f"{100 * rate:.1f}% of {n}"


def pair_seeds(seed: int, start: int, stop: int) -> list[int]:
    """The table seeds of duplicate pairs ``start .. stop - 1``: each pair's seed twice in a row."""
    return [pair_seed(seed, i) for i in range(start, stop) for _ in (0, 1)]


def pair_seating(n_pairs: int) -> np.ndarray:
    """Seating of ``n_pairs`` duplicate pairs over agents ``[A, B]``: A at seats 0/2 of the first table
    of each pair (team 0), at seats 1/3 of the second (team 1)."""
    return np.tile(np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=np.int64), (n_pairs, 1))


def pair_tables(variant: Variant, seed: int, start: int, stop: int, max_redeals: int = MAX_REDEALS):
    """The :class:`~belote_env.vector.VectorEnv` of duplicate pairs ``start .. stop - 1``: tables ``2k``
    and ``2k + 1`` share pair ``start + k``'s seed (same hands, turn-up and dealer); seat them with
    :func:`pair_seating`."""
    from belote_env.vector import VectorEnv

    return VectorEnv(variant, num_tables=2 * (stop - start), table_seeds=pair_seeds(seed, start, stop),
                     max_redeals=max_redeals, episode=variant.episode)


def play_pairs(
    agent_a: Agent, agent_b: Agent, variant: Variant, start: int, stop: int, seed: int = 0,
    games: bool = False, label_a: str | None = None, label_b: str | None = None, progress=None,
    max_redeals: int = MAX_REDEALS, record: bool = False,
) -> MatchResult:
    """Duplicate pairs ``start .. stop - 1`` of the match seeded ``seed``.

    ``start`` must be a multiple of ``PAIRS_PER_BATCH``: the agents are
    reseeded at the start of each batch from (seed, batch index), so any split
    of a match into such ranges gives the same pairs as one call.
    ``progress``: an object with ``update(n)`` (a tqdm bar), told after each batch. ``record``: keep every
    deal played, as deal records, in ``MatchResult.records`` (per pair, its two tables' records).
    """
    if start % PAIRS_PER_BATCH:
        raise ValueError(f"start must be a multiple of PAIRS_PER_BATCH={PAIRS_PER_BATCH}, got {start}")
    if stop <= start:
        raise ValueError(f"need at least one pair, got the range {start}..{stop}")
    if games and variant.episode != "game":
        variant = variant.with_overrides("duplicate games", episode="game")
    elif not games and variant.episode != "deal":
        variant = variant.with_overrides("duplicate deals", episode="deal")
    label_a = label_a or agent_a.name
    label_b = label_b or agent_b.name
    diffs, wins, records = [], [], []
    taken_a = made_a = taken_b = made_b = abandoned = 0
    for b0 in range(start, stop, PAIRS_PER_BATCH):
        b1 = min(b0 + PAIRS_PER_BATCH, stop)
        batch = b0 // PAIRS_PER_BATCH
        agent_a.reset(derive_seed("agent", seed, batch, "A"))
        if agent_b is not agent_a:
            agent_b.reset(derive_seed("agent", seed, batch, "B"))
        ep = play_episodes(pair_tables(variant, seed, b0, b1, max_redeals), [agent_a, agent_b], pair_seating(b1 - b0),
                           record=record)
        if record:
            records.extend([ep.records[2 * k], ep.records[2 * k + 1]] for k in range(b1 - b0))
        # A's team: 0 at the first table of each pair, 1 at the second
        team_a = np.tile([0, 1], b1 - b0)
        rows = np.arange(len(team_a))
        sa, sb = ep.scores[rows, team_a], ep.scores[rows, 1 - team_a]
        if games:
            won = np.where(ep.winner == team_a, 1.0, np.where(ep.winner == 1 - team_a, 0.0, 0.5))
            won = np.where(ep.truncated, np.sign(sa - sb) / 2 + 0.5, won)
        else:
            won = np.sign(sa - sb) / 2 + 0.5
        diffs.extend(((sa - sb) / 2).reshape(-1, 2).sum(axis=1).tolist())
        wins.extend(won.reshape(-1, 2).sum(axis=1).tolist())
        taken_a += int(ep.taken[rows, team_a].sum())
        made_a += int(ep.made[rows, team_a].sum())
        taken_b += int(ep.taken[rows, 1 - team_a].sum())
        made_b += int(ep.made[rows, 1 - team_a].sum())
        abandoned += int(ep.truncated.sum())
        if progress is not None:
            progress.update(b1 - b0)
    result = MatchResult.from_pairs(
        label_a, label_b, variant.name, games, seed, diffs, wins,
        taken_a, made_a, taken_b, made_b, abandoned, pair_start=start,
    )
    if record:
        result.records = records
    return result


def duplicate_match(
    agent_a: Agent,
    agent_b: Agent,
    variant: Variant,
    n_pairs: int,
    seed: int = 0,
    games: bool = False,
    progress: bool = False,
) -> MatchResult:
    """Play ``n_pairs`` duplicate pairs of A against B in this process.

    Deterministic given ``seed`` (deals and the agents' reseeding). With
    ``games`` every element of a pair is a whole game to the variant's target
    instead of one deal. ``progress`` shows a tqdm bar.
    """
    if not isinstance(agent_a, Agent) or not isinstance(agent_b, Agent):
        raise TypeError(
            f"duplicate_match takes Agent objects, got {type(agent_a).__name__} and {type(agent_b).__name__}; "
            "build them from names or checkpoint paths with agents.make_agent"
        )
    if not isinstance(variant, Variant):
        raise TypeError(f"variant must be a Variant (see belote_env.variants.load_variant), got {type(variant).__name__}")
    if not isinstance(n_pairs, int) or n_pairs < 1:
        raise ValueError(f"n_pairs must be a positive int, got {n_pairs!r}")
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=n_pairs, desc=f"{agent_a.name} vs {agent_b.name} ({variant.name})", unit="pair")
    try:
        return play_pairs(agent_a, agent_b, variant, 0, n_pairs, seed, games, progress=bar)
    finally:
        if bar is not None:
            bar.close()


# ----------------------------------------------------------------------------- round-robin

_WORKER_AGENTS: dict[str, tuple[str | None, Agent]] = {}  # spec -> (digest of its weights, the agent)


def _worker_agent(spec: str, family: str | None = None) -> Agent:
    """The agent of ``spec``, built once per process for each version of the weights behind it (the digest of
    :func:`~agents.registry.agent_digest`): a file changed since it was loaded is loaded again, never
    played under the new file's digest (``family``: the variant's, for the policies of ``pimc``/``search``)."""
    from agents.registry import agent_digest, make_agent

    try:
        digest = agent_digest(spec, family)
    except (OSError, ValueError):  # an unknown family or an unreadable file: make_agent says what is wrong
        digest = None
    held = _WORKER_AGENTS.get(spec)
    if held is None or held[0] != digest:
        held = _WORKER_AGENTS[spec] = (digest, make_agent(spec))
    return held[1]


def run_chunk(task) -> MatchResult:
    """Worker: pairs start..stop of the match spec_a vs spec_b (agents built once per process); ``task`` is
    (spec_a, spec_b, variant, start, stop, seed, games, record)."""
    spec_a, spec_b, variant, start, stop, seed, games, record = task
    a = _worker_agent(spec_a, variant.name)
    b = _worker_agent(spec_b, variant.name) if spec_b != spec_a else a
    return play_pairs(a, b, variant, start, stop, seed, games, label_a=spec_a, label_b=spec_b, record=record)


def round_robin(
    specs: list[str], variant: Variant, n_pairs: int, seed: int = 0, games: bool = False,
    workers: int = 1, progress: bool = True, ray: bool = False, ray_address: str | None = None,
    record: bool = False,
) -> list[MatchResult]:
    """Every pair of agents (given as registry names or checkpoint paths) in a duplicate match.

    Matches are split in chunks of ``CHUNK_PAIRS`` pairs spread over
    ``workers`` processes; the results do not depend on ``workers``. With
    ``ray`` the chunks are Ray tasks (:mod:`agents.arena.ray_tasks`) on the cluster
    at ``ray_address``, or on a local Ray with ``workers`` CPUs (None: all);
    the results are the same. ``record``: every deal kept as deal records (``MatchResult.records``).
    """
    if len(specs) < 2:
        raise ValueError(f"a round-robin needs at least two agents, got {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"agents must be distinct, got {specs}")
    if n_pairs < 1:
        raise ValueError(f"the number of pairs must be positive, got {n_pairs}")
    for s in specs:  # fail early, in the parent, on a bad name or file
        _worker_agent(s, variant.name)
    tasks = []
    for x in range(len(specs)):
        for y in range(x + 1, len(specs)):
            for start in range(0, n_pairs, CHUNK_PAIRS):
                tasks.append((specs[x], specs[y], variant, start, min(start + CHUNK_PAIRS, n_pairs), seed, games,
                              record))
    from tqdm import tqdm

    bar = tqdm(total=sum(t[4] - t[3] for t in tasks), desc=f"{variant.name}", unit="pair", disable=not progress)
    parts: list[MatchResult] = []
    try:
        if ray:
            from agents.arena.ray_tasks import run_chunks

            for r in run_chunks(run_chunk, tasks, ray_address, workers if ray_address is None else None):
                parts.append(r)
                bar.update(r.pairs)
        elif workers <= 1:
            for t in tasks:
                parts.append(run_chunk(t))
                bar.update(t[4] - t[3])
        else:
            from agents.workers import results, worker_pool

            with worker_pool(workers) as pool:
                for r in results(pool.imap_unordered(run_chunk, tasks)):
                    parts.append(r)
                    bar.update(r.pairs)
    finally:
        bar.close()
    by_match: dict[tuple[str, str], list[MatchResult]] = {}
    for p in parts:
        by_match.setdefault((p.agent_a, p.agent_b), []).append(p)
    order = [(specs[x], specs[y]) for x in range(len(specs)) for y in range(x + 1, len(specs))]
    return [MatchResult.merge(by_match[k]) for k in order]
