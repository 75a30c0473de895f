"""The agent registry: :func:`make_agent` builds an agent from a spec string (a registered name, a name with
options, a checkpoint path or ``module:factory``; the grammar is in :mod:`agents`), :func:`register_agent` adds
names. ``random``, ``heuristic``, ``pimc``, ``search``, ``openspiel`` (OpenSpiel's bots, :mod:`agents.openspiel.agent`) and the
shipped trained agents are registered at import."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

from agents.base import Agent
from agents.errors import AgentSpecError

_REGISTRY: dict[str, Callable[[], Agent]] = {}
_OPTION_REGISTRY: dict[str, Callable[[str], Agent]] = {}


def register_agent(name: str, factory: Callable[[], Agent]) -> None:
    """Make ``make_agent(name)`` call ``factory()``."""
    if not name or any(c in name for c in "/\\") or name.endswith(".pt"):
        raise AgentSpecError(f"agent name {name!r} is not allowed: it must not look like a path")
    _REGISTRY[name] = factory


def register_agent_with_options(name: str, factory: Callable[[str], Agent]) -> None:
    """Make ``make_agent(name)`` call ``factory("")`` and ``make_agent("name:opts")`` call ``factory("opts")``
    (a registered name before the colon wins over a ``module:factory`` reading of the spec)."""
    register_agent(name, lambda: factory(""))
    _OPTION_REGISTRY[name] = factory


def agent_names() -> list[str]:
    """Registered agent names."""
    return sorted(_REGISTRY)


def is_checkpoint_spec(spec: str) -> bool:
    """Whether ``spec`` names a weights file: a checkpoint (``.pt``), an exported policy (``.pt2``) or any file;
    not a registered agent with options, whose last option may be a path (``search:policy=runs/x/latest.pt``)."""
    head, sep, _ = spec.partition(":")
    if sep and head in _OPTION_REGISTRY:
        return False
    return spec.endswith((".pt", ".pt2")) or Path(spec).is_file()


def is_factory_spec(spec: str) -> bool:
    """Whether :func:`make_agent` reads ``spec`` as ``module:factory`` (not a registered name, a registered name
    with options or a checkpoint)."""
    if spec in _REGISTRY or spec.partition(":")[0] in _OPTION_REGISTRY or is_checkpoint_spec(spec):
        return False
    return ":" in spec and not spec.startswith(":") and not spec.endswith(":")


def make_agent(spec: str | Agent) -> Agent:
    """An agent from a registry name (``random``, ``heuristic``), a checkpoint path (``.pt``, or an exported
    policy ``.pt2``: :mod:`agents.exported`) or ``module:factory``."""
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, (str, Path)):
        raise AgentSpecError(f"an agent spec is a name or a checkpoint path, got {type(spec).__name__} {spec!r}")
    spec = str(spec)
    if spec in _REGISTRY:
        return _REGISTRY[spec]()
    head, sep, options = spec.partition(":")
    if sep and head in _OPTION_REGISTRY:
        try:
            return _OPTION_REGISTRY[head](options)
        except ValueError as e:
            raise AgentSpecError(f"agent spec {spec!r}: {e}") from None
    if is_checkpoint_spec(spec):
        if not Path(spec).is_file():
            raise AgentSpecError(f"checkpoint {spec!r} does not exist")
        if spec.endswith(".pt2"):  # a policy of any library, written by agents.exported.export_policy
            from agents.exported import ExportedAgent

            return ExportedAgent(spec)
        try:
            from agents.neural.agent import load_agent
        except ImportError as e:
            raise AgentSpecError(f"cannot load checkpoint {spec!r}: agents.neural is unavailable ({e})") from None
        return load_agent(spec)
    if is_factory_spec(spec):
        return _from_factory(spec)
    raise AgentSpecError(
        f"unknown agent {spec!r}: registered agents are {', '.join(agent_names())}, "
        "a checkpoint file (.pt), an exported policy (.pt2) or module:factory"
    )


def _from_factory(spec: str) -> Agent:
    """``module:factory``: ``factory()`` from an importable module, returning an Agent or a callable
    ``fn(observation, action_mask) -> action`` (wrapped in a PolicyAgent named after the factory)."""
    import importlib

    module_name, _, attr = spec.rpartition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise AgentSpecError(f"agent spec {spec!r}: cannot import module {module_name!r} ({e})") from None
    except Exception as e:  # the module itself fails (a syntax error, an error at import): a line naming it
        raise AgentSpecError(f"agent spec {spec!r}: importing module {module_name!r} raised {type(e).__name__}: "
                             f"{str(e).splitlines()[0][:200] if str(e) else ''}") from e
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentSpecError(f"agent spec {spec!r}: module {module_name!r} has no callable {attr!r}")
    import inspect

    try:
        inspect.signature(factory).bind()
    except TypeError as e:  # a factory that needs arguments: the spec cannot give any
        raise AgentSpecError(f"agent spec {spec!r}: {attr}() cannot be called without arguments ({e}); a spec "
                             "module:factory names a function of no arguments returning an Agent or a callable "
                             "fn(observation, action_mask) -> action") from None
    except ValueError:
        pass  # no signature to read (a builtin): call it and see
    try:
        made = factory()
    except Exception as e:  # the user's code: a line naming it (its traceback stays in __cause__)
        raise AgentSpecError(f"agent spec {spec!r}: {attr}() raised {type(e).__name__}: "
                             f"{str(e).splitlines()[0][:200] if str(e) else ''}") from e
    if isinstance(made, type):
        raise AgentSpecError(f"agent spec {spec!r}: {attr}() returned the class {made.__name__}, not an Agent or a "
                             f"callable fn(observation, action_mask) -> action (an instance of it, perhaps?)")
    if isinstance(made, Agent):
        if made.name in ("agent", "policy"):
            made.name = attr
        return made
    if callable(made):
        from agents.policy import PolicyAgent

        return PolicyAgent(made, name=attr)
    raise AgentSpecError(f"agent spec {spec!r}: {attr}() returned {type(made).__name__}, not an Agent or a callable")


def agent_digest(spec: str, family: str | None = None) -> str | None:
    """SHA-256 of the weights file behind a trained agent or a checkpoint spec, or of the digests of the
    policies a ``pimc``/``search`` spec loads in ``family`` (None for agents without weights): a cached match
    whose agent's weights have changed is played again."""
    from agents.pretrained import available, weights_path

    if spec in available() or is_checkpoint_spec(spec):
        path = weights_path(spec)
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    if spec.partition(":")[0] in ("pimc", "search") and family is not None:
        from agents.pimc import policies

        digests = [agent_digest(p) or "" for p in policies(spec, family)]
        return hashlib.sha256(" ".join(digests).encode()).hexdigest() if digests else None
    return _factory_digest(spec)


def _factory_digest(spec: str) -> str | None:
    """For a ``module:factory`` spec (not a registered name with options), the SHA-256 of the module's source
    file, so that a cached match of an outside agent is played again once its module changes (modules it
    imports are not covered); None for other specs or a module without a file."""
    import importlib.util

    if not is_factory_spec(spec):
        return None
    head = spec.rpartition(":")[0]
    try:
        found = importlib.util.find_spec(head)
    except (ImportError, ValueError):
        return None
    origin = Path(found.origin) if found is not None and found.origin else None
    return hashlib.sha256(origin.read_bytes()).hexdigest() if origin is not None and origin.is_file() else None


def _random() -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent()


def _heuristic() -> Agent:
    from agents.heuristic import HeuristicAgent

    return HeuristicAgent()


def _pimc(options: str) -> Agent:
    from agents.pimc import make_pimc

    return make_pimc(options)


def _search(options: str) -> Agent:
    from agents.pimc import make_search

    return make_search(options)


def _openspiel(options: str) -> Agent:
    try:
        from agents.openspiel.agent import make_openspiel_agent
    except ImportError as e:
        raise AgentSpecError(f"agent spec 'openspiel:{options}': {e}") from None
    return make_openspiel_agent(options)


register_agent("random", _random)
register_agent("heuristic", _heuristic)
register_agent_with_options("pimc", _pimc)
register_agent_with_options("search", _search)
register_agent_with_options("openspiel", _openspiel)


def _register_pretrained() -> None:
    """Every weights file of agents/pretrained/ under its name (``ppo_coinche``...); torch loads on use."""
    from agents.pretrained import available, load_pretrained

    for name in available():
        register_agent(name, lambda name=name: load_pretrained(name))


_register_pretrained()

__all__ = ["make_agent", "register_agent", "register_agent_with_options", "agent_names", "agent_digest",
           "is_checkpoint_spec"]
