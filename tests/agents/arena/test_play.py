"""python -m agents.arena.play: a whole deal played from scripted input, bad answers re-prompted."""

from __future__ import annotations

import argparse

import pytest

from agents.arena.play import main, play


def _args(**kw):
    base = dict(variant="coinche", partner="heuristic", opponents="random", seat=0, seed=3, episode="deal",
                deals=1, reveal=True, color=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _run(args, answers):
    out = []
    feed = iter(answers)
    code = play(args, read=lambda: next(feed, None), write=out.append)
    return code, "".join(out)


def test_a_whole_deal_from_scripted_input():
    answers = ["zz", "99", "AS", "1"] + ["1"] * 60  # a bad word, a bad number, an illegal card, then first moves
    code, text = _run(_args(), answers)
    assert code == 0
    assert "'zz' is not a move" in text
    assert "there is no move 99" in text
    assert "A\u2660 is not legal now" in text  # a card while bidding
    assert "deal over:" in text and "hands as dealt:" in text
    assert "1) pass" in text  # the numbered legal moves


def test_the_same_seed_replays_the_same_deal():
    first = _run(_args(variant="belote_classique"), ["1"] * 60)[1]
    again = _run(_args(variant="belote_classique"), ["1"] * 60)[1]
    assert first == again


def test_quit_and_bad_specs(capsys):
    assert _run(_args(), ["q"])[0] == 0
    assert main(["--opponents", "nobody", "--seed", "1"]) == 2
    assert "error: unknown agent 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # argparse's one-line error
        main(["--seed", "-1"])
    assert e.value.code == 2 and "expected an integer >= 0" in capsys.readouterr().err


def test_a_shipped_agent_on_another_variant_is_noted():
    text = _run(_args(variant="belote_classique", partner="ppo_coinche"), ["q"])[1]
    assert text.startswith("note: ppo_coinche was trained on coinche; it plays belote_classique here\n")
    assert "note:" not in _run(_args(variant="coinche", partner="ppo_coinche"), ["q"])[1]
