"""The time an agent takes per decision, asked one decision at a time as at a single table.

Tournaments ask agents for many tables' decisions at once (one forward pass for a network); a person at the web
table, a bot in another program, or an OpenSpiel game asks for one. :func:`decision_times` measures that case:
the agent plays duplicate pairs against ``heuristic`` on one core, and each of its decisions is timed alone. The
ladder (:mod:`agents.arena.ladder`) reports its median and 99th percentile beside the ratings;
``benchmarks/bench_dd.py`` gives the same for search agents with their searched decisions apart.
"""

from __future__ import annotations

import time

from agents.arena.match import duplicate_match
from agents.base import Agent


class _OneAtATime(Agent):
    """``agent`` asked for one decision at a time (never through a kernel copy), each decision timed."""

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = agent.name
        self.needs_observation = agent.needs_observation
        self.needs_info = agent.needs_info
        self.takes_seeds = agent.takes_seeds
        self._searches = getattr(agent, "searches", None)
        self.all_ms: list[float] = []
        self.searched_ms: list[float] = []

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act_batch(self, observations, action_masks, infos, seeds=None) -> list[int]:
        out = []
        for i, (obs, mask, info) in enumerate(zip(observations, action_masks, infos)):
            t = time.perf_counter()
            if seeds is None:
                out += self.agent.act_batch([obs], [mask], [info])
            else:
                out += self.agent.act_batch([obs], [mask], [info], seeds=seeds[i:i + 1])
            ms = 1000 * (time.perf_counter() - t)
            self.all_ms.append(ms)
            if self._searches is not None and info is not None and len(info.legal) > 1 and self._searches(info):
                self.searched_ms.append(ms)
        return out


def decision_times(agent: Agent, variant, pairs: int = 20, seed: int = 0) -> tuple[list[float], list[float]]:
    """Milliseconds of each decision of ``agent`` over ``pairs`` duplicate pairs against the heuristic in
    ``variant``, asked one decision at a time (through ``act_batch`` with one row, never a kernel copy): all its
    decisions, and those its solver plays (agents with a ``searches(info)`` predicate, ``pimc`` and ``search``;
    empty for the others). Decisions with one legal action count too: the agent is asked them at a table."""
    from agents.registry import make_agent

    timed = _OneAtATime(agent)
    duplicate_match(timed, make_agent("heuristic"), variant, pairs, seed=seed)
    return timed.all_ms, timed.searched_ms


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank below), as the benchmarks report it."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]
