"""What the commands share (``belote-tournament``, ``belote-ladder``, ``python -m agents.arena.play``,
``train.py``, the exports): a parser whose usage errors are one line, and argument types that say what was given."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


class CommandParser(argparse.ArgumentParser):
    """The commands' parser: a bad command line is one ``PROG: error: ...`` line on stderr and exit status 2
    (argparse's default prints the whole usage block before it)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An ``argparse`` type: a positive integer, else a usage error saying what was given."""
    return _int_at_least(text, 1, "a positive integer")


MAX_PAIRS = 10_000_000  # duplicate pairs of one match: days of play, and lists of chunks that still fit in memory


def _count(text: str, most: int, unit: str) -> int:
    """A positive integer of at most ``most`` (``unit`` names the bound in the message), else a usage error."""
    value = _int_at_least(text, 1, "a positive integer")
    if value > most:
        raise argparse.ArgumentTypeError(f"expected at most {most:,} {unit}, got {value:,}")
    return value


def pairs_count(text: str) -> int:
    """An ``argparse`` type: a number of duplicate pairs, 1 to :data:`MAX_PAIRS`."""
    return _count(text, MAX_PAIRS, "pairs")


MAX_BOOTSTRAP = 100_000  # replicates of a rating interval: beyond, minutes of fitting for no visible change


def bootstrap_count(text: str) -> int:
    """An ``argparse`` type: a number of bootstrap replicates, 1 to :data:`MAX_BOOTSTRAP`."""
    return _count(text, MAX_BOOTSTRAP, "replicates")


def workers_count(text: str) -> int:
    """An ``argparse`` type: a number of worker processes, 1 to :func:`agents.workers.max_workers` (four per core)."""
    from agents.workers import max_workers

    return _count(text, max_workers(), f"processes on this machine's {os.cpu_count()} cores")


def nonnegative_int(text: str) -> int:
    """An ``argparse`` type: an integer >= 0 (seeds), else a usage error saying what was given."""
    return _int_at_least(text, 0, "an integer >= 0")


def _int_at_least(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def key_values(items, options: dict, what: str) -> dict:
    """Agent-spec options (``worlds=16``, ``sims=200``...) -> {key: typed value}, each key one of ``options``
    (name -> type); ValueError naming the bad item (``what``: whose options, for the message)."""
    out = {}
    for item in filter(None, (t.strip() for t in items)):
        key, sep, value = item.partition("=")
        if not sep or key not in options:
            raise ValueError(f"{what} option {item!r}: expected key=value with key one of {', '.join(options)}")
        try:
            out[key] = options[key](value)
        except ValueError:
            raise ValueError(f"{what} option {key!r} must be {options[key].__name__}, got {value!r}") from None
    return out


def check_writable(folder: Path, flag: str = "--out", error: type[Exception] = ValueError) -> None:
    """Create ``folder`` if needed and check a file can be written in it; raise ``error`` saying why not
    (naming the option ``flag``), before a long run rather than after it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise error(f"{flag} {str(folder)!r} cannot be written: {e.strerror or e}") from None
