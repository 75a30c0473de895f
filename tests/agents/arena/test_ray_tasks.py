"""Tournaments on Ray (agents.arena.ray_tasks, belote-tournament --ray): the same tables as a local run
on a local Ray with 2 CPUs, and a chunk whose worker is killed mid-tournament is run again with the
same result. The Ray tests skip where Ray is not installed (the main suite; see docs/distributed.md)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agents.arena.match import CHUNK_PAIRS, round_robin
from agents.arena.tournament import main as tournament_main
from belote_env.variants import load_variant


def test_cli_checks_the_ray_options(capsys):
    assert tournament_main(["heuristic", "random", "-n", "4", "--address", "auto", "--no-progress"]) == 2
    assert "--address is for --ray" in capsys.readouterr().err
    try:
        import ray  # noqa: F401
    except ImportError:
        assert tournament_main(["heuristic", "random", "-n", "4", "--ray", "--no-progress"]) == 2
        assert "--ray needs Ray: pip install 'belote_env[ray]'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def same(a, b):
    assert (a.agent_a, a.agent_b, a.pairs) == (b.agent_a, b.agent_b, b.pairs)
    assert np.array_equal(a.pair_diffs, b.pair_diffs) and np.array_equal(a.pair_wins, b.pair_wins)
    assert a.to_dict() == pytest.approx(b.to_dict(), nan_ok=True)


def test_ray_results_equal_the_local_run(local_ray, capsys):
    specs = ["random", "heuristic", "tests.agents.test_policy:first_legal"]
    variant = load_variant("belote_classique")
    n = 2 * CHUNK_PAIRS + 10  # three chunks per match, the last partial
    local = round_robin(specs, variant, n, seed=3, workers=1, progress=False)
    on_ray = round_robin(specs, variant, n, seed=3, progress=False, ray=True)
    assert len(local) == len(on_ray) == 3
    for a, b in zip(local, on_ray):
        same(a, b)
    # the command: identical tables (the header line holds the time)
    args = ["heuristic", "random", "-n", str(CHUNK_PAIRS + 1), "--seed", "9", "--bootstrap", "20", "--no-progress"]
    assert tournament_main(args + ["-j", "1"]) == 0
    out_local = capsys.readouterr().out
    assert tournament_main(args + ["--ray"]) == 0  # joins the Ray this process is connected to
    out_ray = capsys.readouterr().out
    strip = lambda out: [line for line in out.splitlines() if not line.startswith("==")]  # noqa: E731
    assert strip(out_local) == strip(out_ray) and "heuristic" in out_local


def _chunk_workers() -> list[int]:
    """Pids of the Ray workers running a tournament chunk now (their process title names the task)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "cmdline").read_bytes().startswith(b"ray::run_chunk"):
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the worker processes through /proc")
def test_killed_worker_is_retried_with_the_same_result(local_ray):
    variant = load_variant("coinche")
    n = 8 * CHUNK_PAIRS
    killed = []

    def killer():
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline:
            pids = _chunk_workers()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.005)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        [on_ray] = round_robin(["heuristic", "random"], variant, n, seed=1, progress=False, ray=True)
    finally:
        killed.append(None)  # stops the thread if it found nothing
        thread.join()
    assert killed[0] is not None, "no worker was running a chunk"
    [local] = round_robin(["heuristic", "random"], variant, n, seed=1, workers=1, progress=False)
    same(local, on_ray)
