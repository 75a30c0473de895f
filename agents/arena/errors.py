"""The arena's errors; they derive from :class:`~belote_env.errors.BeloteError`, a ``ValueError``."""

from __future__ import annotations

from belote_env.errors import BeloteError


class LadderError(BeloteError):
    """A ladder that cannot run: unknown family or agent, an output that cannot be written, a bad cache file."""


class ReportError(BeloteError):
    """A tournament's reports could not be written (a full disk, an unwritable folder); none was changed."""


__all__ = ["LadderError", "ReportError"]
