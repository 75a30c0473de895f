"""Training's errors (``train.py`` and :mod:`agents.training`); they derive from
:class:`~belote_env.errors.BeloteError`, a ``ValueError``."""

from __future__ import annotations

from belote_env.errors import BeloteError


class ConfigError(BeloteError):
    """A bad training option, config file or command-line value (a ValueError)."""


class RunInUseError(ConfigError):
    """The run folder is held by another ``train.py`` process (:func:`agents.training.runs.claim_run`)."""


class RunWriteError(BeloteError):
    """A run's file (a checkpoint) could not be written: a full disk, a read-only folder."""


class DivergedError(BeloteError):
    """A fit or an update left the network with weights that are not finite (NaN or inf); nothing was written."""


class ExportError(BeloteError):
    """An export destination that cannot take the file (:mod:`agents.training.export`)."""


__all__ = ["ConfigError", "DivergedError", "ExportError", "RunInUseError", "RunWriteError"]
