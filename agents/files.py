"""Files written whole: a reader sees the old file or the new one, never half of one.

:func:`replacing` gives a temporary name next to the destination, unique to the process and the call (two
processes or threads writing the same file never share it); the caller writes there, and the temporary file is
flushed to disk and renamed over the destination when the block ends, or removed if it raises (a full disk,
Ctrl-C). Checkpoints (:func:`agents.neural.checkpoint.atomic_save`), exported networks
(:mod:`agents.training.export`), the ladder's cache and page, evaluation summaries
(:func:`write_text`) are written this way; the tournament's reports are a set, moved into place together
(:mod:`agents.arena.reports`).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import re
from pathlib import Path

_calls = itertools.count()


def temporary_name(path: Path) -> Path:
    """``<path>.<pid>.<n>.tmp``: next to ``path`` (so the rename stays on one file system), unique per process
    and call."""
    return path.with_name(f"{path.name}.{os.getpid()}.{next(_calls)}.tmp")


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid > 0
    return True


def remove_stale(folder: Path, pattern: str, regex: str) -> list[Path]:
    """Remove the files of ``folder`` matching the glob ``pattern`` whose name holds, as the first group of
    ``regex``, the pid of a process that is gone: temporary files of a write that was killed. Returns them."""
    gone = []
    for p in Path(folder).glob(pattern):
        m = re.fullmatch(regex, p.name)
        if m and not pid_alive(int(m.group(1))):
            with contextlib.suppress(OSError):
                p.unlink()
                gone.append(p)
    return gone


@contextlib.contextmanager
def replacing(path: Path | str):
    """Yield a temporary path next to ``path``; when the block ends, flush that file to disk and rename it over
    ``path``; if the block raises (or the flush or rename fails), remove it and let the error through. The
    temporary files of earlier writes of ``path`` by processes that were killed are removed first."""
    path = Path(path)
    remove_stale(path.parent, f"{glob.escape(path.name)}.*.tmp", rf"{re.escape(path.name)}\.(\d+)\.\d+\.tmp")
    tmp = temporary_name(path)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: Path | str, text: str) -> None:
    """``Path(path).write_text(text)``, whole or not at all (:func:`replacing`)."""
    with replacing(path) as tmp:
        tmp.write_text(text)


__all__ = ["pid_alive", "remove_stale", "replacing", "temporary_name", "write_text"]
