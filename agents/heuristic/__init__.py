"""The ``heuristic`` agent: rule-based bidding and card play. Its rules are numba kernels
(:mod:`agents.heuristic.kernels`, compiled on first use); :mod:`agents.heuristic.agent` is the agent that asks
them, one ``InfoState`` at a time or many engine tables at once."""

from __future__ import annotations

from agents.heuristic.agent import HeuristicAgent, defense_points, estimate_points, trump_features

__all__ = ["HeuristicAgent", "defense_points", "estimate_points", "trump_features"]
