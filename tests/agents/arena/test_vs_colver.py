"""benchmarks/vs_colver.py: our agents against colver's bots on colver's rules (colver is optional)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from belote_env.rules.actions import action_name

_PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "vs_colver.py"
_spec = importlib.util.spec_from_file_location("vs_colver", _PATH)
vs_colver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vs_colver)


def test_actions_map_both_ways():
    calls = [vs_colver.to_ours(a, bidding=True) for a in range(43)]
    cards = [vs_colver.to_ours(a, bidding=False) for a in range(32)]
    assert sorted(cards) == list(range(32))
    assert len(set(calls)) == 43
    assert [vs_colver.to_colver(a) for a in calls] == list(range(43))
    assert [vs_colver.to_colver(a) for a in cards] == list(range(32))
    # colver's order within a suit is 7 8 9 J Q K 10 A; its calls 80 S, 80 H, ..., capot C, coinche, surcoinche
    assert [action_name(c) for c in cards[:8]] == ["7S", "8S", "9S", "JS", "QS", "KS", "10S", "AS"]
    assert [action_name(c) for c in (calls[0], calls[1], calls[6], calls[36], calls[37], calls[41], calls[42])] == [
        "pass", "80 S", "90 H", "160 C", "capot S", "coinche", "surcoinche"]
    with pytest.raises(ValueError, match="no colver equivalent"):
        vs_colver.to_colver(vs_colver.bid_action(80, 4))  # no trump


def test_random_and_heuristic_against_colver_agree_on_every_legal_set(capsys):
    pytest.importorskip("colver")
    # 60 pairs of random calls and cards: every coinche, surcoinche and capot path the auction has; the
    # harness stops at the first position where colver's legal set differs from ours
    assert vs_colver.main(["random", "--colver", "heuristic", "--pairs", "60"]) == 0
    out = capsys.readouterr().out
    assert "60 duplicate pairs" in out and "colver's scores" in out and "our 'contree' scores" in out
    task = ("heuristic", vs_colver.HEURISTIC, "contree", 0, 0, 4)

    def scores(pairs):
        return [[(t["colver"], t["ours"], t["taker"], t["made"]) for t in tables] for tables in pairs]

    pairs = vs_colver.play_pairs(task)
    assert scores(pairs) == scores(vs_colver.play_pairs(task))  # deterministic for a seed
    assert all(len(tables) == 2 for tables in pairs)  # each deal twice, the teams swapped


def test_a_bad_agent_spec_is_an_error_line_not_a_traceback(capsys):
    pytest.importorskip("colver")
    with pytest.raises(SystemExit) as stop:
        vs_colver.main(["nosuch", "--pairs", "2"])
    assert stop.value.code == 2 and "error: unknown agent 'nosuch'" in capsys.readouterr().err
