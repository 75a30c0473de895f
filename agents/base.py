"""The agent interface shared by tournaments, training evaluation and the env.

An agent sees what the environment gives a player:

- ``observation``: the float32 vector of ``belote_env.observation.encode``;
- ``action_mask``: the int8 mask over the 112 actions (1 = legal);
- ``view``: a :class:`SeatView`, the rules state seen from one seat. Only
  agents that need it (heuristic, search) read it; they must use only what
  that seat may know: its own hand (``view.hand``), public history, and the
  ``view.deal`` fields that are public (calls, contract, tricks, played
  cards, belote events, public declarations). Search agents that need full
  deals sample them from the seat's information (``belote_env.rules.sampling``)
  instead of reading other hands.

``act`` returns one legal action id. Agents are built by name or checkpoint
path with :func:`agents.make_agent`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from belote_env.rules.game import GameState
from belote_env.rules.state import DealState


@dataclass
class SeatView:
    """The rules state from one seat's chair."""

    game: GameState
    seat: int

    @property
    def deal(self) -> DealState:
        return self.game.deal

    @property
    def hand(self) -> int:
        return self.game.deal.hands[self.seat]

    @property
    def variant(self):
        return self.game.variant


class Agent:
    """Base class: override :meth:`act`.

    ``reset(seed)`` is called at the start of every batch of deals played
    together (tables play in lockstep so neural decisions can be batched);
    keep no per-deal state in the agent object.
    """

    name = "agent"
    needs_observation = True  # False lets a table skip encoding for rule-based agents

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, view: SeatView) -> int:
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, views: list[SeatView]) -> list[int]:
        """Many decisions at once; neural agents override this with one forward pass."""
        return [self.act(o, m, v) for o, m, v in zip(observations, action_masks, views)]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
