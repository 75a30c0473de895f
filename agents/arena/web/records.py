"""The deal records the web app may show: only files under the folders (or the files) named on its command line.

The page names a file by its key in :meth:`RecordLibrary.files` (its path relative to the folder it was found
in, with that folder's number in front when there are several); a key is looked up in the listing, never joined
to a path, so no request reaches a file outside those folders. A deal is replayed on the rules core
(:func:`belote_env.rules.record.replay_record`: a record that does not replay to its claimed result is refused)
into one frame per action with every hand shown, each with what the agent attached to its decision, and the
deal's duplicate twin when the record says which it is (tournament records: the same pair and deal number at
the other table).
"""

from __future__ import annotations

import os
from pathlib import Path

from belote_env.render import move_text, table_view
from belote_env.rules.actions import ACTION_NAMES
from belote_env.rules.errors import BeloteError, NotationError, short_repr
from belote_env.rules.record import RECORD_FORMAT, parse_json, record_lines, replay_record
from belote_env.rules.state import DealState

MAX_FILE_BYTES = 64 << 20  # a record file larger than this is listed but refused
MAX_FILES = 2000  # files listed per library
MAX_DEPTH = 4  # folders below a record folder that are searched


class RecordError(BeloteError):
    """A record the library refuses to show (unknown key, unreadable file, a record that does not replay); its
    message is one bounded line (a BeloteError, a ValueError)."""


class RecordLibrary:
    """Record files (``*.jsonl``) under ``roots`` (folders, searched ``MAX_DEPTH`` deep, or single files)."""

    def __init__(self, roots: list[str | Path]):
        self.roots = [Path(r).resolve() for r in roots]
        for r in self.roots:
            if not r.exists():
                raise RecordError(f"record folder {str(r)!r} does not exist")
        self._cache: dict[str, tuple[float, list[dict]]] = {}

    def files(self) -> dict[str, Path]:
        """Key -> path of every record file under the roots, sorted by key."""
        found: dict[str, Path] = {}
        several = len(self.roots) > 1
        for k, root in enumerate(self.roots):
            prefix = f"{k + 1}:" if several else ""
            if root.is_file():
                found[prefix + root.name] = root
                continue
            for folder, dirs, names in os.walk(root):
                depth = len(Path(folder).relative_to(root).parts)
                if depth >= MAX_DEPTH:
                    dirs[:] = []
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    path = Path(folder) / name
                    if name.endswith(".jsonl") and path.is_file() and not path.is_symlink():
                        found[prefix + path.relative_to(root).as_posix()] = path
                        if len(found) >= MAX_FILES:
                            return dict(sorted(found.items()))
        return dict(sorted(found.items()))

    def listing(self) -> list[dict]:
        out = []
        for key, path in self.files().items():
            try:
                size = path.stat().st_size
            except OSError:
                continue
            out.append({"file": key, "bytes": size})
        return out

    def records(self, key: str) -> list[dict]:
        """The records of file ``key`` (cached while the file is unchanged)."""
        if not isinstance(key, str):
            raise RecordError("a record file is named by its key from the list of files")
        path = self.files().get(key)
        if path is None:
            raise RecordError(f"no record file {key[:80]!r} here (see the list of files)")
        try:
            st = path.stat()
            if st.st_size > MAX_FILE_BYTES:
                raise RecordError(f"record file {key!r} is larger than {MAX_FILE_BYTES >> 20} MB")
            cached = self._cache.get(key)
            if cached is not None and cached[0] == st.st_mtime:
                return cached[1]
            records = []
            with open(path, "rb") as f:
                for n, line in record_lines(f, key):  # bounded lines of standard JSON, of bounded depth
                    records.append(parse_json(line, f"{key}: line {n}"))
        except NotationError as e:
            raise RecordError(str(e)) from None
        except OSError as e:
            raise RecordError(f"cannot read record file {short_repr(key)}: {e.strerror or e}") from None
        self._cache[key] = (st.st_mtime, records)
        if len(self._cache) > 16:
            self._cache.pop(next(iter(self._cache)))
        return records

    def summaries(self, key: str) -> list[dict]:
        """One line per deal of file ``key``: the contract, outcome and scores it claims, and its ``meta``."""
        out = []
        for i, rec in enumerate(self.records(key)):
            if not isinstance(rec, dict):
                out.append({"index": i, "error": "not a JSON object"})
                continue
            result = rec.get("result") if isinstance(rec.get("result"), dict) else {}
            meta = rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
            variant = rec.get("variant") if isinstance(rec.get("variant"), dict) else {}
            out.append({"index": i, "variant": variant.get("name"), "outcome": result.get("outcome"),
                        "scores": result.get("scores"), "contract": result.get("contract"), "meta": meta,
                        "actions": len(rec["actions"]) if isinstance(rec.get("actions"), list) else None})
        return out

    def deal(self, key: str, index: int) -> dict:
        """Deal ``index`` of file ``key`` as frames (one per action, every hand shown), with its twin's index."""
        records = self.records(key)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(records):
            raise RecordError(f"deal index {index!r} is out of range: file {key!r} holds {len(records)} deals")
        rec = records[index]
        try:
            final = replay_record(rec)
        except BeloteError as e:  # every field is checked: nothing else escapes a hostile record
            raise RecordError(f"deal {index} of {key!r} does not replay: {str(e).splitlines()[0]}") from None
        frames = replay_frames(rec, final)
        return {"file": key, "index": index, "format": RECORD_FORMAT, "meta": rec.get("meta"),
                "variant": final.variant.name, "result": frames[-1]["result"], "frames": frames,
                "twin": twin_index(records, index)}


def replay_frames(record: dict, final: DealState) -> list[dict]:
    """One frame per step of a record that replays (``final`` its replay): the deal before any action, then after
    each action, every hand shown, the action and its attached extras in ``event``."""
    deal = final.as_dealt()
    frames = [dict(table_view(deal), event=None)]
    for a, step in zip(final.history, record["actions"]):
        seat = deal.seat
        deal.apply(a)
        extras = step.get("extras") if isinstance(step.get("extras"), dict) else None
        frames.append(dict(table_view(deal), event={"seat": seat, "action": ACTION_NAMES[a], "text": move_text(a),
                                                    "extras": extras}))
    return frames


def twin_index(records: list[dict], index: int) -> int | None:
    """The duplicate twin of deal ``index`` in a tournament's records (same match and pair, the other table, same
    deal number), or None."""
    meta = records[index].get("meta")
    if not isinstance(meta, dict) or not all(k in meta for k in ("pair", "table", "deal")):
        return None
    want = (meta.get("match"), meta["pair"], 1 - meta["table"] if meta["table"] in (0, 1) else None, meta["deal"])
    for i, rec in enumerate(records):
        m = rec.get("meta") if isinstance(rec, dict) else None
        if isinstance(m, dict) and (m.get("match"), m.get("pair"), m.get("table"), m.get("deal")) == want:
            return i
    return None


__all__ = ["RecordError", "RecordLibrary", "replay_frames", "twin_index"]
