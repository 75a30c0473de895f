"""Every error class of ``belote_env``, importable from here; all derive from :class:`BeloteError`, a ``ValueError``.

- the rules core's (:mod:`belote_env.rules.errors`, which imports nothing): :class:`BeloteError`,
  :class:`IllegalActionError` (with ``action``, ``seat``, ``phase``, ``legal``), :class:`NotationError`,
  :class:`VariantError`, :class:`SamplingError`;
- the environments': :class:`EnvArgumentError` (a bad argument to ``env()`` / ``raw_env`` /
  ``SingleAgentEnv``), :class:`VectorEnvError` (to ``VectorEnv``) and :class:`VectorIllegalActionError`
  (an illegal action at one table of a ``VectorEnv``, which names it in ``table``);
- the solver's: :class:`SolverError` (a bad argument to ``belote_env.search.Solver``).

The agents' errors derive from the same root: :mod:`agents.errors`, :mod:`agents.arena.errors`,
:mod:`agents.training.errors`.
"""

from __future__ import annotations

from .rules.errors import BeloteError, IllegalActionError, NotationError, SamplingError, VariantError


class EnvArgumentError(BeloteError):
    """A bad argument to :func:`~belote_env.env` / :class:`~belote_env.aec.raw_env` /
    :class:`~belote_env.single_agent.SingleAgentEnv` (not a rule switch)."""


class VectorEnvError(BeloteError):
    """A bad argument to :class:`~belote_env.vector.VectorEnv` (a ValueError)."""


class SolverError(BeloteError):
    """A bad argument to the double-dummy solver (:class:`~belote_env.search.Solver`, a ValueError)."""


class VectorIllegalActionError(IllegalActionError):
    """An illegal action at one table of a :class:`~belote_env.vector.VectorEnv`; ``table`` names it.
    Nothing was applied."""

    def __init__(self, message: str, table: int, action=None, seat=None, phase=None, legal=()):
        super().__init__(message, action, seat, phase, legal)
        self.table = table


__all__ = ["BeloteError", "IllegalActionError", "NotationError", "VariantError", "SamplingError", "EnvArgumentError",
           "VectorEnvError", "VectorIllegalActionError", "SolverError"]
