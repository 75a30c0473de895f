"""The heuristic's kernels (agents.heuristic.kernels) decide the same on the engine's info rows (act_rows, the
play loop's way) as HeuristicAgent.act on the InfoState of the same position (through belote_env.vector.info_row),
and read only what the seat to act may know (VectorEnv.info_rows)."""

import numpy as np
import pytest

from agents import make_agent
from agents.heuristic import HeuristicAgent
from agents.loop import Runner, play_episodes
from belote_env.fast import layout as L
from belote_env.variants import variant_names
from belote_env.vector import VectorEnv, VectorEnvError


def _walk(name, episode, tables=64, steps=300, seed=3, explore=0.3, **overrides):
    """Seeded tables where the heuristic acts, with a random legal action instead at ``explore`` of the
    decisions (so positions leave the heuristic's own lines); yields the env before every step."""
    venv = VectorEnv(name, tables, seed=seed, episode=episode, **overrides)
    _, mask, _ = venv.reset()
    rng = np.random.default_rng(seed)
    agent = HeuristicAgent()
    for _ in range(steps):
        yield venv
        acts = agent.act_rows(venv.params, venv.info_rows(np.arange(tables)))
        for t in np.flatnonzero(rng.random(tables) < explore):
            acts[t] = rng.choice(np.flatnonzero(mask[t]))
        _, mask, _, _, _, _ = venv.step(acts)


@pytest.mark.parametrize("episode", ["deal", "game"])
@pytest.mark.parametrize("name", variant_names())
def test_act_rows_decides_as_act(name, episode, overrides=None):
    """Every decision of the walk, bidding and play (19,200 per variant and episode kind): act_rows on the
    engine's info rows equals act on the table's InfoState."""
    agent = HeuristicAgent()
    phases = set()
    for venv in _walk(name, episode, **(overrides or {})):
        idx = np.arange(venv.num_tables)
        fast = agent.act_rows(venv.params, venv.info_rows(idx))
        for t in idx:
            info = venv.info_state(int(t))
            phases.add(info.phase)
            assert fast[t] == agent.act(None, None, info), (name, int(t), info)
    assert phases >= {"bidding", "play"}


@pytest.mark.parametrize("name, overrides", [
    ("coinche", {"rules": "officielles", "overtrump_partner": True, "undertrump": True}),
    ("coinche", {"no_trump": False, "generale": True}),
    ("belote_classique", {"declarations": False, "all_trump": False}),
    ("cobrecaf_81", {"rules": "officielles", "no_trump": False, "all_trump": False}),
])
def test_act_rows_with_variant_overrides(name, overrides):
    """Switches read by the kernels from the variant's parameters (strains, points, play rules), not the
    files'."""
    test_act_rows_decides_as_act(name, "deal", overrides)


@pytest.mark.parametrize("name", ["coinche", "belote_classique", "cobrecaf_81"])
def test_info_rows_clear_every_hidden_card(name):
    hidden = {L.INITIAL, L.HAND, L.BELOTE_CARDS, L.DECL_CARDS}
    for venv in _walk(name, "deal", tables=16, steps=60):
        S = venv._S
        rows = venv.info_rows(np.arange(16))
        for t in range(16):
            row, info = S[t], rows[t]
            seat = row[L.SEAT]
            for base in hidden:
                for s in range(4):
                    if s != seat:
                        assert info[base + s] == 0 or (base == L.DECL_CARDS and row[L.NTRICKS] > 0
                                                       and s & 1 == row[L.DECL_TEAM])
            assert not info[L.STOCK:L.STOCK + 11].any()
            scratch = set(range(L.DECK, L.DECK + 32)) | set(range(L.DECL_LIST, L.DECL_LIST + 4 * L.MAX_DECLARATIONS))
            assert not info[sorted(scratch)].any()  # the dealt deck and every declaration
            if row[L.NTRICKS] == 0:
                assert info[L.DECL_TEAM] == -1 and not info[L.DECL_POINTS:L.DECL_POINTS + 2].any()
            changed = set(np.flatnonzero(info != row).tolist())
            allowed = {b + s for b in hidden for s in range(4)} | set(range(L.STOCK, L.STOCK + 11)) \
                | {L.DECL_TEAM, L.DECL_POINTS, L.DECL_POINTS + 1} | scratch
            assert changed <= allowed
            assert info[L.HAND + seat] == row[L.HAND + seat]


def test_info_rows_checks_its_input():
    venv = VectorEnv("coinche", 4, seed=0)
    with pytest.raises(VectorEnvError, match="reset"):
        venv.info_rows([0])
    venv.reset()
    with pytest.raises(VectorEnvError, match="0..3"):
        venv.info_rows([4])
    assert venv.info_rows([]).shape == (0, L.NUM_COLUMNS)


def test_the_play_loop_uses_act_rows_and_subclasses_keep_act():
    """A subclass of HeuristicAgent may change its decisions: it is asked through act, with InfoStates."""
    calls = []

    class Logged(HeuristicAgent):
        def act(self, observation, action_mask, info):
            calls.append(info.seat)
            return super().act(observation, action_mask, info)

    assert Logged().act_rows(np.zeros(1, dtype=np.int64), np.zeros((1, L.NUM_COLUMNS), dtype=np.int64)) is None
    seating = np.zeros((8, 4), dtype=np.int64)
    fast = play_episodes(VectorEnv("coinche", 8, seed=5), [make_agent("heuristic")], seating)
    slow = play_episodes(VectorEnv("coinche", 8, seed=5), [Logged()], seating)
    assert calls and (fast.scores == slow.scores).all() and (fast.decisions == slow.decisions).all()
    assert isinstance(Runner(VectorEnv("coinche", 1, seed=0), [HeuristicAgent()]).agents[0], HeuristicAgent)
