"""Fault injection for the project's write paths: run a command in this process with a fault.

    python tests/faults.py full BYTES TARGET ARGS...          files cannot grow past BYTES: writes fail with
                                                               EFBIG ("File too large"), as on a full disk
    python tests/faults.py kill N PHASE FOLDER TARGET ARGS...  die (exit 137, as SIGKILL) at the N-th rename of a
                                                               file into FOLDER (every atomic write of the project
                                                               ends with one: agents.files.replacing, the reports'
                                                               set): PHASE ``before`` it, with the temporary file
                                                               cut in half, or ``after`` it

TARGET is a module run as ``__main__`` (``agents.arena.ladder``) or a script path (``train.py``). A run that ends
before the N-th rename exits with status 99. Tests use :func:`run_with_fault`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOT_REACHED = 99


def run_with_fault(fault: list[str], target: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python tests/faults.py *fault target *args`` in the repository; its exit status and output."""
    return subprocess.run([sys.executable, str(Path(__file__)), *fault, target, *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def _full(limit: int) -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead of a signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _kill(n: int, phase: str, folder: Path) -> None:
    real = os.replace
    count = 0

    def replace(src, dst, **kw):
        nonlocal count
        if Path(dst).resolve().parent != folder:
            return real(src, dst, **kw)
        count += 1
        if count != n:
            return real(src, dst, **kw)
        if phase == "before":
            if os.path.isfile(src):
                os.truncate(src, os.path.getsize(src) // 2)
            os._exit(137)
        real(src, dst, **kw)
        os._exit(137)

    os.replace = replace


def main(argv: list[str]) -> None:
    if argv[0] == "full":
        _full(int(argv[1]))
        rest = argv[2:]
    elif argv[0] == "kill":
        if argv[2] not in ("before", "after"):
            raise SystemExit(f"faults.py: PHASE is before or after, got {argv[2]!r}")
        _kill(int(argv[1]), argv[2], Path(argv[3]).resolve())
        rest = argv[4:]
    else:
        raise SystemExit(__doc__)
    target, args = rest[0], rest[1:]
    sys.path.insert(0, str(REPO))
    import runpy

    sys.argv = [target, *args]
    try:
        if target.endswith(".py"):
            runpy.run_path(target, run_name="__main__")
        else:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        if argv[0] == "kill":
            print(f"faults.py: the run ended (status {e.code}) before rename {argv[1]}", file=sys.stderr)
            raise SystemExit(NOT_REACHED) from None
        raise
    if argv[0] == "kill":
        print(f"faults.py: the run ended before rename {argv[1]}", file=sys.stderr)
        raise SystemExit(NOT_REACHED)


if __name__ == "__main__":
    main(sys.argv[1:])
