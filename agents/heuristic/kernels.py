"""The ``heuristic`` agent's rules, once, as numba kernels (what :class:`agents.heuristic.HeuristicAgent` plays).

:func:`decide` takes one engine info row (``VectorEnv.info_rows``: a table's row
with every card its seat to act may not know cleared, so the kernel cannot read
another seat's hand any more than the agent can) and returns the heuristic's
action; :func:`act_rows` decides for many rows at once. ``HeuristicAgent.act``
builds the row from its ``InfoState`` (``belote_env.vector.info_row``) and
calls :func:`decide`; :func:`estimate` and :func:`defense` are the bidding's
hand estimates (``estimate_points``, ``defense_points``). Ties go to the first
of equal keys, as Python's ``min``/``max`` would.

The play loop (``agents.loop.Runner``) calls :func:`act_rows` where the
heuristic sits at engine tables (tournaments, evaluation, training opponents,
warm-start recording), and :func:`play_to_learner` plays the heuristic's seats
of ``agents.arena.single_seat.SingleSeatVectorEnv`` inside the engine: whole
episodes run at about a million decisions a second, the engine's steps
included (``python benchmarks/bench_agents.py``).

Rows are read through ``belote_env.fast.layout`` (``L.HAND``, ``L.P_BIDDING``...).
Imported through ``belote_env.numba_cache.import_cached`` (:func:`kernels` in
``agents.heuristic``), so its compiled code is cached with the engine's and a
change to this file recompiles it.
"""

from __future__ import annotations

import numpy as np

from belote_env.fast import layout as L
from belote_env.fast.kernels import (
    apply_step,
    beats,
    info_row,
    is_legal,
    kernel,
    legal_words,
    nth_legal,
    observe_table,
    popcount,
)
from belote_env.fast.tables import BID_VALUE, HIGHER, POINTS, STRENGTH, SUIT_MASKS
from belote_env.rules.actions import BID, COINCHE, EN_FACE, EN_VOITURE, NUM_ACTIONS, PASS, SURCOINCHE, TAKE
from belote_env.rules.cards import JACK, NINE, NO_TRUMP

MASTER_PENALTY = 12  # points a master card is worth keeping rather than giving away
# Calibration: expected team points = BASE + SCALE * features, per deal type ("full": 8 cards known; "turn_up":
# 5 cards + the turn-up), fitted by regressing the points made in heuristic-played deals on the features.
CALIBRATION = {
    "full": {"suit": (52.9, 1.07), "nt": (51.2, 0.60), "at": (73.2, 0.61)},
    "turn_up": {"suit": (65.3, 0.95), "nt": (60.0, 0.60), "at": (80.0, 0.61)},
}
# CALIBRATION as [full deal?][suit, no trump, all trump][base, scale]
_CAL = np.array([[CALIBRATION[deal][kind] for kind in ("suit", "nt", "at")] for deal in ("turn_up", "full")],
                dtype=np.float64)
_R7, _R8, _R9, _R10, _RJ, _RQ, _RK, _RA = (1 << r for r in range(8))
_BID_80 = BID_VALUE[0]
assert all(BID_VALUE[i] == _BID_80 + 10 * i for i in range(9)), "the kernel indexes bid values 80..160 by tens"


@kernel(inline="always")
def _byte(hand, suit):
    return (hand >> (8 * suit)) & 0xFF


@kernel
def trump_features(hand, trump, belote_counts):
    """Taker strength of ``hand`` (a card mask) with ``trump`` as trump, in rough card points (before
    calibration): trump jack and nine, ace and ten, length; outside aces and guarded tens; voids next to long
    trumps; belote where it counts (``belote_counts``)."""
    tr = _byte(hand, trump)
    n = popcount(tr)
    v = 0.0
    if tr & _RJ:
        v += 22
    if tr & _R9:
        v += 16 if (tr & _RJ or n >= 3) else 9
    if tr & _RA:
        v += 10
    if tr & _R10:
        v += 7
    v += 4 * (tr & _RK != 0) + 4 * (tr & _RQ != 0) + 2 * (tr & _R8 != 0) + 2 * (tr & _R7 != 0)
    if belote_counts and tr & _RK and tr & _RQ:
        v += 20
    if n >= 4:
        v += 8 * (n - 3)
    for o in range(4):
        if o == trump:
            continue
        x = _byte(hand, o)
        cnt = popcount(x)
        if x & _RA:
            v += 13
            if x & _R10:
                v += 9
        elif x & _R10 and cnt >= 3:
            v += 3
        if n >= 3:
            if cnt == 0:
                v += 6
            elif cnt == 1 and not x & _RA:
                v += 2
    return v


@kernel
def no_trump_features(hand, officielles):
    """Taker strength at no trump: aces, tens behind them, long solid suits."""
    v = 0.0
    ace = 19 if officielles else 11
    for s in range(4):
        x = _byte(hand, s)
        cnt = popcount(x)
        if x & _RA:
            v += ace + 6
            if x & _R10:
                v += 14
                if x & _RK:
                    v += 6
                v += 4 * max(0, cnt - 3)
        elif x & _R10 and cnt >= 3:
            v += 2
        elif cnt == 0:
            v -= 4
    return v


@kernel
def all_trump_features(hand):
    """Taker strength at all trumps: jacks, nines behind them, length."""
    v = 0.0
    for s in range(4):
        x = _byte(hand, s)
        cnt = popcount(x)
        if x & _RJ:
            v += 20
            if x & _R9:
                v += 14
                v += 3 * max(0, cnt - 2)
        elif x & _R9 and cnt >= 3:
            v += 4
        if cnt == 0:
            v -= 3
    return v


@kernel
def estimate(V, hand, strain):
    """Expected points (cards and last trick, plus belote where it counts) of the taker's team with ``hand``
    in ``strain``, under the variant ``V``: the calibrated features."""
    full = 1 if V[L.P_FULL] else 0
    if strain < 4:
        kind = 0
        f = trump_features(hand, strain, V[L.P_SCORING] != L.SCORING_COBRECAF)
    elif strain == NO_TRUMP:
        kind = 1
        f = no_trump_features(hand, V[L.P_OFFICIELLES] != 0)
    else:
        kind = 2
        f = all_trump_features(hand)
    return _CAL[full, kind, 0] + _CAL[full, kind, 1] * f


@kernel
def defense(hand, strain):
    """Rough card points ``hand`` takes against a contract in ``strain``."""
    if strain >= 4:
        t = 0
        for s in range(4):
            x = _byte(hand, s)
            t += 11 * (x & _RA != 0) + 8 * (x & _RA != 0 and x & _R10 != 0)
        return float(t)
    tr = _byte(hand, strain)
    n = popcount(tr)
    v = 0.0
    if tr & _RJ:
        v += 25
    if tr & _R9 and (tr & _RJ or n >= 2):
        v += 14
    if tr & _RA and n >= 2:
        v += 8
    if n >= 3:
        v += 8 * (n - 2)
    for o in range(4):
        if o == strain:
            continue
        x = _byte(hand, o)
        if x & _RA:
            v += 11
            if x & _R10:
                v += 8
    return v


@kernel(inline="always")
def _bid_action(value, strain):
    return BID + 6 * ((value - _BID_80) // 10) + strain


# --------------------------------------------------------------------------- bidding

@kernel
def _bid_take_or_pass(V, row, legal, nlegal):
    hand = row[L.HAND + row[L.SEAT]] | (1 << row[L.TURNUP])
    best, best_e = PASS, -1.0
    for i in range(nlegal):
        a = legal[i]
        if a == PASS:
            continue
        e = estimate(V, hand, a - TAKE)
        if e > best_e:
            best, best_e = a, e
    need = 92 if row[L.NCALLS] < 4 else 96
    return best if best_e >= need else PASS


@kernel
def _bid_auction(V, row):
    seat = row[L.SEAT]
    hand = row[L.HAND + seat]
    high, high_seat = row[L.HIGH], row[L.HIGH_SEAT]
    if row[L.LEVEL] > 1:
        if is_legal(row, SURCOINCHE) and high_seat == seat:
            strain = (high - BID) % 6
            if estimate(V, hand, strain) >= BID_VALUE[(high - BID) // 6] + 30:
                return SURCOINCHE
        return PASS
    high_value = BID_VALUE[(high - BID) // 6] if high >= 0 else 0
    high_strain = (high - BID) % 6 if high >= 0 else -1
    best_s, best_e = -1, 0.0
    for i in range(V[L.P_NSTRAINS]):
        s = V[L.P_STRAINS + i]
        e = estimate(V, hand, s)
        if best_s < 0 or e > best_e:
            best_s, best_e = s, e
    own_value = min(160, int(best_e - 12) // 10 * 10)
    if high >= 0 and (high_seat ^ seat) == 2:
        tr = _byte(hand, high_strain) if high_strain < 4 else 0
        support = 0
        if high_strain < 4:
            support += 10 * (tr & _RJ != 0) + 10 * (tr & _R9 != 0 and popcount(tr) >= 2)
            for o in range(4):
                if o != high_strain and _byte(hand, o) & _RA:
                    support += 10
        elif high_strain == NO_TRUMP:
            for o in range(4):
                if _byte(hand, o) & _RA:
                    support += 10
        else:
            for o in range(4):
                if _byte(hand, o) & _RJ:
                    support += 10
        raise_to = min(high_value + min(support - 10, 20), 160)
        if raise_to > high_value:
            a = _bid_action(raise_to, high_strain)
            if is_legal(row, a):
                return a
        if support <= 10 and own_value >= high_value + 20:
            a = _bid_action(own_value, best_s)
            if is_legal(row, a):
                return a
        return PASS
    if own_value >= 80 and own_value > high_value:
        a = _bid_action(own_value, best_s)
        if is_legal(row, a):
            return a
    if high >= 0 and is_legal(row, COINCHE) and high_value <= 160:
        ours = defense(hand, high_strain) + 25
        if 162 - ours < high_value - 25:
            return COINCHE
    return PASS


@kernel
def _bid_81(V, row):
    seat = row[L.SEAT]
    own = row[L.HAND + seat]
    turnup = row[L.TURNUP]
    hand = own | (1 << turnup)
    if row[L.LEVEL] > 1:
        return PASS
    high, high_seat = row[L.HIGH], row[L.HIGH_SEAT]
    if high >= 0 and (high_seat ^ seat) == 2:
        return PASS
    up = turnup >> 3
    best_s = 0
    best = est_up = estimate(V, hand, 0)
    for s in range(1, 4):
        e = estimate(V, hand, s)
        if s == up:
            est_up = e
        if e > best:
            best_s, best = s, e
    if high < 0 or (high_seat ^ seat) & 1:
        need = 96 if high < 0 else 104
        a = EN_VOITURE + best_s
        if best >= need and is_legal(row, a):
            return a
    if high >= 0 and (high_seat ^ seat) & 1 and is_legal(row, COINCHE):
        if high == EN_FACE:
            strain = up
        elif high >= EN_VOITURE:
            strain = high - EN_VOITURE
        elif high >= BID:
            strain = (high - BID) % 6
        else:
            strain = high - TAKE
        if defense(own, strain) + 25 > 100:
            return COINCHE
    if high < 0 and is_legal(row, EN_FACE):
        tr = _byte(own, up)
        rank = turnup & 7
        aces = 0
        for o in range(4):
            if o != up and _byte(own, o) & _RA:
                aces += 1
        if (rank == JACK or rank == NINE) and (tr & (_RJ | _R9) or popcount(tr) >= 2) and aces >= 1 \
                and est_up >= 84:
            return EN_FACE
    return PASS


# --------------------------------------------------------------------------- card play

@kernel
def _voids(row, strain, trump, voids):
    """``voids[s]``: a 4-bit mask of the suits seat ``s`` has shown it no longer holds (_voids)."""
    voids[:] = 0
    ntricks = row[L.NTRICKS]
    for j in range(ntricks + 1):
        if j < ntricks:
            b = L.TRICK_LOG + 7 * j
            leader, first, n = row[b], b + 1, 4
        else:
            leader, first, n = row[L.LEADER], L.TRICK, row[L.TRICK_LEN]
        if n == 0:
            continue
        led = row[first] >> 3
        win_card, win_seat = row[first], leader
        for i in range(1, n):
            s = (leader + i) & 3
            c = row[first + i]
            if c >> 3 != led:
                voids[s] |= 1 << led
                if trump >= 0 and c >> 3 != trump and win_seat != s ^ 2:
                    voids[s] |= 1 << trump
            if beats(c, win_card, strain):
                win_card, win_seat = c, s


@kernel
def _can_be_beaten(card, seat, n_after, voids, higher, unseen, led, trump, trump_unseen):
    suit = card >> 3
    any_opp = False
    for k in range(1, n_after + 1):
        if (((seat + k) & 3) ^ seat) & 1:
            any_opp = True
    if not any_opp:
        return False
    if higher[card] & unseen and (suit == led or suit == trump):
        for k in range(1, n_after + 1):
            s = (seat + k) & 3
            if (s ^ seat) & 1 and not (voids[s] >> suit) & 1:
                return True
    if trump >= 0 and suit != trump and trump_unseen:
        for k in range(1, n_after + 1):
            s = (seat + k) & 3
            if (s ^ seat) & 1 and (voids[s] >> led) & 1 and not (voids[s] >> trump) & 1:
                return True
    return False


@kernel
def _low(legal, nlegal, points, strength, trump):
    """min(legal, key=(points, is trump, strength)): the first of the smallest keys."""
    best = legal[0]
    for i in range(1, nlegal):
        c = legal[i]
        a = (points[c], (c >> 3) == trump, strength[c])
        b = (points[best], (best >> 3) == trump, strength[best])
        if a < b:
            best = c
    return best


@kernel
def _play(V, row, legal, nlegal, voids):
    seat = row[L.SEAT]
    hand = row[L.HAND + seat]
    strain = row[L.C_STRAIN]
    trump = strain if strain < 4 else -1
    points = POINTS[strain, V[L.P_OFFICIELLES]]
    strength = STRENGTH[strain]
    higher = HIGHER[strain]
    played_all = row[L.PLAYED] | row[L.PLAYED + 1] | row[L.PLAYED + 2] | row[L.PLAYED + 3]
    unseen = ~(played_all | hand) & 0xFFFFFFFF
    taker = row[L.C_TAKER]
    taking = (taker & 1) == (seat & 1)
    _voids(row, strain, trump, voids)
    if row[L.TRICK_LEN] == 0:
        return _lead(row, legal, nlegal, seat, hand, trump, unseen, points, strength, higher, voids, taking, taker)
    n_after = 3 - row[L.TRICK_LEN]
    led = row[L.LED]
    win_card, win_seat = row[L.WIN_CARD], row[L.WIN_SEAT]
    trick_pts = 0
    for i in range(row[L.TRICK_LEN]):
        trick_pts += points[row[L.TRICK + i]]
    trump_unseen = unseen & SUIT_MASKS[trump] if trump >= 0 else 0
    partner_wins = win_seat == seat ^ 2
    if partner_wins and not _can_be_beaten(win_card, seat, n_after, voids, higher, unseen, led, trump, trump_unseen):
        # _give: max(legal, key=points - 30 if trump - penalty if master), the first of the largest
        best, best_v = -1, 0
        for i in range(nlegal):
            c = legal[i]
            v = points[c]
            if c >> 3 == trump:
                v -= 30
            if not higher[c] & unseen:
                v -= MASTER_PENALTY
            if best < 0 or v > best_v:
                best, best_v = c, v
        return best
    nwin = 0
    nsafe = 0
    safe_best = -1
    for i in range(nlegal):
        c = legal[i]
        if beats(c, win_card, strain):
            nwin += 1
            if not _can_be_beaten(c, seat, n_after, voids, higher, unseen, led, trump, trump_unseen):
                nsafe += 1
                # min(safe, key=(is trump, strength))
                if safe_best < 0 or ((c >> 3) == trump, strength[c]) < ((safe_best >> 3) == trump,
                                                                         strength[safe_best]):
                    safe_best = c
    if nwin:
        if nsafe:
            c = safe_best
            can_discard = False
            for i in range(nlegal):
                if legal[i] >> 3 != trump:
                    can_discard = True
            if c >> 3 != trump or led == trump or trick_pts >= 10 or not can_discard or row[L.NTRICKS] >= 6:
                return c
        elif not partner_wins:
            same = -1  # max(same, key=strength): the first of the strongest
            low_trump = -1  # min(trumps, key=strength)
            for i in range(nlegal):
                c = legal[i]
                if not beats(c, win_card, strain):
                    continue
                if c >> 3 == led and c >> 3 != trump:
                    if same < 0 or strength[c] > strength[same]:
                        same = c
                if c >> 3 == trump:
                    if low_trump < 0 or strength[c] < strength[low_trump]:
                        low_trump = c
            if same >= 0 and trick_pts + points[same] >= 10:
                return same
            if low_trump >= 0 and led != trump and trick_pts >= 10:
                return low_trump
    return _low(legal, nlegal, points, strength, trump)


@kernel
def _lead(row, legal, nlegal, seat, hand, trump, unseen, points, strength, higher, voids, taking, taker):
    o1, o2 = seat ^ 1, seat ^ 3
    if trump >= 0:
        n_trumps = 0
        master_trump = -1  # max(masters, key=strength)
        low_trump = -1  # min(my_trumps, key=strength)
        for i in range(nlegal):
            c = legal[i]
            if c >> 3 == trump:
                n_trumps += 1
                if not higher[c] & unseen and (master_trump < 0 or strength[c] > strength[master_trump]):
                    master_trump = c
                if low_trump < 0 or strength[c] < strength[low_trump]:
                    low_trump = c
        opp_may_have_trump = unseen & SUIT_MASKS[trump] != 0 and (
            not (voids[o1] >> trump) & 1 or not (voids[o2] >> trump) & 1)
        if taking and n_trumps and opp_may_have_trump:
            if master_trump >= 0:
                return master_trump
            if taker == seat and n_trumps >= 3 or taker == seat ^ 2:
                return low_trump
    trumps_out = trump >= 0 and unseen & SUIT_MASKS[trump] != 0
    partner = seat ^ 2
    best_master = -1  # max(masters, key=(points, strength))
    best_plain = -1  # min(plain, key=lead_key)
    best_key = (0, 0, 0, 0, 0)
    for i in range(nlegal):
        c = legal[i]
        s = c >> 3
        if s == trump:
            continue
        if not higher[c] & unseen:
            safe = True
            if trumps_out:
                for o in (o1, o2):
                    if (voids[o] >> s) & 1 and not (voids[o] >> trump) & 1:
                        safe = False
            if safe and (best_master < 0 or (points[c], strength[c]) > (points[best_master], strength[best_master])):
                best_master = c
        partner_void = (voids[partner] >> s) & 1
        flag = 0
        if partner_void and not (trump >= 0 and not (voids[partner] >> trump) & 1):
            flag = 1
        key = (1 if points[c] >= 10 else 0, flag, points[c], -popcount(hand & SUIT_MASKS[s]), strength[c])
        if best_plain < 0 or key < best_key:
            best_plain, best_key = c, key
    if best_master >= 0:
        return best_master
    if best_plain >= 0:
        return best_plain
    best = legal[0]
    for i in range(1, nlegal):
        c = legal[i]
        if (strength[c] > strength[best]) if taking else (strength[c] < strength[best]):
            best = c
    return best


# --------------------------------------------------------------------------- entry

@kernel
def decide(V, row, legal, voids):
    """HeuristicAgent.act for the seat to act in one info row (``VectorEnv.info_rows``); ``legal`` (112 ints)
    and ``voids`` (4) are scratch space."""
    lo, hi = row[L.LEGAL_LO], row[L.LEGAL_HI]
    n = popcount(lo) + popcount(hi)
    for j in range(n):  # ascending, as InfoState.legal
        legal[j] = nth_legal(lo, hi, j)
    if n == 1:
        return legal[0]
    if row[L.PHASE] == L.PH_BIDDING:
        system = V[L.P_BIDDING]
        if system == L.BIDDING_TAKE_OR_PASS:
            return _bid_take_or_pass(V, row, legal, n)
        if system == L.BIDDING_AUCTION:
            return _bid_auction(V, row)
        return _bid_81(V, row)
    return _play(V, row, legal, n, voids)


@kernel
def act_rows(V, rows, out, legal, voids):
    """``out[j]``: the heuristic's action at ``rows[j]`` (int64 info rows of the variant ``V``); ``legal`` and
    ``voids`` are scratch (:func:`decide_scratch`)."""
    for j in range(rows.shape[0]):
        out[j] = decide(V, rows[j], legal, voids)


@kernel
def play_to_learner(V, scale, S, MT, MT0, LOG, tables, start, learner, win, learner_actions, rewards, ended,
                    final_obs, scores, winner, truncated, obs, mask, seat_out, legal, voids, row_info, rew, info, done,
                    fseat, fobs):
    """The heuristic at every seat but ``learner``, inside the engine: at each table ``t`` of ``tables`` (from
    position ``start``), first the learner's action ``learner_actions[t]`` (legal, checked by the caller; -1:
    none, the learner is not to act), then the heuristic plays until ``learner`` is to act, as ``act_rows`` and
    ``VectorEnv.step_tables`` would one decision at a time, and row ``t`` of ``obs`` / ``mask`` / ``seat_out``
    gets the learner's observation.
    Until the table's episode ends (``ended[t]``), the learner's rewards (float64, as the AEC env's: ``win``, or
    the deal's score difference over ``scale``) add to ``rewards[t]``, and the end sets ``ended[t]``,
    ``final_obs[t]``, ``scores[t]``, ``winner[t]``, ``truncated[t]``. Every array is indexed by table. Returns
    the position in ``tables`` reached: less than ``len(tables)`` when a table's log is full (grow it and call
    again from there). The arguments from ``legal`` on are scratch, from :func:`play_scratch`."""
    for j in range(start, tables.shape[0]):
        t = tables[j]
        first = learner_actions[t]
        while first >= 0 or S[t, L.SEAT] != learner:
            if S[t, L.LOGLEN] + 1 >= LOG.shape[1]:
                return j
            if first >= 0:  # the learner's own action
                a = first
                first = -1
                learner_actions[t] = -1  # applied: a call again from here does not apply it twice
            else:
                legal_words(V, S[t])
                info_row(S[t], row_info)
                a = decide(V, row_info, legal, voids)
            rew[0, :] = 0.0
            info[0, :] = -1
            done[0] = False
            fseat[0] = -1 if ended[t] else learner
            apply_step(V, scale, S, MT, MT0, LOG, t, 0, a, rew, done, info, fseat, fobs)
            if not ended[t]:
                if win:
                    rewards[t] += rew[0, learner]
                elif info[0, L.I_OUTCOME] >= 0 and info[0, L.I_OUTCOME] != L.OUT_REDEAL:
                    d = (info[0, L.I_DEAL_SCORE0] - info[0, L.I_DEAL_SCORE1]) / scale
                    rewards[t] += d if learner % 2 == 0 else -d
                if done[0]:
                    ended[t] = True
                    for i in range(fobs.shape[1]):
                        final_obs[t, i] = fobs[0, i]
                    scores[t, 0] = info[0, L.I_SCORE0]
                    scores[t, 1] = info[0, L.I_SCORE1]
                    winner[t] = info[0, L.I_WINNER]
                    truncated[t] = info[0, L.I_TRUNCATED] == 1
        observe_table(V, S[t], t, obs, mask, seat_out)
    return tables.shape[0]


def decide_scratch():
    """``legal`` and ``voids``, the scratch of :func:`decide` (and :func:`act_rows`' last two arguments). These
    kernels allocate nothing: they compile without numba's reference counting, as the engine's
    (``belote_env.fast.kernels``)."""
    return np.empty(NUM_ACTIONS, dtype=np.int64), np.empty(4, dtype=np.int64)


def play_scratch(obs_size: int):
    """The scratch arrays of :func:`play_to_learner` (its last eight arguments): :func:`decide_scratch`, then an
    info row and one table's step outputs."""
    return (*decide_scratch(), np.empty(L.NUM_COLUMNS, dtype=np.int64), np.zeros((1, 4), dtype=np.float32),
            np.full((1, L.NUM_INFO), -1, dtype=np.int64), np.zeros(1, dtype=np.bool_), np.full(1, -1, dtype=np.int64),
            np.zeros((1, obs_size), dtype=np.float32))
