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
