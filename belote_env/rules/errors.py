"""Error classes of the rules core; all subclass ValueError. Their messages are bounded: bad input is shown by
:func:`short_repr`, and a message longer than :data:`MAX_MESSAGE` characters is cut."""

import reprlib

MAX_MESSAGE = 2000  # characters of an error message; the rest is cut (a 50 MB action name must not make 50 MB errors)

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 2, 60, 60, 4, 4
_REPR.maxlong = 60


def short_repr(value) -> str:
    """A repr of bounded length and depth on one line, for error messages about user data."""
    return " ".join(_REPR.repr(value).split())


class BeloteError(ValueError):
    """Base class of every error raised for bad input to the rules core (and, through it, the whole project).
    A message longer than :data:`MAX_MESSAGE` characters is cut, saying how much was left out."""

    def __init__(self, message="", *args):
        if isinstance(message, str) and len(message) > MAX_MESSAGE:
            cut = len(message) - (MAX_MESSAGE - 40)
            message = f"{message[:MAX_MESSAGE - 40]}... ({cut:,} more characters)"
        super().__init__(message, *args)


class IllegalActionError(BeloteError):
    """An action that is not legal in the current position.

    The message names the action, the seat, the phase and the legal set.
    """

    def __init__(self, message: str, action=None, seat=None, phase=None, legal=()):
        super().__init__(message)
        self.action = action
        self.seat = seat
        self.phase = phase
        self.legal = tuple(legal)


class NotationError(BeloteError):
    """Text that does not parse: a card, an action name or a position."""


class VariantError(BeloteError):
    """A variant file or override with an unknown key or a bad value."""


class SamplingError(BeloteError):
    """No consistent deal was found (a position that no real deal can reach)."""
