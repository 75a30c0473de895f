"""numba's on-disk cache of compiled kernels: one folder per digest of the sources, and damaged files healed.

Every numba kernel of the project is compiled with ``cache=True``: the first run after a change compiles it and
writes it to disk, the later runs load it. Two things here keep that cache a cache:

- :func:`import_cached` imports a kernel module with numba's cache in a folder named after a digest of the
  sources the kernels freeze constants from (numba itself checks only the timestamp of the defining file), so a
  change never reuses a stale compilation. The folders of older sources are removed, the last
  :data:`KEEP_CACHES` used kept.
- :func:`heal_damaged_files` makes a cache file that cannot be read (truncated, zeroed, emptied, written by
  something else) a cache miss: numba would raise ``UnpicklingError`` or ``EOFError`` from every later call
  of the kernel until the file is deleted by hand. The file is removed with one warning line naming it, and
  the kernel is compiled again and its cache rewritten. Every module that compiles with ``cache=True`` calls it
  before its first kernel runs (:func:`import_cached` does it for the modules it imports).

Importing this module imports nothing of numba; the two functions do.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import warnings
from pathlib import Path

# under belote_env/
ENGINE_SOURCES = ("fast/*.py", "rules/*.py", "observation.py", "rewards.py", "factored.py")
KEEP_CACHES = 4  # per tag: the cache folders of the sources used last (another checkout, a branch switched back to)


def source_digest(*extra: Path) -> str:
    """A digest of every source the engine's kernels are compiled from (the batched engine, the rules core,
    whose constant tables they freeze, the observation layout and the rewards), plus the files ``extra``."""
    root = Path(__file__).resolve().parent
    files = sorted({f for pattern in ENGINE_SOURCES for f in root.glob(pattern)} | {Path(e) for e in extra},
                   key=lambda f: (f.name, str(f)))
    h = hashlib.sha1()
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_dir(tag: str, digest: str) -> str:
    """A writable folder for numba's cache named after ``tag`` and ``digest``: numba checks only the
    timestamp of the file that defines a kernel, and kernels read constants of other modules (tables.py,
    the rules core), so a change there must not reuse a stale compilation. '' when none is writable.
    The folder's time is set to now (it was used) and the folders of the same tag beyond the
    :data:`KEEP_CACHES` used last are removed (:func:`prune_caches`)."""
    bases = [os.environ.get("NUMBA_CACHE_DIR"), Path(__file__).resolve().parent / "fast" / "__pycache__",
             Path.home() / ".cache" / "belote_env"]
    for base in bases:
        if not base:
            continue
        path = Path(base) / f"{tag}-{digest}"
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            os.utime(path)
        except OSError:
            continue
        prune_caches(Path(base), tag, KEEP_CACHES)
        return str(path)
    return ""


def prune_caches(base: Path, tag: str, keep: int) -> list[Path]:
    """Remove the cache folders ``<tag>-<digest>`` of ``base`` but the ``keep`` used last (by their times);
    returns the removed ones. Errors (a folder another process removes or holds) are ignored."""
    pattern = re.compile(re.escape(tag) + r"-[0-9a-f]{16}")
    try:
        folders = [f for f in base.iterdir() if pattern.fullmatch(f.name) and f.is_dir()]
        folders.sort(key=lambda f: f.stat().st_mtime, reverse=True)
    except OSError:
        return []
    for old in folders[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    return folders[keep:]


def import_cached(module: str, tag: str, *extra: Path):
    """Import the numba module ``module`` (a dotted name) with numba's cache in a folder named after ``tag`` and
    :func:`source_digest` of the engine's sources plus ``extra`` (the module's own file and whatever it reads
    constants from), restoring numba's setting afterwards so other numba code keeps its own. Damaged cache
    files are healed (:func:`heal_damaged_files`)."""
    import importlib

    import numba

    heal_damaged_files()
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = cache_dir(tag, source_digest(*extra)) or previous
    try:
        return importlib.import_module(module)
    finally:
        numba.config.CACHE_DIR = previous


class DamagedCacheWarning(RuntimeWarning):
    """A numba cache file could not be read; it was removed and its kernel is compiled again."""


def _drop(path: str, error: BaseException) -> None:
    """Remove the unreadable cache file ``path`` and say so in one warning line that names it."""
    try:
        os.unlink(path)
        done = "removed it"
    except FileNotFoundError:
        done = "already gone"
    except OSError as err:
        done = f"could not remove it ({err.strerror})"
    message = (f"damaged numba cache file ({type(error).__name__}: {error}); {done}, the kernel is compiled "
               "again")
    # lineno 0 has no source line to print: the warning is the one line "<file>:0: DamagedCacheWarning: ..."
    warnings.warn_explicit(message, DamagedCacheWarning, filename=str(path), lineno=0)


def heal_damaged_files() -> None:
    """Make numba treat a cache file it cannot read as a miss, for every kernel compiled from now on in this
    process: the index (``.nbi``) or data (``.nbc``) file is removed with one :class:`DamagedCacheWarning`
    naming it, and the kernel is compiled and cached again. Idempotent."""
    from numba.core import caching

    index_file = caching.IndexDataCacheFile
    if getattr(index_file, "_belote_env_heals", False):
        return
    load_index, load_data, load_overload = (index_file._load_index, index_file._load_data,
                                            caching.Cache._load_overload)

    def _load_index(self):
        try:
            return load_index(self)
        except Exception as err:  # any content that does not unpickle into an index
            _drop(self._index_path, err)
            return {}

    def _load_data(self, name):
        try:
            return load_data(self, name)
        except OSError:  # a file removed while the index still names it: numba's own miss
            raise
        except Exception as err:
            _drop(self._data_path(name), err)
            return None

    def _load_overload(self, sig, target_context):
        try:
            return load_overload(self, sig, target_context)
        except Exception as err:  # data that unpickles but does not rebuild into a kernel
            _drop(self._cache_file._index_path, err)
            return None

    index_file._load_index, index_file._load_data = _load_index, _load_data
    caching.Cache._load_overload = _load_overload
    index_file._belote_env_heals = True
