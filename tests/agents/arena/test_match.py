"""Duplicate matches, round-robin, reports: behaviour a tournament user relies on."""

import json
import math

import numpy as np
import pytest

from agents import AgentSpecError, make_agent
from agents.random_agent import RandomAgent
from agents.arena.tournament import (
    CHUNK_PAIRS,
    MatchResult,
    duplicate_match,
    main,
    pair_seating,
    pair_seed,
    pair_tables,
    round_robin,
    t_quantile_975,
)
from agents.arena.match import pair_seeds
from belote_env.rules.game import GameState
from belote_env.variants import load_variant

FAMILIES = ["belote_classique", "coinche", "contree", "cobrecaf_81"]


@pytest.mark.parametrize("name", FAMILIES)
def test_duplicate_pair_has_identical_hands_and_swapped_teams(name):
    variant = load_variant(name)
    venv = pair_tables(variant, 7, 0, 20)
    venv.reset()
    seating = pair_seating(20)
    for i in range(20):
        d1, d2 = venv.state(2 * i).deal, venv.state(2 * i + 1).deal
        assert d1.initial == d2.initial == GameState(variant, seed=pair_seed(7, i)).deal.initial
        assert (d1.dealer, d1.turnup, d1.stock) == (d2.dealer, d2.turnup, d2.stock)
        assert seating[2 * i].tolist() == [0, 1, 0, 1] and seating[2 * i + 1].tolist() == [1, 0, 1, 0]


def test_pairs_differ_from_each_other():
    variant = load_variant("coinche")
    hands = {GameState(variant, seed=s).deal.initial for s in pair_seeds(0, 0, 50)}
    assert len(hands) == 50


def test_results_are_reproducible_from_the_seed():
    variant = load_variant("cobrecaf_81")
    r1 = duplicate_match(make_agent("random"), make_agent("heuristic"), variant, 40, seed=3)
    r2 = duplicate_match(make_agent("random"), make_agent("heuristic"), variant, 40, seed=3)
    r3 = duplicate_match(make_agent("random"), make_agent("heuristic"), variant, 40, seed=4)
    assert np.array_equal(r1.pair_diffs, r2.pair_diffs) and r1.to_dict() == r2.to_dict()
    assert not np.array_equal(r1.pair_diffs, r3.pair_diffs)


def test_round_robin_chunks_match_a_single_call():
    variant = load_variant("belote_classique")
    n = CHUNK_PAIRS + 20  # two chunks, the second partial
    [rr] = round_robin(["random", "heuristic"], variant, n, seed=5, workers=1, progress=False)
    single = duplicate_match(make_agent("random"), make_agent("heuristic"), variant, n, seed=5)
    assert np.array_equal(rr.pair_diffs, single.pair_diffs)
    assert np.array_equal(rr.pair_wins, single.pair_wins)
    assert (rr.taken_a, rr.made_a, rr.taken_b, rr.made_b) == (single.taken_a, single.made_a, single.taken_b, single.made_b)


@pytest.mark.parametrize("name", ["belote_classique", "coinche"])
def test_random_against_random_interval_covers_zero(name):
    r = duplicate_match(RandomAgent(), RandomAgent(), load_variant(name), 300, seed=11)
    assert r.ci_low < 0 < r.ci_high
    assert 0.4 < r.win_rate < 0.6


@pytest.mark.parametrize("name", FAMILIES)
def test_heuristic_beats_random_in_every_family(name):
    r = duplicate_match(make_agent("heuristic"), make_agent("random"), load_variant(name), 150, seed=2)
    assert r.ci_low > 0, r.row()
    assert r.win_rate > 0.55
    assert r.made_rate_a > r.made_rate_b


def test_self_play_of_a_deterministic_agent_is_exactly_even():
    # Duplicate play cancels everything when both sides are the same deterministic agent.
    r = duplicate_match(make_agent("heuristic"), make_agent("heuristic"), load_variant("contree"), 40, seed=1)
    assert r.mean_diff == 0 and r.win_rate == 0.5


def test_games_mode_plays_whole_games():
    variant = load_variant("belote_classique")
    r = duplicate_match(make_agent("heuristic"), make_agent("random"), variant, 4, seed=0, games=True)
    assert r.games and r.pairs == 4
    assert r.taken_a + r.taken_b > 2 * 4  # several deals per game
    assert r.win_rate > 0.5


def test_match_result_statistics():
    diffs = [10.0, -4.0, 6.0, 0.0, 8.0]
    r = MatchResult.from_pairs("a", "b", "coinche", False, 0, diffs, [2, 0, 1.5, 1, 2], 4, 3, 2, 0)
    half = t_quantile_975(4) * np.std(diffs, ddof=1) / math.sqrt(5)
    assert r.mean_diff == pytest.approx(4.0)
    assert (r.ci_low, r.ci_high) == pytest.approx((4.0 - half, 4.0 + half))
    assert r.win_rate == pytest.approx(6.5 / 10)
    assert r.made_rate_a == 0.75 and r.made_rate_b == 0.0
    s = r.swapped()
    assert s.agent_a == "b" and s.mean_diff == pytest.approx(-4.0) and s.win_rate == pytest.approx(0.35)
    json.dumps(r.to_dict())
    none_taken = MatchResult.from_pairs("a", "b", "v", False, 0, [1.0, 2.0], [1, 2], 0, 0, 3, 1)
    assert math.isnan(none_taken.made_rate_a) and math.isnan(none_taken.to_dict()["made_rate_a"])
    assert set(r.row()) >= {"A", "B", "pairs", "95% CI"}


def test_match_result_merge_checks_ranges():
    p1 = MatchResult.from_pairs("a", "b", "v", False, 0, [1, 2], [1, 1], 1, 1, 1, 0, pair_start=0)
    p2 = MatchResult.from_pairs("a", "b", "v", False, 0, [3], [2], 1, 0, 0, 0, pair_start=2)
    m = MatchResult.merge([p2, p1])
    assert list(m.pair_diffs) == [1, 2, 3] and m.taken_a == 2
    with pytest.raises(ValueError, match="missing or repeated"):
        MatchResult.merge([p1, p1])


def test_bad_arguments_are_value_errors():
    v = load_variant("coinche")
    with pytest.raises(ValueError, match="n_pairs"):
        duplicate_match(RandomAgent(), RandomAgent(), v, 0)
    with pytest.raises(TypeError, match="make_agent"):
        duplicate_match("random", "heuristic", v, 10)
    with pytest.raises(ValueError, match="distinct"):
        round_robin(["random", "random"], v, 10, progress=False)


def test_command_writes_tables_json_and_plot(tmp_path, capsys):
    rc = main(["random", "heuristic", "-v", "contree", "-n", "40", "-j", "1", "--bootstrap", "20",
               "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "heuristic" in out and "95% CI" in out
    data = json.loads((tmp_path / "contree.json").read_text())
    assert data["ratings"][0]["agent"] == "heuristic" and data["ratings"][1]["rating"] == 0
    assert (tmp_path / "contree.png").read_bytes()[:4] == b"\x89PNG"
    assert "| rank |" in (tmp_path / "contree.md").read_text()
    assert (tmp_path / "contree_matches.csv").read_text().startswith("agent_a,")


def test_command_reports_bad_agent(capsys):
    assert main(["random", "nobody", "-n", "4", "-j", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'nobody'" in err and "heuristic" in err


def test_registry():
    assert make_agent("random").name == "random"
    with pytest.raises(AgentSpecError, match="registered agents are"):
        make_agent("alphabelote")
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent("missing_checkpoint.pt")


def test_a_swapped_match_keeps_its_deal_records_in_its_own_table_order():
    from agents.arena.match import play_pairs
    from belote_env.rules.record import replay_record

    m = play_pairs(make_agent("heuristic"), RandomAgent(), load_variant("coinche"), 0, 3, seed=4, record=True)
    s = m.swapped()
    assert len(s.records) == 3 and s.swapped().records == m.records
    for mine, theirs in zip(m.records, s.records):
        assert theirs == [mine[1], mine[0]]  # table 0 is where the swapped view's A (heuristic's opponent) sits at 0, 2
        for deal in theirs[0]:
            replay_record(deal)
