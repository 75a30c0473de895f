"""Bradley-Terry ratings fitted on the per-deal outcomes of duplicate matches.

Model: agent i beats agent j in one deal (or game) with probability
``1 / (1 + 10 ** ((R_j - R_i) / 400))``, i.e. ratings on the Elo scale. A
deal won counts 1, a tied deal 1/2 to each side. The fit is the maximum-
likelihood one (Hunter's minorise-maximise iterations) with one virtual tied
deal added to every match, which keeps the ratings finite when an agent wins
every deal. Ratings are anchored so that the anchor agent (``random`` when it
plays) is 0.

Intervals: 95 % percentile bootstrap over duplicate pairs. Each replicate
resamples, within every match, its pairs with replacement (a pair's two
deals stay together, so the card luck they share is resampled together),
and refits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)


@dataclass
class Rating:
    agent: str
    rating: float
    low: float
    high: float
    deals: int  # deals (or games) it played
    score: float  # fraction of them it won, ties counting half

    def to_dict(self) -> dict:
        return {"agent": self.agent, "rating": self.rating, "low": self.low, "high": self.high,
                "deals": self.deals, "score": self.score}


def fit_bradley_terry(n_agents: int, i_idx, j_idx, wins_i, games, anchor: int = 0,
                      prior: float = 1.0, iterations: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Elo-scale ratings from match totals.

    ``i_idx[k]``, ``j_idx[k]``: the agents of match k; ``wins_i[k]``: deals won
    by i (ties as halves) out of ``games[k]``. ``prior`` virtual tied deals are
    added to every match. Returns ratings with ``anchor`` at 0.
    """
    i_idx = np.asarray(i_idx, dtype=np.int64)
    j_idx = np.asarray(j_idx, dtype=np.int64)
    w = np.asarray(wins_i, dtype=np.float64) + prior / 2
    n = np.asarray(games, dtype=np.float64) + prior
    if n_agents < 2 or len(i_idx) == 0:
        return np.zeros(n_agents)
    total_wins = np.bincount(i_idx, w, n_agents) + np.bincount(j_idx, n - w, n_agents)
    gamma = np.ones(n_agents)
    for _ in range(iterations):
        denom_k = n / (gamma[i_idx] + gamma[j_idx])
        denom = np.bincount(i_idx, denom_k, n_agents) + np.bincount(j_idx, denom_k, n_agents)
        new = np.where(denom > 0, total_wins / np.maximum(denom, 1e-300), gamma)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    r = ELO * np.log(gamma)
    return r - r[anchor]


def rate(matches, agents: list[str] | None = None, anchor: str | None = None,
         bootstrap: int = 200, seed: int = 0) -> list[Rating]:
    """Ratings of every agent from a list of :class:`~agents.arena.tournament.MatchResult`, best first.

    ``anchor``: the agent rated 0 (default ``random`` if it played, else the
    first agent). ``bootstrap``: number of replicates for the intervals (0:
    no interval, NaN bounds).
    """
    if agents is None:
        agents = []
        for m in matches:
            for a in (m.agent_a, m.agent_b):
                if a not in agents:
                    agents.append(a)
    index = {a: k for k, a in enumerate(agents)}
    for m in matches:
        for a in (m.agent_a, m.agent_b):
            if a not in index:
                raise ValueError(f"match agent {a!r} is not among the rated agents {agents}")
    if anchor is None:
        anchor = "random" if "random" in index else agents[0]
    if anchor not in index:
        raise ValueError(f"anchor {anchor!r} is not among the rated agents {agents}")
    a0 = index[anchor]
    ii = [index[m.agent_a] for m in matches]
    jj = [index[m.agent_b] for m in matches]
    wins = [float(m.pair_wins.sum()) for m in matches]
    games = [2.0 * m.pairs for m in matches]
    point = fit_bradley_terry(len(agents), ii, jj, wins, games, a0)
    low = np.full(len(agents), np.nan)
    high = np.full(len(agents), np.nan)
    if bootstrap > 0 and matches and min(m.pairs for m in matches) > 1:  # one pair: no spread to resample
        rng = np.random.default_rng(seed)
        reps = np.empty((bootstrap, len(agents)))
        for b in range(bootstrap):
            bw = [float(m.pair_wins[rng.integers(0, m.pairs, m.pairs)].sum()) for m in matches]
            reps[b] = fit_bradley_terry(len(agents), ii, jj, bw, games, a0)
        low, high = np.percentile(reps, [2.5, 97.5], axis=0)
    deals = np.zeros(len(agents))
    score = np.zeros(len(agents))
    for k, m in enumerate(matches):
        deals[ii[k]] += games[k]
        deals[jj[k]] += games[k]
        score[ii[k]] += wins[k]
        score[jj[k]] += games[k] - wins[k]
    out = [
        Rating(a, float(point[k]), float(low[k]), float(high[k]), int(deals[k]),
               float(score[k] / deals[k]) if deals[k] else math.nan)
        for k, a in enumerate(agents)
    ]
    return sorted(out, key=lambda r: -r.rating)


def fit_against(fixed, opp_idx, wins, games, prior: float = 1.0) -> float:
    """The Elo-scale rating of a newcomer whose match totals are ``wins[k]`` deals won (ties as halves) out of
    ``games[k]`` against agent ``opp_idx[k]`` of the fixed ratings ``fixed``: the maximum-likelihood one under
    the model of :func:`fit_bradley_terry` (the same ``prior`` virtual tied deals per match), the others held
    where they are. When the newcomer's matches are the ones a joint fit saw, it is the joint fit's rating (the
    same stationarity condition)."""
    fixed = np.asarray(fixed, dtype=np.float64)[np.asarray(opp_idx, dtype=np.int64)]
    w = float(np.sum(np.asarray(wins, dtype=np.float64) + prior / 2))
    n = np.asarray(games, dtype=np.float64) + prior
    if len(n) == 0:
        raise ValueError("a rating against fixed opponents needs at least one match")

    def expected(r: float) -> float:  # deals the newcomer is expected to win at rating r, increasing in r
        return float(np.sum(n / (1.0 + 10.0 ** ((fixed - r) / 400.0))))

    lo, hi = float(fixed.min()) - 400.0, float(fixed.max()) + 400.0
    while expected(lo) > w:
        lo -= 400.0
    while expected(hi) < w:
        hi += 400.0
    for _ in range(200):  # bisection: the root is bracketed; 200 halvings are far below float precision
        mid = 0.5 * (lo + hi)
        if expected(mid) < w:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return 0.5 * (lo + hi)


def rate_against_pool(pool_matches, pool_agents: list[str], anchor: str, matches, agent: str,
                      bootstrap: int = 200, seed: int = 0) -> tuple[list[Rating], Rating]:
    """The pool's ratings (exactly :func:`rate` of ``pool_matches``) and the rating of ``agent`` from its
    ``matches`` against pool agents (``agent`` is each match's A), on the pool's scale with the pool held
    fixed (:func:`fit_against`): the pool is not refitted around the newcomer, so every newcomer is rated on
    the same scale. Interval: 95 % percentile bootstrap over duplicate pairs of both, the pool's matches and
    the newcomer's: each replicate refits the pool on its resampled pairs, then the newcomer against it."""
    pool = rate(pool_matches, pool_agents, anchor, bootstrap, seed)
    index = {a: k for k, a in enumerate(pool_agents)}
    for m in matches:
        if m.agent_a != agent or m.agent_b not in index:
            raise ValueError(f"a match of {agent!r} against the pool is expected, got {m.agent_a} v {m.agent_b}")
    a0 = index[anchor]
    ii = [index[m.agent_a] for m in pool_matches]
    jj = [index[m.agent_b] for m in pool_matches]
    games = [2.0 * m.pairs for m in pool_matches]
    point = np.array([next(r.rating for r in pool if r.agent == a) for a in pool_agents])  # rate()'s fit
    opp = [index[m.agent_b] for m in matches]
    own_games = [2.0 * m.pairs for m in matches]
    rating = fit_against(point, opp, [float(m.pair_wins.sum()) for m in matches], own_games)
    low = high = math.nan
    if bootstrap > 0 and min(m.pairs for m in [*pool_matches, *matches]) > 1:
        rng = np.random.default_rng([seed, 1])  # a stream of its own: the pool's intervals stay rate()'s
        reps = np.empty(bootstrap)
        for b in range(bootstrap):
            pw = [float(m.pair_wins[rng.integers(0, m.pairs, m.pairs)].sum()) for m in pool_matches]
            ow = [float(m.pair_wins[rng.integers(0, m.pairs, m.pairs)].sum()) for m in matches]
            reps[b] = fit_against(fit_bradley_terry(len(pool_agents), ii, jj, pw, games, a0), opp, ow, own_games)
        low, high = (float(x) for x in np.percentile(reps, [2.5, 97.5]))
    deals = int(sum(own_games))
    won = sum(float(m.pair_wins.sum()) for m in matches)
    return pool, Rating(agent, float(rating), low, high, deals, won / deals if deals else math.nan)


def plot_ratings(ratings: list[Rating], path, title: str = "") -> None:
    """A PNG of the ratings with their 95 % intervals (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = list(reversed(ratings))  # best at the top
    y = np.arange(len(rs))
    x = np.array([r.rating for r in rs])
    lo = np.array([r.low for r in rs])
    hi = np.array([r.high for r in rs])
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rs)))
    has_ci = ~np.isnan(lo)
    err = np.vstack([np.where(has_ci, x - lo, 0), np.where(has_ci, hi - x, 0)])
    ax.errorbar(x, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
    for k, r in enumerate(rs):
        ax.annotate(f"{r.rating:+.0f}", (x[k], y[k]), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [r.agent for r in rs])
    ax.set_ylim(-0.7, len(rs) - 0.3)
    ax.set_xlabel("Bradley-Terry rating (Elo scale, per deal), 95% bootstrap interval")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
