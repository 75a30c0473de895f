"""benchmarks/dd_vs_colver.py: our solver and colver's on the same full deals (colver is optional)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_DIR = Path(__file__).resolve().parents[3] / "benchmarks"


def _load():
    sys.path.insert(0, str(_DIR))
    spec = importlib.util.spec_from_file_location("dd_vs_colver", _DIR / "dd_vs_colver.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_deals_are_the_same_for_a_seed_and_our_positions_lead_after_the_dealer():
    from belote_env.variants import load_variant

    bench = _load()
    a, b = list(bench.deals(1, 6, 0)), list(bench.deals(1, 6, 0))
    assert a == b and a != list(bench.deals(1, 6, 1))
    for i, (dealer, hands) in enumerate(a):
        assert dealer == i % 4 and sorted(c for h in hands for c in h) == list(range(32))
        pos = bench.our_position(load_variant("contree"), dealer, hands, 1)
        assert pos.seat == (dealer + 1) % 4 and pos.strain == 1 and pos.tricks_left == 8


def test_both_solvers_give_every_card_the_same_value(capsys):
    pytest.importorskip("colver")
    bench = _load()
    assert bench.main(["--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "all suits, 8 deals" in out and "values: identical on every legal card of every deal" in out


def test_without_colver_it_says_how_to_get_it(monkeypatch, capsys):
    bench = _load()
    monkeypatch.setitem(sys.modules, "colver", None)
    assert bench.main(["--deals", "1"]) == 2
    assert "pip install colver" in capsys.readouterr().err
