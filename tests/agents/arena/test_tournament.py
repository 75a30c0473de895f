"""The tournament command on bad command lines: a one-line error and exit status 2,
checked before any tournament runs; never a traceback."""

from __future__ import annotations

import contextlib
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.arena.tournament import AUTO_PARALLEL_PAIRS, auto_workers, main

TOKENS = ["heuristic", "random", "nobody", "x.pt", "-n", "2", "0", "-3", "abc", "-j", "1", "--bootstrap",
          "--seed", "--variant", "coinche", "contree", "nope", "--games", "--out", "/proc/none", "--anchor",
          "--no-progress", "--pairs", "1.5", ""]


def _run(argv):
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own errors
        return e.code


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(argv=st.lists(st.sampled_from(TOKENS), max_size=8))
def test_any_command_line_exits_0_or_2(argv, capsys, tmp_path_factory):
    argv = ["--no-progress", "-n", "2", "--bootstrap", "2", *argv]
    with contextlib.chdir(tmp_path_factory.getbasetemp()):  # an '--out' folder lands there, not in the repository
        code = _run(argv)
    assert code in (0, 2)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 2:  # one line, argparse's errors included (no usage block)
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and "error:" in lines[0], err


@pytest.mark.parametrize("option,value", [("-j", "0"), ("-j", "-2"), ("--bootstrap", "0"), ("--bootstrap", "-5"),
                                          ("--pairs", "0"), ("-j", "two")])
def test_non_positive_counts_are_refused(option, value, capsys):
    assert _run(["heuristic", "random", option, value]) == 2
    assert "positive integer" in capsys.readouterr().err


def test_unwritable_out_is_found_before_the_tournament(tmp_path, capsys, monkeypatch):
    from agents.arena import tournament

    def never(*args, **kwargs):
        raise AssertionError("the tournament was played before --out was checked")

    monkeypatch.setattr(tournament, "round_robin", never)
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert _run(["heuristic", "random", "-n", "100000", "--out", str(blocker / "sub"), "--no-progress"]) == 2
    assert "cannot be written" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [(["--anchor", "nobody"], "--anchor 'nobody' is not one of the agents"),
                                          (["--seed", "-1"], "expected an integer >= 0")])
def test_a_bad_anchor_or_seed_is_found_before_the_tournament(argv, message, capsys, monkeypatch):
    import agents.arena.tournament as tournament

    monkeypatch.setattr(tournament, "round_robin", lambda *a, **k: pytest.fail("the tournament was played"))
    assert _run(["heuristic", "random", "--no-progress", *argv]) == 2
    assert message in capsys.readouterr().err


def test_default_workers_follow_the_size_of_the_tournament():
    assert auto_workers(AUTO_PARALLEL_PAIRS - 1) == 1
    assert auto_workers(AUTO_PARALLEL_PAIRS) == max(1, os.cpu_count() or 1)


def test_a_shipped_agent_on_another_variant_is_noted(capsys):
    assert _run(["ppo_coinche", "heuristic", "-v", "belote_classique", "coinche", "-n", "2", "--bootstrap", "2",
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert err.count("note: ppo_coinche was trained on coinche; it plays belote_classique here") == 1
    assert "plays coinche" not in err


def test_reports_json_has_no_nan():
    from agents.arena.reports import no_nan

    nan, inf = float("nan"), float("inf")
    assert no_nan({"a": nan, "b": [1.0, nan, {"c": -inf}], "d": (inf,)}) == {"a": None, "b": [1.0, None, {"c": None}],
                                                                             "d": [None]}


def test_one_pair_writes_its_reports_with_undefined_intervals(tmp_path, capsys):
    """-n 1: one pair has no spread, so its interval is undefined ('-' in the tables, null in the JSON) and the
    reports are written (an infinite interval made the JSON fail after the whole tournament)."""
    import json

    assert main(["heuristic", "random", "-n", "1", "--bootstrap", "5", "--no-progress", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "coinche.json").read_text())
    (match,) = data["matches"]
    assert match["pairs"] == 1 and match["ci_low"] is None and match["ci_high"] is None
    assert all(r["low"] is None and r["high"] is None for r in data["ratings"])
    assert "- (one pair)" in (tmp_path / "coinche.md").read_text() and "- (one pair)" in capsys.readouterr().out


def test_recorded_deals_stay_out_of_the_reports(tmp_path):
    """--record writes the deals to their own files; the JSON and CSV reports hold the figures only."""
    import csv
    import json

    argv = ["heuristic", "random", "-n", "6", "--bootstrap", "5", "--no-progress", "--out"]
    assert main([*argv, str(tmp_path / "plain")]) == 0
    assert main([*argv, str(tmp_path / "recorded"), "--record", str(tmp_path / "deals")]) == 0
    for name in ("coinche_matches.csv", "coinche_ratings.csv"):
        assert (tmp_path / "recorded" / name).read_text() == (tmp_path / "plain" / name).read_text(), name
    plain, recorded = (json.loads((tmp_path / d / "coinche.json").read_text()) for d in ("plain", "recorded"))
    assert {**recorded, "command": ""} == {**plain, "command": ""}
    assert "records" not in recorded["matches"][0]
    with open(tmp_path / "recorded" / "coinche_matches.csv") as f:
        assert "records" not in next(csv.reader(f))


def test_reports_are_all_or_nothing_on_a_full_disk(tmp_path):
    from tests.faults import run_with_fault

    argv = ["random", "heuristic", "-n", "4", "--bootstrap", "5", "--no-progress", "--out", str(tmp_path)]
    assert main(argv) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = run_with_fault(["full", "3000"], "agents.arena.tournament", *argv, "--seed", "9")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == (f"belote-tournament: error: cannot write the reports in '{tmp_path}': File too large; "
                           "the reports there are unchanged\n")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # the old set, whole; no temporary file


@pytest.mark.parametrize(("rename", "phase"), [(1, "before"), (3, "after"), (5, "before")])
def test_a_kill_while_the_reports_are_moved_in_leaves_whole_files_and_a_rerun_completes_the_set(tmp_path, rename,
                                                                                              phase):
    """Killed at the n-th of the five renames of the report set (before it: half the staged file written; or
    after it): the files there are whole files of the new set (the old set was removed first), without its
    Markdown, which comes last; the rerun writes the set of an uninterrupted run and removes the killed run's
    staged files."""
    from tests.faults import run_with_fault

    whole, cut = tmp_path / "whole", tmp_path / "cut"
    argv = ["random", "heuristic", "-n", "4", "--bootstrap", "5", "--no-progress"]
    assert main([*argv, "--out", str(whole), "--seed", "9"]) == 0
    assert main([*argv, "--out", str(cut)]) == 0  # an older set, seed 0
    old = {p.name: p.read_bytes() for p in cut.iterdir()}
    proc = run_with_fault(["kill", str(rename), phase, cut], "agents.arena.tournament", *argv, "--out", cut,
                          "--seed", "9")
    assert proc.returncode == 137, proc.stderr[-2000:]
    new = {p.name: p.read_bytes().replace(str(whole).encode(), str(cut).encode()) for p in whole.iterdir()}
    left = {p.name: p.read_bytes() for p in cut.iterdir() if not p.name.startswith(".")}
    assert "coinche.md" not in left and len(left) == rename - (phase == "before")  # no Markdown: an incomplete set
    for name in left:  # whole files of the new set, none of the old one
        assert name.endswith(".png") or left[name] == new[name], name
    assert old["coinche.md"] != new["coinche.md"]
    assert main([*argv, "--out", str(cut), "--seed", "9"]) == 0
    assert sorted(p.name for p in cut.iterdir()) == sorted(new)  # no staged file left
    for name in new:
        if not name.endswith(".png"):
            assert (cut / name).read_bytes() == new[name], name


@pytest.mark.parametrize("games", [False, True])
def test_record_keeps_the_deals_that_were_played(tmp_path, games, capsys):
    """--record writes every deal of every match as a deal record that replays on the rules core to the scores
    the match counted; --record-pairs keeps the pairs with the largest duplicate difference."""
    from belote_env.rules.record import read_records, replay_record

    argv = ["heuristic", "random", "-n", "6", "--bootstrap", "5", "--no-progress", "-v", "belote_classique"]
    extra = ["--games", "-v", "belote_classique", "--seed", "2"] if games else []
    assert main([*argv, *extra, "--record", str(tmp_path / "all")]) == 0
    path = tmp_path / "all" / "belote_classique" / "heuristic__random.jsonl"
    records = list(read_records(path))
    assert f"recorded {len(records):,} deals in {tmp_path / 'all' / 'belote_classique'}" in capsys.readouterr().err
    by_pair: dict[int, float] = {}
    for r in records:
        deal = replay_record(r)
        d = deal.result.scores[0] - deal.result.scores[1]
        a_minus_b = d if r["meta"]["table"] == 0 else -d  # A holds seats 0/2 at table 0, 1/3 at table 1
        by_pair[r["meta"]["pair"]] = by_pair.get(r["meta"]["pair"], 0.0) + a_minus_b / 2
        assert r["meta"]["match"] == ["heuristic", "random"] and r["meta"]["a_seats"] == ([0, 2], [1, 3])[r["meta"]["table"]]
    assert sorted(by_pair) == list(range(6))
    for r in records:  # the deals add up to the difference the match counted for the pair
        assert by_pair[r["meta"]["pair"]] == pytest.approx(r["meta"]["pair_diff"])
    assert main([*argv, *extra, "--record", str(tmp_path / "top"), "--record-pairs", "2"]) == 0
    top = list(read_records(tmp_path / "top" / "belote_classique" / "heuristic__random.jsonl"))
    kept = sorted({r["meta"]["pair"] for r in top})
    largest = sorted(sorted(by_pair, key=lambda i: (-abs(by_pair[i]), i))[:2])
    assert kept == largest and all(r in records for r in top)


def test_record_pairs_without_record_is_refused(capsys):
    assert main(["heuristic", "random", "-n", "2", "--record-pairs", "3"]) == 2
    assert "--record-pairs is for --record" in capsys.readouterr().err


def test_recorded_deals_carry_what_a_network_attached_to_its_decisions(tmp_path):
    """A neural agent's decisions in the records hold its probabilities of the legal actions and its value; the
    greedy agent's choice is the most probable one; the other agents' decisions hold nothing."""
    from belote_env.rules.record import read_records

    assert main(["ppo_coinche", "random", "-n", "3", "--bootstrap", "5", "--no-progress",
                 "--record", str(tmp_path)]) == 0
    records = list(read_records(tmp_path / "coinche" / "ppo_coinche__random.jsonl"))
    seen = 0
    for r in records:
        a_seats = r["meta"]["a_seats"]
        for step in r["actions"]:
            if step["seat"] in a_seats:
                extras = step["extras"]
                probs = extras["probs"]
                assert abs(sum(probs.values()) - 1) < 0.01 and isinstance(extras["value"], float)
                assert step["action"] == max(probs, key=probs.get)
                seen += 1
            else:
                assert "extras" not in step
    assert seen > 20


@pytest.mark.parametrize("option,value,words", [("--pairs", "1000000000000", "at most 10,000,000 pairs"),
                                                ("--bootstrap", "1000000000", "at most 100,000 replicates"),
                                                ("-j", "5000", "at most")])
def test_counts_that_would_exhaust_the_machine_are_refused(option, value, words, capsys):
    assert _run(["heuristic", "random", option, value]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_a_long_agent_spec_gets_a_file_name_a_file_system_takes():
    from agents.arena.reports import file_stem

    spec = "runs/" + "a_long_folder_name/" * 14 + "policy.pt2"
    stem = file_stem(spec)
    assert len(spec) > 264 and len(stem) <= 80 and stem[:-9].endswith("folder_name-policy.pt2")  # the file's name
    assert stem != file_stem(spec.replace("runs/", "runs2/"))  # the hash tells apart what the cut leaves the same
    assert file_stem("ppo_coinche") == "ppo_coinche"  # short specs keep their names (the ladder's cache files)
