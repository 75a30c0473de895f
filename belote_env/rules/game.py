"""A game (partie, RULES.md section 8) or a single-deal episode.

:class:`GameState` deals from its own seeded ``random.Random``, rotates the
dealer, redeals when everyone passes, carries the garde and adds up the
scores. With ``variant.episode == "deal"`` it is over after the first scored
deal; with ``"game"`` when a team reaches the target (a tie at or above the
target plays one more deal).
"""

from __future__ import annotations

import random

from .info import info_state
from .scoring import REDEAL, DealResult
from .state import DONE, DealState
from .variant import Variant


class GameState:
    __slots__ = ("variant", "rng", "scores", "garde", "dealer", "deal", "results", "winner", "over")

    def __init__(self, variant: Variant, seed: int | None = None, dealer: int = 0, rng: random.Random | None = None):
        self.variant = variant
        self.rng = rng if rng is not None else random.Random(seed)
        self.scores = [0, 0]
        self.garde = 0
        self.dealer = dealer
        self.results: list[DealResult] = []
        self.winner = -1
        self.over = False
        self.deal = DealState.random(variant, dealer, self.rng, 0)

    @property
    def current_seat(self) -> int:
        return -1 if self.over else self.deal.seat

    def legal_actions(self) -> list[int]:
        return [] if self.over else self.deal.legal_actions()

    def info_state(self, seat: int):
        """What ``seat`` knows (its cards, the public history, the scores), as an
        :class:`~belote_env.rules.info.InfoState`."""
        return info_state(self, seat)

    def apply(self, action: int) -> DealResult | None:
        """Apply an action; returns the deal's result when that action ended a deal."""
        deal = self.deal
        deal.apply(action)
        if deal.phase != DONE:
            return None
        res = deal.result
        self._end_deal(res)
        return res

    def _end_deal(self, res: DealResult) -> None:
        self.results.append(res)
        self.scores[0] += res.scores[0]
        self.scores[1] += res.scores[1]
        self.garde = res.garde_out
        if res.outcome != REDEAL:
            if self.variant.episode == "deal":
                self.over = True
            elif max(self.scores) >= self.variant.target and self.scores[0] != self.scores[1]:
                self.over = True
                self.winner = 0 if self.scores[0] > self.scores[1] else 1
        if self.over:
            if self.variant.episode == "deal":
                self.winner = 0 if self.scores[0] > self.scores[1] else 1 if self.scores[1] > self.scores[0] else -1
            return
        self.dealer = (self.dealer + 1) & 3
        self.deal = DealState.random(self.variant, self.dealer, self.rng, self.garde)

    def clone(self) -> "GameState":
        g = GameState.__new__(GameState)
        g.variant = self.variant
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        g.scores = self.scores[:]
        g.garde = self.garde
        g.dealer = self.dealer
        g.results = self.results[:]
        g.winner = self.winner
        g.over = self.over
        g.deal = self.deal.clone()
        return g
