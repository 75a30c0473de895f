"""Property tests of the public surfaces (hypothesis): whatever a caller passes, a call of ``VectorEnv``,
``SingleAgentEnv`` or the ``python_belote`` OpenSpiel game either does what it documents or raises the project's
error (a ``BeloteError``, Gymnasium's ``ResetNeeded``), never another exception, and a refused call changes
nothing. Actions are legal exactly when the rules core's ``action_id`` reads an id in the legal set."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_env.errors import BeloteError, IllegalActionError
from belote_env.rules.actions import action_id
from belote_env.single_agent import SingleAgentEnv
from belote_env.vector import VectorEnv

N = 3

# anything a caller might pass where an index or an action is expected
scalars = st.one_of(
    st.integers(-2**70, 2**70), st.integers(-3, 115), st.floats(allow_nan=True), st.booleans(), st.none(),
    st.text(max_size=4), st.integers(0, 111).map(np.int64), st.integers(0, 255).map(np.uint8),
    st.integers(0, 111).map(float), st.integers(0, 111).map(np.float32), st.integers(0, 3).map(lambda i: np.array(i)),
    st.lists(st.integers(0, 4), max_size=3),
)
sequences = st.one_of(st.lists(scalars, max_size=N + 1), st.lists(st.integers(-1, N + 1), max_size=N + 1),
                      scalars, st.text(max_size=N))


def _snapshot(venv):
    return [x.copy() for x in (venv._S, venv._MT, venv._MT0, venv._log)] + [venv.seed, venv._table_seeds]


def _same(a, b):
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))


@pytest.fixture(scope="module")
def venv():
    v = VectorEnv("coinche", N, seed=4)
    v.reset()
    return v


def _index_ok(x, size):
    i = action_id(x)
    return i is not None and 0 <= i < size


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=scalars, seat=scalars, tables=sequences)
def test_vector_env_reading_calls_answer_or_refuse_and_change_nothing(venv, table, seat, tables):
    before = _snapshot(venv)
    for call, ok in [
        (lambda: venv.state(table), _index_ok(table, N)),
        (lambda: venv.info_state(table), _index_ok(table, N)),
        (lambda: venv.info_state(0, seat), seat is None or _index_ok(seat, 4)),
        (lambda: venv.info_rows(tables), None),
        (lambda: venv.hands(tables), None),
        (lambda: venv.observations(tables, tables), None),
    ]:
        try:
            call()
        except BeloteError:
            assert ok is not True
        else:
            assert ok is not False
        assert _same(before, _snapshot(venv))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=st.one_of(sequences, st.lists(st.integers(0, 111), min_size=N, max_size=N)))
def test_vector_env_steps_exactly_the_legal_action_ids(actions):
    venv = VectorEnv("coinche", N, seed=5)
    obs, mask, seat = venv.reset()
    before = _snapshot(venv)
    ids = None
    if isinstance(actions, list) and len(actions) == N:
        ids = [action_id(a) for a in actions]
    legal = ids is not None and all(i is not None and 0 <= i < 112 and mask[t, i] for t, i in enumerate(ids))
    try:
        venv.step(actions)
    except BeloteError:
        assert not legal
        assert _same(before, _snapshot(venv))
    else:
        assert legal


@pytest.fixture(scope="module")
def single():
    return SingleAgentEnv("coinche", seat=0, partner="random", opponents="random", illegal="raise")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=scalars, seed=st.integers(0, 50))
def test_single_agent_env_takes_exactly_the_legal_action_ids(single, action, seed):
    obs, info = single.reset(seed=seed)
    history = list(single.aec.game.deal.history)
    a = action_id(action)
    legal = a is not None and 0 <= a < 112 and info["action_mask"][a]
    try:
        single.step(action)
    except IllegalActionError:
        assert not legal
        assert single.aec.game.deal.history == history  # refused: nothing applied
    else:
        assert legal


pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def game():
    import belote_env.integrations.openspiel  # noqa: F401  (registers python_belote)

    return pyspiel.load_game("python_belote(variant=belote_classique)")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=st.lists(st.integers(-1, 120), min_size=1, max_size=60))
def test_openspiel_states_apply_exactly_the_legal_actions(game, moves):
    """Random integers (chance outcomes and actions alike): each is applied if legal, else refused with the
    project's error and the state unchanged."""
    state = game.new_initial_state()
    for m in moves:
        if m < 0:
            continue  # OpenSpiel itself refuses kInvalidAction before our code sees it
        if state.is_terminal():
            legal = False
        elif state.is_chance_node():
            legal = m in [c for c, _ in state.chance_outcomes()]
        else:
            legal = m in state.legal_actions()
        before = (state.history(), str(state))
        try:
            state.apply_action(m)
        except BeloteError:
            assert not legal
            assert (state.history(), str(state)) == before
        else:
            assert legal


# --- SingleSeatVectorEnv (gymnasium.make_vec) ------------------------------------------------------------------

single_seat = pytest.importorskip("agents.arena.single_seat")

seeds = st.one_of(scalars, st.lists(st.one_of(st.none(), scalars), max_size=N + 1),
                  st.lists(st.integers(-2, 2**64), min_size=N, max_size=N).map(lambda x: np.array(x, dtype=object)),
                  st.lists(st.integers(0, 2**62), min_size=N, max_size=N).map(np.array),
                  st.lists(st.integers(0, 2**31), min_size=N, max_size=N).map(lambda x: np.array(x, dtype=np.float64)))


def _seed_ok(seed):
    """The documented seeds: None, an int >= 0, or N entries each None or an int >= 0 (numpy integers included)."""
    if seed is None:
        return True
    if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
        return action_id(seed) is not None and action_id(seed) >= 0
    if isinstance(seed, np.ndarray) and seed.ndim != 1:
        return False
    return len(seed) == N and all(x is None or (action_id(x) is not None and action_id(x) >= 0) for x in seed)


def _vec_state(vec):
    agents = [a.rng.getstate() for a in (vec.partner, vec.opponents)]
    return _snapshot(vec._venv) + [vec._obs.copy(), vec._mask.copy(), agents]


@pytest.fixture(scope="module")
def vec():
    v = single_seat.SingleSeatVectorEnv(N, "coinche", partner="random", opponents="random")
    v.reset(seed=1)
    return v


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=seeds)
def test_single_seat_vector_env_resets_on_documented_seeds_and_a_refused_one_changes_nothing(vec, seed):
    before = _vec_state(vec)
    try:
        obs, infos = vec.reset(seed=seed)
    except BeloteError as e:
        assert not _seed_ok(seed) and "seed" in str(e)
        after = _vec_state(vec)
        assert _same(before[:-3], after[:-3]) and np.array_equal(before[-3], after[-3]) and before[-1] == after[-1]
    else:
        assert _seed_ok(seed)
        assert obs.shape == (N, 853) and infos["action_mask"].shape == (N, 112)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=st.one_of(sequences, st.lists(st.integers(0, 111), min_size=N, max_size=N)), seed=st.integers(0, 9))
def test_single_seat_vector_env_steps_exactly_the_legal_action_ids(vec, actions, seed):
    obs, infos = vec.reset(seed=seed)
    mask = infos["action_mask"]
    before = _vec_state(vec)
    ids = [action_id(a) for a in actions] if isinstance(actions, list) and len(actions) == N else None
    legal = ids is not None and all(i is not None and 0 <= i < 112 and mask[t, i] for t, i in enumerate(ids))
    try:
        vec.step(actions)
    except BeloteError:
        assert not legal
        after = _vec_state(vec)
        assert _same(before[:-3], after[:-3]) and before[-1] == after[-1]
    else:
        assert legal


arguments = st.fixed_dictionaries({}, optional={
    # a number of tables the machine can hold, or one beyond MAX_TABLES (refused): never one that fills the memory
    "num_envs": st.one_of(st.integers(-2, 4), st.sampled_from([2**20 + 1, 2**40, 2**70]),
                          scalars.filter(lambda x: action_id(x) is None or action_id(x) < 5)),
    "seat": st.one_of(st.integers(-1, 4), scalars),
    "reward": st.sampled_from(["score_diff", "win", "points", None, 3]),
    "max_redeals": st.one_of(st.none(), st.integers(-1, 3), st.just(2**31), st.just(2**70), scalars),
    "target": st.one_of(st.integers(-5, 2_000_000), st.just(2**70), st.text(max_size=3)),
    "episode": st.sampled_from(["deal", "game", "match", 1]),
    "partner": st.sampled_from(["heuristic", "random", "nobody", 7, None]),
})


@settings(max_examples=150, deadline=None)
@given(kw=arguments)
def test_single_seat_vector_env_arguments_build_an_env_or_name_the_bad_one(kw):
    try:
        single_seat.SingleSeatVectorEnv(**{"num_envs": 2, **kw})
    except BeloteError as e:
        named = [k for k in kw if k in str(e)] + (["variant" if "target" in kw or "episode" in kw else ""])
        assert any(k and k in str(e) for k in named) or "agent" in str(e), (kw, str(e))


# --- the python_belote game: parameters and resampling ----------------------------------------------------------

switch_words = st.lists(st.tuples(st.sampled_from(["target", "undertrump", "rules", "episode", "colour", "generale"]),
                                  st.sampled_from(["1000", "0", "true", "maybe", "officielles", "9" * 30, "game"])),
                        max_size=3).map(lambda kv: " ".join(f"{k}:{v}" for k, v in kv))
params = st.fixed_dictionaries({}, optional={
    "variant": st.sampled_from(["coinche", "belote_classique", "contree", "nope"]), "switches": switch_words,
    # OpenSpiel's int parameters are C++ ints: a larger value is refused by pyspiel before the game sees it
    "episode": st.sampled_from(["deal", "game", "set"]), "max_redeals": st.integers(-3, 2**31 - 1),
    "dealer": st.integers(-2, 6), "utility": st.sampled_from(["points", "score_diff", "wins"]),
})


@settings(max_examples=200, deadline=None)
@given(p=params)
def test_openspiel_parameters_load_a_game_or_name_what_is_wrong(p):
    import belote_env.integrations.openspiel  # noqa: F401  (registers python_belote)

    try:
        game = pyspiel.load_game("python_belote", p)
    except BeloteError as e:
        words = [*p, *(w.split(":")[0] for w in p.get("switches", "").split())]
        assert any(w in str(e) for w in words) or "variant" in str(e), (p, str(e))
    else:
        assert game.max_game_length() > 0 and 1 <= game.max_redeals <= 2**31 - 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seat=scalars, value=st.one_of(st.floats(allow_nan=True), scalars), moves=st.integers(0, 40))
def test_openspiel_resample_answers_or_refuses_and_changes_nothing(game, seat, value, moves):
    import random

    rng = random.Random(moves)
    state = game.new_initial_state()
    while state.is_chance_node() or (moves > 0 and not state.is_terminal()):
        if not state.is_chance_node():
            moves -= 1
        state.apply_action(rng.choice([c for c, _ in state.chance_outcomes()] if state.is_chance_node()
                                      else state.legal_actions()))
    if state.is_terminal():
        return
    before = (state.history(), str(state), [state.information_state_tensor(p) for p in range(4)])
    ok_seat = action_id(seat) is not None and 0 <= action_id(seat) <= 3
    ok_value = not isinstance(value, bool) and isinstance(value, (int, float, np.floating)) and 0 <= value <= 1
    try:
        sampled = state.resample_from_infostate(seat, lambda: value)
    except BeloteError as e:
        assert not (ok_seat and ok_value) and "resample_from_infostate" in str(e)
    else:
        assert ok_seat and ok_value
        s = action_id(seat)
        assert sampled.information_state_string(s) == state.information_state_string(s)
    assert (state.history(), str(state), [state.information_state_tensor(p) for p in range(4)]) == before
