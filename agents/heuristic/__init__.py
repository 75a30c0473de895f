"""The ``heuristic`` agent: rule-based bidding and card play (:mod:`agents.heuristic.agent`), and its numba copy
for many engine tables at once (:mod:`agents.heuristic.kernels`, compiled on first use)."""

from __future__ import annotations

from agents.heuristic.agent import HeuristicAgent, defense_points, estimate_points, trump_features

__all__ = ["HeuristicAgent", "estimate_points", "defense_points", "trump_features"]
