"""Playing deals and games between agents, straight on the rules core.

A :class:`Table` is one :class:`~belote_env.rules.GameState` and the agent
sitting at each of its four seats. :func:`play_tables` plays many tables to
the end together: an agent that needs the observation (a neural one) gets the
decisions of all tables waiting on it in one ``act_batch`` call, built with
``belote_env.observation.encode`` / ``action_mask`` exactly as the env gives
them; rule-based agents (``needs_observation = False``) are asked one by one
and read the seat's :class:`~belote_env.rules.info.InfoState`.

Redeals after everyone passed are played automatically by ``GameState``. So
that agents that never bid cannot loop forever, a table that redeals
``max_redeals`` times in a row is stopped and marked ``abandoned`` (its
episode scores what redeals score: nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from belote_env.observation import OBS_SIZE, action_mask, encode
from belote_env.rules.actions import NUM_ACTIONS, action_name
from belote_env.rules.errors import BeloteError, IllegalActionError
from belote_env.rules.game import GameState
from belote_env.rules.info import info_state
from belote_env.rules.scoring import REDEAL

from .base import Agent

MAX_REDEALS = 64


class AgentActionError(BeloteError):
    """An agent returned an action that is not legal where it was asked to act."""


@dataclass
class Table:
    """One game in progress and the agent at each seat (seat 0 first)."""

    game: GameState
    agents: tuple[Agent, Agent, Agent, Agent]
    redeals_in_a_row: int = 0
    abandoned: bool = False
    decisions: int = field(default=0, repr=False)

    @property
    def done(self) -> bool:
        return self.game.over or self.abandoned


def _apply(table: Table, agent: Agent, seat: int, action, max_redeals: int) -> None:
    game = table.game
    try:
        action = int(action)
        res = game.apply(action)
    except (IllegalActionError, TypeError, ValueError) as e:
        legal = ", ".join(action_name(a) for a in game.deal.legal_actions())
        raise AgentActionError(
            f"agent {agent!r} at seat {seat} returned {action!r}, which is not legal in phase "
            f"{game.deal.phase}; legal actions: {legal}"
        ) from e
    table.decisions += 1
    if res is not None:
        if res.outcome == REDEAL:
            table.redeals_in_a_row += 1
            if table.redeals_in_a_row >= max_redeals and not game.over:
                table.abandoned = True
        else:
            table.redeals_in_a_row = 0


def play_tables(tables: list[Table], max_redeals: int = MAX_REDEALS) -> list[Table]:
    """Play every table to the end of its episode; returns ``tables``.

    Agents are asked in a fixed order (table order, then the order decisions
    arise), so the outcome is deterministic given the tables' seeds and the
    agents' own seeds.
    """
    pending = [t for t in tables if not t.done]
    while pending:
        waiting: dict[int, tuple[Agent, list[Table]]] = {}
        for t in pending:
            game = t.game
            # Rule-based agents act at once; run ahead until a batched agent is to act.
            while not t.done:
                seat = game.deal.seat
                agent = t.agents[seat]
                if agent.needs_observation:
                    waiting.setdefault(id(agent), (agent, []))[1].append(t)
                    break
                a = agent.act(None, action_mask(game, seat), info_state(game, seat))
                _apply(t, agent, seat, a, max_redeals)
        for agent, group in waiting.values():
            n = len(group)
            obs = np.empty((n, OBS_SIZE), dtype=np.float32)
            masks = np.empty((n, NUM_ACTIONS), dtype=np.int8)
            seats = [t.game.deal.seat for t in group]
            for i, t in enumerate(group):
                encode(t.game, seats[i], obs[i])
                action_mask(t.game, seats[i], masks[i])
            infos = [info_state(t.game, s) if agent.needs_info else None for t, s in zip(group, seats)]
            actions = agent.act_batch(obs, masks, infos)
            if len(actions) != n:
                raise AgentActionError(f"agent {agent!r}.act_batch returned {len(actions)} actions for {n} decisions")
            for t, seat, a in zip(group, seats, actions):
                _apply(t, agent, seat, a, max_redeals)
        pending = [t for t in pending if not t.done]
    return tables


def play_game(game: GameState, agents, max_redeals: int = MAX_REDEALS) -> Table:
    """Play one episode of ``game`` with ``agents[seat]`` at each seat; returns the finished table."""
    if len(agents) != 4:
        raise ValueError(f"play_game needs 4 agents (one per seat 0..3), got {len(agents)}")
    table = Table(game, tuple(agents))
    play_tables([table], max_redeals)
    return table
