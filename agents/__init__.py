"""Agents behind one interface (:class:`agents.base.Agent`), built by name or from a checkpoint.

>>> from agents import make_agent
>>> make_agent("heuristic")
<HeuristicAgent heuristic>

Registry names: ``random`` (uniform over legal actions), ``heuristic``
(rule-based bidding and card play), ``pimc`` (perfect-information Monte
Carlo over the double-dummy solver), which takes options after a colon:
``pimc:worlds=32,tricks=6`` (see :mod:`agents.pimc`), and the trained agents
shipped in ``agents/pretrained/`` (``ppo_coinche``...; see :mod:`agents.pretrained`).
A spec that is an existing file or ends
with ``.pt`` is a checkpoint, loaded by ``agents.neural.load_agent``. A spec
``module:factory`` imports ``module`` and calls ``factory()``, which returns
an Agent or a callable ``fn(observation, action_mask) -> action`` (wrapped in
:class:`agents.policy.PolicyAgent`): any outside policy can enter a tournament.
"""

from __future__ import annotations

from agents.base import Agent
from agents.errors import AgentSpecError, CheckpointError
from agents.registry import agent_names, is_checkpoint_spec, make_agent, register_agent, register_agent_with_options

__all__ = ["Agent", "AgentSpecError", "CheckpointError", "make_agent", "register_agent", "register_agent_with_options",
           "agent_names", "is_checkpoint_spec"]
