"""belote_env.fast's numba cache folders: one per digest of the sources, the last few used kept."""

import os

from belote_env import fast


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
    path = fast._cache_dir("numba", "abcdef0123456789")
    assert path == str(tmp_path / "numba-abcdef0123456789")
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted(["numba-abcdef0123456789", *(f"numba-{i:016x}" for i in (3, 4, 5)),
                           other.name, unrelated.name])
    # using an older version's folder again makes it one of the last used
    assert fast._cache_dir("numba", f"{3:016x}") == str(tmp_path / f"numba-{3:016x}")
    assert fast._prune_caches(tmp_path, "numba", 2) == [tmp_path / f"numba-{5:016x}", tmp_path / f"numba-{4:016x}"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("numba-0") or "abc" in p.name) == [
        f"numba-{3:016x}", "numba-abcdef0123456789"]
