"""Worker processes that end with their parent: the process pools of tournaments, the ladder, belote-eval and
``train.py``'s expert recordings.

:func:`worker_pool` is a ``multiprocessing`` pool (spawn) whose workers

- ignore SIGINT: Ctrl-C at a terminal reaches the whole process group, and the parent alone decides what it means
  (stop at once, or at the next checkpoint); the workers neither print tracebacks nor die under a pool that would
  then wait forever for their tasks;
- die with their parent: on Linux the kernel kills them when the parent dies (``PR_SET_PDEATHSIG``), kill -9
  included; elsewhere a thread of each worker sees the parent gone within half a second and ends the worker.

The pool is closed and joined when its block ends, and terminated (its workers killed) when the block raises:
Ctrl-C (``KeyboardInterrupt``) or an error of a task ends the workers with the parent's block.
:func:`results` reads a pool's results while asking ``stop()`` twice a second, so that a caller that turned
SIGINT into a request (``train.py``) can still stop during a long task (:class:`Stopped`).

:func:`max_workers` bounds the number of processes a command may ask for (four per core).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading

PER_CORE = 4
POLL_SECONDS = 0.2


def max_workers() -> int:
    """The most worker processes a command starts: ``PER_CORE`` per core of this machine."""
    return PER_CORE * (os.cpu_count() or 1)


class Stopped(Exception):
    """:func:`results` was asked to stop (``stop()`` answered true) before every result came."""


def _die_with(parent: int) -> None:
    """In a worker: end when ``parent`` ends."""
    by_kernel = False
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            by_kernel = libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0  # PR_SET_PDEATHSIG: killed with the parent
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    if by_kernel:
        return

    def watch():  # where the kernel does not do it
        while os.getppid() == parent:
            threading.Event().wait(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _start_worker(parent: int, initializer, initargs) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)
    # tqdm's default lock is a multiprocessing semaphore, made by the first bar (shown or not); a worker killed with
    # its pool leaves it to the resource tracker, which warns at the end of the run. A worker shows no bars.
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def worker_pool(workers: int, initializer=None, initargs=()):
    """A spawn ``multiprocessing.Pool`` of ``workers`` processes that end with this one (see the module
    docstring); closed and joined at the end of the block, terminated if the block raises."""
    pool = mp.get_context("spawn").Pool(workers, initializer=_start_worker,
                                        initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()  # the workers exit on their own: terminated, they would leave a semaphore to the resource tracker
    pool.join()


def results(iterator, stop=None):
    """The items of a pool's ``imap``/``imap_unordered`` iterator, as they come; :class:`Stopped` once ``stop()``
    (asked while waiting) answers true."""
    while True:
        try:
            item = iterator.next(timeout=POLL_SECONDS)
        except StopIteration:
            return
        except mp.TimeoutError:
            if stop is not None and stop():
                raise Stopped() from None
            continue
        yield item


__all__ = ["PER_CORE", "Stopped", "max_workers", "results", "worker_pool"]
