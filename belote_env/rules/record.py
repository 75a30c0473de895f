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
estimate): JSON values, kept as given. :func:`deal_record` writes a record of a :class:`DealState`;
:func:`replay_record` reads one back by replaying its actions on the rules core, so a record that loads always
replays to the result it claims: an unknown format, a bad field, an action that is not legal (named by its step)
or a result that differs from the replay's is a :class:`NotationError`. :func:`write_records` and
:func:`read_records` keep records as JSON lines (one deal per line).
"""

from __future__ import annotations

import json
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


def deal_record(deal: DealState, extras: list | None = None, meta: dict | None = None) -> dict:
    """The record of ``deal`` (any point of it: unfinished deals have no ``result``). ``extras``: one entry per
    action of ``deal.history`` (None, or a dict of JSON values the agent attached); ``meta``: free JSON values."""
    if not isinstance(deal, DealState):
        raise NotationError(f"deal_record takes a DealState, got {type(deal).__name__}")
    if extras is not None and len(extras) != len(deal.history):
        raise NotationError(f"extras: {len(extras)} entries for {len(deal.history)} actions")
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
    for key in ("variant", "dealer", "hands", "actions"):
        if key not in record:
            raise NotationError(f"the record has no {key!r} field")
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
        if deal.phase == "done":
            raise NotationError(f"{where}: the deal is already over")
        if step.get("seat", deal.seat) != deal.seat:
            raise NotationError(f"{where}: seat {short_repr(step.get('seat'))} acts, but it is seat {deal.seat}'s turn")
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


def record_line(record: dict) -> str:
    """One record as a line of a JSON-lines file (compact, no NaN, the newline included)."""
    return json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n"


def write_records(path: str | Path, records: Iterable[dict]) -> int:
    """Write ``records`` to ``path`` as JSON lines (one deal per line); returns how many."""
    n = 0
    with open(path, "w") as f:
        for r in records:
            f.write(record_line(r))
            n += 1
    return n


def read_records(path: str | Path) -> Iterator[dict]:
    """The records of a JSON-lines file, in order (blank lines skipped); NotationError naming the bad line."""
    with open(path) as f:
        for k, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise NotationError(f"{path}: line {k} is not JSON ({e})") from None


__all__ = ["RECORD_FORMAT", "deal_record", "read_records", "record_line", "replay_record", "result_fields",
           "write_records"]
