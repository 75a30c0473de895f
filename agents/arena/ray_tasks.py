"""Tournament chunks as Ray tasks: ``belote-tournament ... --ray [--address ADDR]``.

:func:`agents.arena.match.round_robin` splits every match into chunks of
``CHUNK_PAIRS`` duplicate pairs and plays each with ``agents.arena.match.run_chunk``;
:func:`run_chunks` sends those same tasks, with the function that plays them, to Ray instead of a local process
pool, one Ray task per chunk, and yields the results as they complete. A chunk's
deals and the agents' reseeding depend only on the match seed and the chunk's
pair range, never on the process that plays it, so the tables are identical to
a local run with the same seed, whatever the cluster.

A chunk whose worker process dies (killed, out of memory, node lost) is run
again by Ray (``max_retries`` times, :data:`MAX_RETRIES`), from scratch, in
another worker: a chunk is a pure function of its task, so the result is the
same. Exceptions raised by the agents are not retried (a bug stays a bug) and
end the tournament with their message.

The workers import ``agents`` and ``belote_env`` from the driver: on a local
Ray they inherit its ``sys.path``; on a cluster (``--address``) both packages
are shipped with the job (Ray ``runtime_env`` ``py_modules``), so cluster
nodes only need Python, numpy, PyYAML and the dependencies of the
agents played (torch for checkpoints), and checkpoint paths must exist on
every node (a shared file system) or be loaded by a ``module:factory``
spec that finds them there. See ``docs/distributed.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

MAX_RETRIES = 3  # re-runs of a chunk whose worker died


def _ray():
    try:
        import ray
    except ImportError as e:
        raise ValueError(f"--ray needs Ray: pip install 'belote_env[ray]' ({e})") from None
    return ray


def connect(address: str | None = None, num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` (``"auto"``: the one started on this machine by ``ray start``),
    or start a local one with ``num_cpus`` CPUs (default all) when ``address`` is None; nothing if this
    process is already connected. On a cluster, the job ships the ``agents`` and ``belote_env`` packages
    to the workers."""
    ray = _ray()
    if ray.is_initialized():
        return
    import agents
    import belote_env

    kwargs: dict[str, Any] = {}
    if address is None:  # a local Ray: the workers get this process's sys.path from Ray, nothing to ship
        kwargs.update(num_cpus=num_cpus, include_dashboard=False)
    elif num_cpus is not None:
        raise ValueError("-j/--workers sets the CPUs of a local Ray; a cluster at --address has its own")
    else:
        kwargs["runtime_env"] = {"py_modules": [agents, belote_env]}
    try:
        ray.init(address=address, **kwargs)
    except ConnectionError as e:
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: {e} (a cluster started by 'ray start' "
                         "uses token authentication: set RAY_AUTH_MODE=token here and copy its ~/.ray/auth_token; "
                         "see docs/distributed.md)") from None


def run_chunks(fn: Callable, tasks: list, address: str | None = None, num_cpus: int | None = None,
               max_retries: int = MAX_RETRIES) -> Iterator:
    """``fn(task)`` for every task, as Ray tasks (one CPU each); yields each result as it completes (any
    order). ``fn`` is a module-level function, so that the workers import it by name
    (``agents.arena.match.run_chunk``). Connects first (see :func:`connect`)."""
    ray = _ray()
    connect(address, num_cpus)
    remote = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(fn)
    pending = [remote.remote(t) for t in tasks]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(done[0])
            except ray.exceptions.RayTaskError as e:  # an agent raised: its own error, with the worker's traceback
                raise e.as_instanceof_cause() from None
            except ray.exceptions.WorkerCrashedError as e:
                raise RuntimeError(f"a tournament chunk's worker died {max_retries + 1} times; "
                                   f"giving up ({e})") from None
    finally:
        for ref in pending:  # on an error, or a consumer that stopped early: leave no chunk running
            ray.cancel(ref, force=True)


__all__ = ["MAX_RETRIES", "connect", "run_chunks"]
