"""The players' errors; every error of the project derives from :class:`~belote_env.errors.BeloteError`, a
``ValueError``. The arena's and training's are in :mod:`agents.arena.errors` and :mod:`agents.training.errors`."""

from __future__ import annotations

from belote_env.errors import BeloteError


class AgentSpecError(BeloteError):
    """An agent spec that is neither a registered name nor a loadable checkpoint."""


class AgentActionError(BeloteError):
    """An agent returned an action that is not legal where it was asked to act (the play loop, OpenSpiel bots)."""


class CheckpointError(BeloteError):
    """A checkpoint file that cannot be loaded as a neural agent."""


class NetworkSpecError(BeloteError):
    """A network spec (``mlp``, ``module:Class``) that cannot be imported or built, or a network that does not
    follow the protocol of :mod:`agents.neural.protocol`."""


__all__ = ["BeloteError", "AgentActionError", "AgentSpecError", "CheckpointError", "NetworkSpecError"]
