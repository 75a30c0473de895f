"""numba kernels of the double-dummy solver: alpha-beta over the card play with every hand known.

A position is the four hands now held (32-bit masks), the trick in progress
(its leader, the cards played in it, the card and seat that hold it), the
number of tricks left and, when the capot bonus is scored, which team has won
every trick so far. A team's take from a position is the card points it wins
from there to the end: the cards of the trick in progress, those of the
tricks left, 10 for the last trick (dix de der) and ``capot_bonus`` (90 where
a capot scores 252 instead of 162) when it wins every trick of the deal. The
value of a position is team 0's take minus team 1's: seats 0 and 2 maximise
it, seats 1 and 3 minimise it (a zero-sum game; without the capot bonus the
two takes add up to a constant, so this is the same as each team maximising
its own take).

The card rule is the batched engine's ``fast.kernels.legal_card_mask`` (``rules.play.legal_cards`` on
masks, checked against the rules core by the lockstep tests), and every
constant (points, trick strength, the cards that beat a card, trump masks) is
read from ``belote_env.fast.tables``, which builds them from the rules core.

Search: fail-soft alpha-beta, one ply per card, run as null-window tests that
bisect the values still possible (:func:`mtdf`: every value is within +-(the
points left + the capot bonus) and has the parity of the points left; about 7
tests a full deal), with

- a transposition table (key: the cards still in the hands and those of the
  trick in progress, which within one solve name the position; the seat to
  play, the capot state and the solve's stamp) at trick starts, and inside
  tricks while 6 tricks or more are left; it stores lower and upper bounds and
  the best card in 16-byte entries, in buckets of 4 (one aligned 64-byte cache
  line), a new entry replacing one of an earlier solve or else the one whose
  search took the fewest nodes;
- an enhanced transposition cutoff at the last card of a trick: a card that
  leads to a trick start whose stored bound already gives the cutoff ends the
  search of the node without searching anything (the buckets of all the legal
  cards are prefetched at the top of the node, and earlier still by the node
  of the trick's third card: while it searches one of its cards, it fetches
  those of its next card's node; so their cache misses overlap with one
  another and with other work);
- move ordering: the table's best card, then the killer cards of the ply,
  then the history score of the card (raised by the depth squared at every
  cutoff), its ties broken by a static score (in a trick: win it cheaply when
  an opponent holds it, give points when the partner's card is sure, else
  discard low);
- equivalent-card pruning: of two cards of one suit in one hand, worth the
  same points, with no card still in play between them in the strain's order
  (cards of completed tricks are gone; cards of the trick in progress are not),
  only the higher is searched: they win and lose against the same cards;
- a bound at every node (no team wins more than the points left) and, at
  trick starts with 3 tricks left or more, sure points: the leader's team wins
  at least the masters it can cash one after the other and the cards the other
  seats must follow with (:func:`_quick_points`), or in no trump and all trump
  those its partner cashes once the leader has led to it (:func:`_partner_points`),
  and in a trump contract the team holding the highest trumps wins those above
  every trump of the other team (:func:`_top_trumps`);
- the last two tricks by a plain alpha-beta without ordering
  (:func:`_two_tricks`, after the table probe) and the last trick computed
  directly.

The recursion passes no array: :func:`search` takes the addresses of the tables and hands and views them
with ``numba.carray`` (views without an owner, so no call counts references; passed as arrays, the five
arrays' atomic reference counts took about 40% of a solve, measured with ``perf``).

Every kernel is cached on disk. The recursive :func:`search` is compiled
eagerly for one explicit signature, and every call to it passes typed
arguments (``np.int64(-1)``, not the literal ``-1``): with its types inferred,
numba's cache crashed (segmentation fault) when a second process loaded it,
and a literal argument made the cached code call a specialisation the cache
does not hold ("Symbol not found").
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from ..fast.kernels import beats, popcount  # beats: the one copy of the trick rule
from ..fast.kernels import legal_card_mask as legal_cards  # the one copy of the card rule
from ..fast.tables import HIGHER, POINTS, STRENGTH, SUIT_MASKS, TRUMP_MASK

# ORDER[strain, suit, i]: the cards of the suit from weakest to strongest; POS[strain, card]: index in it.
ORDER = np.zeros((6, 4, 8), dtype=np.int64)
POS = np.zeros((6, 32), dtype=np.int64)
for _s in range(6):
    for _suit in range(4):
        _cards = sorted(range(8 * _suit, 8 * _suit + 8), key=lambda c: STRENGTH[_s, c])
        for _i, _c in enumerate(_cards):
            ORDER[_s, _suit, _i] = _c
            POS[_s, _c] = _i

# SAME[strain, rules, card, byte]: with ``byte`` the cards of the card's suit still in play (bit i: card 8 * suit + i),
# the next card above ``card`` among them in the strain's order when it is worth as many points, else -1 (the
# equivalent-card test of gen_moves in one lookup).
SAME = np.full((6, 2, 32, 256), -1, dtype=np.int8)
_bytes = np.arange(256)
for _s in range(6):
    for _c in range(32):
        _next = np.full(256, -1)
        for _p in range(7, POS[_s, _c], -1):  # from the top down: the lowest card above wins
            _d = ORDER[_s, _c >> 3, _p]
            _next = np.where((_bytes >> (_d & 7)) & 1 == 1, _d, _next)
        for _r in range(2):
            _eq = np.array([_d >= 0 and POINTS[_s, _r, _d] == POINTS[_s, _r, _c] for _d in range(-1, 32)])
            SAME[_s, _r, _c] = np.where(_eq[_next + 1], _next, -1)

# PBYTE[strain, rules, suit, byte]: the card points of the cards of ``suit`` in a byte of a hand mask.
PBYTE = np.zeros((6, 2, 4, 256), dtype=np.int64)
for _s in range(6):
    for _r in range(2):
        for _suit in range(4):
            for _b in range(256):
                PBYTE[_s, _r, _suit, _b] = sum(POINTS[_s, _r, 8 * _suit + _i] for _i in range(8) if _b >> _i & 1)

# CHEAP[strain, rules, suit, i]: the cards of the suit from the fewest points to the most.
CHEAP = np.zeros((6, 2, 4, 8), dtype=np.int64)
for _s in range(6):
    for _r in range(2):
        for _suit in range(4):
            for _i, _c in enumerate(sorted(range(8 * _suit, 8 * _suit + 8), key=lambda c: POINTS[_s, _r, c])):
                CHEAP[_s, _r, _suit, _i] = _c

# ctx: the solve's constants and counters (int64 array).
C_STRAIN, C_RULES, C_OVERTRUMP_PARTNER, C_UNDERTRUMP, C_CAPOT_BONUS, C_STAMP, C_NODES, C_TTMASK, C_ITERS, C_TTHITS = range(10)
CTX_SIZE = 10
MAX_PLY = 33
CAP_NONE = 3  # no team can still make capot (or the bonus is not scored)
CAP_START = 2  # no trick completed yet
INF = 1 << 20
STAMP_LIMIT = (1 << 26) - 1  # stamps are 26 bits in a table entry (its top bit stays 0)
TT_WAYS = 4  # entries per bucket of the transposition table
# Positions inside a trick are stored too when this many tricks are left or more. Their key (the hands, the cards
# of the trick, the seat to play) names one position only among those of one deal (who played which card of the
# trick follows from the hands the deal started with): the stamp in the key keeps them to one solve.
TT_MID_TRICK = 6
QUICK_MIN_TRICKS = 3


def new_tables(log2_size: int = 20):
    """The transposition table (keys, meta, lower and upper bounds, best card) and the ordering tables."""
    n = 1 << log2_size
    # an entry is 2 words (see _tt_key): the cards in the hands | the cards of the trick in progress << 32;
    # lower bound + 1024 | upper bound + 1024 << 11 | best card + 1 << 22 | log2 of the work (nodes its search
    # took) << 28 | seat to play << 33 | capot state << 35 | stamp << 37. A bucket (TT_WAYS entries, 64 bytes)
    # is one cache line, aligned.
    raw = np.zeros(2 * n + 8, dtype=np.int64)
    skip = (-raw.ctypes.data % 64) // 8
    tt = raw[skip:skip + 2 * n].reshape(n, 2)
    history = np.zeros((4, 32), dtype=np.int64)
    killers = np.full((MAX_PLY, 18), -1, dtype=np.int64)  # per ply: 2 killer cards, then the move list and scores
    ctx = np.zeros(CTX_SIZE, dtype=np.int64)
    ctx[C_TTMASK] = n - 1
    return ctx, tt, history, killers


@njit(cache=True, inline="always")
def _could_beat(hand, led, win_card, strain):
    """Whether ``hand`` holds a card that could take the trick from ``win_card`` (suit ``led``)."""
    follow = hand & SUIT_MASKS[led]
    if follow:
        return (win_card >> 3) == led and (follow & HIGHER[strain, win_card]) != 0
    if strain >= 4:
        return False
    trumps = hand & TRUMP_MASK[strain]
    if (win_card >> 3) == strain:
        return (trumps & HIGHER[strain, win_card]) != 0
    return trumps != 0


@njit(cache=True, inline="always")
def _lowbit_index(x):
    """The index of the lowest set bit of ``x`` (not 0): one instruction (tzcnt)."""
    return trailing_zeros(x)


@njit(cache=True, inline="always")
def _hash(key, meta):
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(meta) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(33)  # murmur3's finaliser: every bit of the keys reaches the low bits
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return np.int64(h >> np.uint64(1))


@njit(cache=True, inline="always")
def _tt_find(tt, base, key, meta):
    """The slot of the bucket at ``base`` holding the position, or -1."""
    for j in range(TT_WAYS):
        s = base + j
        if tt[s, 0] == key and (tt[s, 1] >> 33) == meta:
            return s
    return -1


@njit(cache=True, inline="always")
def _tt_victim(tt, base, stamp):
    """The slot of the bucket at ``base`` to overwrite: an entry of an earlier solve, else the one whose
    search took the fewest nodes."""
    victim = base
    least = 1 << 62
    for j in range(TT_WAYS):
        s = base + j
        if (tt[s, 1] >> 37) != stamp:
            return s
        work = (tt[s, 1] >> 28) & 31
        if work < least:
            least = work
            victim = s
    return victim


@njit(cache=True, inline="always")
def _tt_key(rem, trick_mask, seat, cap, stamp, ttmask):
    """The table key of a position (the cards in the hands, ``rem``, and those of the trick in progress), its
    meta (seat to play, capot state, the solve's stamp) and the first slot of its bucket.

    Within one solve the cards still in the hands name the hands (each card is held by the seat that held it at
    the root), and with the cards of the trick in progress and the seat to play they name the trick too (who
    played which card, hence the led suit, the winner and the points), so this key names one position of the
    solve; the stamp keeps entries to their solve."""
    key = rem | (trick_mask << 32)
    meta = _tt_meta(seat, cap, stamp)
    return key, meta, _hash(key, meta) & ttmask & ~(TT_WAYS - 1)


@njit(cache=True, inline="always")
def _tt_meta(seat, cap, stamp):
    """The meta word of a table entry: seat to play, capot state, the solve's stamp."""
    return seat | (cap << 2) | (stamp << 4)


@njit(cache=True, inline="always")
def _tt_bounds(w):
    """The lower and upper bounds packed in an entry's last word."""
    return (w & 2047) - 1024, ((w >> 11) & 2047) - 1024


@njit(cache=True, inline="always")
def _points_left(ctx, rem, trick_pts):
    """Every card point still to be won from the position: the trick in progress, the cards in the hands
    (``rem``) and the dix de der (no capot bonus)."""
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    return trick_pts + 10 + PBYTE[strain, rules, 0, rem & 255] + PBYTE[strain, rules, 1, (rem >> 8) & 255] \
        + PBYTE[strain, rules, 2, (rem >> 16) & 255] + PBYTE[strain, rules, 3, (rem >> 24) & 255]


@njit(cache=True, inline="always")
def _masters(strain, hand, rem, suit):
    """How many of the top cards of ``suit`` still in play ``hand`` holds in a row."""
    k = 0
    pos = 7
    while pos >= 0:
        d = ORDER[strain, suit, pos]
        if (rem >> d) & 1:
            if (hand >> d) & 1:
                k += 1
            else:
                break
        pos -= 1
    return k


@njit(cache=True, inline="always")
def _cash(strain, rules, hands, seat, suit, k):
    """The least points ``k`` rounds of ``suit`` led by ``seat`` from its top cards (masters) bring in: its k
    top cards, and from each other seat its cheapest cards of the suit, as many as it must follow."""
    pts = 0
    hand = hands[seat]
    n = k
    pos = 7
    while n > 0:
        d = ORDER[strain, suit, pos]
        if (hand >> d) & 1:
            pts += POINTS[strain, rules, d]
            n -= 1
        pos -= 1
    for j in range(1, 4):
        h = hands[(seat + j) & 3]
        n = k
        i = 0
        while n > 0 and i < 8:
            d = CHEAP[strain, rules, suit, i]
            if (h >> d) & 1:
                pts += POINTS[strain, rules, d]
                n -= 1
            i += 1
    return pts


@njit(cache=True, inline="always")
def _quick_points(ctx, hands, seat, rem):
    """A lower bound on the card points the team of ``seat``, to lead a trick, wins by cashing its masters:
    its top cards of each suit held in a row, led one after the other (the cards the other seats must follow
    with go to the same tricks). In a trump contract the trumps first; a side suit then for as many rounds
    as every other seat with trumps left follows it."""
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    hand = hands[seat]
    total = 0
    kt = 0
    if strain < 4:
        kt = _masters(strain, hand, rem, strain)
        if kt > 0:
            total += _cash(strain, rules, hands, seat, strain, kt)
    for suit in range(4):
        if suit == strain or hand & SUIT_MASKS[suit] == 0:
            continue
        k = _masters(strain, hand, rem, suit)
        if k == 0:
            continue
        if strain < 4:
            for j in range(1, 4):
                h = hands[(seat + j) & 3]
                if popcount(h & TRUMP_MASK[strain]) > kt:  # trumps left after the draw: it may ruff when void
                    n = popcount(h & SUIT_MASKS[suit])
                    if n < k:
                        k = n
            if k == 0:
                continue
        total += _cash(strain, rules, hands, seat, suit, k)
    return total


@njit(cache=True, inline="always")
def _partner_points(ctx, hands, seat, rem):
    """In no trump and all trump (no card beats another suit's): a lower bound on the card points the team
    of ``seat``, to lead a trick, wins when ``seat`` leads a suit whose master its partner holds and the
    partner, then on lead, cashes every master it holds (with the cards the other seats must follow with);
    0 when ``seat`` holds no card of such a suit or the contract has a trump suit."""
    strain = ctx[C_STRAIN]
    if strain < 4:
        return 0
    rules = ctx[C_RULES]
    partner = (seat + 2) & 3
    entry = False
    total = 0
    for suit in range(4):
        k = _masters(strain, hands[partner], rem, suit)
        if k == 0:
            continue
        if hands[seat] & SUIT_MASKS[suit]:
            entry = True
        total += _cash(strain, rules, hands, partner, suit, k)
    return total if entry else 0


@njit(cache=True, inline="always")
def _top_trumps(ctx, hands, rem):
    """In a trump contract, (the team holding the highest trump still in play, the points of its trumps above
    every trump of the other team): that team wins them all, whenever they are played; else (0, 0)."""
    strain = ctx[C_STRAIN]
    if strain >= 4:
        return 0, 0
    rules = ctx[C_RULES]
    team0 = hands[0] | hands[2]
    team = -1
    pts = 0
    pos = 7
    while pos >= 0:
        d = ORDER[strain, strain, pos]
        pos -= 1
        if (rem >> d) & 1 == 0:
            continue
        t = 0 if (team0 >> d) & 1 else 1
        if team < 0:
            team = t
        elif t != team:
            break
        pts += POINTS[strain, rules, d]
    return max(team, 0), pts


@njit(cache=True, inline="always")
def play_card(ctx, c, seat, led, win_card, win_seat, ntrick, strain, pts, tricks_left, cap):
    """``seat`` plays ``c`` to the trick: (led suit, winning card, winning seat, capot state, and when the
    trick is complete (``ntrick == 3``) its points, dix de der and capot bonus for team 0's side, else 0)."""
    if ntrick == 0:
        return c >> 3, c, seat, cap, 0
    nwin_card, nwin_seat = win_card, win_seat
    if beats(c, win_card, strain):
        nwin_card, nwin_seat = c, seat
    if ntrick < 3:
        return led, nwin_card, nwin_seat, cap, 0
    team = nwin_seat & 1
    ncap = team if cap == CAP_START or cap == team else CAP_NONE
    gain = pts
    if tricks_left == 1:
        gain += 10
        if ncap == team and ctx[C_CAPOT_BONUS] > 0:
            gain += ctx[C_CAPOT_BONUS]
    if ctx[C_CAPOT_BONUS] == 0:
        ncap = CAP_NONE
    return led, nwin_card, nwin_seat, ncap, gain if team == 0 else -gain


@njit(cache=True, inline="always")
def _last_trick(ctx, hands, seat, cap):
    """The value of the last trick, ``seat`` to lead: one card in each hand, nothing to choose."""
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    win = _lowbit_index(hands[seat])
    wseat = seat
    pts = 10 + POINTS[strain, rules, win]
    for k in range(1, 4):
        s2 = (seat + k) & 3
        c = _lowbit_index(hands[s2])
        pts += POINTS[strain, rules, c]
        if beats(c, win, strain):
            win = c
            wseat = s2
    team = wseat & 1
    if ctx[C_CAPOT_BONUS] > 0 and (cap == CAP_START or cap == team):
        pts += ctx[C_CAPOT_BONUS]
    return pts if team == 0 else -pts


@njit(cache=True)
def _two_tricks(ctx, hands, seat, cap, alpha, beta):
    """The value of the last two tricks, ``seat`` to lead (two cards in each hand), fail-soft in
    (alpha, beta): alpha-beta over the at most 16 ways to play the first of them, the last computed directly."""
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    otp = ctx[C_OVERTRUMP_PARTNER]
    ut = ctx[C_UNDERTRUMP]
    s1 = (seat + 1) & 3
    s2 = (seat + 2) & 3
    s3 = (seat + 3) & 3
    # in the leader's frame (its team maximises sign * value) the window is (a, b)
    if (seat & 1) == 0:
        sign = 1
        a = alpha
        b = beta
    else:
        sign = -1
        a = -beta
        b = -alpha
    b0 = -INF
    m0 = hands[seat]
    while m0:
        c0 = _lowbit_index(m0)
        m0 &= m0 - 1
        hands[seat] ^= 1 << c0
        p0 = POINTS[strain, rules, c0]
        led, w0, ws0, cap0, g = play_card(ctx, c0, seat, -1, -1, -1, 0, strain, p0, 2, cap)
        a0 = max(a, b0)
        b1 = INF
        m1 = legal_cards(hands[s1], led, w0, False, strain, otp, ut)
        while m1:
            c1 = _lowbit_index(m1)
            m1 &= m1 - 1
            hands[s1] ^= 1 << c1
            p1 = p0 + POINTS[strain, rules, c1]
            led, w1, ws1, cap1, g = play_card(ctx, c1, s1, led, w0, ws0, 1, strain, p1, 2, cap)
            b_1 = min(b, b1)
            b2 = -INF
            m2 = legal_cards(hands[s2], led, w1, ws1 == seat, strain, otp, ut)
            while m2:
                c2 = _lowbit_index(m2)
                m2 &= m2 - 1
                hands[s2] ^= 1 << c2
                p2 = p1 + POINTS[strain, rules, c2]
                led, w2, ws2, cap2, g = play_card(ctx, c2, s2, led, w1, ws1, 2, strain, p2, 2, cap)
                a2 = max(a0, b2)
                b3 = INF
                m3 = legal_cards(hands[s3], led, w2, ws2 == s1, strain, otp, ut)
                while m3:
                    c3 = _lowbit_index(m3)
                    m3 &= m3 - 1
                    hands[s3] ^= 1 << c3
                    p3 = p2 + POINTS[strain, rules, c3]
                    led3, w3, ws3, cap3, g = play_card(ctx, c3, s3, led, w2, ws2, 3, strain, p3, 2, cap)
                    v = sign * (g + _last_trick(ctx, hands, ws3, cap3))
                    hands[s3] ^= 1 << c3
                    if v < b3:
                        b3 = v
                    if b3 <= a2:
                        break
                hands[s2] ^= 1 << c2
                if b3 > b2:
                    b2 = b3
                if b2 >= b_1:
                    break
            hands[s1] ^= 1 << c1
            if b2 < b1:
                b1 = b2
            if b1 <= a0:
                break
        hands[seat] ^= 1 << c0
        if b1 > b0:
            b0 = b1
        if b0 >= b:
            break
    return sign * b0


@njit(cache=True)
def gen_moves(ctx, hands, seat, led, win_card, win_seat, ntrick, rem, tt_best, ply, history, killers):
    """Legal cards of ``seat`` after equivalent-card pruning, best first, in ``killers[ply, 2:10]`` (a buffer
    per ply, so no node allocates); returns their count."""
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    hand = hands[seat]
    partner_winning = led >= 0 and (win_seat ^ seat) == 2
    legal = legal_cards(hand, led, win_card, partner_winning, strain, ctx[C_OVERTRUMP_PARTNER], ctx[C_UNDERTRUMP])
    # the cards of the opponents still to play to this trick (in no trump and all trump a card is beaten only
    # by a higher card of its suit, so their union answers whether one of them can beat it)
    later_opp = 0
    if strain >= 4:
        for k in range(1, 4 - ntrick):
            o = (seat + k) & 3
            if (o & 1) != (seat & 1):
                later_opp |= hands[o]
    n = 0
    m = legal
    while m:
        c = _lowbit_index(m)
        m &= m - 1
        # Equivalent-card pruning: skip c when the next card above it still in play is ours, worth as much.
        d = SAME[strain, rules, c, (rem >> (c & 24)) & 255]
        if d >= 0 and (hand >> d) & 1:
            continue
        pts = POINTS[strain, rules, c]
        if c == tt_best:
            s = 1 << 40
        elif c == killers[ply, 0]:
            s = 1 << 39
        elif c == killers[ply, 1]:
            s = 1 << 38
        else:
            # the history score first (it orders far better than any static rule measured), then a static
            # order for its ties: a trick our side is sure to win takes points; a doubtful one is won high
            # and cheap; a lost one gets the cheapest card
            s = history[seat, c] << 12
            if led < 0:
                nwin = c
                nws = seat
            elif beats(c, win_card, strain):
                nwin = c
                nws = seat
            else:
                nwin = win_card
                nws = win_seat
            if (nws & 1) == (seat & 1):
                sure = True
                nled = c >> 3 if led < 0 else led
                if strain >= 4:
                    sure = (nwin >> 3) != nled or (later_opp & HIGHER[strain, nwin]) == 0
                else:
                    for k in range(1, 4 - ntrick):
                        o = (seat + k) & 3
                        if (o & 1) != (seat & 1) and _could_beat(hands[o], nled, nwin, strain):
                            sure = False
                            break
                if sure:
                    s += 1024 + pts * 16 - STRENGTH[strain, c]
                else:
                    s += 512 - pts * 16 + STRENGTH[strain, c]
            else:
                s -= pts * 16 + STRENGTH[strain, c]
        # insertion, best first
        j = n
        while j > 0 and killers[ply, 9 + j] < s:
            killers[ply, 10 + j] = killers[ply, 9 + j]
            killers[ply, 2 + j] = killers[ply, 1 + j]
            j -= 1
        killers[ply, 10 + j] = s
        killers[ply, 2 + j] = c
        n += 1
    return n


@intrinsic
def _as_pointer(typingctx, addr):
    """The address ``addr`` (an int64) as a void pointer, for ``numba.carray``."""
    sig = types.voidptr(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@intrinsic
def _prefetch(typingctx, arr, row):
    """Fetch row ``row`` of the 2-d array ``arr`` into the caches (``llvm.prefetch``: read, keep in every
    level), without waiting for it."""
    sig = types.void(arr, row)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], context.get_constant(types.intp, 0)])
        voidptr = cgutils.voidptr_t
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [voidptr, i32, i32, i32])
        name = "llvm.prefetch.p0" if str(voidptr) == "ptr" else "llvm.prefetch.p0i8"  # opaque or typed pointers
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        builder.call(fn, [builder.bitcast(ptr, voidptr), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def _prefetch_etc(ctx, tt, hand, seat, led, win_card, win_seat, rem, tricks_left, cap):
    """Fetch the table buckets of the trick starts that ``seat``, last to play to the trick, can lead to
    (``rem``: the cards in the hands, ``hand`` among them)."""
    strain = ctx[C_STRAIN]
    lm = legal_cards(hand, led, win_card, (win_seat ^ seat) == 2, strain, ctx[C_OVERTRUMP_PARTNER], ctx[C_UNDERTRUMP])
    while lm:
        c = _lowbit_index(lm)
        lm &= lm - 1
        nled, nwin_card, nwin_seat, ncap, add = play_card(ctx, c, seat, led, win_card, win_seat, 3, strain, 0,
                                                          tricks_left, cap)
        _prefetch(tt, _tt_key(rem ^ (1 << c), 0, nwin_seat, ncap, ctx[C_STAMP], ctx[C_TTMASK])[2])


@njit(cache=True, inline="always")
def _address(a):
    return np.int64(a.ctypes.data)


@njit("int64(int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64, int64)", cache=True)
def search(ctx_p, tt_p, history_p, killers_p, hands_p, seat, led, win_card, win_seat,
           ntrick, trick_pts, trick_mask, tricks_left, cap, alpha, beta, ply):
    """Value (team 0's take minus team 1's, see the module doc) of the position, fail-soft in (alpha, beta).

    ``seat`` is to play; ``ntrick`` cards of the trick are down, worth ``trick_pts``, held by
    ``win_card`` / ``win_seat``, suit ``led`` (-1 when leading); ``trick_mask`` holds them.

    The arrays of :func:`new_tables` and the hands come as addresses (:func:`_address`), viewed here with
    ``numba.carray``: views without an owner, so that no call of this recursion counts references (passed as
    arrays, each call's atomic increments and decrements of the five arrays' counts took about 40% of the
    solve's time, measured with ``perf``). The caller keeps the arrays alive."""
    ctx = carray(_as_pointer(ctx_p), CTX_SIZE, np.int64)
    tt = carray(_as_pointer(tt_p), (ctx[C_TTMASK] + 1, 2), np.int64)
    history = carray(_as_pointer(history_p), (4, 32), np.int64)
    killers = carray(_as_pointer(killers_p), (MAX_PLY, 18), np.int64)
    hands = carray(_as_pointer(hands_p), 4, np.int64)
    ctx[C_NODES] += 1
    if tricks_left == 0:
        return 0
    if ntrick == 0 and tricks_left == 1:
        return _last_trick(ctx, hands, seat, cap)
    alpha0 = alpha
    beta0 = beta
    nodes0 = ctx[C_NODES]
    tt_best = -1
    base = -1
    key = 0
    meta = 0
    rem = hands[0] | hands[1] | hands[2] | hands[3]
    if ntrick == 3 and tricks_left >= 3:
        # the enhanced cutoff below reads the buckets of the trick starts this trick can lead to: fetch them now,
        # so that their cache misses overlap with the rest of the node's work
        _prefetch_etc(ctx, tt, hands[seat], seat, led, win_card, win_seat, rem, tricks_left, cap)
    if ntrick == 0 or tricks_left >= TT_MID_TRICK:
        key, meta, base = _tt_key(rem, trick_mask, seat, cap, ctx[C_STAMP], ctx[C_TTMASK])
        slot = _tt_find(tt, base, key, meta)
        if slot >= 0:
            w = tt[slot, 1]
            lo, hi = _tt_bounds(w)
            tt_best = ((w >> 22) & 63) - 1
            ctx[C_TTHITS] += 1
            if lo == hi or lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
    # bound: no team can win more than every point still to be won
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    bound = _points_left(ctx, rem, trick_pts)
    if cap != CAP_NONE:
        bound += ctx[C_CAPOT_BONUS]
    if bound <= alpha:
        return bound
    if -bound >= beta:
        return -bound
    maximize = (seat & 1) == 0
    if ntrick == 0 and tricks_left >= QUICK_MIN_TRICKS:
        # the leader's team wins at least the masters it can cash
        q = max(_quick_points(ctx, hands, seat, rem), _partner_points(ctx, hands, seat, rem))
        tteam, tpts = _top_trumps(ctx, hands, rem)
        q0 = q if maximize else 0
        q1 = 0 if maximize else q
        if tteam == 0:
            q0 = max(q0, tpts)
        else:
            q1 = max(q1, tpts)
        # bound: every point left (with the capot bonus, which a team winning a trick denies the other)
        if q0 > 0 and 2 * q0 - bound >= beta:
            return 2 * q0 - bound
        if q1 > 0 and bound - 2 * q1 <= alpha:
            return bound - 2 * q1
    # the cards of the trick in progress are still in play for the equivalence of cards
    if ntrick == 0 and tricks_left == 2:
        # the last two tricks: a plain alpha-beta without ordering (its value is stored, not its card)
        n = 0
        best = _two_tricks(ctx, hands, seat, cap, alpha, beta)
        best_card = -1
    else:
        n = gen_moves(ctx, hands, seat, led, win_card, win_seat, ntrick, rem | trick_mask, tt_best, ply, history,
                      killers)
        best = -INF if maximize else INF
        best_card = killers[ply, 2]
        if ntrick == 3 and tricks_left >= 3:
            # enhanced transposition cutoff: a card that ends the trick in a position whose bound in the table
            # already gives the cutoff. Their buckets were fetched at the top of the node (_prefetch_etc), all at
            # once, so their cache misses overlap with one another and with the node's work before this.
            for i in range(n):
                c = killers[ply, 2 + i]
                pts = trick_pts + POINTS[strain, rules, c]
                nled, nwin_card, nwin_seat, ncap, add = play_card(ctx, c, seat, led, win_card, win_seat, ntrick,
                                                                  strain, pts, tricks_left, cap)
                ckey, cmeta, cbase = _tt_key(rem ^ (1 << c), 0, nwin_seat, ncap, ctx[C_STAMP], ctx[C_TTMASK])
                cslot = _tt_find(tt, cbase, ckey, cmeta)
                if cslot >= 0:
                    clo, chi = _tt_bounds(tt[cslot, 1])
                    if maximize:
                        if clo + add >= beta:
                            return clo + add
                    elif chi + add <= alpha:
                        return chi + add
    for i in range(n):
        c = killers[ply, 2 + i]
        bit = 1 << c
        if ntrick == 2 and tricks_left >= 3 and i + 1 < n:
            # the trick the next card makes: fetch the buckets its last card's enhanced cutoff will read, while
            # this card's subtree is searched
            d = killers[ply, 3 + i]
            dled, dwin_card, dwin_seat, dcap, dadd = play_card(ctx, d, seat, led, win_card, win_seat, 2, strain, 0,
                                                               tricks_left, cap)
            _prefetch_etc(ctx, tt, hands[(seat + 1) & 3], (seat + 1) & 3, dled, dwin_card, dwin_seat, rem ^ (1 << d),
                          tricks_left, cap)
        hands[seat] ^= bit
        pts = trick_pts + POINTS[strain, rules, c]
        nled, nwin_card, nwin_seat, ncap, add = play_card(ctx, c, seat, led, win_card, win_seat, ntrick, strain,
                                                          pts, tricks_left, cap)
        if ntrick == 3:
            v = add + search(ctx_p, tt_p, history_p, killers_p, hands_p, nwin_seat, np.int64(-1), np.int64(-1), np.int64(-1),
                             np.int64(0), np.int64(0), np.int64(0), tricks_left - 1, ncap, alpha - add, beta - add,
                             ply + 1)
        else:
            v = search(ctx_p, tt_p, history_p, killers_p, hands_p, (seat + 1) & 3, nled, nwin_card,
                       nwin_seat, ntrick + 1, pts, trick_mask | bit, tricks_left, cap, alpha, beta, ply + 1)
        hands[seat] ^= bit
        if maximize:
            if v > best:
                best = v
                best_card = c
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                best_card = c
            if best < beta:
                beta = best
        if alpha >= beta:
            history[seat, c] += (33 - ply) * (33 - ply)
            if killers[ply, 0] != c:
                killers[ply, 1] = killers[ply, 0]
                killers[ply, 0] = c
            break
    if base >= 0:
        slot = _tt_find(tt, base, key, meta)
        if slot >= 0:
            lo, hi = _tt_bounds(tt[slot, 1])
        else:
            lo = -1023
            hi = 1023
            slot = _tt_victim(tt, base, ctx[C_STAMP])
        if best <= alpha0:
            if best < hi:
                hi = best
        elif best >= beta0:
            if best > lo:
                lo = best
        else:
            lo = best
            hi = best
        work = max(ctx[C_NODES] - nodes0, 1)
        tt[slot, 0] = key
        tt[slot, 1] = (lo + 1024) | ((hi + 1024) << 11) | ((best_card + 1) << 22) \
            | (min(63 - leading_zeros(work), 31) << 28) | (meta << 33)
    return best




@njit(cache=True)
def root_values(ctx, tt, history, killers, hands, seat, led, win_card, win_seat,
                ntrick, trick_pts, trick_mask, tricks_left, cap, out):
    """The exact value of every legal card of ``seat`` in ``out`` (indexed by card; untouched for others).

    Each card is searched with a full window; of equivalent cards only the highest is searched and the
    others get its value. Returns the legal mask."""
    strain = ctx[C_STRAIN]
    rules = ctx[C_RULES]
    hand = hands[seat]
    partner_winning = led >= 0 and (win_seat ^ seat) == 2
    legal = legal_cards(hand, led, win_card, partner_winning, strain, ctx[C_OVERTRUMP_PARTNER], ctx[C_UNDERTRUMP])
    rem = hands[0] | hands[1] | hands[2] | hands[3] | trick_mask
    n = gen_moves(ctx, hands, seat, led, win_card, win_seat, ntrick, rem, -1, 0, history, killers)
    moves = killers[0, 2:10].copy()
    guess = 0
    for i in range(n):
        c = moves[i]
        bit = 1 << c
        hands[seat] ^= bit
        pts = trick_pts + POINTS[strain, rules, c]
        nled, nwin_card, nwin_seat, ncap, add = play_card(ctx, c, seat, led, win_card, win_seat, ntrick, strain,
                                                          pts, tricks_left, cap)
        if ntrick == 3:
            v = add + mtdf(ctx, tt, history, killers, hands, nwin_seat, np.int64(-1), np.int64(-1), np.int64(-1),
                           np.int64(0), np.int64(0), np.int64(0), tricks_left - 1, ncap, guess - add, np.int64(1))
        else:
            v = mtdf(ctx, tt, history, killers, hands, (seat + 1) & 3, nled, nwin_card,
                     nwin_seat, ntrick + 1, pts, trick_mask | bit, tricks_left, cap, guess, 1)
        hands[seat] ^= bit
        out[c] = v
        guess = v
    # equivalent cards: the value of the next card above that was searched, from the top down
    for pos in range(7, -1, -1):
        for suit in range(4):
            c = ORDER[strain, suit, pos]
            if (legal >> c) & 1 and not _searched(moves, n, c):
                p = pos + 1
                while p < 8:
                    d = ORDER[strain, suit, p]
                    if (rem >> d) & 1:
                        out[c] = out[d]
                        break
                    p += 1
    return legal


@njit(cache=True, inline="always")
def _searched(moves, n, c):
    for i in range(n):
        if moves[i] == c:
            return True
    return False


@njit(cache=True)
def root_value(ctx, tt, history, killers, hands, seat, led, win_card, win_seat,
               ntrick, trick_pts, trick_mask, tricks_left, cap, alpha, beta):
    """:func:`search` from the root (an entry point, so that ``search`` is only ever compiled for the
    argument types it calls itself with)."""
    return mtdf(ctx, tt, history, killers, hands, seat, led, win_card, win_seat,
                ntrick, trick_pts, trick_mask, tricks_left, cap, 0, 0)


@njit(cache=True)
def mtdf(ctx, tt, history, killers, hands, seat, led, win_card, win_seat,
         ntrick, trick_pts, trick_mask, tricks_left, cap, guess, ply):
    """The exact value by null-window searches: the first at ``guess``, then a bisection of the values still
    possible (each fail-soft answer narrows them; the table keeps the bounds each search proves). Every value
    is within +-(the points left + the capot bonus) and, the bonus being even, of the parity of the points
    left."""
    total = _points_left(ctx, hands[0] | hands[1] | hands[2] | hands[3], trick_pts)
    bound = total
    if cap != CAP_NONE:
        bound += ctx[C_CAPOT_BONUS]
    step = 2 if ctx[C_CAPOT_BONUS] % 2 == 0 else 1
    lo = -bound - 1  # the value is > lo
    hi = bound  # the value is <= hi
    test = min(max(guess, -bound), bound)
    if step == 2 and (test - total) % 2 != 0:
        test -= 1
    while True:
        ctx[C_ITERS] += 1
        g = search(_address(ctx), _address(tt), _address(history), _address(killers), _address(hands), seat, led,
                   win_card, win_seat, ntrick, trick_pts, trick_mask, tricks_left, cap, test, test + 1, ply)
        if g > test:
            lo = g - 1
        else:
            hi = g
        if step == 2 and (hi - total) % 2 != 0:
            hi -= 1
        first = lo + 1  # the least value still possible
        if step == 2 and (first - total) % 2 != 0:
            first += 1
        if first >= hi:
            return hi
        n = (hi - first) // step + 1
        test = first + step * ((n - 1) // 2)
