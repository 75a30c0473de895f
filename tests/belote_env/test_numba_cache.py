"""belote_env.numba_cache: one cache folder per digest of the sources, the last few used kept; a damaged cache
file is removed with one warning naming it and the kernel compiled again."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from belote_env import numba_cache


def test_cache_folders_of_older_sources_are_removed_but_the_last_used(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    for i in range(6):  # folders of six older versions, used one after the other
        folder = tmp_path / f"numba-{i:016x}"
        folder.mkdir()
        (folder / "kernels.nbi").write_text("")
        os.utime(folder, (1_000_000 + i, 1_000_000 + i))
    other = tmp_path / "numba-heuristic-00000000000000ff"  # another tag: never touched
    other.mkdir()
    os.utime(other, (1, 1))
    unrelated = tmp_path / "numba-notadigest"
    unrelated.mkdir()
    path = numba_cache.cache_dir("numba", "abcdef0123456789")
    assert path == str(tmp_path / "numba-abcdef0123456789")
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted(["numba-abcdef0123456789", *(f"numba-{i:016x}" for i in (3, 4, 5)),
                           other.name, unrelated.name])
    # using an older version's folder again makes it one of the last used
    assert numba_cache.cache_dir("numba", f"{3:016x}") == str(tmp_path / f"numba-{3:016x}")
    assert numba_cache.prune_caches(tmp_path, "numba", 2) == [tmp_path / f"numba-{5:016x}",
                                                              tmp_path / f"numba-{4:016x}"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("numba-0") or "abc" in p.name) == [
        f"numba-{3:016x}", "numba-abcdef0123456789"]


TINY = textwrap.dedent("""
    import numba
    from belote_env.numba_cache import heal_damaged_files

    heal_damaged_files()

    @numba.njit(cache=True)
    def triple(x):
        return 3 * x

    print(triple(14))
""")


def _run(script, env):
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)


def _damage(path, how):
    data = path.read_bytes()
    path.write_bytes({"truncated": data[: len(data) // 2], "zeroed": bytes(len(data)), "emptied": b""}[how])


@pytest.mark.parametrize(("kind", "how"), [("nbi", "truncated"), ("nbi", "emptied"), ("nbc", "zeroed"),
                                           ("nbc", "truncated")])
def test_a_damaged_cache_file_is_removed_with_one_warning_and_compiled_again(tmp_path, kind, how):
    script = tmp_path / "tiny.py"
    script.write_text(TINY)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _run(script, env)
    assert (first.returncode, first.stdout, first.stderr) == (0, "42\n", "")
    [damaged] = (tmp_path / "cache").rglob(f"tiny.triple-*.{kind}")
    good = damaged.read_bytes()
    _damage(damaged, how)

    healed = _run(script, env)
    assert healed.returncode == 0, healed.stderr
    assert healed.stdout == "42\n"
    [line] = healed.stderr.splitlines()
    assert line.startswith(f"{damaged}:0: DamagedCacheWarning: damaged numba cache file (")
    assert line.endswith("the kernel is compiled again")
    assert damaged.read_bytes() == good or kind == "nbi"  # rewritten (an index holds times and may differ)
    again = _run(script, env)  # the rewritten cache loads silently
    assert (again.returncode, again.stdout, again.stderr) == (0, "42\n", "")


def test_data_that_unpickles_but_is_no_kernel_is_dropped_too(tmp_path):
    import pickle

    script = tmp_path / "tiny.py"
    script.write_text(TINY)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    assert _run(script, env).returncode == 0
    [data] = (tmp_path / "cache").rglob("tiny.triple-*.nbc")
    data.write_bytes(pickle.dumps(("not", "a", "kernel")))
    healed = _run(script, env)
    assert (healed.returncode, healed.stdout) == (0, "42\n"), healed.stderr
    [line] = healed.stderr.splitlines()
    assert ".nbi:0: DamagedCacheWarning: " in line
    assert _run(script, env).stderr == ""


PLAY = textwrap.dedent("""
    import random
    from agents.loop import play_game
    from agents.heuristic import HeuristicAgent
    from belote_env.search import dd_values
    from belote_env.search.reference import play_position
    from belote_env.search.verify import setting_variant

    episode = play_game("coinche", [HeuristicAgent()] * 4, seed=7)  # the engine's step, the heuristic's kernel
    position = play_position(setting_variant({}), 1, random.Random(3), tricks_left=3, cards_in_trick=1)
    print(episode.scores.tolist(), sorted(dd_values(position).items()))  # the solver
""")


def _kernel(which):
    """The dispatcher of one kernel of each cached kernel module: the engine's, the solver's, the heuristic's."""
    if which == "engine step":
        from belote_env.fast import kernels
        return kernels.step
    if which == "solver":
        from belote_env.search import kernels
        return kernels().root_values
    from agents.heuristic.agent import kernels
    return kernels().act_rows


def _cache_folder(index: Path) -> Path:
    """The ``numba-<tag>-<digest>`` folder (numba_cache.cache_dir) an index file of the project lies in."""
    return next(p for p in index.parents if p.name.startswith("numba-"))


@pytest.mark.parametrize(("which", "kind", "how"), [("engine step", "nbc", "emptied"), ("solver", "nbi", "truncated"),
                                                    ("heuristic", "nbc", "zeroed")])
def test_the_project_s_kernels_heal_a_damaged_cache_file(tmp_path, which, kind, how):
    """The project's own cache folders, copied under NUMBA_CACHE_DIR (numba_cache.cache_dir puts them there the
    same way), so that the damage never touches the cache other tests, processes or pytest workers load."""
    import shutil

    script = tmp_path / "play.py"
    script.write_text(PLAY)
    cache = tmp_path / "cache"
    indexes = {w: Path(_kernel(w)._cache._cache_file._index_path) for w in ("engine step", "solver", "heuristic")}
    for index in indexes.values():
        shutil.copytree(_cache_folder(index), cache / _cache_folder(index).name, dirs_exist_ok=True)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    before = _run(script, env)  # loads the copies (compiles what this checkout has not cached yet)
    assert before.returncode == 0, before.stderr
    index = cache / indexes[which].relative_to(_cache_folder(indexes[which]).parent)
    # every file of that kind: the kernel may hold several compiled signatures (other tests add some), and a run
    # reads the one it calls
    targets = sorted(index.parent.glob(index.name.replace(".nbi", ".*.nbc" if kind == "nbc" else ".nbi")))
    assert targets
    for t in targets:
        _damage(t, how)
    healed = _run(script, env)
    assert (healed.returncode, healed.stdout) == (0, before.stdout), healed.stderr
    lines = [x for x in healed.stderr.splitlines() if "DamagedCacheWarning" in x]
    assert lines and all(any(x.startswith(f"{t}:0: DamagedCacheWarning: ") for t in targets) for x in lines)
    assert all(t.stat().st_size > 0 for t in targets if any(x.startswith(f"{t}:0:") for x in lines))


def test_every_module_compiling_with_a_cache_heals_damaged_files():
    root = Path(__file__).resolve().parents[2]
    imported_by_import_cached = {"belote_env/fast/kernels.py", "belote_env/fast/mt.py", "belote_env/fast/streams.py",
                                 "belote_env/search/dd.py",
                                 "agents/heuristic/kernels.py"}
    for package in ("belote_env", "agents"):
        for path in (root / package).rglob("*.py"):
            source = path.read_text()
            cached = re.search(r"njit\([^)]*cache=True", source)
            if cached and str(path.relative_to(root)) not in imported_by_import_cached:
                assert "\nheal_damaged_files()" in source, f"{path} compiles with cache=True: call heal_damaged_files()"
