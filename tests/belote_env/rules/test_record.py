"""Deal records (belote_env.rules.record): every deal of every shipped variant file round-trips through JSON and
replays to the same deal and result; records that do not replay are refused naming the step or the field."""

from __future__ import annotations

import json
import random

import pytest

from belote_env.rules.actions import ACTION_NAMES
from belote_env.rules.errors import NotationError
from belote_env.rules.record import (
    RECORD_FORMAT,
    deal_record,
    read_records,
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
