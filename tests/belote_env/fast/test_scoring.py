"""The kernels' deal scoring equals rules.score_deal on random facts, for every
scoring x counting x rules switch, contract kind and coinche level, and on the
worked examples of RULES.md section 9 (seed 004 rows)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from belote_env.fast import OUTCOMES
from belote_env.fast import kernels as K
from belote_env.fast import layout as L
from belote_env.fast.tables import CARD_TOTAL, variant_params
from belote_env.observation import CONTRACT_KINDS
from belote_env.rules import Contract, score_deal, strain_table
from belote_env.variants import load_variant

FAMILIES = [
    ("belote_classique", {}), ("belote_classique", {"rules": "officielles"}),
    ("belote_classique", {"declarations": False}),
    ("coinche", {}), ("coinche", {"rules": "officielles"}), ("coinche", {"declarations": True}),
    ("coinche", {"rules": "officielles", "declarations": True, "generale": True}),
    ("contree", {}), ("contree", {"rules": "maison"}), ("contree", {"must_beat_defense": True}),
    ("contree_annonces", {}), ("contree_annonces", {"must_beat_defense": True}),
    ("contree_faits_et_annonces", {}), ("contree_faits_et_annonces", {"no_trump": True, "all_trump": True}),
    ("cobrecaf_81", {}), ("cobrecaf_81", {"threshold_inclusive": True}), ("cobrecaf_81", {"rules": "officielles"}),
]


def _kinds(v):
    if v.scoring == "classic":
        return [("take", 0)]
    if v.scoring == "cobrecaf_81":
        return [("couleur", 81), ("en_face", 81), ("en_voiture", 81), ("capot", 81)]
    bids = [("bid", x) for x in range(80, 170, 10)] + [("capot", 250)]
    return bids + ([("generale", 500)] if v.generale else [])


def _random_facts(v, rng):
    kind, value = rng.choice(_kinds(v))
    strain = rng.choice(v.strains)
    level = 1 if v.scoring == "classic" else rng.choice((1, 2, 4))
    taker = rng.randrange(4)
    contract = Contract(taker, strain, value, kind, level, taker if kind != "en_face" else (taker + 2) & 3)
    total = strain_table(strain, v.rules).card_total
    r = rng.random()
    tricks = [0, 0, 0, 0]
    if r < 0.15:  # one seat takes everything (generale)
        tricks[rng.randrange(4)] = 8
    elif r < 0.35:  # a team capot
        team = rng.randrange(2)
        a = rng.randint(0, 8)
        tricks[team], tricks[team + 2] = a, 8 - a
    else:
        for _ in range(8):
            tricks[rng.randrange(4)] += 1
    t0 = tricks[0] + tricks[2]
    if t0 == 8:
        cards = [total, 0]
    elif t0 == 0:
        cards = [0, total]
    else:
        c0 = rng.randint(0, total)
        cards = [c0, total - c0]
    last = rng.choice([s for s in range(4) if tricks[s]])
    belote = [rng.choice((0, 0, 20)), rng.choice((0, 0, 20))]
    decl = [0, 0]
    if v.declarations:
        decl[rng.randrange(2)] = rng.choice((0, 20, 50, 70, 100, 150, 200, 320))
    garde = rng.choice((0, 0, 81, 76)) if v.scoring == "classic" else 0
    return contract, cards, tricks, last, belote, decl, garde


def _kernel_score(v, contract, cards, tricks, last, belote, decl, garde):
    row = np.zeros(L.NUM_COLUMNS, dtype=np.int64)
    row[L.C_TAKER] = contract.taker
    row[L.C_STRAIN] = contract.strain
    row[L.C_VALUE] = contract.value
    row[L.C_KIND] = CONTRACT_KINDS.index(contract.kind)
    row[L.C_LEVEL] = contract.level
    row[L.C_CALLER] = contract.caller
    row[L.POINTS_WON:L.POINTS_WON + 2] = cards
    row[L.TRICKS_WON:L.TRICKS_WON + 4] = tricks
    row[L.LAST_TRICK_SEAT] = last
    row[L.BELOTE_POINTS:L.BELOTE_POINTS + 2] = belote
    row[L.DECL_POINTS:L.DECL_POINTS + 2] = decl
    row[L.GARDE] = garde
    K.score_deal(variant_params(v), row)
    return [int(row[L.R_SCORE]), int(row[L.R_SCORE + 1])], OUTCOMES[row[L.R_OUTCOME]], int(row[L.R_GARDE_OUT])


@pytest.mark.parametrize("name,overrides", FAMILIES, ids=[f"{n}-{'-'.join(f'{k}={x}' for k, x in o.items())}" for n, o in FAMILIES])
def test_kernel_scoring_equals_score_deal_on_random_facts(name, overrides):
    v = load_variant(name, **overrides)
    rng = random.Random(f"{name}{overrides}")
    outcomes = set()
    for _ in range(3000):
        facts = _random_facts(v, rng)
        res = score_deal(v, *facts)
        got = _kernel_score(v, *facts)
        assert got == (res.scores, res.outcome, res.garde_out), (facts, got, res)
        outcomes.add(res.outcome)
    assert {"made", "failed"} <= outcomes


# RULES.md section 9, seed 004 rows (South = seat 0 takes in hearts): (variant, overrides, contract, cards, tricks, der seat, belote, decl, garde) -> scores
SPLIT, CAPOT_NS = [3, 2, 2, 1], [5, 0, 3, 0]
WORKED = [
    ("belote_classique", {}, Contract(0, 1, 0, "take", 1, 0), (82, 70), SPLIT, 0, (20, 0), (0, 0), 0, (112, 70)),
    ("belote_classique", {}, Contract(0, 1, 0, "take", 1, 0), (66, 86), SPLIT, 1, (20, 0), (0, 0), 0, (20, 162)),
    ("belote_classique", {}, Contract(0, 1, 0, "take", 1, 0), (71, 81), SPLIT, 0, (0, 0), (0, 0), 0, (0, 81)),
    ("belote_classique", {}, Contract(0, 1, 0, "take", 1, 0), (90, 62), SPLIT, 0, (0, 0), (0, 0), 81, (181, 62)),
    ("belote_classique", {}, Contract(0, 1, 0, "take", 1, 0), (152, 0), CAPOT_NS, 0, (0, 0), (0, 0), 0, (252, 0)),
    ("belote_classique", {}, Contract(0, 1, 0, "take", 1, 0), (72, 80), SPLIT, 1, (0, 0), (50, 0), 0, (122, 90)),
    ("belote_classique", {}, Contract(0, 4, 0, "take", 1, 0), (56, 64), SPLIT, 0, (0, 0), (0, 0), 0, (66, 64)),
    ("belote_classique_officielles", {}, Contract(0, 4, 0, "take", 1, 0), (76, 76), SPLIT, 1, (0, 0), (0, 0), 0, (0, 162)),
    ("coinche", {}, Contract(0, 1, 100, "bid", 1, 0), (98, 54), SPLIT, 0, (0, 0), (0, 0), 0, (208, 54)),
    ("coinche", {"rules": "officielles"}, Contract(0, 1, 100, "bid", 1, 0), (98, 54), SPLIT, 0, (0, 0), (0, 0), 0, (210, 50)),
    ("coinche", {}, Contract(0, 1, 100, "bid", 2, 0), (98, 54), SPLIT, 0, (0, 0), (0, 0), 0, (520, 0)),
    ("coinche", {}, Contract(0, 1, 100, "bid", 4, 0), (98, 54), SPLIT, 0, (0, 0), (0, 0), 0, (1040, 0)),
    ("coinche", {}, Contract(0, 1, 100, "bid", 2, 0), (80, 72), SPLIT, 1, (0, 0), (0, 0), 0, (0, 520)),
    ("coinche", {}, Contract(0, 1, 250, "capot", 1, 0), (152, 0), CAPOT_NS, 0, (0, 0), (0, 0), 0, (502, 0)),
    ("coinche", {"rules": "officielles"}, Contract(0, 1, 250, "capot", 2, 0), (152, 0), CAPOT_NS, 0, (0, 0), (0, 0), 0, (1000, 0)),
]


@pytest.mark.parametrize("row", WORKED, ids=range(len(WORKED)))
def test_worked_examples_of_rules_section_9(row):
    name, overrides, contract, cards, tricks, last, belote, decl, garde, want = row
    v = load_variant(name, **overrides)
    scores, _, _ = _kernel_score(v, contract, list(cards), tricks, last, list(belote), list(decl), garde)
    assert tuple(scores) == want
    assert CARD_TOTAL.shape == (6, 2)
