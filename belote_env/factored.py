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
core only ever see flat actions. :func:`decide` makes one table's decision; it is written in the subset of Python
numba compiles, so the batched engine compiles this very function into its kernels
(``belote_env.fast.kernels.decide``, ``VectorEnv(calls="factored")``) and the AEC env runs it in Python
(``env(calls="factored")``). :func:`put_stage` writes the observation's stage cells the same way. On batches of
tables (numpy arrays, a loop in Python): :func:`factored_mask` gives the mask of the decision each table is at
(its stage and chosen strain) from the flat mask, :func:`advance` applies factored choices and returns the flat
action of each table whose call (or card) is complete, and :func:`factor` gives the sequence of factored choices
of a flat action.
"""

from __future__ import annotations

import numpy as np

from .observation import OBS_SIZE
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

NUM_STRAINS, NUM_LEVELS = len(STRAIN_NAMES), len(LEVEL_NAMES)
CALLS = ("flat", "factored")  # the envs' action spaces (calls=): a call in one action, or as these decisions

# the stages of a table's factored call
WHAT, CHOOSE_STRAIN, CHOOSE_LEVEL = 0, 1, 2
STAGE_FEATURES = 3 + NUM_STRAINS  # the factored observation's cells after the flat one: stage, chosen strain
FACTORED_OBS_SIZE = OBS_SIZE + STAGE_FEATURES

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


def decide(flat, stage, strain, choice, options):
    """One table's factored decision, the one piece of code every surface runs (the envs in Python, the batched
    engine compiled by numba: it is written in the subset numba compiles).

    ``flat`` is the table's flat mask (bool[112]), ``stage`` and ``strain`` the decision it is at (WHAT and -1
    before a call is begun), ``choice`` a factored id, or -1 to make no choice. Applies ``choice``, then makes
    the next decisions that have one legal option (a strain or a level; the first decision is always asked).
    Returns ``(stage, strain, action)``: ``action`` the flat action now complete (a card, pass, coinche,
    surcoinche, en_face, or a call whose strain and level are known; the table is back at WHAT), -1 when more
    is to decide (``options``, bool[56], then holds the legal choices of that decision), -2 when ``choice``
    is not legal (nothing applied; ``options`` holds the legal ones). With ``choice`` -1 it only writes the
    options of the decision at ``(stage, strain)`` (the mask) and returns ``(stage, strain, -1)``."""
    made = False  # a choice was applied: the next decisions with one option are made by themselves
    while True:
        count, single = 0, -1  # the options of the decision at (stage, strain)
        for c in range(NUM_FACTORED_ACTIONS):
            options[c] = False
        if stage == WHAT:
            for c in range(CALL):
                if flat[c]:
                    options[c] = True
                    count, single = count + 1, c
            for a in range(TAKE, FLAT_EN_FACE):  # every call that names a strain
                if flat[a]:
                    options[CALL] = True
                    count, single = count + 1, CALL
                    break
            if flat[FLAT_EN_FACE]:
                options[EN_FACE] = True
                count, single = count + 1, EN_FACE
        elif stage == CHOOSE_STRAIN:
            for s in range(NUM_STRAINS):
                for lv in range(NUM_LEVELS):
                    a = FLAT_CALL[lv, s]
                    if a >= 0 and flat[a]:
                        options[STRAIN + s] = True
                        count, single = count + 1, STRAIN + s
                        break
        else:
            for lv in range(NUM_LEVELS):
                a = FLAT_CALL[lv, strain]
                if a >= 0 and flat[a]:
                    options[LEVEL + lv] = True
                    count, single = count + 1, LEVEL + lv
        if choice < 0:
            if not made or count != 1:
                return stage, strain, -1
            choice = single
        elif choice >= NUM_FACTORED_ACTIONS or not options[choice]:
            return stage, strain, -2
        if stage == WHAT:
            if choice != CALL:
                return WHAT, -1, FLAT_EN_FACE if choice == EN_FACE else choice
            stage = CHOOSE_STRAIN
        elif stage == CHOOSE_STRAIN:
            stage, strain = CHOOSE_LEVEL, choice - STRAIN
        else:
            return WHAT, -1, FLAT_CALL[choice - LEVEL, strain]
        choice, made = -1, True


def put_stage(out, stage, strain):
    """The factored observation's last :data:`STAGE_FEATURES` floats, after the flat observation: the decision
    a seat is at (one-hot WHAT, CHOOSE_STRAIN, CHOOSE_LEVEL) and the strain it chose (one-hot S H D C NT AT,
    zeros before). ``out`` is the whole observation (float32[FACTORED_OBS_SIZE]), zero at those cells."""
    out[OBS_SIZE + stage] = 1.0
    if strain >= 0:
        out[OBS_SIZE + 3 + strain] = 1.0


def stage_cells(stage, strain) -> np.ndarray:
    """float32[n, STAGE_FEATURES]: the cells :func:`put_stage` writes, for ``n`` tables at once (``stage`` and
    ``strain``: one per table)."""
    stage = np.asarray(stage, dtype=np.int64).reshape(-1)
    strain = np.asarray(strain, dtype=np.int64).reshape(-1)
    out = np.zeros((len(stage), STAGE_FEATURES), dtype=np.float32)
    out[np.arange(len(stage)), stage] = 1.0
    chosen = np.flatnonzero(strain >= 0)
    out[chosen, 3 + strain[chosen]] = 1.0
    return out


def _rows(flat_mask, *columns):
    flat = np.asarray(flat_mask).astype(bool, copy=False).reshape(-1, NUM_ACTIONS)
    return (flat,) + tuple(np.asarray(c, dtype=np.int64).reshape(-1) for c in columns)


def factored_mask(flat_mask, stage, strain) -> np.ndarray:
    """bool[N, NUM_FACTORED_ACTIONS]: the legal factored choices of each table, from its flat mask (bool or int8
    [N, 112]), its stage (WHAT, CHOOSE_STRAIN, CHOOSE_LEVEL) and the strain it chose (-1 before)."""
    flat, stage, strain = _rows(flat_mask, stage, strain)
    out = np.zeros((len(flat), NUM_FACTORED_ACTIONS), dtype=bool)
    for t in range(len(flat)):
        decide(flat[t], int(stage[t]), int(strain[t]), -1, out[t])
    return out


def advance(flat_mask, stage, strain, choice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply a factored choice at every table: ``(stage, strain, flat)`` after it, where ``flat`` is the flat
    action of a table whose decision is complete (a card, pass, coinche, surcoinche, en_face, or a call whose
    strain and level are now known) and -1 for a table that has more to decide (its stage and strain say what).
    A next decision with one legal option is made at once. The choices must be legal (see
    :func:`factored_mask`); ValueError naming the first table where one is not (nothing applied)."""
    flat, stage, strain, choice = _rows(flat_mask, stage, strain, choice)
    n = len(flat)
    options = np.zeros(NUM_FACTORED_ACTIONS, dtype=bool)
    out = np.full((3, n), -1, dtype=np.int64)
    for t in range(n):
        c = int(choice[t])
        got = decide(flat[t], int(stage[t]), int(strain[t]), c if c >= 0 else NUM_FACTORED_ACTIONS, options)
        if got[2] == -2:
            shown = [FACTORED_NAMES[a] for a in np.flatnonzero(options)]
            raise ValueError(f"factored choice {c} is not legal at table {t} (stage {int(stage[t])}); "
                             f"legal: {', '.join(shown)}")
        out[:, t] = got
    return out[0], out[1], out[2]


def factor(flat_action: int, flat_mask) -> list[int]:
    """The factored choices a seat makes for the flat action ``flat_action`` (legal in ``flat_mask``, bool or int8
    [112]), the decisions with one option left out (they are made by themselves)."""
    flat = np.asarray(flat_mask).astype(bool, copy=False).reshape(NUM_ACTIONS)
    if not 0 <= flat_action < NUM_ACTIONS or not flat[flat_action]:
        raise ValueError(f"flat action {flat_action} is not legal in the mask given")
    if flat_action < CALL:
        return [int(flat_action)]
    if flat_action == FLAT_EN_FACE:
        return [EN_FACE]
    level, strain = int(LEVEL_OF[flat_action]), int(STRAIN_OF[flat_action])
    steps, options = [CALL], np.zeros(NUM_FACTORED_ACTIONS, dtype=bool)
    for option, stage, chosen in ((STRAIN + strain, CHOOSE_STRAIN, -1), (LEVEL + level, CHOOSE_LEVEL, strain)):
        decide(flat, stage, chosen, -1, options)
        if options.sum() > 1:
            steps.append(option)
    return steps


__all__ = ["CALL", "CHOOSE_LEVEL", "CHOOSE_STRAIN", "EN_FACE", "FACTORED_NAMES", "FACTORED_OBS_SIZE", "FLAT_CALL",
           "LEVEL", "LEVEL_NAMES", "NUM_FACTORED_ACTIONS", "STAGE_FEATURES", "STRAIN", "WHAT", "advance", "decide",
           "factor", "factored_mask", "put_stage", "stage_cells", "CALLS"]
