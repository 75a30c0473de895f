"""Agents behind one interface (:class:`agents.base.Agent`), built by name or from a checkpoint.

>>> from agents import make_agent
>>> make_agent("heuristic")
<HeuristicAgent heuristic>

Registry names: ``random`` (uniform over legal actions) and ``heuristic``
(rule-based bidding and card play). A spec that is an existing file or ends
with ``.pt`` is a checkpoint, loaded by ``agents.neural.load_agent``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .base import Agent


class AgentSpecError(ValueError):
    """An agent spec that is neither a registered name nor a loadable checkpoint."""


_REGISTRY: dict[str, Callable[[], Agent]] = {}


def register_agent(name: str, factory: Callable[[], Agent]) -> None:
    """Make ``make_agent(name)`` call ``factory()``."""
    if not name or any(c in name for c in "/\\") or name.endswith(".pt"):
        raise AgentSpecError(f"agent name {name!r} is not allowed: it must not look like a path")
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    """Registered agent names."""
    return sorted(_REGISTRY)


def is_checkpoint_spec(spec: str) -> bool:
    return spec.endswith(".pt") or Path(spec).is_file()


def make_agent(spec: str | Agent) -> Agent:
    """An agent from a registry name (``random``, ``heuristic``) or a checkpoint path."""
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, (str, Path)):
        raise AgentSpecError(f"an agent spec is a name or a checkpoint path, got {type(spec).__name__} {spec!r}")
    spec = str(spec)
    if spec in _REGISTRY:
        return _REGISTRY[spec]()
    if is_checkpoint_spec(spec):
        if not Path(spec).is_file():
            raise AgentSpecError(f"checkpoint {spec!r} does not exist")
        try:
            from .neural import load_agent
        except ImportError as e:
            raise AgentSpecError(f"cannot load checkpoint {spec!r}: agents.neural is unavailable ({e})") from None
        return load_agent(spec)
    raise AgentSpecError(
        f"unknown agent {spec!r}: registered agents are {', '.join(agent_names())}, "
        "or give the path of a checkpoint file (.pt)"
    )


def _random() -> Agent:
    from .random_agent import RandomAgent

    return RandomAgent()


def _heuristic() -> Agent:
    from .heuristic import HeuristicAgent

    return HeuristicAgent()


register_agent("random", _random)
register_agent("heuristic", _heuristic)

__all__ = ["Agent", "AgentSpecError", "make_agent", "register_agent", "agent_names", "is_checkpoint_spec"]
