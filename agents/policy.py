"""Policies from outside the project as agents: ``PolicyAgent(fn)`` and factories for common libraries.

``fn(observation, action_mask) -> action`` sees what a player sees (the
float32[853] observation and the 112-entry mask); with ``batched=True`` it is
called once for many decisions, ``fn(observations[B, 853], masks[B, 112]) ->
actions[B]``. Either way the agent needs no InfoState and plays wherever an
agent is accepted: tables, duplicate matches, the tournament command (as a
``module:factory`` spec, see :func:`agents.make_agent`).

:func:`sb3_agent` wraps a Stable-Baselines3 / sb3-contrib model (for
``MaskablePPO`` the mask is passed to ``predict``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .base import Agent


class PolicyAgent(Agent):
    """An agent calling ``fn(observation, action_mask)`` (or, ``batched``, once per batch of decisions)."""

    needs_info = False

    def __init__(self, fn: Callable, name: str = "policy", batched: bool = False):
        if not callable(fn):
            raise TypeError(f"PolicyAgent needs a callable fn(observation, action_mask) -> action, got {fn!r}")
        self.fn = fn
        self.name = name
        self.batched = batched

    def act(self, observation, action_mask, info=None) -> int:
        if self.batched:
            return self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], [info])[0]
        return int(self.fn(observation, action_mask))

    def act_batch(self, observations, action_masks, infos) -> list[int]:
        if not self.batched:
            return [int(self.fn(o, m)) for o, m in zip(observations, action_masks)]
        actions = np.asarray(self.fn(np.asarray(observations), np.asarray(action_masks))).reshape(-1)
        if actions.shape[0] != len(observations):
            raise ValueError(f"policy {self.name!r} returned {actions.shape[0]} actions for {len(observations)} decisions")
        return [int(a) for a in actions]


def sb3_agent(model, name: str = "sb3", deterministic: bool = True) -> PolicyAgent:
    """A Stable-Baselines3 or sb3-contrib model as an agent (batched ``predict``; masked for MaskablePPO)."""
    import inspect

    masked = "action_masks" in inspect.signature(model.predict).parameters

    def fn(observations, masks):
        if masked:
            actions, _ = model.predict(observations, action_masks=masks.astype(bool), deterministic=deterministic)
        else:
            actions, _ = model.predict(observations, deterministic=deterministic)
        return actions

    return PolicyAgent(fn, name=name, batched=True)


__all__ = ["PolicyAgent", "sb3_agent"]
