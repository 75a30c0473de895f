"""Worker pools that end with their parent (agents.workers): kill -9 of the parent, Ctrl-C to the process group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agents.workers import Stopped, max_workers, results, worker_pool

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {repo!r})
    from agents.workers import results, worker_pool

    def slow(x):
        open({started!r} + str(x), "w").close()
        time.sleep(60)
        return x

    if __name__ == "__main__":
        try:
            with worker_pool(2) as pool:
                for r in results(pool.imap_unordered(slow, range(4))):
                    print(r)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            sys.exit(130)
""")


def _running(group: int) -> list[str]:
    """The processes of ``group`` that still run (zombies, dead and waiting to be reaped, are not)."""
    out = subprocess.run(["ps", "-o", "pid=,stat=", "-g", str(group)], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.split()[1][0] != "Z"]


def _start(tmp_path: Path) -> subprocess.Popen:
    script = tmp_path / "pool.py"
    script.write_text(SCRIPT.format(repo=str(REPO), started=str(tmp_path / "started_")))
    # a shell's background job (a CI script run with &) starts with SIGINT ignored, which a child inherits and
    # Python keeps: the script would never see Ctrl-C. It starts with the default, as at a terminal.
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("started_*"))) < 2:  # both workers in their task
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    return proc


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ps -g and the process groups of Linux")
def test_workers_stop_running_when_their_parent_is_killed(tmp_path):
    proc = _start(tmp_path)
    assert len(_running(proc.pid)) >= 3  # the parent, two workers (and the resource tracker)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(2)
    assert _running(proc.pid) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ps -g and the process groups of Linux")
def test_ctrl_c_to_the_group_ends_the_pool_at_once_in_one_line(tmp_path):
    proc = _start(tmp_path)
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 5 and proc.returncode == 130
    assert err.strip() == "interrupted"  # no worker's traceback, no resource tracker's warning
    time.sleep(1)
    assert _running(proc.pid) == []


def _wait(seconds):
    time.sleep(seconds)
    return seconds


def test_results_stop_when_asked_and_workers_are_bounded():
    asked = []
    with pytest.raises(Stopped):
        with worker_pool(1) as pool:
            for _ in results(pool.imap_unordered(_wait, [30]), stop=lambda: asked.append(1) or len(asked) > 2):
                pass
    assert len(asked) == 3
    with worker_pool(2) as pool:
        assert sorted(results(pool.imap_unordered(_wait, [0, 0.1]))) == [0, 0.1]
    assert max_workers() == 4 * (os.cpu_count() or 1)
