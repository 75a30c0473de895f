"""A built wheel, installed outside the repository, finds its variant files and
runs the env and the tournament command (variant files are package data)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    # setuptools builds in the repository's build/: one build at a time (pytest-xdist workers each build the
    # wheel for the tests they get; two at once fail on each other's build/bdist folders)
    fd = os.open(REPO, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        build = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"),
             str(REPO)],
            capture_output=True, text=True, timeout=300,
        )
    finally:
        os.close(fd)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next((tmp / "dist").glob("belote_env-*.whl"))
    site = tmp / "site"
    inst = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert inst.returncode == 0, inst.stderr[-2000:]
    return tmp, site


def _run(installed, *args, **env_vars: str):
    """python -S (no site: the repository's editable install is not seen) with the wheel first on the path."""
    tmp, site = installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), sysconfig.get_paths()["purelib"]]), **env_vars}
    return subprocess.run([sys.executable, "-S", *args], cwd=tmp, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_wheel_ships_the_variant_files_and_runs_the_env(installed):
    _, site = installed
    code = (
        "import belote_env, sys\n"
        f"assert belote_env.__file__.startswith({str(site)!r}), belote_env.__file__\n"
        "from belote_env.variants import variant_names\n"
        "names = variant_names()\n"
        "assert len(names) == 8 and 'coinche' in names, names\n"
        "e = belote_env.env(variant='coinche'); e.reset(seed=0)\n"
        "print(len(names), e.agent_selection)\n"
    )
    r = _run(installed, "-c", code)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["8", "player_1"]


def test_the_wheel_runs_the_tournament_command(installed, tmp_path):
    """What is checked is the installed command and its package data, not numba: its kernels run as Python
    (NUMBA_DISABLE_JIT, the same results), which saves compiling them afresh for the wheel's folder (about 20 s
    here); compiling and caching in a fresh folder is tests/belote_env/test_numba_cache.py's."""
    r = _run(installed, "-W", "ignore::RuntimeWarning", "-m", "agents.arena.tournament", "heuristic", "random", "-n",
             "4", "--no-progress", "--bootstrap", "5", "--out", str(tmp_path), NUMBA_DISABLE_JIT="1")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "heuristic" in r.stdout and (tmp_path / "coinche.md").is_file()


def test_the_wheel_serves_the_web_page(installed):
    """The page's assets are package data: the installed app serves them (no repository, nothing fetched)."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    code = (
        "from starlette.testclient import TestClient\n"
        "from agents.arena.web.app import create_app\n"
        "c = TestClient(create_app())\n"
        "print(*(c.get(p).status_code for p in ('/', '/static/app.js', '/static/style.css')))\n"
    )
    r = _run(installed, "-W", "ignore", "-c", code)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["200", "200", "200"]
