"""Error classes of the rules core; all subclass ValueError."""


class BeloteError(ValueError):
    """Base class of every error raised for bad input to the rules core."""


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
