"""The double-dummy solver against exhaustive minimax on the rules core, and on positions a player can check."""

import random

import pytest

from belote_env.rules.state import DealState
from belote_env.search import Position, Solver, dd_line, dd_value, dd_values
from belote_env.search.reference import minimax_diff, play_position
from belote_env.search.verify import SETTINGS, check_position, random_endgame, setting_variant, verify_setting


@pytest.mark.parametrize("index", range(len(SETTINGS)), ids=[s[0] for s in SETTINGS])
def test_endgames_match_minimax(index):
    # the full run (2,000 endgames per setting) is benchmarks/dev/verify_dd.py; this is a sample of it
    label, n, failures = verify_setting(index, 40, seed=1)
    assert failures == [], failures[:3]


def test_values_are_takes_of_the_team_to_act():
    v = setting_variant({})
    rng = random.Random(3)
    for _ in range(20):
        st = play_position(v, 1, rng, tricks_left=3, cards_in_trick=rng.randrange(4))
        vals = dd_values(st)
        assert set(vals) == set(st.legal_actions())
        remaining = sum(st.table.points[c] for c in st.trick) + sum(
            st.table.points[c] for h in st.hands for c in range(32) if h >> c & 1) + 10
        assert all(0 <= x <= remaining for x in vals.values())


def test_last_trick_is_its_cards_plus_dix_de_der():
    # one card in each hand: nothing to choose, the take is the trick and its 10 to the team that wins it
    v = setting_variant({})
    rng = random.Random(0)
    st = play_position(v, 1, rng, tricks_left=1)
    vals = dd_values(st)
    (card, take), = vals.items()
    line = dd_line(st)
    st2 = st.clone()
    for c in line:
        st2.apply(c)
    last = st2.tricks[-1]
    team = st.seat & 1
    assert take == (last.points + 10 if last.winner & 1 == team else 0)


def test_equivalent_cards_share_a_value():
    # a 7 and an 8 of one suit in one hand at no trump: touching, both worth 0, so the same value
    v = setting_variant({})
    rng = random.Random(5)
    for _ in range(30):
        st = play_position(v, 4, rng, tricks_left=4)
        vals = dd_values(st)
        hand = st.hands[st.seat]
        for c in vals:
            if c & 7 == 0 and hand >> (c + 1) & 1:  # 7 and 8 of a suit, both worth 0 at no trump
                assert vals[c] == vals[c + 1]


def test_capot_bonus_is_scored_only_for_every_trick():
    v = setting_variant({})
    rng = random.Random(11)
    solver = Solver(log2_tt=12, capot_bonus=90)
    for _ in range(15):
        st = play_position(v, 1, rng, tricks_left=3, cards_in_trick=rng.randrange(4))
        pos = Position(st)
        team = st.seat & 1
        diff = minimax_diff(st, capot_bonus=90)
        want = pos.take(diff, team, 90)
        assert solver.value(st) == want


def test_diffs_are_the_zero_sum_values_the_takes_are_read_from():
    from belote_env.search.reference import _card_diff

    v = setting_variant({})
    rng = random.Random(12)
    solver = Solver(log2_tt=12, capot_bonus=90)
    for _ in range(15):
        st = play_position(v, rng.randrange(6), rng, tricks_left=3, cards_in_trick=rng.randrange(4))
        pos = Position(st)
        diffs = solver.diffs_of(pos)
        assert sorted(diffs) == sorted(st.legal_actions())
        assert diffs == {c: _card_diff(st, c, 90, {}) for c in diffs}
        assert solver.values_of(pos) == {c: pos.take(d, st.seat & 1, 90) for c, d in diffs.items()}


def test_full_deal_value_matches_its_line():
    v = setting_variant({})
    rng = random.Random(2)
    st = play_position(v, 1, rng, tricks_left=6)
    best = dd_value(st)
    line = dd_line(st)
    from belote_env.search.verify import realized_take

    assert realized_take(st, line) == best


def test_needs_play_phase():
    v = setting_variant({})
    st = DealState.random(v, 0, random.Random(0))
    with pytest.raises(ValueError, match="play phase"):
        dd_values(st)


def test_check_position_finds_a_wrong_reference(monkeypatch):
    # the check can fail: a reference that is off by one is caught
    import belote_env.search.verify as verify

    monkeypatch.setattr(verify, "minimax_values", lambda st: {c: x + 1 for c, x in dd_values(st).items()})
    st = random_endgame(setting_variant({}), 1, random.Random(0))
    assert check_position(st)


def test_table_survives_its_stamp_wrapping():
    # entries carry the solve's stamp (27 bits); when it wraps the table is cleared, and values stay exact
    v = setting_variant({})
    rng = random.Random(9)
    positions = [play_position(v, 1, rng, tricks_left=4, cards_in_trick=rng.randrange(4)) for _ in range(6)]
    fresh = Solver(log2_tt=10)
    want = [fresh.values(st) for st in positions]
    solver = Solver(log2_tt=10)
    solver.values(positions[0])  # fills the table under a stamp
    solver.ctx[solver._dd.C_STAMP] = solver._dd.STAMP_LIMIT - 2
    got = [solver.values(st) for st in positions]  # the stamp wraps during these
    assert got == want
    assert solver.ctx[solver._dd.C_STAMP] < 10



# (setting, cards already in the trick): positions whose minimax takes seconds, not minutes (6 tricks left
# from a trick start takes up to a minute of the reference's time in all trumps)
SIX_TRICK_CASES = [(0, 2), (0, 3), (3, 1), (3, 2), (4, 2), (6, 3)]


@pytest.mark.parametrize("index,cards_in_trick", SIX_TRICK_CASES,
                         ids=[f"{SETTINGS[i][0]}, {k} in trick" for i, k in SIX_TRICK_CASES])
def test_six_trick_positions_match_minimax(index, cards_in_trick):
    # with 6 tricks or more left the solver also stores positions inside a trick in its table: check those
    # paths against minimax (the 3-4 trick endgames above never reach them)
    label, strain, switches = SETTINGS[index]
    variant = setting_variant(switches)
    rng = random.Random(100 + index)
    for k in range(cards_in_trick + 1):  # the same draws as a walk over 0, 1, ... cards in the trick
        state = play_position(variant, strain, rng, tricks_left=6, cards_in_trick=k)
    assert check_position(state) == [], label


@pytest.mark.parametrize("index", range(len(SETTINGS)), ids=[s[0] for s in SETTINGS])
def test_sure_points_never_exceed_the_take(index):
    # the bounds the search cuts on at trick starts: the leader's team wins at least its cashable masters
    # (with the cards the others must follow with), or in no trump and all trump those of the partner the
    # leader can reach, and a team at least its trumps above all the other's
    label, strain, switches = SETTINGS[index]
    variant = setting_variant(switches)
    rng = random.Random(200 + index)
    solver = Solver(log2_tt=12)
    dd = solver._dd
    checked = 0
    partner_more = 0
    for _ in range(25):
        state = play_position(variant, strain, rng, tricks_left=rng.choice([3, 4]))
        pos = Position(state)
        solver._prepare(pos)
        hands = pos.hands
        rem = int(hands[0] | hands[1] | hands[2] | hands[3])
        diff = minimax_diff(state)
        takes = ((diff + pos.total) // 2, (pos.total - diff) // 2)  # team 0's, team 1's
        quick = dd._quick_points(solver.ctx, hands, pos.seat, rem)
        assert quick <= takes[pos.seat & 1], (label, quick, takes)
        partner = dd._partner_points(solver.ctx, hands, pos.seat, rem)
        assert partner <= takes[pos.seat & 1], (label, partner, takes)
        team, top = dd._top_trumps(solver.ctx, hands, rem)
        assert top <= takes[team], (label, top, takes)
        checked += quick > 0 or top > 0
        partner_more += partner > quick
    assert checked >= 5  # the positions do exercise the bounds
    if strain >= 4:  # the partner's masters count in no trump and all trump only
        assert partner_more >= 1


def test_a_second_process_loads_the_cached_solver():
    # numba's disk cache once crashed (segmentation fault) or failed to link when a second process loaded the
    # recursive search: solve here (compiling and caching it), then in a fresh process from the cache
    import subprocess
    import sys

    code = ("import random\n"
            "from belote_env.search import dd_value\n"
            "from belote_env.search.reference import play_position\n"
            "from belote_env.search.verify import setting_variant\n"
            "st = play_position(setting_variant({}), 1, random.Random(5), tricks_left=4)\n"
            "print(dd_value(st))\n")
    st = play_position(setting_variant({}), 1, random.Random(5), tricks_left=4)
    want = dd_value(st)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) == want
