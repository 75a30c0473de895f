"""Constant tables of the kernels, every one built from ``belote_env.rules``.

Nothing here restates a rule: card points, trick strength, the cards that
beat a card, declaration runs and carres, bid values and the variant's
switches are read from the rules core, so the kernels cannot drift from it on
a constant. numba freezes these module-level arrays into the compiled code.
"""

from __future__ import annotations

import numpy as np

from ..observation import BIDDING_SYSTEMS, LEVELS, OBS_SIZE, SEGMENTS
from ..rewards import REWARD_KINDS, REWARD_SCALE
from ..rules.actions import BID, BID_VALUES, CAPOT_INDEX, GENERALE_INDEX, NUM_ACTIONS
from ..rules.cards import SUIT_MASK, strain_table
from ..rules.declarations import CARRE_MASKS, SEQUENCE_KINDS, SUIT_RUNS
from ..rules.scoring import FAILED, LITIGE, MADE, REDEAL
from ..rules.variant import COUNTINGS, RULESETS, SCORINGS, Variant
from . import layout as L

# --- cards -----------------------------------------------------------------

# [strain 0..5][rules 0 maison / 1 officielles][card]
POINTS = np.array(
    [[strain_table(s, r).points for r in RULESETS] for s in range(6)], dtype=np.int64
)
CARD_TOTAL = POINTS.sum(axis=2)
# Strength and the masks of higher cards do not depend on the rules.
STRENGTH = np.array([strain_table(s, "maison").strength for s in range(6)], dtype=np.int64)
HIGHER = np.array([strain_table(s, "maison").higher for s in range(6)], dtype=np.int64)
TRUMP_MASK = np.array([strain_table(s, "maison").trump_mask for s in range(6)], dtype=np.int64)
SUIT_MASKS = np.array(SUIT_MASK, dtype=np.int64)
# Bits of a byte: as floats (observation), their positions and count (action lists).
BYTE_FLOATS = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], dtype=np.float32)
BYTE_BOOLS = BYTE_FLOATS.astype(np.bool_)
BYTE_COUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
BYTE_BITS = np.array([[j for j in range(8) if b >> j & 1] + [0] * (8 - bin(b).count("1")) for b in range(256)],
                     dtype=np.int64)

# --- declarations ----------------------------------------------------------

# Runs of 3+ consecutive ranks in an 8-bit suit pattern: at most 2 per pattern.
RUN_COUNT = np.array([len(r) for r in SUIT_RUNS], dtype=np.int64)
RUN_START = np.zeros((256, 2), dtype=np.int64)
RUN_LENGTH = np.zeros((256, 2), dtype=np.int64)
for _b, _runs in enumerate(SUIT_RUNS):
    for _k, (_start, _length) in enumerate(_runs):
        RUN_START[_b, _k] = _start
        RUN_LENGTH[_b, _k] = _length
# Points of a sequence by length 0..8 (0 below a tierce).
SEQUENCE_POINTS = np.array(
    [0, 0, 0] + [SEQUENCE_KINDS.get(n, ("cent", 100))[1] for n in range(3, 9)], dtype=np.int64
)
CARRE_RANK = np.array([rank for rank, _, _ in CARRE_MASKS], dtype=np.int64)
CARRE_POINTS = np.array([pts for _, pts, _ in CARRE_MASKS], dtype=np.int64)
CARRE_CARDS = np.array([cards for _, _, cards in CARRE_MASKS], dtype=np.int64)

# --- calls and contracts ---------------------------------------------------

BID_VALUE = np.array(BID_VALUES, dtype=np.int64)
OUTCOMES = (MADE, FAILED, LITIGE, REDEAL)
LEVEL_INDEX = np.array([-1, LEVELS.index(1), LEVELS.index(2), -1, LEVELS.index(4)], dtype=np.int64)

# --- observation offsets (belote_env.observation.SEGMENTS) -------------------

O_HAND = SEGMENTS["hand"][0]
O_TURNUP = SEGMENTS["turnup"][0]
O_CALLS = SEGMENTS["calls"][0]
O_PASSES = SEGMENTS["passes"][0]
O_NUM_CALLS = SEGMENTS["num_calls"][0]
O_HIGH_CALL_SEAT = SEGMENTS["high_call_seat"][0]
O_CONTRACT_STRAIN = SEGMENTS["contract_strain"][0]
O_CONTRACT_VALUE = SEGMENTS["contract_value"][0]
O_CONTRACT_KIND = SEGMENTS["contract_kind"][0]
O_TAKER = SEGMENTS["taker"][0]
O_LEVEL = SEGMENTS["level"][0]
O_TRICK = SEGMENTS["trick"][0]
O_TRICK_LEADER = SEGMENTS["trick_leader"][0]
O_TRICK_WINNER = SEGMENTS["trick_winner"][0]
O_PLAYED = SEGMENTS["played"][0]
O_DECLARATIONS = SEGMENTS["declarations"][0]
O_DECLARATION_POINTS = SEGMENTS["declaration_points"][0]
O_BELOTE = SEGMENTS["belote"][0]
O_TRICK_NUMBER = SEGMENTS["trick_number"][0]
O_DEALER = SEGMENTS["dealer"][0]
O_CARD_POINTS = SEGMENTS["card_points"][0]
O_TRICKS_WON = SEGMENTS["tricks_won"][0]
O_PHASE = SEGMENTS["phase"][0]
O_BIDDING_SYSTEM = SEGMENTS["bidding_system"][0]
O_GAME = SEGMENTS["game"][0]
CALL_BLOCK = SEGMENTS["calls"][1] // 4


def variant_params(variant: Variant, reward: str = "score_diff", max_redeals: int | None = None) -> np.ndarray:
    """The switches of ``variant`` (and the reward kind, the redeal limit) as the int64 array the kernels read."""
    if reward not in REWARD_KINDS:
        raise ValueError(f"unknown reward {reward!r}; accepted: {', '.join(REWARD_KINDS)}")
    p = np.zeros(L.NUM_PARAMS, dtype=np.int64)
    p[L.P_FULL] = variant.deal == "full"
    p[L.P_BIDDING] = BIDDING_SYSTEMS.index(variant.bidding)
    p[L.P_SCORING] = SCORINGS.index(variant.scoring)
    p[L.P_COUNTING] = COUNTINGS.index(variant.counting)
    p[L.P_OFFICIELLES] = variant.rules == "officielles"
    p[L.P_OVERTRUMP_PARTNER] = variant.overtrump_partner
    p[L.P_UNDERTRUMP] = variant.undertrump
    p[L.P_DECLARATIONS] = variant.declarations
    p[L.P_NO_TRUMP] = variant.no_trump
    p[L.P_ALL_TRUMP] = variant.all_trump
    p[L.P_GENERALE] = variant.generale
    p[L.P_TARGET] = variant.target
    p[L.P_THRESHOLD_INCLUSIVE] = variant.threshold_inclusive
    p[L.P_MUST_BEAT_DEFENSE] = variant.must_beat_defense
    p[L.P_EPISODE_GAME] = variant.episode == "game"
    p[L.P_REWARD_WIN] = reward == "win"
    p[L.P_MAX_REDEALS] = max_redeals or 0
    strains = variant.strains
    p[L.P_NSTRAINS] = len(strains)
    p[L.P_STRAINS:L.P_STRAINS + len(strains)] = strains
    # Bids above a value index, as action-id bit words (bidding.auction_legal's list, precomputed).
    last = GENERALE_INDEX if variant.generale else CAPOT_INDEX
    for first in range(12):
        ids = [BID + 6 * vi + s for vi in range(first, last + 1) for s in strains]
        words = sum(1 << a for a in ids)
        lo, hi = words & (2**64 - 1), words >> 64
        p[L.P_BIDS + 2 * first] = lo - 2**64 if lo >= 2**63 else lo
        p[L.P_BIDS + 2 * first + 1] = hi
    return p


def reward_scale(variant: Variant) -> float:
    return REWARD_SCALE[variant.scoring]


assert OBS_SIZE == O_GAME + 4 and NUM_ACTIONS == 112
