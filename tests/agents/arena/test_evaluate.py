"""belote-eval (agents/arena/evaluate.py): an agent rated against the ladder's frozen pool. The pool's ratings are
the ladder's own; only the agent's matches are played, on the ladder's deals, and cached; a newcomer's rating
against the pool held fixed is the joint fit's when its matches are the pool's. Tiny pools and matches (no
pimc or search: their solver compiles for ~20 s in a fresh process)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")  # the trained agents of the pools

import agents.arena.evaluate as evaluate  # noqa: E402
from agents.arena.ladder import cache, command, schedule  # noqa: E402
from agents.arena.match import MatchResult  # noqa: E402
from agents.arena.ratings import fit_against, rate, rate_against_pool  # noqa: E402
from agents.base import Agent  # noqa: E402

class Ordered(Agent):
    """Plays the first (or the last) legal action: deterministic, in plain Python (no kernel to compile)."""

    needs_observation = needs_info = False

    def __init__(self, last: bool):
        self.name, self.last = ("last_legal" if last else "first_legal"), last

    def act(self, observation, action_mask, info):
        return int(np.flatnonzero(action_mask)[-1 if self.last else 0])


def first_legal():
    """A module:factory spec for the tests: tests.agents.arena.test_evaluate:first_legal."""
    return Ordered(last=False)


def last_legal():
    return Ordered(last=True)


FIRST = "tests.agents.arena.test_evaluate:first_legal"
SPEC = "tests.agents.arena.test_evaluate:last_legal"  # the agent evaluated
POOL = ["random", FIRST, "ppo_coinche"]


def _match(a, b, wins, rng):
    wins = np.asarray(wins, dtype=np.float64)
    return MatchResult.from_pairs(a, b, "coinche", False, 0, rng.normal(size=len(wins)), wins, 1, 1, 1, 1)


def test_a_newcomer_with_the_pools_matches_gets_the_joint_fit_rating():
    rng = np.random.default_rng(3)
    agents = ["p", "q", "r", "s"]
    strength = {"p": 0.1, "q": 0.5, "r": 0.8, "s": 1.4}
    matches = []
    for x in range(4):
        for y in range(x + 1, 4):
            a, b = agents[x], agents[y]
            p = 1 / (1 + np.exp(strength[b] - strength[a]))
            matches.append(_match(a, b, rng.binomial(2, p, size=60), rng))
    joint = {r.agent: r.rating for r in rate(matches, agents, "p", bootstrap=0)}
    # s as a newcomer: its matches seen from its side, against p, q, r held at the joint fit's ratings
    own = [m.swapped() if m.agent_b == "s" else m for m in matches if "s" in (m.agent_a, m.agent_b)]
    fixed = np.array([joint[a] for a in agents])
    r = fit_against(fixed, [agents.index(m.agent_b) for m in own], [m.pair_wins.sum() for m in own],
                    [2 * m.pairs for m in own])
    assert r == pytest.approx(joint["s"], abs=1e-6)


def test_fit_against_is_finite_and_monotone():
    fixed = np.array([0.0, 300.0])
    ratings = [fit_against(fixed, [0, 1], [w, w], [20, 20]) for w in (0, 5, 10, 15, 20)]
    assert all(np.isfinite(ratings)) and ratings == sorted(ratings) and len(set(ratings)) == 5
    assert ratings[2] == pytest.approx(150.0, abs=1e-6)  # half the deals against both: midway on this scale


def test_the_pool_keeps_its_ratings_and_the_interval_holds_the_rating():
    rng = np.random.default_rng(5)
    pool = [_match("p", "q", rng.binomial(2, 0.7, 40), rng), _match("p", "r", rng.binomial(2, 0.3, 40), rng),
            _match("q", "r", rng.binomial(2, 0.2, 40), rng)]
    own = [_match("n", "p", rng.binomial(2, 0.6, 30), rng), _match("n", "r", rng.binomial(2, 0.4, 30), rng)]
    ratings, mine = rate_against_pool(pool, ["p", "q", "r"], "p", own, "n", bootstrap=50, seed=1)
    assert [(r.agent, r.rating, r.low, r.high) for r in ratings] == \
        [(r.agent, r.rating, r.low, r.high) for r in rate(pool, ["p", "q", "r"], "p", 50, 1)]
    assert mine.low < mine.rating < mine.high and mine.deals == 120
    with pytest.raises(ValueError, match="against the pool"):
        rate_against_pool(pool, ["p", "q", "r"], "p", [_match("n", "x", [1, 1], rng)], "n", 0)


@pytest.fixture(scope="module")
def small_pool(tmp_path_factory):
    """A ladder of random, first_legal and ppo_coinche in coinche at 8 pairs a match, cached in TMP/ladder, as
    belote-eval's pool (no agent with a kernel: nothing to compile but the engine)."""
    tmp_path = tmp_path_factory.mktemp("pool")
    assert command.main(["--families", "coinche", "--agents", *POOL, "-n", "8", "--bootstrap", "20", "--no-progress",
                         "--out", str(tmp_path / "results"), "--cache", str(tmp_path / "ladder")]) == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluate, "family_agents", lambda family: list(POOL))
        patch.setattr(evaluate, "POOL_PAIRS", 8)
        yield tmp_path


def _eval(tmp, *extra):
    return evaluate.main([SPEC, "-f", "coinche", "-n", "6", "-j", "1", "--bootstrap", "20", "--no-progress",
                          "--ladder-cache", str(tmp / "ladder"), "--cache", str(tmp / "eval"), *extra])


def test_eval_rates_an_agent_on_the_ladders_scale_and_caches_its_matches(small_pool, capsys, monkeypatch):
    tmp = small_pool
    assert _eval(tmp, "--out", str(tmp / "out")) == 0
    out = capsys.readouterr().out
    assert f"{SPEC} (evaluated)" in out and "rank " in out
    data = json.loads((tmp / "out" / f"{evaluate.file_stem(SPEC)}_coinche.json").read_text())
    published = json.loads((tmp / "results" / "coinche.json").read_text())["ratings"]
    pool = {r["agent"]: r for r in data["ratings"] if r["agent"] != SPEC}
    assert pool == {r["agent"]: r for r in published}  # the pool is the ladder's, untouched
    assert [m["agent_b"] for m in data["matches"]] == POOL[::-1] and all(m["pairs"] == 6 for m in data["matches"])
    assert data["rating"]["agent"] == SPEC and data["rating"]["deals"] == 3 * 12
    assert (tmp / "out" / f"{evaluate.file_stem(SPEC)}_coinche.md").read_text().startswith(f"# {SPEC} in coinche")
    # a rerun plays nothing and says the same
    played = []
    monkeypatch.setattr(schedule, "_timed_chunk", lambda task: played.append(task) or pytest.fail("replayed"))
    assert _eval(tmp, "--out", str(tmp / "again")) == 0
    again = json.loads((tmp / "again" / f"{evaluate.file_stem(SPEC)}_coinche.json").read_text())
    assert not played and again["rating"] == data["rating"]


def test_a_pool_agent_is_rated_on_the_ladders_deals(small_pool, capsys):
    # first_legal v ppo_coinche: both deterministic, so the evaluation's pairs are the ladder's, figure for figure
    tmp = small_pool
    assert evaluate.main([FIRST, "-f", "coinche", "-n", "8", "-j", "1", "--no-progress", "--bootstrap", "20",
                          "--ladder-cache", str(tmp / "ladder"), "--cache", str(tmp / "eval_pool_agent")]) == 0
    mine = cache.MatchCache.open(tmp / "eval_pool_agent", "coinche", FIRST, "ppo_coinche").result(0, 8)
    theirs = cache.MatchCache.open(tmp / "ladder", "coinche", FIRST, "ppo_coinche").result(0, 8)
    assert np.array_equal(mine.pair_diffs, theirs.pair_diffs) and np.array_equal(mine.pair_wins, theirs.pair_wins)
    assert f"{FIRST} (evaluated)" in capsys.readouterr().out


def test_errors_are_one_line(tmp_path, capsys):
    assert evaluate.main(["heuristic", "-f", "bridge"]) == 2
    assert "unknown family 'bridge'" in capsys.readouterr().err
    assert evaluate.main(["no_such_agent", "-f", "coinche"]) == 2
    assert "unknown agent 'no_such_agent'" in capsys.readouterr().err
    assert evaluate.main(["heuristic", "-f", "coinche", "--ladder-cache", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "belote-ladder --families coinche --cache" in err
    assert not (tmp_path / "none").exists()


def test_a_factory_agents_matches_are_bound_to_its_module_file(tmp_path, monkeypatch):
    module = tmp_path / "my_bot_for_eval.py"
    module.write_text("def bot():\n    return lambda observation, mask: int(mask.argmax())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = cache.agent_digest("my_bot_for_eval:bot")
    module.write_text("def bot():\n    return lambda observation, mask: int(mask.nonzero()[0][-1])\n")
    after = cache.agent_digest("my_bot_for_eval:bot")
    assert before and after and before != after  # its cached matches are played again
    assert cache.agent_digest("heuristic") is None and cache.agent_digest("no_such_module_x:bot") is None


def test_a_policy_file_changed_in_the_same_process_is_played_anew(small_pool, tmp_path):
    """Two belote-eval runs in one process (benchmarks/baselines.py does so): the second file's matches are
    the second file's, not those of the agent the first run left in the process."""
    import torch

    from agents.exported import export_policy
    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS

    def policy(bias: int):
        net = torch.nn.Linear(OBS_SIZE, NUM_ACTIONS)
        with torch.no_grad():
            net.weight.zero_()
            net.bias.copy_(torch.arange(NUM_ACTIONS, dtype=torch.float32) * (1 if bias else -1))
        return export_policy(net, tmp_path / "p.pt2")  # same path: prefers the highest, then the lowest action

    def rate(folder, spec=str(tmp_path / "p.pt2")):
        assert evaluate.main([spec, "-f", "coinche", "-n", "4", "-j", "1", "--bootstrap", "20", "--no-progress",
                              "--ladder-cache", str(small_pool / "ladder"), "--cache", str(tmp_path / folder)]) == 0
        return cache.MatchCache.open(tmp_path / folder, "coinche", spec, "random").result(evaluate.LADDER_SEED, 4)

    policy(1)
    rate("eval")
    policy(0)
    changed = rate("eval")  # the cache sees a new digest and plays again, with the new weights
    fresh = rate("fresh")  # what a new cache holds (no agent of the first file involved in its building)
    assert np.array_equal(changed.pair_diffs, fresh.pair_diffs)
    first = rate("first", FIRST)
    assert np.array_equal(changed.pair_diffs, first.pair_diffs)  # the lowest action: first_legal
