"""Fixtures shared by the whole test tree."""

import atexit
import os
import shutil
import tempfile

import pytest
import torch


@pytest.fixture(scope="session", autouse=True)
def temporary_folder_under_pytest(tmp_path_factory):
    """The suite writes nothing to the system temporary folder: for the session, ``TMPDIR`` (read by
    ``tempfile`` here and in every child process: train.py runs, Ray workers, pip builds), ``RAY_TMPDIR``
    (Ray's session folders, logs and sockets) and ``SB3_LOGDIR`` (Stable-Baselines3's default logger) point
    into pytest's own basetemp, which pytest prunes to its last three runs, except Ray's: its socket paths
    must stay under 107 bytes, which a basetemp path does not promise (``pytest-100/popen-gw0/t/ray/session_.../
    sockets/plasma_store`` is 108), so Ray gets a short folder of the system's, removed when the session ends."""
    folder = tmp_path_factory.mktemp("t", numbered=False)
    ray_folder = tempfile.mkdtemp(prefix="ray")  # /tmp/rayXXXXXXXX: its sockets' paths stay near 80 bytes
    # removed at exit too: Ray's own exit handler (registered later, so run first) writes there after teardown
    atexit.register(shutil.rmtree, ray_folder, ignore_errors=True)
    names = ("TMPDIR", "RAY_TMPDIR", "SB3_LOGDIR")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update({"TMPDIR": str(folder), "RAY_TMPDIR": ray_folder, "SB3_LOGDIR": str(folder / "sb3")})
    saved_tempdir, tempfile.tempdir = tempfile.tempdir, None  # tempfile caches its folder: read TMPDIR again
    yield folder
    shutil.rmtree(ray_folder, ignore_errors=True)
    tempfile.tempdir = saved_tempdir
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def one_thread():
    """One torch thread for the test (the count restored afterwards): where row invariance is measured."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
