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
