"""Deal records: one versioned JSON object per deal, written and read back by the rules core.

A record holds everything needed to replay a deal and check it::

    {"format": "belote_env.deal/1",
     "variant": {"name": "coinche", "deal": "full", ...every rule switch...},
     "dealer": 0, "garde": 0,
     "hands": ["7S 8S ...", "...", "...", "..."],      # as dealt, seat 0 first
     "turnup": "JH", "stock": ["8C", ...],              # turn-up deals only
     "actions": [{"seat": 1, "action": "pass"}, {"seat": 2, "action": "80 H", "extras": {...}}, ...],
     "result": {"outcome": "made", "scores": [...], "card_points": [...], "contract": {...}},   # when it is over
     "meta": {...}}                                     # free: who sat where, the table's seed...

``extras`` are what an agent attached to its decision (a policy's probabilities of the legal actions, its value
estimate): a JSON object, kept as given. :func:`deal_record` writes a record of a :class:`DealState`;
:func:`replay_record` reads one back by replaying its actions on the rules core, so a record that loads always
replays to the result it claims, and writes back as it was read: an unknown format or field, a field of the wrong
type, ``extras`` or ``meta`` that are not JSON objects of finite numbers at most :data:`MAX_DEPTH` deep, an action
that is not legal (named by its step) or a result that differs from the replay's is a :class:`NotationError`.
:func:`write_records` and :func:`read_records` keep records as JSON lines (one deal per line); :func:`parse_json`
reads one line, refusing what is not standard JSON (text that is not UTF-8, NaN or Infinity, numbers too large
for a float, integers over 4,300 digits, nesting deeper than :data:`MAX_DEPTH`) with a :class:`NotationError`.
Error messages show bad values cut short (``short_repr``), never a whole input.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Iterable, Iterator

from .actions import ACTION_NAMES, parse_action
from .cards import CARD_NAMES, format_cards
from .errors import IllegalActionError, NotationError, VariantError
from .state import DealState
from .variant import Variant, short_repr

RECORD_FORMAT = "belote_env.deal/1"
_RESULT_FIELDS = ("outcome", "scores", "card_points", "tricks", "dix_de_der", "belote", "declarations", "capot",
                  "garde_in", "garde_out")
RECORD_FIELDS = ("format", "variant", "dealer", "garde", "hands", "turnup", "stock", "actions", "result", "meta")
STEP_FIELDS = ("seat", "action", "extras")
MAX_DEPTH = 32  # nesting of a record's JSON (a record itself is 4 deep; extras and meta get the rest)
MAX_LINE_BYTES = 1 << 20  # one record's line (a deal with every decision's extras is tens of KB)


def deal_record(deal: DealState, extras: list | None = None, meta: dict | None = None) -> dict:
    """The record of ``deal`` (any point of it: unfinished deals have no ``result``). ``extras``: one entry per
    action of ``deal.history`` (None, or a dict of JSON values the agent attached); ``meta``: free JSON values."""
    if not isinstance(deal, DealState):
        raise NotationError(f"deal_record takes a DealState, got {type(deal).__name__}")
    if extras is not None and len(extras) != len(deal.history):
        raise NotationError(f"extras: {len(extras)} entries for {len(deal.history)} actions")
    for i, x in enumerate(extras or ()):  # what is written must read back (replay_record)
        if x is not None:
            _json_object(x, f"extras[{i}]", 3)
    if meta:
        _json_object(meta, "meta", 1)
    replay = deal.as_dealt()
    actions = []
    for i, a in enumerate(deal.history):
        step = {"seat": replay.seat, "action": ACTION_NAMES[a]}
        if extras is not None and extras[i] is not None:
            step["extras"] = extras[i]
        actions.append(step)
        replay.apply(a)
    record = {"format": RECORD_FORMAT, "variant": deal.variant.to_dict(), "dealer": deal.dealer,
              "garde": deal.garde, "hands": [format_cards(m) for m in deal.initial]}
    if deal.turnup >= 0:
        record["turnup"] = CARD_NAMES[deal.turnup]
        record["stock"] = [CARD_NAMES[c] for c in deal.stock]
    record["actions"] = actions
    if deal.result is not None:
        record["result"] = result_fields(deal)
    if meta:
        record["meta"] = meta
    return record


def result_fields(deal: DealState) -> dict:
    """The JSON fields of a finished deal's result (its contract included)."""
    r = deal.result
    out = {k: getattr(r, k) for k in _RESULT_FIELDS}
    out = {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in out.items()}
    c = r.contract
    out["contract"] = None if c is None else {"taker": c.taker, "strain": c.strain, "value": c.value,
                                              "kind": str(c.kind), "level": c.level, "caller": c.caller}
    return out


def replay_record(record: dict) -> DealState:
    """The deal of ``record``, replayed on the rules core from its cards; NotationError naming what is wrong."""
    if not isinstance(record, dict):
        raise NotationError(f"a deal record is a JSON object, got {type(record).__name__}")
    if record.get("format") != RECORD_FORMAT:
        raise NotationError(f"record format {short_repr(record.get('format'))}: expected {RECORD_FORMAT!r}")
    _known_fields(record, RECORD_FIELDS, "the record")
    for key in ("variant", "dealer", "hands", "actions"):
        if key not in record:
            raise NotationError(f"the record has no {key!r} field")
    if "meta" in record:
        _json_object(record["meta"], "the record's 'meta' field", 1)
    if "result" in record and not isinstance(record["result"], dict):
        raise NotationError(f"the record's 'result' field must be an object, got {type(record['result']).__name__}")
    if "result" in record:
        _known_fields(record["result"], (*_RESULT_FIELDS, "contract"), "the record's result")
    try:
        variant = Variant.from_dict(record["variant"], "record 'variant' field")
    except VariantError as e:
        raise NotationError(str(e)) from None
    deal = DealState.from_hands(variant, record["dealer"], record["hands"], turnup=record.get("turnup"),
                                stock=record.get("stock"), garde=record.get("garde", 0))
    steps = record["actions"]
    if not isinstance(steps, list):
        raise NotationError("the record's 'actions' field is not a list")
    for i, step in enumerate(steps):
        where = f"action {i + 1} of the record"
        if not isinstance(step, dict) or "action" not in step:
            raise NotationError(f"{where}: expected {{'seat': ..., 'action': ...}}, got {short_repr(step)}")
        _known_fields(step, STEP_FIELDS, where)
        if step.get("extras") is not None:
            _json_object(step["extras"], f"{where}: 'extras'", 3)
        if deal.phase == "done":
            raise NotationError(f"{where}: the deal is already over")
        seat = step.get("seat", deal.seat)
        if isinstance(seat, bool) or type(seat) is not int or seat != deal.seat:
            raise NotationError(f"{where}: seat {short_repr(seat)} acts, but it is seat {deal.seat}'s turn")
        try:
            deal.apply(parse_action(step["action"]))
        except (IllegalActionError, NotationError) as e:
            raise NotationError(f"{where}: {e}") from None
    if "result" in record:
        if deal.result is None:
            raise NotationError("the record claims a result, but its actions do not finish the deal")
        got = result_fields(deal)
        wrong = [k for k in got if k in record["result"] and record["result"][k] != got[k]]
        if wrong:
            k = wrong[0]
            raise NotationError(f"the record's result says {k} {short_repr(record['result'][k])}, its replay gives "
                                f"{short_repr(got[k])}")
    return deal


def _known_fields(obj: dict, known: tuple, where: str) -> None:
    """NotationError naming the first key of ``obj`` that is not one of ``known`` (a misspelt field would be
    ignored silently: a result nobody checks)."""
    for key in obj:
        if key not in known:
            raise NotationError(f"{where} has an unknown field {short_repr(key)}; fields: {', '.join(known)}")


def _json_object(value, where: str, depth: int) -> None:
    """NotationError unless ``value`` is a JSON object that writes back as it is and reads back: string keys,
    values of JSON's types (lists, objects, strings, finite numbers, booleans, null), nested at most to MAX_DEPTH
    in the record (``depth``: where ``value`` sits in it, as :func:`parse_json` counts)."""
    if not isinstance(value, dict):
        raise NotationError(f"{where} must be a JSON object, got {type(value).__name__} {short_repr(value)}")
    todo = [(value, depth)]
    while todo:
        x, depth = todo.pop()
        if isinstance(x, (dict, list, tuple)):
            if depth >= MAX_DEPTH:
                raise NotationError(f"{where} is nested more than {MAX_DEPTH} deep")
            if isinstance(x, dict):
                bad = next((k for k in x if not isinstance(k, str)), None)
                if bad is not None:
                    raise NotationError(f"{where}: key {short_repr(bad)} is not a string")
                todo.extend((v, depth + 1) for v in x.values())
            else:
                todo.extend((v, depth + 1) for v in x)
        elif isinstance(x, float):
            if not math.isfinite(x):
                raise NotationError(f"{where} holds {x}, which JSON cannot write")
        elif not (x is None or isinstance(x, (str, int, bool))):
            raise NotationError(f"{where} holds {type(x).__name__} {short_repr(x)}, not a JSON value")


def _no_constant(name: str):
    raise ValueError(f"{name} is not standard JSON")


def parse_json(text: str | bytes, where: str = "record"):
    """One standard JSON text (a line of a records file) as Python values; NotationError naming ``where`` and what
    is wrong for text that is not UTF-8, not JSON, NaN or Infinity, a number too large for a float, an integer
    over 4,300 digits, or nesting deeper than MAX_DEPTH."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise NotationError(f"{where} is not UTF-8 text (byte {e.start})") from None
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise NotationError(f"{where} is not JSON ({e.msg} at character {e.pos})") from None
    except RecursionError:
        raise NotationError(f"{where} is nested more than {MAX_DEPTH} deep") from None
    except ValueError as e:  # NaN / Infinity, an integer over 4,300 digits
        raise NotationError(f"{where} is not standard JSON ({str(e).split(';')[0][:120]})") from None
    _checked_tree(value, where)
    return value


def _checked_tree(value, where: str) -> None:
    """NotationError for nesting deeper than MAX_DEPTH, or a float JSON's parser made infinite (1e999)."""
    todo = [(value, 0)]
    while todo:
        x, depth = todo.pop()
        if isinstance(x, (dict, list)):
            if depth >= MAX_DEPTH:
                raise NotationError(f"{where} is nested more than {MAX_DEPTH} deep")
            todo.extend((v, depth + 1) for v in (x.values() if isinstance(x, dict) else x))
        elif isinstance(x, float) and not math.isfinite(x):
            raise NotationError(f"{where} holds a number too large for a float")


def record_line(record: dict) -> str:
    """One record as a line of a JSON-lines file (compact, no NaN, the newline included)."""
    return json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n"


def write_records(path: str | Path, records: Iterable[dict]) -> int:
    """Write ``records`` to ``path`` as JSON lines (one deal per line); returns how many. Each is checked by
    :func:`replay_record` first (a NotationError names the first that would not read back), and the file is
    written whole under a temporary name, then renamed: a refused record leaves ``path`` as it was."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    n = 0
    try:
        with open(tmp, "w") as f:
            for r in records:
                try:
                    replay_record(r)
                except NotationError as e:
                    raise NotationError(f"record {n} of those to write to {str(path)!r}: {e}") from None
                f.write(record_line(r))
                n += 1
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return n


def record_lines(f, where: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of the non-blank lines of the binary file ``f``, each read with a bound: a line over
    :data:`MAX_LINE_BYTES` is a NotationError naming it (``where``: the file), found without reading it whole."""
    k = 0
    while True:
        line = f.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        k += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise NotationError(f"{where}: line {k} is longer than {MAX_LINE_BYTES:,} bytes; a deal record is one "
                                "line of at most that")
        if line.strip():
            yield k, line


def read_records(path: str | Path) -> Iterator[dict]:
    """The records of a JSON-lines file, in order (blank lines skipped), as :func:`parse_json` reads them;
    NotationError naming the bad line (one longer than :data:`MAX_LINE_BYTES` included). Each is checked when
    replayed (:func:`replay_record`)."""
    with open(path, "rb") as f:
        for k, line in record_lines(f, str(path)):
            yield parse_json(line, f"{path}: line {k}")


__all__ = ["MAX_DEPTH", "MAX_LINE_BYTES", "RECORD_FIELDS", "RECORD_FORMAT", "STEP_FIELDS", "deal_record", "parse_json",
           "read_records", "record_line", "record_lines", "replay_record", "result_fields", "write_records"]
