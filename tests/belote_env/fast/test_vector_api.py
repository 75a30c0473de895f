"""VectorEnv's interface: shapes and dtypes, seeds and replay, auto-reset,
illegal actions, bad arguments, parallel = serial, and a light import."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from belote_env.observation import OBS_SIZE, action_mask, encode
from belote_env.rules import GameState, IllegalActionError
from belote_env.variants import load_variant, variant_names
from belote_env.vector import (
    NOT_FROM_INFO,
    SEED_STRIDE,
    VectorEnv,
    VectorEnvError,
    VectorIllegalActionError,
    info_row,
    table_seed,
)


def _random_actions(rng, mask):
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def test_shapes_dtypes_and_first_observation():
    venv = VectorEnv("coinche", num_tables=8, seed=3)
    obs, mask, seat = venv.reset()
    assert obs.shape == (8, OBS_SIZE) and obs.dtype == np.float32
    assert mask.shape == (8, 112) and mask.dtype == np.bool_
    assert seat.shape == (8,) and seat.dtype == np.int8
    for i in range(8):
        game = GameState(venv.variant, seed=3 * SEED_STRIDE + i)
        assert seat[i] == game.deal.seat == 1  # dealer 0, seat 1 speaks first
        np.testing.assert_array_equal(obs[i], encode(game, seat[i]))
        np.testing.assert_array_equal(mask[i], action_mask(game, seat[i]).astype(bool))
    obs2, mask2, seat2, rewards, done, info = venv.step(_random_actions(np.random.default_rng(0), mask))
    assert rewards.shape == (8, 4) and rewards.dtype == np.float32
    assert done.shape == (8,) and done.dtype == np.bool_
    assert set(info) == {"scores", "winner", "deal_scores", "outcome", "taker", "strain", "value", "kind", "level",
                         "caller", "card_points", "deals", "truncated"}
    assert info["scores"].shape == (8, 2) and info["winner"].shape == (8,)
    assert venv.single_observation_space.shape == (OBS_SIZE,) and venv.single_action_space.n == 112


def test_table_seeds_replay_on_the_rules_core():
    venv = VectorEnv("belote_classique", num_tables=3, seed=5, episode="game")
    assert venv.table_seed(2) == table_seed(5, 2) == 5 * 2**32 + 2
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(300):
        obs, mask, seat, rewards, done, info = venv.step(_random_actions(rng, mask))
    for i in range(3):
        g = venv.state(i)
        assert isinstance(g, GameState)
        assert g.current_seat == seat[i]
        np.testing.assert_array_equal(encode(g, seat[i]), obs[i])
    # state() is a copy: changing it changes nothing at the table.
    g = venv.state(0)
    g.apply(g.legal_actions()[0])
    assert venv.state(0).deal.format() != g.deal.format()


def test_reset_with_seed_reproduces_and_without_continues():
    venv = VectorEnv("contree", num_tables=4, seed=0)
    a = venv.reset(seed=9)[0]
    b = venv.reset(seed=9)[0]
    np.testing.assert_array_equal(a, b)
    c = venv.reset()[0]  # continues each table's generator: new deals
    assert not np.array_equal(b, c)
    assert np.array_equal(VectorEnv("contree", 4, seed=9).reset()[0], a)
    assert VectorEnv("contree", 2, seed=None).seed >= 0


def test_reset_with_table_seeds_deals_those_tables():
    whole = VectorEnv("coinche", num_tables=6, seed=11).reset()[0]
    part = VectorEnv("coinche", num_tables=2, seed=0)
    np.testing.assert_array_equal(part.reset(table_seeds=[table_seed(11, 4), table_seed(11, 5)])[0], whole[4:])
    assert part.table_seed(1) == table_seed(11, 5)
    assert not np.array_equal(part.reset()[0], whole[4:])  # continues those tables' generators
    np.testing.assert_array_equal(part.reset(seed=11)[0], whole[:2])  # back to the derived seeds
    with pytest.raises(VectorEnvError, match="not both"):
        part.reset(seed=1, table_seeds=[1, 2])
    with pytest.raises(VectorEnvError, match="2 non-negative ints"):
        part.reset(table_seeds=[1])


def test_auto_reset_and_results_of_finished_tables():
    venv = VectorEnv("coinche", num_tables=16, seed=4)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(200):
        obs, mask, seat, rewards, done, info = venv.step(_random_actions(rng, mask))
        for i in np.flatnonzero(done):
            finished += 1
            assert info["winner"][i] in (-1, 0, 1)
            assert (info["scores"][i] == info["deal_scores"][i]).all()  # deal episodes
            r = (info["deal_scores"][i, 0] - info["deal_scores"][i, 1]) / 400
            np.testing.assert_array_equal(rewards[i], np.float32([r, -r, r, -r]))
            assert obs[i][844] == 1.0 and seat[i] == 1  # bidding phase of a fresh episode, dealer 0
        assert (info["winner"][~done] == -1).all()
        assert not rewards[~done].any()  # deal episodes: rewards come only with the end of the episode
    assert finished > 0


def test_illegal_action_names_table_seat_action_and_legal_set_and_changes_nothing():
    venv = VectorEnv("coinche", num_tables=4, seed=0)
    obs, mask, seat = venv.reset()
    before = [venv.state(i).deal.format() for i in range(4)]
    actions = _random_actions(np.random.default_rng(0), mask)
    actions[2] = 7  # a card while bidding
    with pytest.raises(VectorIllegalActionError) as e:
        venv.step(actions)
    err = e.value
    assert isinstance(err, IllegalActionError) and isinstance(err, ValueError)
    assert err.table == 2 and err.seat == seat[2] and err.action == 7 and err.phase == "bidding"
    assert list(err.legal) == np.flatnonzero(mask[2]).tolist()
    msg = str(err)
    assert "table 2" in msg and f"seat {seat[2]}" in msg and "'AS' (id 7)" in msg and "legal: pass, 80 S" in msg
    assert [venv.state(i).deal.format() for i in range(4)] == before
    actions[2] = 112
    with pytest.raises(VectorIllegalActionError, match="out of range"):
        venv.step(actions)
    actions[2] = 32
    venv.step(actions)  # still usable


def test_bad_arguments():
    with pytest.raises(VectorEnvError, match="num_tables"):
        VectorEnv("coinche", num_tables=0)
    for too_many in (2**20 + 1, 10**7, 2**70):  # refused before any memory is asked for (10**7 tables: 120 GB)
        with pytest.raises(VectorEnvError, match="num_tables must be an int 1..1,048,576"):
            VectorEnv("coinche", num_tables=too_many)
    with pytest.raises(VectorEnvError, match="reward"):
        VectorEnv("coinche", reward="points")
    with pytest.raises(VectorEnvError, match="seed"):
        VectorEnv("coinche", 2, seed=-1)
    with pytest.raises(ValueError, match="episode"):
        VectorEnv("coinche", 2, episode="match")
    with pytest.raises(ValueError, match="unknown key"):
        VectorEnv("coinche", 2, trumps=3)
    venv = VectorEnv("coinche", 2)
    with pytest.raises(VectorEnvError, match="reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv.reset()
    with pytest.raises(VectorEnvError, match="shape"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(VectorEnvError, match="not an action id"):
        venv.step(np.full(2, 32.0))
    with pytest.raises(VectorEnvError, match="out of range"):
        venv.state(2)


def test_parallel_and_serial_kernels_give_the_same_tables():
    runs = []
    for parallel in (False, True):
        venv = VectorEnv("belote_classique", num_tables=64, seed=8, episode="game", parallel=parallel)
        assert venv.parallel is parallel
        obs, mask, seat = venv.reset()
        rng = np.random.default_rng(3)
        out = []
        for _ in range(150):
            obs, mask, seat, rewards, done, info = venv.step(_random_actions(rng, mask))
            out.append((obs.copy(), rewards.copy(), done.copy(), info["scores"].copy()))
        runs.append(out)
    for a, b in zip(*runs):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_long_game_episodes_grow_the_action_log():
    venv = VectorEnv("belote_classique", num_tables=2, seed=1, episode="game", target=5000)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(4)
    for _ in range(700):  # more actions than the initial 512-action log holds
        obs, mask, seat, rewards, done, info = venv.step(_random_actions(rng, mask))
    assert venv._log.shape[1] >= 1024
    g = venv.state(0)
    assert g.current_seat == seat[0] and len(g.results) >= 1
    np.testing.assert_array_equal(encode(g, seat[0]), obs[0])


def test_importing_the_env_does_not_load_numba():
    code = (
        "import sys, belote_env\n"
        "e = belote_env.env('coinche'); e.reset(seed=0)\n"
        "import belote_env.vector\n"
        "assert 'numba' not in sys.modules, 'numba was imported'\n"
        "v = belote_env.vector.VectorEnv('coinche', 2)\n"
        "assert 'numba' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_variant_object_and_overrides():
    v = load_variant("coinche", rules="officielles")
    venv = VectorEnv(v, num_tables=2, seed=0, declarations=True)
    assert venv.variant.rules == "officielles" and venv.variant.declarations and venv.variant.episode == "deal"


def test_info_state_of_a_table():
    venv = VectorEnv("belote_classique", num_tables=3, seed=2)
    obs, mask, seat = venv.reset()
    info = venv.info_state(1)
    assert info.seat == seat[1] and info.to_act and info.legal_actions() == np.flatnonzero(mask[1]).tolist()
    other = (int(seat[1]) + 1) % 4
    assert venv.info_state(1, other).legal_actions() == [] and not venv.info_state(1, other).to_act
    for bad in (4, -1, 1.5, True):
        with pytest.raises(VectorEnvError, match="seat"):
            venv.info_state(0, bad)
    with pytest.raises(VectorEnvError, match="out of range"):
        venv.info_state(3)


@pytest.mark.parametrize("name", variant_names())
def test_info_row_of_an_info_state_is_the_engines_info_row(name):
    """info_row(info_state(t)) fills every cell of info_rows([t]) but NOT_FROM_INFO's, at every step of game
    episodes (bidding, play, declarations, garde and scores carried across deals); the trick cells past
    TRICK_LEN are the engine's leftovers from the last trick."""
    from belote_env.fast import layout as L

    skipped = {c for n in NOT_FROM_INFO for c in range(L.COLUMNS[n][0], sum(L.COLUMNS[n]))}
    keep = np.array([c for c in range(L.NUM_COLUMNS) if c not in skipped and not L.TRICK <= c < L.TRICK + 4])
    venv = VectorEnv(name, num_tables=8, seed=5, episode="game")
    _, mask, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(400):
        rows = venv.info_rows(np.arange(8))
        for t in range(8):
            row = info_row(venv.info_state(t))
            assert row.dtype == np.int64 and row.shape == (L.NUM_COLUMNS,)
            assert (row[keep] == rows[t][keep]).all(), (t, np.flatnonzero(row != rows[t]))
            n = row[L.TRICK_LEN]
            assert (row[L.TRICK:L.TRICK + n] == rows[t][L.TRICK:L.TRICK + n]).all()
        _, mask, _, _, _, _ = venv.step(_random_actions(rng, mask))
    other = venv.info_state(0, (int(venv.info_state(0).seat) + 1) % 4)
    with pytest.raises(ValueError, match="seat to act"):
        info_row(other)


def test_always_passing_tables_are_truncated_after_max_redeals():
    venv = VectorEnv("coinche", num_tables=4, seed=0, max_redeals=3)
    obs, mask, seat = venv.reset()
    for step in range(12):  # 3 deals x 4 passes
        obs, mask, seat, rewards, done, info = venv.step(np.full(4, 32))
        assert not rewards.any()
    assert done.all() and info["truncated"].all() and (info["winner"] == -1).all() and (info["deals"] == 3).all()
    with pytest.raises(VectorEnvError, match="max_redeals"):
        VectorEnv("coinche", 2, max_redeals=0)
    assert VectorEnv("coinche", 2, max_redeals=None).max_redeals is None


@pytest.mark.parametrize("name", ["coinche", "belote_classique", "cobrecaf_81"])
def test_observations_of_any_seat_are_the_rules_cores(name):
    venv = VectorEnv(name, num_tables=5, seed=9)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(1)
    for step in range(40):
        if step % 8 == 0:
            tables = np.repeat(np.arange(5), 4)
            seats = np.tile(np.arange(4), 5)
            got = venv.observations(tables, seats)
            for k, (t, s) in enumerate(zip(tables, seats)):
                assert np.array_equal(got[k], encode(venv.state(int(t)), int(s)))
            acting = venv.observations(np.arange(5), seat)
            assert np.array_equal(acting, obs)
        obs, mask, seat, *_ = venv.step(_random_actions(rng, mask))
    with pytest.raises(VectorEnvError, match="same length"):
        venv.observations([0, 1], [0])
    with pytest.raises(VectorEnvError, match=r"tables must be in 0\.\.4"):
        venv.observations([5], [0])
    with pytest.raises(VectorEnvError, match=r"seats must be in 0\.\.3"):
        venv.observations([0], [4])


@pytest.mark.parametrize("name", ["coinche", "belote_classique"])
def test_hands_are_the_rules_cores(name):
    venv = VectorEnv(name, num_tables=5, seed=4)
    with pytest.raises(VectorEnvError, match="reset"):
        venv.hands()
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(2)
    for step in range(60):
        if step % 5 == 0:
            every = venv.hands()
            for t in range(5):
                assert every[t].tolist() == list(venv.state(t).deal.hands)
            assert np.array_equal(venv.hands([3, 1]), every[[3, 1]])
        obs, mask, seat, *_ = venv.step(_random_actions(rng, mask))
    with pytest.raises(VectorEnvError, match="tables must be"):
        venv.hands([5])


def _snapshot(venv):
    return [x.copy() for x in (venv._S, venv._MT, venv._MT0, venv._log)] + [venv.seed, venv._table_seeds]


def _same(a, b):
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


def test_refused_calls_name_the_argument_and_change_nothing():
    venv = VectorEnv("coinche", 4, seed=3)
    for call in (lambda: venv.info_state(0), lambda: venv.state(0), lambda: venv.info_rows([0]),
                 lambda: venv.hands(), lambda: venv.observations([0], [0])):
        with pytest.raises(VectorEnvError, match="call reset"):
            call()
    obs, mask, seat = venv.reset()
    legal = mask.argmax(axis=1)
    bad_calls = [
        ("table must be an int, got float 1.5", lambda: venv.state(1.5)),
        ("table must be an int, got float 1.0", lambda: venv.info_state(1.0)),
        ("table must be an int, got bool True", lambda: venv.state(True)),
        ("table 4 is out of range", lambda: venv.info_state(np.int64(4))),
        ("seat must be an int", lambda: venv.info_state(0, 1.0)),
        ("seat 4 is out of range", lambda: venv.info_state(0, 4)),
        (r"tables must be ints, got \[1.7\]", lambda: venv.observations([1.7], [2])),
        ("seats must be ints", lambda: venv.observations([1], [2.9])),
        (r"tables must be ints, got \[0.5\]", lambda: venv.hands([0.5])),
        (r"tables must be ints, got \[1.9\]", lambda: venv.info_rows([1.9])),
        ("tables must be in 0..3", lambda: venv.info_rows([4])),
        ("seed must be a non-negative int", lambda: venv.reset(seed=-1)),
        ("seed must be a non-negative int", lambda: venv.reset(seed=1.5)),
        ("table_seeds must be 4", lambda: venv.reset(table_seeds=[1, 2, 3])),
        (r"actions\[1\] is float 1.0, not an action id", lambda: venv.step([int(legal[0]), 1.0, 0, 0])),
        (r"actions\[0\] is bool True", lambda: venv.step([True, 0, 0, 0])),
        (r"actions\[0\] is float64", lambda: venv.step(legal.astype(np.float64))),
        ("got str", lambda: venv.step("abcd")),
        ("got shape", lambda: venv.step(legal[:, None])),
        ("got 3 actions", lambda: venv.step(legal[:3])),
    ]
    for match, call in bad_calls:
        before = _snapshot(venv)
        with pytest.raises(VectorEnvError, match=match):
            call()
        assert _same(before, _snapshot(venv)), match
    before = _snapshot(venv)
    huge = legal.astype(np.uint64)
    huge[2] = 2**63 + 5
    with pytest.raises(VectorIllegalActionError, match=f"illegal action {2**63 + 5} \\(out of range 0..111\\) at table 2"):
        venv.step(huge)
    assert _same(before, _snapshot(venv))
    # numpy integers are accepted wherever ints are
    assert venv.info_state(np.int64(1), np.int8(2)) == venv.info_state(1, 2)
    assert np.array_equal(venv.hands(np.array([1, 2], dtype=np.uint8)), venv.hands([1, 2]))


def test_action_arrays_of_any_layout_step_alike_without_a_new_compilation():
    runs = []
    for layout in ("int64", "strided", "uint8", "list", "int32_fortran", "read_only"):
        venv = VectorEnv("coinche", 6, seed=2)
        obs, mask, seat = venv.reset()
        rng = np.random.default_rng(0)
        signatures = len(venv._k.step.signatures)
        out = []
        for _ in range(40):
            a = _random_actions(rng, mask)
            if layout == "strided":
                wide = np.zeros(12, dtype=np.int64)
                wide[::2] = a
                a = wide[::2]
            elif layout == "uint8":
                a = a.astype(np.uint8)
            elif layout == "list":
                a = [int(x) for x in a]
            elif layout == "int32_fortran":
                a = np.asfortranarray(a.astype(np.int32))
            elif layout == "read_only":  # a frozen buffer (np.broadcast_to, a shared array)
                a.flags.writeable = False
            obs, mask, seat, rewards, done, info = venv.step(a)
            out.append((obs.copy(), rewards.copy()))
        assert len(venv._k.step.signatures) == signatures, layout  # no specialisation compiled for the layout
        runs.append(out)
    for other in runs[1:]:
        for (o1, r1), (o2, r2) in zip(runs[0], other):
            assert np.array_equal(o1, o2) and np.array_equal(r1, r2)


def test_step_tables_steps_some_tables_as_step_does():
    """Stepping the tables a few at a time, in any order, gives each table the trajectory of step(); the waiting
    tables do not change; final observations are the rules core's at the episode's end."""
    whole, parts = VectorEnv("belote_classique", 5, seed=4), VectorEnv("belote_classique", 5, seed=4)
    obs, mask, seat = whole.reset()
    parts.reset()
    rng = np.random.default_rng(1)
    for _ in range(120):
        actions = _random_actions(rng, mask)
        acting = seat.astype(np.int64)
        before = [parts.state(t).deal.history for t in range(5)]
        order = rng.permutation(5)
        first, second = order[:2], order[2:]
        got = parts.step_tables(first, actions[first], final_seats=acting[first])
        for t in second:
            assert parts.state(int(t)).deal.history == before[t]  # waiting
        rest = parts.step_tables(second, actions[second])
        games = {int(t): whole.state(int(t)) for t in range(5)}
        obs, mask, seat, rewards, done, info = whole.step(actions)
        for part, tables in ((got, first), (rest, second)):
            for j, t in enumerate(tables):
                assert np.array_equal(part[0][j], obs[t]) and np.array_equal(part[1][j], mask[t])
                assert part[2][j] == seat[t] and np.array_equal(part[3][j], rewards[t]) and part[4][j] == done[t]
                assert all(np.array_equal(part[5][k][j], info[k][t]) for k in info)
        for j, t in enumerate(first):
            g = games[int(t)]
            g.apply(int(actions[t]))
            if done[t]:  # the last observation of the seat that ended the episode, as the rules core encodes it
                assert g.over and np.array_equal(got[6][j], encode(g, int(acting[t])))
            else:
                assert not got[6][j].any()
    with pytest.raises(VectorEnvError, match="distinct"):
        parts.step_tables([1, 1], [0, 0])
    with pytest.raises(VectorEnvError, match="final_seats"):
        parts.step_tables([1], [int(np.flatnonzero(mask[1])[0])], final_seats=[4])
