"""Playing the ladder's missing chunks: :func:`play_jobs` runs them in order, in this process or spread over
worker processes, saves each in its match's cache file as soon as it ends, and stops starting new ones after a
deadline; a progress bar per match."""

from __future__ import annotations

import math
import queue
import sys
import time
from dataclasses import dataclass

from agents.arena.ladder.cache import MatchCache
from agents.arena.match import MatchResult, run_chunk


def _timed_chunk(task) -> tuple[MatchResult, float]:
    """Worker: one chunk (agents.arena.match's task tuple) and the seconds it took."""
    t0 = time.perf_counter()
    result = run_chunk(task)
    return result, time.perf_counter() - t0


@dataclass
class Job:
    match: MatchCache
    variant: object
    start: int
    stop: int


class _Bars:
    """A tqdm bar per match being played (total: the match's pairs, starting at those already cached)."""

    def __init__(self, seed: int, pairs: int, enabled: bool):
        self.seed, self.pairs, self.enabled = seed, pairs, enabled
        self.bars: dict[int, object] = {}
        self.slots: dict[int, int] = {}

    def open(self, m: MatchCache) -> None:
        if not self.enabled or id(m) in self.bars:
            return
        from tqdm import tqdm

        slot = min(set(range(len(self.slots) + 1)) - set(self.slots.values()))
        self.slots[id(m)] = slot
        self.bars[id(m)] = tqdm(total=self.pairs, initial=m.played(self.seed, self.pairs), unit="pair",
                                desc=f"{m.family}: {m.agent_a} v {m.agent_b}", position=slot, leave=False,
                                dynamic_ncols=True)

    def update(self, m: MatchCache, n: int) -> None:
        if id(m) in self.bars:
            self.bars[id(m)].update(n)

    def close(self, m: MatchCache) -> None:
        bar = self.bars.pop(id(m), None)
        if bar is not None:
            bar.close()
            self.slots.pop(id(m))

    def write(self, line: str) -> None:
        if self.enabled:
            from tqdm import tqdm

            tqdm.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def close_all(self) -> None:
        for bar in self.bars.values():
            bar.close()
        self.bars.clear()
        self.slots.clear()


def play_jobs(jobs: list[Job], seed: int, pairs: int, workers: int = 1, deadline: float = math.inf,
              progress: bool = True) -> int:
    """Play the chunks of ``jobs`` (in order), saving each as it ends; no new chunk starts after
    ``deadline`` (time.monotonic()), though at least one does. Returns the number of chunks played."""
    bars = _Bars(seed, pairs, progress)
    t_start = time.monotonic()
    played = 0

    def task(job: Job):
        return (job.match.agent_a, job.match.agent_b, job.variant, job.start, job.stop, seed, False, False)

    def record(job: Job, result: MatchResult, seconds: float) -> None:
        m = job.match
        m.add(result, seconds)
        bars.update(m, result.pairs)
        if not m.missing(seed, pairs):
            bars.close(m)
            r = m.result(seed, pairs)
            m.remember(r)
            r = r if r.mean_diff >= 0 else r.swapped()  # told from the winner's side
            bars.write(f"{m.family}: {r.agent_a} v {r.agent_b}, {r.pairs} pairs: {r.mean_diff:+.1f} points/deal "
                       f"[{r.ci_low:+.1f}, {r.ci_high:+.1f}], {100 * r.win_rate:.1f}% of deals won "
                       f"({m.seconds(seed, pairs) / 60:.1f} min of play, {(time.monotonic() - t_start) / 60:.1f} "
                       "min into this run)")

    pending = iter(jobs)
    try:
        if workers <= 1:
            for job in pending:
                if played and time.monotonic() >= deadline:
                    break
                bars.open(job.match)
                result, seconds = _timed_chunk(task(job))
                record(job, result, seconds)
                played += 1
        else:
            from agents.workers import worker_pool

            done: queue.Queue = queue.Queue()
            with worker_pool(workers) as pool:
                def submit() -> bool:
                    job = next(pending, None)
                    if job is None:
                        return False
                    bars.open(job.match)
                    pool.apply_async(_timed_chunk, (task(job),), callback=lambda r, job=job: done.put((job, r, None)),
                                     error_callback=lambda e, job=job: done.put((job, None, e)))
                    return True

                in_flight = sum(submit() for _ in range(workers))
                while in_flight:
                    job, out, error = done.get()
                    in_flight -= 1
                    if error is not None:
                        raise error
                    record(job, *out)
                    played += 1
                    if time.monotonic() < deadline:
                        in_flight += submit()
    finally:
        bars.close_all()
    return played
