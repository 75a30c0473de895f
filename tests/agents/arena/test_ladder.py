"""The ladder command (agents/arena/ladder/): line-ups from the pretrained registry, reports and the generated
page, the match cache (a rerun plays nothing, --max-minutes stops and a rerun resumes with the same figures,
changed weights replay), and one-line errors with exit status 2. Tiny matches, no pimc (its solver compiles
for ~20 s in a fresh process)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")  # the trained agents of the line-ups

from agents.arena.ladder import cache, command, schedule  # noqa: E402
from agents import make_agent  # noqa: E402
from agents.arena.ladder.command import canonical_command, main, parser  # noqa: E402
from agents.arena.ladder.lineup import FAMILIES, family_agents  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.pretrained import available, pretrained_variant  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


@pytest.fixture
def chunks_played(monkeypatch):
    """Counts the chunks of 128 pairs (or fewer) the ladder plays."""
    calls = []
    real = schedule._timed_chunk

    def counting(task):
        calls.append(task[:2] + task[3:5])
        return real(task)

    monkeypatch.setattr(schedule, "_timed_chunk", counting)
    return calls


def _argv(tmp_path, *extra, agents=("random", "heuristic", "pretrained"), families=("coinche",), pairs=4):
    return ["--families", *families, "--agents", *agents, "-n", str(pairs), "--bootstrap", "5", "--no-progress",
            "--out", str(tmp_path / "results"), "--docs", str(tmp_path / "results.md"), *extra]


def test_every_family_gets_the_base_agents_and_its_own_trained_agents():
    for family in FAMILIES:
        mine = [n for n in available() if pretrained_variant(n) == family]
        assert mine, f"no shipped agent for {family}"
        assert family_agents(family) == ["random", "heuristic", "pimc", *mine, "search"]
    assert family_agents("contree", ["heuristic", "pretrained"]) == ["heuristic", "ppo_contree"]


def test_the_page_is_written_only_when_asked(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where the default docs/results.md would land
    argv = [a for a in _argv(tmp_path, "--agents", "random", "heuristic") if a != str(tmp_path / "results.md")]
    argv.remove("--docs")
    assert main(argv) == 0
    assert (tmp_path / "results" / "coinche.md").is_file() and not (tmp_path / "docs").exists()
    assert "no page written: add --docs to write docs/results.md" in capsys.readouterr().out
    assert main([*argv, "--docs"]) == 0  # --docs alone: docs/results.md
    assert (tmp_path / "docs" / "results.md").read_text().count("--docs") >= 1


def test_a_small_ladder_writes_the_reports_and_the_page(tmp_path, capsys):
    assert main(_argv(tmp_path)) == 0
    out = capsys.readouterr().out
    results = tmp_path / "results"
    for name in ("coinche.md", "coinche.json", "coinche_matches.csv", "coinche_ratings.csv", "coinche.png"):
        assert (results / name).is_file(), name
    page = (tmp_path / "results.md").read_text()
    command = ("python -m agents.arena.ladder --families coinche --agents random heuristic pretrained --pairs 4 --seed 0 "
               f"--bootstrap 5 --out {results} --docs {tmp_path / 'results.md'}")
    assert f"```\n{command}\n```" in page
    assert "## Summary: ratings per family" in page and "| agent | coinche |" in page
    assert "## coinche" in page and "| rank | agent | rating | 95% CI | deals | deals won |" in page
    assert "| A | B | pairs | A-B points/deal |" in page and "![coinche ratings](results/coinche.png)" in page
    assert "How to read the tables" in page
    # each agent's time per decision, one decision at a time, kept in the cache with the weights' digest
    assert "Time per decision, median / 99th percentile in milliseconds" in page
    timing = json.loads((results / "ladder" / "timing.json").read_text())
    assert sorted(timing) == [f"coinche {a} seed=0 pairs=20" for a in ("heuristic", "ppo_coinche", "random")]
    assert all(t["decisions"] > 100 and 0 <= t["median_ms"] <= t["p99_ms"] for t in timing.values())
    assert timing["coinche ppo_coinche seed=0 pairs=20"]["digest"] == cache.agent_digest("ppo_coinche", "coinche")
    assert all(f"| {a} |" in page for a in ("random", "heuristic", "ppo_coinche"))
    assert "wrote" in out
    assert "the page covers coinche only; run without --families to put belote_classique, contree, cobrecaf_81" in out
    # the cached match is the tournament's match: same deals, same agent seeds
    cached = json.loads((results / "ladder" / "coinche" / "random__heuristic.json").read_text())
    expect = duplicate_match(make_agent("random"), make_agent("heuristic"), load_variant("coinche"), 4, seed=0)
    assert cached["results"]["seed=0 pairs=4"]["mean_diff"] == expect.mean_diff
    assert cached["chunks"][0]["pair_diffs"] == expect.pair_diffs.tolist()
    assert json.loads((results / "coinche.json").read_text())["command"] == command


def test_a_rerun_plays_nothing_and_writes_the_same_page(tmp_path, chunks_played, monkeypatch):
    import agents.arena.timing as timing

    timed = []
    real = timing.decision_times
    monkeypatch.setattr(timing, "decision_times", lambda agent, *a: timed.append(agent.name) or real(agent, *a))
    assert main(_argv(tmp_path)) == 0
    assert len(chunks_played) == 3 and len(timed) == 3
    first = (tmp_path / "results.md").read_text()
    assert main(_argv(tmp_path)) == 0
    assert len(chunks_played) == 3 and len(timed) == 3  # the timings come from the cache too
    assert (tmp_path / "results.md").read_text() == first
    assert main(_argv(tmp_path, "--timing-pairs", "0")) == 0
    assert "Time per decision" not in (tmp_path / "results.md").read_text()


def test_max_minutes_stops_and_a_rerun_resumes_with_the_same_figures(tmp_path, chunks_played, capsys):
    assert main(_argv(tmp_path, "--max-minutes", "0")) == command.INCOMPLETE  # one chunk, then stop
    assert len(chunks_played) == 1 and not (tmp_path / "results.md").exists()
    assert "run the same command again" in capsys.readouterr().out
    assert main(_argv(tmp_path, "--dry-run")) == 0
    assert "8 of 12 pairs left" in capsys.readouterr().out
    assert main(_argv(tmp_path)) == 0
    assert len(chunks_played) == 3
    resumed = (tmp_path / "results" / "coinche_matches.csv").read_text()
    assert main(_argv(tmp_path / "fresh")) == 0
    assert (tmp_path / "fresh" / "results" / "coinche_matches.csv").read_text() == resumed


def test_more_pairs_reuse_the_full_chunks(tmp_path, chunks_played):
    small = dict(agents=("random", "heuristic"), families=("contree",))
    assert main(_argv(tmp_path, pairs=128, **small)) == 0
    assert main(_argv(tmp_path, pairs=130, **small)) == 0
    assert [c[2:] for c in chunks_played] == [(0, 128), (128, 130)]
    assert main(_argv(tmp_path, pairs=128, **small)) == 0  # the 128-pair match is still cached
    assert len(chunks_played) == 2


def test_processes_give_the_same_results(tmp_path):
    small = dict(agents=("random", "heuristic"), families=("coinche", "contree"))
    assert main(_argv(tmp_path / "one", **small)) == 0
    assert main(_argv(tmp_path / "two", "-j", "2", **small)) == 0
    for f in ("coinche", "contree"):
        assert ((tmp_path / "one" / "results" / f"{f}_matches.csv").read_text()
                == (tmp_path / "two" / "results" / f"{f}_matches.csv").read_text())


def test_new_weights_replay_the_match(tmp_path, chunks_played, capsys):
    argv = _argv(tmp_path, agents=("heuristic", "pretrained"))
    assert main(argv) == 0
    path = tmp_path / "results" / "ladder" / "coinche" / "heuristic__ppo_coinche.json"
    data = json.loads(path.read_text())
    assert len(data["digest_b"]) == 64 and data["digest_a"] is None
    path.write_text(path.read_text().replace(data["digest_b"], "0" * 64))
    assert main(argv) == 0
    assert len(chunks_played) == 2 and "weights of ppo_coinche changed" in capsys.readouterr().out


def test_the_command_in_the_page_leaves_out_run_control():
    args = parser().parse_args(["-j", "2", "--max-minutes", "8", "--no-progress"])
    assert canonical_command(args) == "python -m agents.arena.ladder --pairs 2000 --seed 0"


@pytest.mark.parametrize("extra,message", [
    (["--families", "coinche", "nowhere"], "unknown family 'nowhere'"),
    (["--agents", "random", "nobody"], "unknown agent 'nobody'"),
    (["--agents", "random", "random"], "listed twice"),
    (["--agents", "random"], "at least two agents"),
])
def test_bad_line_ups_are_one_line_errors(extra, message, capsys, tmp_path):
    assert main(["--out", str(tmp_path), "--docs", str(tmp_path / "r.md"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("belote-ladder: error: ") and message in err and "Traceback" not in err


@pytest.mark.parametrize("extra", [["-n", "0"], ["-j", "0"], ["--max-minutes", "-1"], ["--max-minutes", "soon"]])
def test_bad_counts_are_refused_by_the_parser(extra, capsys):
    with pytest.raises(SystemExit) as e:
        main(extra)
    assert e.value.code == 2 and "error:" in capsys.readouterr().err


def test_unwritable_outputs_and_bad_cache_files_are_one_line_errors(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["--out", str(blocker / "sub"), "-n", "100000", "--no-progress"]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(_argv(tmp_path, "--docs", str(blocker / "results.md"))) == 2
    assert "--docs" in capsys.readouterr().err
    assert main(_argv(tmp_path, "--docs", str(tmp_path))) == 2
    assert "is a folder" in capsys.readouterr().err
    bad = tmp_path / "results" / "ladder" / "coinche" / "random__heuristic.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json")
    assert main(_argv(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "cannot be used" in err and "delete it" in err


def _drop_one(c):
    c["pair_diffs"].pop()
    c["pair_wins"].pop()


def _shift(c):
    c["pair_diffs"][0] += 1  # a plausible value: only the digest tells


@pytest.mark.parametrize(("edit", "reason"), [
    (_drop_one, "pairs 0..4 need 4 pair outcomes"),
    (lambda c: c["pair_wins"].__setitem__(0, 50), "a pair's deals won is not 0, 0.5, 1, 1.5 or 2"),
    (lambda c: c["pair_diffs"].__setitem__(0, float("nan")), "a point difference is not a finite number"),
    (lambda c: c.__setitem__("stop", 3), "pairs 0..3 need 3 pair outcomes"),
    (lambda c: c.__setitem__("made_a", c["taken_a"] + 1), "contracts taken, made or abandoned pairs out of range"),
    (_shift, "its contents do not match its digest in this match"),
    (lambda c: c.pop("digest"), "it has no digest"),
])
def test_a_damaged_chunk_is_reported_by_name_and_played_again(tmp_path, chunks_played, capsys, edit, reason):
    argv = _argv(tmp_path, agents=("random", "heuristic"), families=("contree",))
    assert main(argv) == 0
    table = (tmp_path / "results" / "contree_matches.csv").read_text()
    path = tmp_path / "results" / "ladder" / "contree" / "random__heuristic.json"
    capsys.readouterr()
    assert main([*argv, "--verify"]) == 0  # --verify re-checks the cache, plays and writes nothing
    assert capsys.readouterr().out == f"{path}: ok, 1 chunks (seed 0: 4 pairs)\n1 match files checked, 0 with a problem\n"
    data = json.loads(path.read_text())
    edit(data["chunks"][0])
    path.write_text(json.dumps(data))
    assert main([*argv, "--verify"]) == 1
    out = capsys.readouterr().out
    assert f"BAD: {path}: chunk seed 0 pairs " in out and reason in out and "1 with a problem" in out
    assert len(chunks_played) == 1
    assert main(argv) == 0
    assert f"{path}: chunk seed 0 pairs " in capsys.readouterr().out
    assert len(chunks_played) == 2  # played again
    assert (tmp_path / "results" / "contree_matches.csv").read_text() == table  # never mixed into the table
    m = cache.MatchCache.open(tmp_path / "results" / "ladder", "contree", "random", "heuristic")
    assert not [line for line in (cache.chunk_problem(c, m.identity) for c in json.loads(path.read_text())["chunks"])
                if line]


@pytest.mark.parametrize(("rename", "phase"), [(1, "before"), (1, "after"), (2, "before")])
def test_a_kill_while_the_cache_is_written_loses_at_most_that_chunk(tmp_path, rename, phase):
    """Killed at a write of the cache file (the chunk's, 1, or the match summary's, 2; before the rename with half
    the temporary file written, or after it): the cache holds whole records only, a rerun gives the tables of an
    uninterrupted run, and the killed write's temporary file is gone."""
    from tests.faults import run_with_fault

    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert main(_argv(whole, agents=("random", "heuristic"), families=("contree",))) == 0
    argv = _argv(cut, agents=("random", "heuristic"), families=("contree",))
    folder = cut / "results" / "ladder" / "contree"
    folder.mkdir(parents=True)
    proc = run_with_fault(["kill", str(rename), phase, folder], "agents.arena.ladder", *argv)
    assert proc.returncode == 137, proc.stderr[-2000:]
    assert main([*argv, "--verify"]) == 0  # no damaged record (a partial file never replaced the cache file)
    assert main(argv) == 0
    assert not list(folder.glob("*.tmp"))
    for name in ("contree_matches.csv", "contree_ratings.csv"):
        assert (cut / "results" / name).read_text() == (whole / "results" / name).read_text()


def test_a_full_disk_is_one_error_line_and_leaves_no_temporary_file(tmp_path):
    from tests.faults import run_with_fault

    argv = _argv(tmp_path, agents=("random", "heuristic"), families=("contree",))
    proc = run_with_fault(["full", "300"], "agents.arena.ladder", *argv)
    assert proc.returncode == 2, proc.stderr[-2000:]
    cache = tmp_path / "results" / "ladder" / "contree" / "random__heuristic.json"
    assert proc.stderr == f"belote-ladder: error: cannot write the cache file '{cache}': File too large\n"
    assert not list(tmp_path.rglob("*.tmp")) and not cache.exists()


def test_verify_reports_every_kind_of_bad_file(tmp_path, capsys):
    cache = tmp_path / "cache"
    assert main(["--verify", "--cache", str(tmp_path / "none")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    (cache / "contree").mkdir(parents=True)
    assert main(["--verify", "--cache", str(cache)]) == 0
    assert "no match file" in capsys.readouterr().out
    (cache / "contree" / "random__heuristic.json").write_text("{not json")
    (cache / "contree" / "x__y.json").write_text(json.dumps({"agent_a": "random", "agent_b": "heuristic"}))
    (cache / "chess").mkdir()
    (cache / "chess" / "random__heuristic.json").write_text(json.dumps({"agent_a": "random", "agent_b": "heuristic"}))
    assert main(["--verify", "--cache", str(cache)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[-1] == "3 match files checked, 3 with a problem"
    assert "'chess' is not a family" in out[0]
    assert "cannot be used (Expecting property name" in out[1] and "its name is not that of its agents" in out[2]


def test_two_ladders_sharing_a_cache_lose_nothing(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-m", "agents.arena.ladder", *_argv(tmp_path / f"run{seed}", pairs=260,
                                                                                agents=("random", "heuristic"),
                                                                                families=("contree",)),
                               "--cache", str(cache), "--seed", str(seed)], cwd=repo, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) for seed in (0, 1)]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read().decode()[-2000:]
    data = json.loads((cache / "contree" / "random__heuristic.json").read_text())
    assert sorted((c["seed"], c["start"]) for c in data["chunks"]) == [(s, start) for s in (0, 1) for start in (0, 128, 256)]
    assert set(data["results"]) == {"seed=0 pairs=260", "seed=1 pairs=260"}


def test_search_matches_are_keyed_to_the_policies_they_load():
    from agents.arena.ladder.cache import agent_digest
    from agents.pimc import policies

    assert policies("search", "coinche") == ["ppo_coinche"]
    assert policies("search:policy=ppo_contree,beliefs=ppo_coinche", "coinche") == ["ppo_contree", "ppo_coinche"]
    assert policies("pimc", "coinche") == [] and policies("pimc:beliefs=ppo_coinche", "contree") == ["ppo_coinche"]
    assert agent_digest("pimc", "coinche") is None and agent_digest("heuristic", "coinche") is None
    assert agent_digest("search", "coinche") != agent_digest("search", "contree")
    assert agent_digest("search", "coinche") == agent_digest("search:policy=ppo_coinche,worlds=16", "coinche")
    assert len(agent_digest("pimc:beliefs=ppo_coinche", "contree")) == 64


def test_a_chunk_copied_from_another_match_is_refused_and_played_again(tmp_path, chunks_played, capsys):
    """Same family, seed and pairs, another match: the chunk's contents check out on their own, but its digest binds
    it to the match it was played in, so the ladder plays this one again and publishes the true table."""
    argv = _argv(tmp_path, agents=("random", "heuristic", "pretrained"), families=("contree",))
    assert main(argv) == 0
    table = (tmp_path / "results" / "contree_matches.csv").read_text()
    folder = tmp_path / "results" / "ladder" / "contree"
    source, target = folder / "heuristic__ppo_contree.json", folder / "random__heuristic.json"
    data = json.loads(target.read_text())
    data["chunks"] = json.loads(source.read_text())["chunks"]
    target.write_text(json.dumps(data))
    capsys.readouterr()
    assert main([*argv, "--verify"]) == 1
    assert "copied from another match" in capsys.readouterr().out
    played = len(chunks_played)
    assert main(argv) == 0
    assert len(chunks_played) == played + 1  # that chunk, played again
    assert (tmp_path / "results" / "contree_matches.csv").read_text() == table


def test_a_cache_file_of_the_older_format_is_played_again(tmp_path, chunks_played, capsys):
    argv = _argv(tmp_path, agents=("random", "heuristic"), families=("contree",))
    assert main(argv) == 0
    path = tmp_path / "results" / "ladder" / "contree" / "random__heuristic.json"
    data = json.loads(path.read_text())
    data["format"] = "belote_env.ladder/1"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(argv) == 0
    assert "written by an older ladder" in capsys.readouterr().out and len(chunks_played) == 2
    assert json.loads(path.read_text())["format"] == cache.CACHE_FORMAT
