"""The worked examples of RULES.md section 9, scored with score_deal and, for
several rows, played out card by card through the engine."""

from __future__ import annotations

import pytest

from belote_env.rules import STRAIN_NAMES, Contract, GameState, parse_action, round10, score_deal

from .helpers import AT, EAST, NORTH, NT, SOUTH, WEST, H, legal_names, play, position, variant

# Tricks by seat for a deal where both teams win tricks, and for a South-North capot.
SPLIT = [3, 2, 2, 1]
CAPOT_NS = [5, 0, 3, 0]
DER = {"NS": SOUTH, "EW": WEST}


def take(strain=H):
    return Contract(SOUTH, strain, 0, "take", 1, SOUTH)


def bid(value, strain=H, level=1, kind="bid"):
    return Contract(SOUTH, strain, value, kind, level, SOUTH)


# --- seed 004: belote classique ------------------------------------------

# (variant, strain, cards NS/EW, der, belote, declarations, tricks, garde in) -> (NS, EW, outcome, garde out)
CLASSIC_ROWS = [
    ("belote_classique", H, (82, 70), "NS", (20, 0), (0, 0), SPLIT, 0, (112, 70), "made", 0),
    ("belote_classique", H, (66, 86), "EW", (20, 0), (0, 0), SPLIT, 0, (20, 162), "failed", 0),
    ("belote_classique", H, (71, 81), "NS", (0, 0), (0, 0), SPLIT, 0, (0, 81), "litige", 81),
    ("belote_classique", H, (90, 62), "NS", (0, 0), (0, 0), SPLIT, 81, (181, 62), "made", 0),
    ("belote_classique", H, (152, 0), "NS", (0, 0), (0, 0), CAPOT_NS, 0, (252, 0), "made", 0),
    ("belote_classique", H, (72, 80), "EW", (0, 0), (50, 0), SPLIT, 0, (122, 90), "made", 0),
    ("belote_classique", NT, (56, 64), "NS", (0, 0), (0, 0), SPLIT, 0, (66, 64), "made", 0),
    ("belote_classique_officielles", NT, (76, 76), "EW", (0, 0), (0, 0), SPLIT, 0, (0, 162), "failed", 0),
]


@pytest.mark.parametrize(
    "vname, strain, cards, der, belote, decl, tricks, garde, expected, outcome, garde_out", CLASSIC_ROWS
)
def test_seed004_classic_rows(vname, strain, cards, der, belote, decl, tricks, garde, expected, outcome, garde_out):
    res = score_deal(variant(vname), take(strain), list(cards), tricks, DER[der], list(belote), list(decl), garde)
    assert tuple(res.scores) == expected
    assert res.outcome == outcome
    assert res.garde_out == garde_out


def test_classic_capot_dix_de_der_becomes_100():
    res = score_deal(variant("belote_classique"), take(), [152, 0], CAPOT_NS, NORTH)
    assert res.capot == 0
    assert res.dix_de_der == [100, 0]


def test_classic_dedans_by_capot_gives_defense_252():
    res = score_deal(variant("belote_classique"), take(), [0, 152], [0, 4, 0, 4], EAST, [20, 0])
    assert res.outcome == "failed"
    assert res.scores == [20, 252]


def test_classic_dedans_defense_takes_every_declaration_and_garde():
    # The taker's 20 of declarations go to the defense on a dedans, plus a garde held over.
    res = score_deal(variant("belote_classique"), take(), [60, 92], SPLIT, WEST, [0, 20], [20, 0], garde=40)
    assert res.outcome == "failed"
    assert res.scores == [0, 162 + 20 + 20 + 40]
    assert res.garde_out == 0


def test_litige_meeting_litige_grows_the_garde():
    res = score_deal(variant("belote_classique"), take(), [71, 81], SPLIT, SOUTH, garde=81)
    assert res.outcome == "litige"
    assert res.scores == [0, 81]
    assert res.garde_out == 162


# --- seed 004: coinche --------------------------------------------------

COINCHE_ROWS = [
    ("coinche", bid(100), (98, 54), "NS", SPLIT, (208, 54), "made"),
    ("coinche_officielles", bid(100), (98, 54), "NS", SPLIT, (210, 50), "made"),
    ("coinche", bid(100, level=2), (98, 54), "NS", SPLIT, (520, 0), "made"),
    ("coinche", bid(100, level=4), (98, 54), "NS", SPLIT, (1040, 0), "made"),
    ("coinche", bid(100, level=2), (80, 72), "EW", SPLIT, (0, 520), "failed"),
    ("coinche", bid(250, kind="capot"), (152, 0), "NS", CAPOT_NS, (502, 0), "made"),
    ("coinche_officielles", bid(250, level=2, kind="capot"), (152, 0), "NS", CAPOT_NS, (1000, 0), "made"),
]


@pytest.mark.parametrize("vname, contract, cards, der, tricks, expected, outcome", COINCHE_ROWS)
def test_seed004_coinche_rows(vname, contract, cards, der, tricks, expected, outcome):
    res = score_deal(variant(vname), contract, list(cards), tricks, DER[der])
    assert tuple(res.scores) == expected
    assert res.outcome == outcome


def test_coinche_capot_officielles_uncoinched_is_500():
    res = score_deal(variant("coinche_officielles"), bid(250, kind="capot"), [152, 0], CAPOT_NS, SOUTH)
    assert res.scores == [500, 0]


def test_coinche_reaching_the_bid_but_not_beating_the_defense_fails():
    # 80 reached (81) but the defense has 81 too: the taker must also finish ahead.
    res = score_deal(variant("coinche"), bid(80), [71, 81], SPLIT, SOUTH)
    assert res.outcome == "failed"
    assert res.scores == [0, 240]


def test_coinche_failed_capot_and_defense_belote():
    res = score_deal(variant("coinche"), bid(250, kind="capot"), [140, 12], [4, 1, 3, 0], SOUTH, [0, 20])
    assert res.outcome == "failed"
    assert res.scores == [0, 410 + 20]


def test_coinche_generale_needs_the_taker_alone():
    v = variant("coinche")
    gen = bid(500, kind="generale")
    assert score_deal(v, gen, [152, 0], [8, 0, 0, 0], SOUTH).scores == [752, 0]
    res = score_deal(v, gen, [152, 0], [7, 0, 1, 0], NORTH)
    assert res.outcome == "failed"
    assert res.scores == [0, 660]


# --- seed 002: contree ---------------------------------------------------

# The seed gives totals with the last trick included; here it goes to the taker.
@pytest.mark.parametrize(
    "bid_value, taker, defense, belote, outcome, faits, annonces",
    [
        (120, 127, 35, 0, "made", (130, 40), (120, 0)),
        (140, 138, 24, 0, "failed", (0, 160), (0, 140)),
        (100, 91, 71, 20, "made", (90 + 20, 70), (100 + 20, 0)),
        (150, 126, 36, 20, "failed", (20, 160), (20, 150)),
    ],
)
def test_seed002_contree_examples(bid_value, taker, defense, belote, outcome, faits, annonces):
    for vname, expected in (("contree", faits), ("contree_annonces", annonces)):
        res = score_deal(variant(vname), bid(bid_value), [taker - 10, defense], SPLIT, SOUTH, [belote, 0])
        assert res.outcome == outcome
        assert res.contract_points[0] == taker + belote
        assert tuple(res.scores) == expected, vname


def test_seed002_defense_belote_does_not_help_the_taker_fail():
    # Taker 100 on a bid of 100: made, even though the defense's 62 + 20 of belote would "beat" nothing.
    res = score_deal(variant("contree"), bid(100), [90, 62], SPLIT, SOUTH, [0, 20])
    assert res.outcome == "made"
    assert res.scores == [100, 60 + 20]
    res = score_deal(variant("contree"), bid(100), [89, 63], SPLIT, SOUTH, [0, 20])
    assert res.outcome == "failed"
    assert res.scores == [0, 160 + 20]


@pytest.mark.parametrize(
    "low, high, low_r, high_r",
    [(45, 117, 50, 120), (46, 116, 50, 120), (47, 115, 50, 120), (48, 114, 50, 110), (44, 118, 40, 120)],
)
def test_seed002_rounding_pairs(low, high, low_r, high_r):
    assert (round10(low), round10(high)) == (low_r, high_r)
    # The same pairs through points_faits: the taker made 80 with `high`, the defense has `low`.
    res = score_deal(variant("contree"), bid(80), [high - 10, low], SPLIT, SOUTH)
    assert res.scores == [high_r, low_r]
    # And with the last trick on the other side.
    res = score_deal(variant("contree"), bid(80), [high, low - 10], SPLIT, WEST)
    assert res.scores == [high_r, low_r]


def test_contree_table_rows():
    v = variant("contree")
    va = variant("contree_annonces")
    vfa = variant("contree_faits_et_annonces")
    # made m=2 / 4
    for m, faits in ((2, 320), (4, 640)):
        assert score_deal(v, bid(100, level=m), [120, 32], SPLIT, SOUTH).scores == [faits, 0]
        assert score_deal(va, bid(100, level=m), [120, 32], SPLIT, SOUTH).scores == [100 * m, 0]
        assert score_deal(vfa, bid(100, level=m), [120, 32], SPLIT, SOUTH).scores == [faits + 100 * m, 0]
    # capot made, not bid
    assert score_deal(v, bid(120), [152, 0], CAPOT_NS, SOUTH).scores == [250, 0]
    assert score_deal(va, bid(120), [152, 0], CAPOT_NS, SOUTH).scores == [120, 0]
    assert score_deal(v, bid(120, level=2), [152, 0], CAPOT_NS, SOUTH).scores == [500, 0]
    # capot bid and made / failed
    cap = bid(250, kind="capot")
    assert score_deal(v, cap, [152, 0], CAPOT_NS, SOUTH).scores == [500, 0]
    assert score_deal(va, cap, [152, 0], CAPOT_NS, SOUTH).scores == [250, 0]
    assert score_deal(v, bid(250, level=2, kind="capot"), [152, 0], CAPOT_NS, SOUTH).scores == [1000, 0]
    assert score_deal(v, bid(250, level=4, kind="capot"), [152, 0], CAPOT_NS, SOUTH).scores == [2000, 0]
    assert score_deal(v, cap, [150, 2], [4, 1, 3, 0], SOUTH).scores == [0, 500]
    assert score_deal(va, cap, [150, 2], [4, 1, 3, 0], SOUTH).scores == [0, 250]
    # failed, coinche
    assert score_deal(v, bid(100, level=2), [60, 92], SPLIT, WEST).scores == [0, 320]
    assert score_deal(va, bid(100, level=2), [60, 92], SPLIT, WEST).scores == [0, 200]
    # points_faits_et_annonces: made at m=1 the defense keeps its rounded points
    assert score_deal(vfa, bid(100), [117, 35], SPLIT, SOUTH).scores == [130 + 100, 40]
    assert score_deal(vfa, bid(140), [117, 35], SPLIT, SOUTH).scores == [0, 160 + 140]


def test_contree_must_beat_defense_switch():
    # 80 bid, taker 81, defense 81: made by default, failed with must_beat_defense.
    assert score_deal(variant("contree"), bid(80), [71, 81], SPLIT, SOUTH).outcome == "made"
    v = variant("contree", must_beat_defense=True)
    assert score_deal(v, bid(80), [71, 81], SPLIT, SOUTH).outcome == "failed"


# --- seed 000: 81 points --------------------------------------------------

def call81(kind, level=1, strain=H):
    return Contract(SOUTH, strain, 81, kind, level, SOUTH)


@pytest.mark.parametrize("level, expected", [(1, 162), (2, 243), (4, 405)])
def test_seed000_en_voiture_made(level, expected):
    res = score_deal(variant("cobrecaf_81"), call81("en_voiture", level), [100, 52], SPLIT, SOUTH)
    assert res.outcome == "made"
    assert res.scores == [expected, 0]


@pytest.mark.parametrize("level, expected", [(1, 162), (2, 243), (4, 405)])
def test_seed000_couleur_failed(level, expected):
    res = score_deal(variant("cobrecaf_81"), call81("couleur", level), [60, 92], SPLIT, WEST)
    assert res.outcome == "failed"
    assert res.scores == [0, expected]


def test_seed000_capot_made_is_162_not_252():
    res = score_deal(variant("cobrecaf_81"), call81("capot"), [152, 0], CAPOT_NS, SOUTH)
    assert res.outcome == "made"
    assert res.scores == [162, 0]
    assert sum(res.dix_de_der) == 10


def test_seed000_capot_missed_by_one_trick_fails_despite_points():
    res = score_deal(variant("cobrecaf_81"), call81("capot"), [150, 2], [4, 1, 3, 0], SOUTH)
    assert res.outcome == "failed"
    assert res.scores == [0, 162]


def test_seed000_couleur_made_and_threshold():
    v = variant("cobrecaf_81")
    # made: 81 x m + surplus, defense keeps its points
    assert score_deal(v, call81("couleur"), [90, 62], SPLIT, SOUTH).scores == [100, 62]
    assert score_deal(v, call81("couleur", 2), [90, 62], SPLIT, SOUTH).scores == [162 + 19, 62]
    assert score_deal(v, call81("en_face", 4), [90, 62], SPLIT, SOUTH).scores == [324 + 19, 62]
    # exactly 81: failed by default (must exceed), made with threshold_inclusive
    assert score_deal(v, call81("couleur"), [71, 81], SPLIT, SOUTH).outcome == "failed"
    vi = variant("cobrecaf_81", threshold_inclusive=True)
    res = score_deal(vi, call81("couleur"), [71, 81], SPLIT, SOUTH)
    assert res.outcome == "made"
    assert res.scores == [81, 81]


def test_seed000_belote_never_counts_for_the_contract_but_is_kept():
    v = variant("cobrecaf_81")
    res = score_deal(v, call81("couleur"), [70, 82], SPLIT, SOUTH, [20, 0])
    assert res.outcome == "failed"  # 80 + 20 of belote would pass 81, but belote does not count
    assert res.scores == [20, 162]
    res = score_deal(v, call81("en_voiture"), [100, 52], SPLIT, SOUTH, [0, 20])
    assert res.scores == [162, 20]


# --- seed 004: the trick example -----------------------------------------

TRICK_HANDS = [
    "AS 7H 8H 9H 10H QH KH AH",  # South
    "8S 9S 10S JD QD 10D AD AC",  # West
    "7S JS QS KS 10C JC QC KC",  # North
    "JH 7D 8D 9D KD 7C 8C 9C",  # East
]


def test_seed004_trick_example_through_the_engine():
    st = position("coinche", TRICK_HANDS, "80 H, pass, pass, pass, AS, 10S, 7S")
    assert st.current_seat == EAST
    assert legal_names(st) == {"JH"}
    play(st, "JH")
    trick = st.tricks[0]
    assert trick.winner == EAST
    assert trick.points == 11 + 10 + 0 + 20 == 41
    assert st.points == [0, 41]
    assert st.current_seat == EAST  # the winner leads the next trick


# --- end to end: deals played card by card --------------------------------

E2E = [
    # (variant, hands, turn-up, stock, moves, garde, cards NS/EW, scores, outcome)
    (
        "belote_classique",
        ["9D 10D QD 7C 9C", "8S AS 8D JC KC", "JS QS QH 7D 8C", "10S 7H JD QC AC"],
        "AH",
        "JH 10C 9H KS 8H KD KH 9S 10H AD 7S",
        "take H, 10D, 8D, KD, JD, 9C, KC, 8C, AC, 10S, JH, 8S, JS, QD, 9H, 7D, AD, AS, 9S, 7S, AH, 7C, JC, "
        "KH, QC, QS, 10H, 10C, KS, 7H, 9D, 8H, QH",
        0,
        [82, 70],
        [112, 70],
        "made",
    ),
    (
        "belote_classique",
        ["9D 10D QD 7C 9C", "8S AS 8D JC KC", "JS QS QH 7D 8C", "10S 7H JD QC AC"],
        "AH",
        "JH 10C 9H KS 8H KD KH 9S 10H AD 7S",
        "take H, 10D, 8D, KD, JD, JH, 9H, QH, 7H, QD, 8H, 7D, AD, 8S, JS, 7S, AH, 7C, KC, 8C, QC, KS, QS, "
        "10S, 9D, 10H, 9C, JC, KH, AC, 10C, AS, 9S",
        0,
        [66, 86],
        [20, 162],
        "failed",
    ),
    (
        "belote_classique",
        ["10H KH 8D 10D 10C", "8S QH JD AD AC", "10S KS 7H AH 7D", "7S JS 9D QD KD"],
        "9H",
        "8C 7C QS 9S JH KC 8H QC JC AS 9C",
        "take H, 7C, AC, QC, 9C, QS, KS, 7S, 10H, 10D, AD, 7D, 9D, JH, AH, JS, KH, JD, 8H, QD, 8D, KC, JC, "
        "8C, QH, 8S, 10S, AS, 9H, 10C, 9S, 7H, KD",
        0,
        [71, 81],
        [0, 81],
        "litige",
    ),
    (
        "belote_classique",
        ["8H QH KD 10C KC", "10S QS 7H 7D 8D", "7S KS 9H 9D 9C", "KH JD QD 7C 8C"],
        "JH",
        "9S QC 10H 10D 8S AC AD AS AH JC JS",
        "take H, 9S, QS, KS, JS, 9D, JD, KD, 10D, 7H, 9H, KH, JH, QC, 10H, AC, 8C, 8S, 7S, QD, QH, 8H, 8D, "
        "AD, AH, JC, KC, 10S, 9C, 10C, 7D, AS, 7C",
        81,
        [90, 62],
        [181, 62],
        "made",
    ),
    (
        "coinche",
        ["QS KS AS 8H 8D 10C QC AC", "JS KH 7D JD QD AD 7C 8C", "10S 7H 10H JH QH AH KD 9C",
         "7S 8S 9S 9H 9D 10D JC KC"],
        None,
        None,
        "100 H, pass, pass, pass, 8H, KH, AH, 9H, 8S, KS, JS, 10S, 10H, 9D, 10C, QD, 9C, JC, AC, 8C, AS, 7C, "
        "JH, 7S, KD, 10D, 8D, AD, JD, QH, 9S, QC, 7H, KC, QS, 7D",
        0,
        [98, 54],
        [208, 54],
        "made",
    ),
    (
        "coinche",
        ["8S 10S KS JH 9D 10D JD KC", "7S JS QS 8H QH 8D 7C 9C", "9S AS 9H KH 7D QD KD AC",
         "7H 10H AH AD 8C 10C JC QC"],
        None,
        None,
        "100 H, coinche, pass, pass, pass, KC, 7C, AC, QC, 7D, AD, JD, 8D, 10C, JH, 9C, QD, 9D, QH, KD, 8C, "
        "JS, AS, AH, 10S, JC, 10D, QS, 9H, 9S, 7H, KS, 7S, 10H, 8S, 8H, KH",
        0,
        [80, 72],
        [0, 520],
        "failed",
    ),
    (
        "contree",
        ["10S QS AS 7H QH KH JD 10C", "8S 9S JS KS 8H 10H 10D AD", "7S JH AH 7D 9C JC QC KC",
         "9H 8D 9D QD KD 7C 8C AC"],
        None,
        None,
        "100 H, pass, pass, pass, AS, 9S, 7S, 9H, KD, JD, 10D, 7D, AD, JH, QD, 10C, 9C, 7C, QS, 8H, 8S, AH, "
        "8C, 10S, QC, AC, QH, 10H, JS, JC, 9D, KH, 7H, KS, KC, 8D",
        0,
        [81, 71],
        [110, 70],
        "made",
    ),
    (
        "cobrecaf_81",
        ["10S AS 10D JD QC", "7S QS 9H KH 9C", "9S 8D QD AD 10C", "JS KS 9D KD 8C"],
        "10H",
        "KC 8H JH AH 7D 7H 8S QH JC AC 7C",
        "en_voiture H, pass, pass, pass, KC, 9C, 10C, JC, 7H, 8C, 8H, JH, 7D, AD, KD, 10D, 8S, JS, 10S, 7S, "
        "AS, QS, 9S, KS, JD, AH, QD, 9D, KH, QH, AC, 10H, QC, 9H, 8D, 7C",
        0,
        [99, 53],
        [162, 0],
        "made",
    ),
    (
        "cobrecaf_81",
        ["10S AS 10D JD QC", "7S QS 9H KH 9C", "9S 8D QD AD 10C", "JS KS 9D KD 8C"],
        "10H",
        "KC 8H JH AH 7D 7H 8S QH JC AC 7C",
        "take H, pass, pass, pass, JD, 7D, QD, 9D, 8D, KD, 10D, KH, 7S, 8S, JS, AS, 10S, QS, 9S, KS, QC, 9C, "
        "10C, 8C, 7H, 7C, 10H, 9H, JH, QH, AC, 8H, AH, AD, JC, KC",
        0,
        [48, 104],
        [0, 162],
        "failed",
    ),
]


@pytest.mark.parametrize("vname, hands, turnup, stock, moves, garde, cards, scores, outcome", E2E)
def test_worked_examples_played_through_the_engine(vname, hands, turnup, stock, moves, garde, cards, scores, outcome):
    st = position(vname, hands, moves, turnup=turnup, stock=stock, garde=garde)
    assert st.is_over
    res = st.result
    assert res.card_points == cards
    assert res.scores == scores
    assert res.outcome == outcome
    # Each trick's points are the sum of its cards, and the winner led the next trick.
    table = st.table
    for i, t in enumerate(st.tricks):
        assert t.points == sum(table.points[c] for c in t.cards)
        if i + 1 < 8:
            assert st.tricks[i + 1].leader == t.winner
    assert sum(t.points for t in st.tricks) == sum(cards)
    # Re-scoring the facts of the played deal gives the same scores.
    again = score_deal(st.variant, st.contract, res.card_points, st.tricks_won, st.tricks[-1].winner,
                       res.belote, res.declarations, garde)
    assert again.scores == scores


def test_classic_belote_row_events_in_order():
    vname, hands, turnup, stock, moves, *_ = E2E[0]
    st = position(vname, hands, moves, turnup=turnup, stock=stock)
    assert [(e.seat, e.kind) for e in st.belote_events] == [(NORTH, "belote"), (NORTH, "rebelote")]
    assert st.result.belote == [20, 0]


def test_litige_garde_goes_to_next_deal_through_game_state():
    # A litige deal followed by a made deal: the GameState carries the garde.
    v = variant("belote_classique", episode="game")
    g = GameState(v, seed=0, dealer=EAST)
    litige = E2E[2]
    following = E2E[3]
    g.deal = position(v, litige[1], "", turnup=litige[2], stock=litige[3])
    for name in litige[4].split(","):
        g.apply(parse_action(name))
    assert g.results[-1].outcome == "litige"
    assert g.garde == 81
    assert g.scores == [0, 81]
    assert g.deal.garde == 81  # the fresh deal starts with the garde
    assert g.dealer == SOUTH
    nxt = position(v, following[1], "", dealer=EAST, turnup=following[2], stock=following[3], garde=g.garde)
    g.deal = nxt
    for name in following[4].split(","):
        g.apply(parse_action(name))
    assert g.results[-1].scores == [181, 62]
    assert g.scores == [181, 143]
    assert g.garde == 0


@pytest.mark.parametrize(
    "strain, total, scores",
    [
        (H, 162, [252 + 20 + 250, 0]),  # South's K+Q of hearts
        (NT, 130, [220 + 250, 0]),  # no belote at no trump; 120 + 100 maison
        (AT, 162, [252 + 40 + 250, 40]),  # every K+Q pair: South and North, West and East
    ],
)
def test_announced_capot_through_engine(strain, total, scores):
    # South holds all eight hearts and leads them: every trick to South, capot.
    hands = ["7H 8H 9H 10H JH QH KH AH", "7S 8S 9S 10S JS QS KS AS", "7D 8D 9D 10D JD QD KD AD",
             "7C 8C 9C 10C JC QC KC AC"]
    st = position("coinche", hands, f"capot {STRAIN_NAMES[strain]}, pass, pass, pass")
    while not st.is_over:
        st.apply(st.legal_actions()[0])
    res = st.result
    assert res.tricks == [8, 0]
    assert res.capot == 0
    assert sum(res.card_points) + sum(res.dix_de_der) == total - 10 + 100
    assert res.outcome == "made"
    assert res.scores == scores
