"""Rewards: zero-sum between the teams, both partners get their team's.

``score_diff`` (default): at the end of each scored deal, (own team's deal
score - other team's) / ``REWARD_SCALE[variant.scoring]``. The scale is the
score of an ordinary contract at stake in that scoring, so most deals fall in
[-1, 1]; coinched, surcoinched and capot deals go beyond (up to about 4 for a
surcoinched capot), on purpose: the reward stays proportional to the score,
so maximising it maximises expected points.

``win``: +1 / -1 to the teams at the end of a game (0 for a drawn single deal).
"""

from __future__ import annotations

from .rules.scoring import DealResult
from .rules.variant import Variant

REWARD_SCALE = {"classic": 162.0, "coinche": 400.0, "contree": 300.0, "cobrecaf_81": 162.0}
REWARD_KINDS = ("score_diff", "win")


def deal_reward(variant: Variant, result: DealResult) -> tuple[float, float]:
    """score_diff reward of a deal for team 0 and team 1."""
    d = (result.scores[0] - result.scores[1]) / REWARD_SCALE[variant.scoring]
    return d, -d


def win_reward(winner: int) -> tuple[float, float]:
    """win reward of a finished episode; winner is 0, 1 or -1 (tie)."""
    if winner < 0:
        return 0.0, 0.0
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def scored_deal_reward(kind: str, variant: Variant, result: DealResult, game_over: bool, winner: int):
    """The teams' reward for a scored deal (not a redeal): ``(team 0, team 1)``, or None when this
    reward kind gives nothing then (``win`` before the end of the episode)."""
    if kind == "score_diff":
        return deal_reward(variant, result)
    return win_reward(winner) if game_over else None
