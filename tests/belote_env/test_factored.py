"""Factored calls (belote_env.factored): whatever a seat may call in one step it reaches by a sequence of small
decisions, and nothing else; cards are unchanged; a batch is its tables one by one."""

from __future__ import annotations

import random

import numpy as np
import pytest

from belote_env import factored as F
from belote_env.rules.actions import NUM_ACTIONS, PASS, TAKE, action_name
from belote_env.rules.cards import card_suit
from belote_env.rules.state import DealState
from belote_env.variants import load_variant, variant_names


def _mask(deal) -> np.ndarray:
    bits = deal.legal_mask()
    return np.array([bits >> a & 1 for a in range(NUM_ACTIONS)], dtype=bool)


def _positions(name: str, deals: int, seed: int = 0):
    """(flat mask, deal) at every decision of ``deals`` random deals of the variant."""
    variant, rng = load_variant(name), random.Random(f"{name}{seed}")
    for _ in range(deals):
        deal = DealState.random(variant, rng.randrange(4), rng)
        while deal.phase != "done":
            yield _mask(deal), deal
            deal.apply(rng.choice(deal.legal_actions()))


def _reachable(flat: np.ndarray) -> set[int]:
    """Every flat action a walk of legal factored choices completes, from the first decision."""
    out, todo = set(), [(F.WHAT, -1)]
    while todo:
        stage, strain = todo.pop()
        for c in np.flatnonzero(F.factored_mask(flat, [stage], [strain])[0]):
            stage2, strain2, done = F.advance(flat, [stage], [strain], [c])
            if done[0] >= 0:
                out.add(int(done[0]))
            else:
                todo.append((int(stage2[0]), int(strain2[0])))
    return out


@pytest.mark.parametrize("name", variant_names())
def test_the_factored_sequences_reach_exactly_the_legal_actions(name):
    seen = 0
    for flat, deal in _positions(name, 60):
        legal = set(np.flatnonzero(flat).tolist())
        assert _reachable(flat) == legal, deal.format()
        for a in legal:  # and each one by its own sequence, every step legal, complete at the last step only
            stage, strain = np.array([F.WHAT]), np.array([-1])
            steps = F.factor(a, flat)
            for k, c in enumerate(steps):
                assert F.factored_mask(flat, stage, strain)[0, c], (action_name(a), steps)
                stage, strain, done = F.advance(flat, stage, strain, [c])
                assert (done[0] == a) if k == len(steps) - 1 else (done[0] == -1), (action_name(a), steps)
            assert stage[0] == F.WHAT and strain[0] == -1
            seen += 1
    assert seen > 1000


def test_cards_are_the_same_decision_in_both_spaces():
    for flat, deal in _positions("coinche", 5):
        if deal.phase == "play":
            mask = F.factored_mask(flat, [F.WHAT], [-1])[0]
            assert np.array_equal(mask[:32], flat[:32]) and not mask[32:].any()


def test_a_coinche_first_call_is_two_or_three_choices_at_a_time():
    flat, deal = next(_positions("coinche", 1))
    assert flat.sum() == 67  # pass and 66 bids
    first = F.factored_mask(flat, [F.WHAT], [-1])[0]
    assert [F.FACTORED_NAMES[c] for c in np.flatnonzero(first)] == ["pass", "call"]
    stage, strain, done = F.advance(flat, [F.WHAT], [-1], [F.CALL])
    assert stage[0] == F.CHOOSE_STRAIN and done[0] == -1
    strains = F.factored_mask(flat, stage, strain)[0]
    assert [F.FACTORED_NAMES[c] for c in np.flatnonzero(strains)] == [f"strain {s}" for s in "SHDC"] + \
        ["strain NT", "strain AT"]
    stage, strain, done = F.advance(flat, stage, strain, [F.STRAIN + 1])
    levels = F.factored_mask(flat, stage, strain)[0]
    assert len(np.flatnonzero(levels)) == 11  # 80..160, capot, generale
    assert F.advance(flat, stage, strain, [F.LEVEL + 2])[2][0] == F.FLAT_CALL[2, 1]  # "100 H"
    assert action_name(int(F.FLAT_CALL[2, 1])) == "100 H"


def test_a_decision_with_one_option_is_made_by_itself():
    """Belote classique's first round: call is the take of the turn-up's suit, at once."""
    flat, deal = next(_positions("belote_classique", 1))
    assert [F.FACTORED_NAMES[c] for c in np.flatnonzero(F.factored_mask(flat, [F.WHAT], [-1])[0])] == ["pass",
                                                                                                          "call"]
    stage, strain, done = F.advance(flat, [F.WHAT], [-1], [F.CALL])
    assert done[0] == TAKE + card_suit(deal.turnup)
    assert flat[done[0]] and stage[0] == F.WHAT and F.factor(int(done[0]), flat) == [F.CALL]
    assert F.factor(PASS, flat) == [PASS]


def test_a_batch_advances_as_its_tables_one_by_one():
    rng = np.random.default_rng(3)
    positions = [flat for flat, _ in _positions("cobrecaf_81", 20)] + [flat for flat, _ in _positions("coinche", 10)]
    flats = np.array(positions)
    stage, strain = np.full(len(flats), F.WHAT), np.full(len(flats), -1)
    for _ in range(3):
        mask = F.factored_mask(flats, stage, strain)
        choice = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        got = F.advance(flats, stage, strain, choice)
        one = [F.advance(flats[t], stage[t:t + 1], strain[t:t + 1], choice[t:t + 1]) for t in range(len(flats))]
        for k in range(3):
            assert np.array_equal(got[k], np.concatenate([o[k] for o in one]))
        stage, strain = got[0], got[1]


def test_an_illegal_choice_is_an_error_naming_the_table_and_the_legal_ones():
    flat, _ = next(_positions("coinche", 1))
    with pytest.raises(ValueError, match=r"factored choice 36 is not legal at table 0 .*legal: pass, call"):
        F.advance(flat, [F.WHAT], [-1], [F.EN_FACE])


def test_stage_cells_are_put_stage_row_by_row():
    from belote_env.observation import OBS_SIZE

    stages = [F.WHAT, F.CHOOSE_STRAIN, F.CHOOSE_LEVEL] + [F.CHOOSE_LEVEL] * 6
    strains = [-1, -1] + list(range(6)) + [-1]
    cells = F.stage_cells(stages, strains)
    for row, stage, strain in zip(cells, stages, strains):
        one = np.zeros(F.FACTORED_OBS_SIZE, dtype=np.float32)
        F.put_stage(one, stage, strain)
        assert np.array_equal(row, one[OBS_SIZE:]) and row.sum() == 1 + (strain >= 0)
