"""Factored calls: a call made as a short sequence of small decisions, each with its own mask.

The flat action space (:mod:`belote_env.rules.actions`) offers a seat every legal call at once: 67 of them at the
first call of a coinche deal. The factored action space splits a call into up to three decisions:

1. **what**: a card (ids 0..31, unchanged), ``pass``, ``coinche``, ``surcoinche`` (32..34, unchanged), ``call``
   (:data:`CALL`: make a call that names a strain: take, bid, Couleur, Capot, En voiture) or ``en_face``
   (:data:`EN_FACE`, the 81 points' call for the partner);
2. **strain** (:data:`STRAIN` + S H D C NT AT), after ``call``;
3. **level** (:data:`LEVEL` + one of :data:`LEVEL_NAMES`: the bid values 80..160, capot, generale; ``take``, the
   take or Couleur of the turn-up variants; ``en_voiture``), after the strain.

A decision with one legal option is made by itself and is never asked: in belote classique's first round,
``call`` is the take of the turn-up's suit at once. Whatever a seat may call in one step it reaches by such a
sequence, and nothing else (``tests/belote_env/test_factored.py`` checks it over every variant's positions).

This module is the one translation between the two spaces, a view over the flat one: the engines and the rules
core only ever see flat actions. It works on batches of tables (numpy arrays: one table is a batch of one):
:func:`factored_mask` gives the mask of the decision a table is at (its :class:`stage` and chosen strain) from the
flat mask, :func:`advance` applies factored choices and returns the flat action of each table whose call (or card)
is complete, and :func:`factor` gives the sequence of factored choices of a flat action.
"""

from __future__ import annotations

import numpy as np

from .rules.actions import BID, BID_VALUES, EN_FACE as FLAT_EN_FACE, EN_VOITURE, NUM_ACTIONS, TAKE
from .rules.cards import CARD_NAMES, STRAIN_NAMES

CALL = 35  # first decision: a call naming a strain (the next decisions say which)
EN_FACE = 36
STRAIN = 37  # + strain (S H D C NT AT)
LEVEL = 43  # + level
LEVEL_NAMES = tuple("capot" if v == 250 else "generale" if v == 500 else str(v) for v in BID_VALUES) + \
    ("take", "en_voiture")
TAKE_LEVEL = len(BID_VALUES)
EN_VOITURE_LEVEL = TAKE_LEVEL + 1
NUM_FACTORED_ACTIONS = LEVEL + len(LEVEL_NAMES)  # 56
FACTORED_NAMES = tuple(
    list(CARD_NAMES) + ["pass", "coinche", "surcoinche", "call", "en_face"]
    + [f"strain {s}" for s in STRAIN_NAMES] + [f"level {lv}" for lv in LEVEL_NAMES])

# the stages of a table's factored call
WHAT, CHOOSE_STRAIN, CHOOSE_LEVEL = 0, 1, 2

# FLAT_CALL[level, strain]: the flat call id, -1 where no such call exists
FLAT_CALL = np.full((len(LEVEL_NAMES), len(STRAIN_NAMES)), -1, dtype=np.int64)
for _v in range(len(BID_VALUES)):
    FLAT_CALL[_v] = BID + 6 * _v + np.arange(len(STRAIN_NAMES))
FLAT_CALL[TAKE_LEVEL] = TAKE + np.arange(len(STRAIN_NAMES))
FLAT_CALL[EN_VOITURE_LEVEL, :4] = EN_VOITURE + np.arange(4)
# the (level, strain) of every flat call that names a strain; -1 for the others
LEVEL_OF = np.full(NUM_ACTIONS, -1, dtype=np.int64)
STRAIN_OF = np.full(NUM_ACTIONS, -1, dtype=np.int64)
for (_lv, _s), _a in np.ndenumerate(FLAT_CALL):
    if _a >= 0:
        LEVEL_OF[_a], STRAIN_OF[_a] = _lv, _s


def _options(flat: np.ndarray, stage: np.ndarray, strain: np.ndarray) -> np.ndarray:
    """bool[N, NUM_FACTORED_ACTIONS]: the choices each table has at its stage, single options included."""
    n = len(flat)
    out = np.zeros((n, NUM_FACTORED_ACTIONS), dtype=bool)
    # table x level x strain: the legal flat calls, laid out as FLAT_CALL
    grid = np.where(FLAT_CALL >= 0, flat[:, np.maximum(FLAT_CALL, 0)], False)
    what = stage == WHAT
    out[what, :CALL] = flat[what, :CALL]
    out[what, CALL] = grid[what].any(axis=(1, 2))
    out[what, EN_FACE] = flat[what, FLAT_EN_FACE]
    pick = stage == CHOOSE_STRAIN
    out[pick, STRAIN:LEVEL] = grid[pick].any(axis=1)
    level = np.flatnonzero(stage == CHOOSE_LEVEL)
    out[level, LEVEL:] = grid[level, :, strain[level]]
    return out


def _single(options: np.ndarray) -> np.ndarray:
    """int64[N]: the one option of each row that has exactly one, else -1."""
    return np.where(options.sum(axis=1) == 1, options.argmax(axis=1), -1)


def factored_mask(flat_mask, stage, strain) -> np.ndarray:
    """bool[N, NUM_FACTORED_ACTIONS]: the legal factored choices of each table, from its flat mask (bool or int8
    [N, 112]), its stage (WHAT, CHOOSE_STRAIN, CHOOSE_LEVEL) and the strain it chose (-1 before)."""
    flat = np.asarray(flat_mask).astype(bool, copy=False).reshape(-1, NUM_ACTIONS)
    stage = np.asarray(stage, dtype=np.int64).reshape(-1)
    strain = np.asarray(strain, dtype=np.int64).reshape(-1)
    return _options(flat, stage, strain)


def advance(flat_mask, stage, strain, choice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply a factored choice at every table: ``(stage, strain, flat)`` after it, where ``flat`` is the flat
    action of a table whose decision is complete (a card, pass, coinche, surcoinche, en_face, or a call whose
    strain and level are now known) and -1 for a table that has more to decide (its stage and strain say what).
    A next decision with one legal option is made at once. The choices must be legal (see
    :func:`factored_mask`); ValueError naming the first table where one is not."""
    flat = np.asarray(flat_mask).astype(bool, copy=False).reshape(-1, NUM_ACTIONS)
    stage = np.asarray(stage, dtype=np.int64).reshape(-1).copy()
    strain = np.asarray(strain, dtype=np.int64).reshape(-1).copy()
    choice = np.asarray(choice, dtype=np.int64).reshape(-1)
    n = len(flat)
    rows = np.arange(n)
    legal = _options(flat, stage, strain)
    ok = (choice >= 0) & (choice < NUM_FACTORED_ACTIONS)
    ok[ok] &= legal[rows[ok], choice[ok]]
    if not ok.all():
        t = int(np.flatnonzero(~ok)[0])
        shown = [FACTORED_NAMES[a] for a in np.flatnonzero(legal[t])]
        raise ValueError(f"factored choice {int(choice[t])} is not legal at table {t} (stage {int(stage[t])}); "
                         f"legal: {', '.join(shown)}")
    out = np.full(n, -1, dtype=np.int64)
    _apply(stage, strain, rows, choice, out)
    for _ in range(2):  # a next decision with one option (the strain, then the level) is made at once
        waiting = np.flatnonzero(out < 0)
        only = _single(_options(flat[waiting], stage[waiting], strain[waiting]))
        if not (only >= 0).any():
            break
        _apply(stage, strain, waiting[only >= 0], only[only >= 0], out)
    return stage, strain, out


def _apply(stage, strain, tables, choice, out) -> None:
    """Choice ``choice[k]`` made at table ``tables[k]``: its stage, strain and, when complete, flat action."""
    at = stage[tables]
    direct, face = (at == WHAT) & (choice < CALL), (at == WHAT) & (choice == EN_FACE)
    call, picked, leveled = (at == WHAT) & (choice == CALL), at == CHOOSE_STRAIN, at == CHOOSE_LEVEL
    out[tables[direct]] = choice[direct]
    out[tables[face]] = FLAT_EN_FACE
    out[tables[leveled]] = FLAT_CALL[choice[leveled] - LEVEL, strain[tables[leveled]]]
    stage[tables[call]] = CHOOSE_STRAIN
    strain[tables[picked]] = choice[picked] - STRAIN
    stage[tables[picked]] = CHOOSE_LEVEL
    done = tables[direct | face | leveled]
    stage[done], strain[done] = WHAT, -1


def factor(flat_action: int, flat_mask) -> list[int]:
    """The factored choices a seat makes for the flat action ``flat_action`` (legal in ``flat_mask``, bool or int8
    [112]), the decisions with one option left out (they are made by themselves)."""
    flat = np.asarray(flat_mask).astype(bool, copy=False).reshape(1, NUM_ACTIONS)
    if not 0 <= flat_action < NUM_ACTIONS or not flat[0, flat_action]:
        raise ValueError(f"flat action {flat_action} is not legal in the mask given")
    if flat_action < CALL:
        return [int(flat_action)]
    if flat_action == FLAT_EN_FACE:
        return [EN_FACE]
    level, strain = int(LEVEL_OF[flat_action]), int(STRAIN_OF[flat_action])
    steps, stage, chosen = [CALL], np.array([CHOOSE_STRAIN]), np.array([-1])
    for option, next_stage in ((STRAIN + strain, CHOOSE_LEVEL), (LEVEL + level, WHAT)):
        if _single(_options(flat, stage, chosen))[0] < 0:
            steps.append(option)
        stage, chosen = np.array([next_stage]), np.array([strain])
    return steps


__all__ = ["CALL", "CHOOSE_LEVEL", "CHOOSE_STRAIN", "EN_FACE", "FACTORED_NAMES", "FLAT_CALL", "LEVEL",
           "LEVEL_NAMES", "NUM_FACTORED_ACTIONS", "STRAIN", "WHAT", "advance", "factor", "factored_mask"]
