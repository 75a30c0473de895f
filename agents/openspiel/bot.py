"""Our agents as OpenSpiel bots (``pip install -e ".[openspiel]"``): :class:`AgentBot` plays any agent of this
project (``heuristic``, ``pimc``, a shipped PPO agent, a checkpoint path...) as a ``pyspiel.Bot`` of the
``python_belote`` game (:mod:`belote_env.integrations.openspiel`), so OpenSpiel's own code
(``open_spiel.python.algorithms.evaluate_bots``) can play it. It reads only the seat's information state and
observation, as at our tables. The other way round, OpenSpiel's bots at our tables, is
:mod:`agents.openspiel.agent` (the agent spec ``openspiel:ismcts``).
"""

from __future__ import annotations

import numpy as np

from agents.errors import AgentActionError
from agents.registry import make_agent
from belote_env.rules.actions import NUM_ACTIONS, action_id, action_name
from belote_env.rules.info import info_state
from belote_env.rules.variant import short_repr

try:
    import pyspiel

    from belote_env.integrations.openspiel import BeloteState
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"agents.openspiel.bot needs OpenSpiel: pip install -e \".[openspiel]\" ({e})") from None


class AgentBot(pyspiel.Bot):
    """An agent of this project (an :class:`~agents.base.Agent` or a spec for :func:`agents.make_agent`) as a
    ``pyspiel.Bot`` for ``python_belote`` states: ``step(state)`` returns its action for the seat to act, from
    that seat's :class:`~belote_env.rules.info.InfoState` and observation only. ``seed`` goes to the agent's
    ``reset``."""

    def __init__(self, agent, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.agent = make_agent(agent)
        self.agent.reset(seed)

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def step(self, state: BeloteState) -> int:
        seat = state.current_player()
        info = info_state(state.game_state, seat)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(info.legal)] = 1
        obs = state.encoder().observation(seat) if self.agent.needs_observation else None
        given = self.agent.act(obs, mask, info)
        a = action_id(given)
        if a is None or a not in info.legal:
            legal = ", ".join(action_name(x) for x in info.legal)
            raise AgentActionError(
                f"agent {self.agent!r} at seat {seat} returned {type(given).__name__} {short_repr(given)}, "
                f"{'not an action id (an int)' if a is None else 'which is not legal there'}; legal actions: {legal}")
        return a


__all__ = ["AgentBot"]
