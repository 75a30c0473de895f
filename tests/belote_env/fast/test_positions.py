"""Kernels on given positions: dealing from given hands (turn-up and full deals),
perft counts against the golden data of tests/belote_env/rules/test_perft.py, and random
play-outs compared move by move with the rules core."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from belote_env.fast import OUTCOMES
from belote_env.fast import kernels as K
from belote_env.fast import layout as L
from belote_env.fast.tables import variant_params
from belote_env.observation import encode
from belote_env.rules import DealState, GameState, parse_cards
from belote_env.variants import load_variant, variant_names

PERFT = [
    dict(zip(("name", "counts", "position"), (p.strip() for p in line.split(" ; ", 2))))
    for line in (Path(__file__).resolve().parents[2] / "data" / "perft.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


@njit  # not cached: it reads the kernels' constants, which numba's cache would not track
def _perft(V, row, depth):
    if depth == 0:
        return 1
    lo, hi = K.legal_words(V, row)
    total = 0
    for a in range(112):
        if (lo >> a if a < 64 else hi >> (a - 64)) & 1:
            child = row.copy()
            K.apply_action(V, child, a)
            total += _perft(V, child, depth - 1)
    return total


def _kernel_row(v, dealer, hands, turnup=-1, stock=(), garde=0):
    S = np.zeros((1, L.NUM_COLUMNS), dtype=np.int64)
    masks = np.array([h if isinstance(h, int) else parse_cards(h) for h in hands], dtype=np.int64)
    K.deal_from_hands(variant_params(v), S, 0, dealer, garde, masks, turnup, np.array(list(stock) or [0] * 11, dtype=np.int64))
    return S[0]


@pytest.mark.parametrize("entry", PERFT, ids=[e["name"] for e in PERFT])
def test_perft_counts_match_the_golden_data(entry):
    st = DealState.parse(entry["position"])  # the project's notation
    V = variant_params(st.variant)
    row = _kernel_row(st.variant, st.dealer, list(st.initial))
    for a in st.history:
        K.legal_words(V, row)
        assert K.is_legal(row, a)
        K.apply_action(V, row, a)
    want = [int(x) for x in entry["counts"].split()]
    assert [_perft(V, row, d) for d in range(1, len(want) + 1)] == want


def _encode_kernel(V, row, seat):
    out = np.zeros(853, dtype=np.float32)
    K.encode(V, row, seat, out)
    return out


@pytest.mark.parametrize("name", variant_names())
def test_random_positions_from_hands_play_out_like_the_rules_core(name):
    v = load_variant(name)
    V = variant_params(v)
    rng = random.Random(name)
    for _ in range(60):
        deck = list(range(32))
        rng.shuffle(deck)
        dealer = rng.randrange(4)
        n = 8 if v.deal == "full" else 5
        hands = [sum(1 << c for c in deck[n * i:n * i + n]) for i in range(4)]
        turnup, stock = (-1, ()) if n == 8 else (deck[20], tuple(deck[21:]))
        garde = rng.choice((0, 0, 40))
        st = DealState.from_hands(v, dealer, hands, None if turnup < 0 else turnup, stock or None, garde)
        row = _kernel_row(v, dealer, hands, turnup, stock, garde)
        game = GameState(v, seed=0, dealer=dealer)
        game.deal, game.dealer, game.garde = st, dealer, garde
        while True:
            lo, hi = K.legal_words(V, row)
            legal = [a for a in range(112) if (lo >> a if a < 64 else hi >> (a - 64)) & 1]
            assert legal == st.legal_actions(), st.format()
            if st.is_over:
                break
            assert row[L.SEAT] == st.seat
            np.testing.assert_array_equal(_encode_kernel(V, row, st.seat), encode(game, st.seat), err_msg=st.format())
            a = rng.choice(legal)
            st.apply(a)
            K.apply_action(V, row, a)
        assert OUTCOMES[row[L.R_OUTCOME]] == st.result.outcome
        assert [row[L.R_SCORE], row[L.R_SCORE + 1]] == st.result.scores, st.format()
        assert row[L.R_GARDE_OUT] == st.result.garde_out
