"""Files written whole: a reader sees the old file or the new one, never half of one.

:func:`replacing` gives a temporary name next to the destination, unique to the process and the call (two
processes or threads writing the same file never share it); the caller writes there, and the temporary file is
flushed to disk and renamed over the destination when the block ends, or removed if it raises (a full disk,
Ctrl-C). Checkpoints (:func:`agents.neural.checkpoint.atomic_save`) and exported networks
(:mod:`agents.training.export`) are written this way.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

_calls = itertools.count()


def temporary_name(path: Path) -> Path:
    """``<path>.<pid>.<n>.tmp``: next to ``path`` (so the rename stays on one file system), unique per process
    and call."""
    return path.with_name(f"{path.name}.{os.getpid()}.{next(_calls)}.tmp")


@contextlib.contextmanager
def replacing(path: Path | str):
    """Yield a temporary path next to ``path``; when the block ends, flush that file to disk and rename it over
    ``path``; if the block raises (or the flush or rename fails), remove it and let the error through."""
    path = Path(path)
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


__all__ = ["replacing", "temporary_name"]
