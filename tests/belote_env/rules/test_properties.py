"""Invariants over thousands of seeded random deals and games, for every variant file.

The number of deals per variant is 2000 by default; set BELOTE_TEST_DEALS to
run more (or fewer).
"""

from __future__ import annotations

import os
import random

import pytest

from belote_env.rules import (
    DONE,
    PLAY,
    DealState,
    GameState,
    card_name,
    cards_of,
    score_deal,
)

from .helpers import VARIANT_NAMES, variant

N_DEALS = int(os.environ.get("BELOTE_TEST_DEALS", "2000"))

# Card points written out from RULES.md section 1, by rank text.
TRUMP = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
NT_OFF = dict(PLAIN, A=19)
ALL = {"J": 14, "9": 9, "A": 6, "10": 5, "K": 3, "Q": 1, "8": 0, "7": 0}
SUITS = "SHDC"


def card_points(name: str, strain: int, rules: str) -> int:
    rank, suit = name[:-1], name[-1]
    if strain == 5:
        return ALL[rank]
    if strain == 4:
        return (NT_OFF if rules == "officielles" else PLAIN)[rank]
    return TRUMP[rank] if SUITS.index(suit) == strain else PLAIN[rank]


def expected_belote(st: DealState) -> list[int]:
    """20 per K+Q of trump (every suit at all trumps, none at no trump) held by one player."""
    strain = st.contract.strain
    suits = [] if strain == 4 else range(4) if strain == 5 else [strain]
    out = [0, 0]
    for seat in range(4):
        held = {card_name(c) for c in cards_of(st.hands[seat] | st.played[seat])}
        for s in suits:
            if {"K" + SUITS[s], "Q" + SUITS[s]} <= held:
                out[seat & 1] += 20
    return out


def check_deal_start(st: DealState) -> None:
    size = 8 if st.variant.deal == "full" else 5
    assert [h.bit_count() for h in st.hands] == [size] * 4
    union = 0
    for h in st.hands:
        assert union & h == 0
        union |= h
    if size == 8:
        assert union == (1 << 32) - 1
    else:
        assert len(st.stock) == 11 and st.turnup >= 0
        rest = {st.turnup, *st.stock}
        assert len(rest) == 12 and not any(union >> c & 1 for c in rest)
        assert union | sum(1 << c for c in rest) == (1 << 32) - 1


def play_checked(st: DealState, rng: random.Random) -> None:
    """Play random legal actions to the end, checking the per-move invariants."""
    started = False
    while st.phase != DONE:
        legal = st.legal_actions()
        assert legal, st.format()
        assert legal == sorted(set(legal))
        mask = st.legal_mask()
        assert mask == sum(1 << a for a in legal)
        if st.phase == PLAY:
            if not started:
                started = True
                assert [h.bit_count() for h in st.hands] == [8, 8, 8, 8]
                union = 0
                for h in st.hands:
                    assert union & h == 0
                    union |= h
                assert union == (1 << 32) - 1
            hand = st.hands[st.seat]
            assert all(a < 32 and hand >> a & 1 for a in legal), st.format()
        else:
            assert all(a >= 32 for a in legal)
        st.apply(rng.choice(legal))
    assert st.legal_actions() == []
    assert st.current_seat == -1


def check_result(st: DealState) -> None:
    res = st.result
    v = st.variant
    if res.outcome == "redeal":
        assert st.contract is None and res.scores == [0, 0]
        return
    c = st.contract
    # Card points recomputed from the tricks with the table of RULES.md 1.
    pts = [0, 0]
    for t in st.tricks:
        assert len(t.cards) == 4
        p = sum(card_points(card_name(x), c.strain, v.rules) for x in t.cards)
        assert t.points == p
        pts[t.winner & 1] += p
    assert res.card_points == pts
    tricks = [0, 0]
    for t in st.tricks:
        tricks[t.winner & 1] += 1
    assert res.tricks == tricks and sum(tricks) == 8
    card_total = 120 if c.strain == 4 and v.rules == "maison" else 152
    assert sum(pts) == card_total
    capot = 8 in tricks
    big_der = capot and v.scoring in ("classic", "coinche")
    assert sum(res.dix_de_der) == (100 if big_der else 10)
    assert res.dix_de_der[st.tricks[-1].winner & 1] == sum(res.dix_de_der)
    total = sum(pts) + sum(res.dix_de_der)
    if v.scoring in ("cobrecaf_81", "contree"):
        assert total == 162
    elif capot:
        assert total == card_total + 100  # 252 with a trump suit or at all trumps
    else:
        assert total == (130 if c.strain == 4 and v.rules == "maison" else 162)
    # Belote from the hands, in events: belote then rebelote per pair.
    assert res.belote == expected_belote(st)
    kinds = [e.kind for e in st.belote_events]
    assert kinds.count("belote") == kinds.count("rebelote") == sum(res.belote) // 20
    # The scores are what the breakdown implies.
    again = score_deal(v, c, res.card_points, st.tricks_won, st.tricks[-1].winner, res.belote,
                       res.declarations, st.garde)
    assert again.scores == res.scores and again.outcome == res.outcome
    assert min(res.scores) >= 0
    if res.outcome == "made":
        assert res.scores[c.team] > 0
    if res.outcome == "failed":
        assert res.scores[c.team] == res.belote[c.team]


@pytest.mark.parametrize("vname", VARIANT_NAMES)
def test_random_deals_invariants(vname):
    v = variant(vname)
    rng = random.Random(VARIANT_NAMES.index(vname))
    played = 0
    outcomes = set()
    for i in range(N_DEALS):
        st = DealState.random(v, i % 4, rng)
        check_deal_start(st)
        play_checked(st, rng)
        check_result(st)
        outcomes.add(st.result.outcome)
        played += st.result.outcome != "redeal"
    assert played > N_DEALS // 2
    assert {"made", "failed"} <= outcomes


@pytest.mark.parametrize("vname", VARIANT_NAMES)
def test_clone_and_notation_at_random_points(vname):
    v = variant(vname)
    rng = random.Random(100 + VARIANT_NAMES.index(vname))
    for i in range(max(N_DEALS // 10, 20)):
        st = DealState.random(v, i % 4, rng)
        stop = rng.randrange(45)
        while st.phase != DONE and len(st.history) < stop:
            st.apply(rng.choice(st.legal_actions()))
        text = st.format()
        legal = list(st.legal_actions())
        # format / parse round trip
        back = DealState.parse(text)
        assert back == st
        assert back.format() == text
        assert back.legal_actions() == legal
        assert back.hands == st.hands and back.points == st.points and back.phase == st.phase
        # a clone played to the end leaves the original untouched
        c = st.clone()
        assert c == st
        while c.phase != DONE:
            c.apply(rng.choice(c.legal_actions()))
        assert st.format() == text
        assert st.legal_actions() == legal
        assert DealState.parse(text) == st
        if st.phase != DONE:
            st.apply(rng.choice(legal))  # and the original still plays on
            assert st.format() != text


@pytest.mark.parametrize("vname", VARIANT_NAMES)
def test_same_seed_same_deal(vname):
    v = variant(vname)
    for seed in range(20):
        a = DealState.random(v, seed % 4, random.Random(seed))
        b = DealState.random(v, seed % 4, random.Random(seed))
        assert a == b and a.format() == b.format()
        ra, rb = random.Random(seed), random.Random(seed)
        while not a.is_over:
            a.apply(ra.choice(a.legal_actions()))
            b.apply(rb.choice(b.legal_actions()))
        assert a.history == b.history and a.result.scores == b.result.scores
    first = {DealState.random(v, 0, random.Random(s)).format() for s in range(20)}
    assert len(first) == 20  # different seeds, different deals


def play_game(v, seed):
    g = GameState(v, seed=seed)
    rng = random.Random(seed)
    dealers = [g.deal.dealer]
    gardes = [g.deal.garde]
    while not g.over:
        res = g.apply(rng.choice(g.legal_actions()))
        if res is not None and not g.over:
            dealers.append(g.deal.dealer)
            gardes.append(g.deal.garde)
    return g, dealers, gardes


@pytest.mark.parametrize("vname", VARIANT_NAMES)
def test_games_to_the_target(vname):
    v = variant(vname, episode="game")
    for seed in range(6):
        g, dealers, gardes = play_game(v, seed)
        assert g.over and g.legal_actions() == [] and g.current_seat == -1
        w = g.winner
        assert w in (0, 1)
        assert g.scores[w] >= v.target
        assert g.scores[w] > g.scores[1 - w]
        assert [sum(r.scores[k] for r in g.results) for k in (0, 1)] == g.scores
        # the game stopped at the first deal that put a team at the target with a strict lead
        running = [0, 0]
        for r in g.results[:-1]:
            running = [running[0] + r.scores[0], running[1] + r.scores[1]]
            assert not (max(running) >= v.target and running[0] != running[1])
        # the dealer rotates one seat per deal, redeals included
        assert all((b - a) % 4 == 1 for a, b in zip(dealers, dealers[1:]))
        assert len(dealers) == len(g.results)
        # the garde a deal starts with is the garde the previous deal left
        for r, gin in zip(g.results, gardes):
            assert r.garde_in == gin
        for r, nxt in zip(g.results, gardes[1:]):
            assert nxt == r.garde_out
        g2, _, _ = play_game(v, seed)
        assert [r.scores for r in g2.results] == [r.scores for r in g.results]


def test_classic_games_carry_the_garde():
    # Over many classic deals a litige happens; the garde goes to the winner of the next scored deal.
    v = variant("belote_classique", episode="game", target=10**6)
    g = GameState(v, seed=3)
    rng = random.Random(3)
    seen = 0
    while len(g.results) < 1500:
        res = g.apply(rng.choice(g.legal_actions()))
        if res is None:
            continue
        if res.outcome == "litige":
            seen += 1
            c = res.contract
            assert res.scores[c.team] == 0
            assert res.garde_out == res.garde_in + res.contract_points[c.team]
            assert g.garde == res.garde_out == g.deal.garde
        elif res.outcome in ("made", "failed") and res.garde_in:
            winner = res.contract.team if res.outcome == "made" else 1 - res.contract.team
            base = score_deal(v, res.contract, res.card_points, [res.tricks[0], res.tricks[1], 0, 0],
                              res.last_trick, res.belote, res.declarations, 0)
            assert res.scores[winner] == base.scores[winner] + res.garde_in
            assert res.garde_out == 0 and g.garde == 0
    assert seen >= 3


def test_episode_deal_ends_after_first_scored_deal():
    v = variant("coinche")
    assert v.episode == "deal"
    for seed in range(30):
        g = GameState(v, seed=seed)
        rng = random.Random(seed)
        while not g.over:
            g.apply(rng.choice(g.legal_actions()))
        assert [r.outcome for r in g.results][:-1] == ["redeal"] * (len(g.results) - 1)
        assert g.results[-1].outcome != "redeal"
        s = g.scores
        assert g.winner == (0 if s[0] > s[1] else 1 if s[1] > s[0] else -1)


def test_game_clone_is_independent():
    v = variant("coinche", episode="game", target=10**6)
    g = GameState(v, seed=5)
    rng = random.Random(5)
    while not (g.results and len(g.deal.history) >= 10):
        g.apply(rng.choice(g.legal_actions()))
    assert not g.over
    before = (g.deal.format(), list(g.scores), len(g.results))
    c = g.clone()
    while not c.over:
        c.apply(rng.choice(c.legal_actions()))
    assert (g.deal.format(), list(g.scores), len(g.results)) == before
