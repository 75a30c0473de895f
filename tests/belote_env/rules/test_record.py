"""Deal records (belote_env.rules.record): every deal of every shipped variant file round-trips through JSON and
replays to the same deal and result; records that do not replay are refused naming the step or the field."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_env.rules.actions import ACTION_NAMES
from belote_env.rules.errors import NotationError
from belote_env.rules.record import (
    RECORD_FORMAT,
    deal_record,
    parse_json,
    read_records,
    record_line,
    replay_record,
    write_records,
)
from belote_env.rules.state import DealState
from belote_env.variants import load_variant, variant_names


def _random_deal(variant, rng, stop_at=None):
    deal = DealState.random(variant, rng.randrange(4), rng)
    while deal.phase != "done" and (stop_at is None or len(deal.history) < stop_at):
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


@pytest.mark.parametrize("name", variant_names())
def test_records_round_trip_and_replay_to_the_same_result(name, tmp_path):
    variant = load_variant(name)
    rng = random.Random(name)
    records, deals, attached = [], [], []
    for k in range(40):
        deal = _random_deal(variant, rng, stop_at=None if k % 5 else rng.randrange(30))
        extras = [{"p": round(rng.random(), 3)} if j % 3 == 0 else None for j in range(len(deal.history))]
        records.append(deal_record(deal, extras, meta={"k": k}))
        deals.append(deal)
        attached.append(extras)
    path = tmp_path / "deals.jsonl"
    assert write_records(path, records) == 40
    for k, (deal, rec) in enumerate(zip(deals, read_records(path))):
        assert rec["format"] == RECORD_FORMAT and rec["variant"]["name"] == name and rec["meta"] == {"k": k}
        again = replay_record(rec)
        assert again.format() == deal.format()
        assert ("result" in rec) == (deal.result is not None)
        if deal.result is not None:
            assert again.result.scores == deal.result.scores and rec["result"]["scores"] == list(deal.result.scores)
        assert [s["seat"] for s in rec["actions"]] == _seats(deal)
        assert [s.get("extras") for s in rec["actions"]] == attached[k]  # kept as given


def _seats(deal):
    replay = DealState.from_hands(deal.variant, deal.dealer, deal.initial,
                                  turnup=deal.turnup if deal.turnup >= 0 else None,
                                  stock=deal.stock if deal.turnup >= 0 else None, garde=deal.garde)
    seats = []
    for a in deal.history:
        seats.append(replay.seat)
        replay.apply(a)
    return seats


def test_records_that_do_not_replay_are_refused_naming_the_step():
    deal = _random_deal(load_variant("coinche"), random.Random(3))
    good = json.loads(json.dumps(deal_record(deal)))
    assert replay_record(good).format() == deal.format()

    def edited(change):
        r = json.loads(json.dumps(good))
        change(r)
        return r

    illegal = next(ACTION_NAMES[a] for a in range(112) if a not in DealState.from_hands(
        deal.variant, deal.dealer, deal.initial).legal_actions())
    cases = [
        (lambda r: r["actions"][0].__setitem__("action", illegal), "action 1 of the record: illegal action"),
        (lambda r: r["actions"][5].__setitem__("seat", (r["actions"][5]["seat"] + 1) % 4), "action 6 of the record: seat"),
        (lambda r: r["actions"][2].__setitem__("action", "XX"), "action 3 of the record"),
        (lambda r: r["result"].__setitem__("scores", [0, 0]), "the record's result says scores"),
        (lambda r: r.__setitem__("format", "belote_env.deal/0"), "record format"),
        (lambda r: r.pop("hands"), "no 'hands' field"),
        (lambda r: r["hands"].__setitem__(0, r["hands"][1]), "repeats"),
        (lambda r: r["actions"].pop(), "do not finish the deal"),
        (lambda r: r["actions"].append({"seat": 0, "action": "pass"}), "already over"),
        (lambda r: r["variant"].__setitem__("trumps", 3), "unknown key"),
    ]
    for change, message in cases:
        with pytest.raises(NotationError, match=message):
            replay_record(edited(change))
    with pytest.raises(NotationError, match="extras: 1 entries"):
        deal_record(deal, extras=[None])


def test_what_is_written_reads_back(tmp_path):
    """deal_record refuses extras and meta that would not read back; write_records refuses a record that does not
    replay, naming it, and leaves the file as it was."""
    deal = _random_deal(load_variant("coinche"), random.Random(3))
    n = len(deal.history)
    for extras in ([{"p": float("nan")}] + [None] * (n - 1), ["text"] + [None] * (n - 1)):
        with pytest.raises(NotationError, match="extras"):
            deal_record(deal, extras)
    with pytest.raises(NotationError, match="meta"):
        deal_record(deal, meta={"x": {1, 2}})
    path = tmp_path / "d.jsonl"
    good = deal_record(deal)
    assert write_records(path, [good]) == 1
    before = path.read_bytes()
    with pytest.raises(NotationError, match="record 1 of those to write"):
        write_records(path, [good, {**good, "dealer": 7}])
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["d.jsonl"]


def test_a_file_with_a_bad_line_names_it(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"format": "x"}\n\n{not json\n')
    lines = read_records(path)
    assert next(lines) == {"format": "x"}
    with pytest.raises(NotationError, match="line 3 is not JSON"):
        next(lines)


def test_as_dealt_is_the_deal_before_any_action_in_every_variant():
    import random

    from belote_env.rules.state import play_random_deal
    from belote_env.variants import load_variant, variant_names

    for name in variant_names():
        deal = play_random_deal(load_variant(name), random.Random(name), dealer=2)
        start = deal.as_dealt()
        assert start.history == [] and start.initial == deal.initial and start.dealer == 2
        assert (start.turnup, start.stock, start.garde) == (deal.turnup, deal.stock, deal.garde)
        for a in deal.history:
            start.apply(a)
        assert start == deal and start.result.scores == deal.result.scores


def _good_record(name="belote_classique", seed=4):
    rng = random.Random(seed)
    while True:
        deal = _random_deal(load_variant(name), rng)
        if deal.result.outcome != "redeal":
            extras = [{"p": 0.5, "v": [1, {"x": None}]} if j % 2 else None for j in range(len(deal.history))]
            return json.loads(json.dumps(deal_record(deal, extras, meta={"who": ["a", "b"]})))


def _hostile_lines():
    """(name, bytes of one line): a file of each is refused whole, with a short message."""
    good = record_line(_good_record())
    rec = json.loads(good)
    big = "x" * 5_000_000

    def with_(**fields):
        return json.dumps({**rec, **fields})

    step0 = rec["actions"][0]
    return [
        ("not UTF-8", b"\xff\xfe" + good.encode()),
        ("nested 100,000 deep", ("[" * 100_000 + "]" * 100_000).encode()),
        ("nested just too deep in meta", with_(meta={"a": json.loads("[" * 31 + "]" * 31)})),
        ("an integer of 5,000 digits", good.replace('"dealer":', '"dealer":' + "9" * 5000 + ",\"x\":").encode()),
        ("NaN", good.replace('"who"', '"nan":NaN,"who"').encode()),
        ("Infinity", good.replace('"garde":0', '"garde":Infinity').encode()),
        ("1e999", good.replace('"garde":0', '"garde":1e999').encode()),
        ("result a list", with_(result=[1, 2])),
        ("result a string", with_(result="made")),
        ("result with an unknown field", with_(result={**rec["result"], "bogus": 1})),
        ("hands a string", with_(hands="7S 8S")),
        ("hands a number", with_(hands=5)),
        ("hands an object", with_(hands={"a": 1})),
        ("variant a list", with_(variant=[1])),
        ("dealer a float", with_(dealer=1.5)),
        ("dealer a bool", with_(dealer=True)),
        ("garde a string", with_(garde="x")),
        ("actions an object", with_(actions={"a": 1})),
        ("an action a number", with_(actions=[{**step0, "action": 3}])),
        ("a 5 MB action name", with_(actions=[{**step0, "action": big}])),
        ("a seat a list", with_(actions=[{**step0, "seat": [step0["seat"]]}])),
        ("a seat a bool", with_(actions=[{**step0, "seat": True}])),
        ("extras a list", with_(actions=[{**step0, "extras": [1]}] + rec["actions"][1:])),
        ("extras a string", with_(actions=[{**step0, "extras": "x"}] + rec["actions"][1:])),
        ("a step with an unknown field", with_(actions=[{**step0, "sat": 1}] + rec["actions"][1:])),
        ("meta a list", with_(meta=[1])),
        ("an unknown field", with_(reslt=rec["result"])),
        ("a 5 MB format", with_(format=big)),
        ("a 5 MB variant key", with_(variant={**rec["variant"], big: 1})),
        ("a 5 MB result", with_(result={**rec["result"], "scores": big})),
        ("a list", "[1, 2]"),
        ("trailing NUL", good[:-1] + "\x00"),
    ]


@pytest.mark.parametrize(("case", "line"), _hostile_lines(), ids=[c for c, _ in _hostile_lines()])
def test_hostile_record_files_are_refused_with_a_short_message(case, line, tmp_path):
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(line.encode() if isinstance(line, str) else line)
    with pytest.raises(NotationError) as e:
        for rec in read_records(path):
            replay_record(rec)
    assert len(str(e.value)) < 600 and "\n" not in str(e.value), case


def test_a_record_that_loads_writes_back_as_it_was_read(tmp_path):
    rec = _good_record()
    rec["meta"] = {"deep": json.loads("[" * 30 + "]" * 30), "text": "\ud800 lone surrogate", "n": 10**300}
    path = tmp_path / "ok.jsonl"
    write_records(path, [rec])
    (again,) = read_records(path)
    assert again == rec and replay_record(again).format() == replay_record(rec).format()
    assert record_line(again) == record_line(rec)
    with pytest.raises(NotationError, match="nested more than 32 deep"):
        replay_record({**rec, "meta": {"deep": json.loads("[" * 31 + "]" * 31)}})
    for bad in ({"x": float("nan")}, {"x": (1, 2j)}, {1: "int key"}, {"x": {1, 2}}):
        with pytest.raises(NotationError, match="meta"):
            replay_record({**rec, "meta": bad})


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=8), lambda kids: st.lists(kids, max_size=3)
                     | st.dictionaries(st.text(max_size=5), kids, max_size=3), max_leaves=8)


@pytest.mark.parametrize("hands", [0.0, 1.5, True, None, {"0": "AS"}, "AS KS", 7])
def test_hands_that_are_not_a_sequence_of_hands_are_a_notation_error(hands):
    # found by the property test below: a float gave a bare TypeError ("'float' object is not iterable")
    rec = _good_record("belote_classique")
    rec["hands"] = hands
    with pytest.raises(NotationError, match="hands"):
        replay_record(rec)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_edit_of_a_record_replays_and_writes_back_or_is_a_notation_error(data):
    """A record with one field replaced by any JSON value, or one field removed: replay_record either accepts it,
    and then the record writes back and reads back equal and replays to the same deal, or refuses it with a
    NotationError: never another exception."""
    rec = _good_record(data.draw(st.sampled_from(["belote_classique", "coinche", "contree", "cobrecaf_81"])))
    paths = [(), ("result",), ("variant",), ("actions",)] + [("actions", k) for k in range(3)] + [("meta",)]
    where = data.draw(st.sampled_from(paths))
    target = rec
    for k in where:
        target = target[k]
    if isinstance(target, dict):
        key = data.draw(st.sampled_from(sorted(target) + ["new"]))
    else:
        key = data.draw(st.integers(0, max(0, len(target) - 1)))
    if data.draw(st.booleans()) and (isinstance(target, dict) and key in target or isinstance(target, list) and target):
        del target[key]
    else:
        value = data.draw(_JSON)
        if isinstance(target, dict):
            target[key] = value
        elif target:
            target[key] = value
    try:
        deal = replay_record(rec)
    except NotationError as e:
        assert len(str(e)) <= 2000
        return
    line = record_line(rec)
    again = parse_json(line)
    assert again == rec and replay_record(again).format() == deal.format()


def test_a_line_longer_than_a_record_is_refused_before_it_is_parsed(tmp_path):
    from belote_env.rules.record import MAX_LINE_BYTES

    path = tmp_path / "huge.jsonl"
    rec = deal_record(_random_deal(load_variant("coinche"), random.Random(1)))
    path.write_bytes(record_line(rec).encode() + b"[" + b"0," * MAX_LINE_BYTES + b"0]\n")
    records = read_records(path)
    assert next(records) == rec  # the first line reads
    with pytest.raises(NotationError, match=f"line 2 is longer than {MAX_LINE_BYTES:,} bytes"):
        next(records)
