"""numba kernels of the batched engine: N tables as one struct-of-arrays.

Each table is one row of an int64 matrix ``S`` (its cells are named in :mod:`.layout`), its random
generator one row of ``MT`` (Python's MT19937, see :mod:`.mt`). The kernels
are a transcription of ``belote_env.rules`` (section by section: dealing in
``state.DealState.random``, calls in ``bidding``, cards in ``play``,
declarations and belote in ``declarations``, scores in ``scoring``, the game
in ``game``) and of ``belote_env.observation.encode``. They are not a second
specification: ``tests/belote_env/fast/`` replays every step on the rules core and
compares observations, masks, seats, rewards and results bit for bit.

Conventions: ``V`` is the variant as ints (:func:`.tables.variant_params`),
``t`` a table index, seats are absolute 0..3, masks are 32-bit card sets in
int64, actions the ids of ``belote_env.rules.actions``.

The kernels compile without numba's reference counting (``_nrt=False``): they allocate nothing (their scratch
space is in the row: ``DECK``, ``DECL_LIST``), so no array of theirs needs counting, and the atomic increments
and decrements numba puts around every inlined call that takes an array cost more than the game itself (with
them a random deal took 2.4 to 2.8 times as long; 60 to 73% of it in the counts under ``perf``). Kernels of other
modules that allocate (the double-dummy solver) inline these into their own compilation, which counts
references.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numba import njit, prange

from ..rules.actions import (
    BID,
    CAPOT_INDEX,
    COINCHE,
    EN_FACE,
    EN_VOITURE,
    GENERALE_INDEX,
    NUM_ACTIONS,
    PASS,
    SURCOINCHE,
    TAKE,
)
from .. import factored as _factored
from ..observation import OBS_SIZE
from ..rules.cards import ALL_TRUMP, KING, NO_TRUMP, QUEEN
from . import streams
from .layout import (
    BELOTE_CARDS,
    BELOTE_EVENTS,
    BELOTE_POINTS,
    BIDDING_AUCTION,
    BIDDING_TAKE_OR_PASS,
    C_CALLER,
    C_KIND,
    C_LEVEL,
    C_STRAIN,
    C_TAKER,
    C_VALUE,
    C_VINDEX,
    CALLBITS,
    COUNTING_ANNONCES,
    COUNTING_FAITS,
    DEAL_LOG_START,
    DEAL_START,
    DEALER,
    DECK,
    DECL_CARDS,
    DECL_LIST,
    DECL_POINTS,
    DECL_TEAM,
    GARDE,
    HAND,
    HIGH,
    HIGH_SEAT,
    I_CALLER,
    I_CARD_POINTS0,
    I_CARD_POINTS1,
    I_DEAL_SCORE0,
    I_DEAL_SCORE1,
    I_DEALS,
    I_KIND,
    I_LEVEL,
    I_OUTCOME,
    I_SCORE0,
    I_SCORE1,
    I_STRAIN,
    I_TAKER,
    I_TRUNCATED,
    I_VALUE,
    I_WINNER,
    INITIAL,
    KIND_BID,
    KIND_CAPOT,
    KIND_COULEUR,
    KIND_EN_FACE,
    KIND_EN_VOITURE,
    KIND_GENERALE,
    KIND_TAKE,
    LAST_TRICK_SEAT,
    LEADER,
    LED,
    LEGAL_HI,
    LEGAL_LO,
    LEVEL,
    LOGLEN,
    MAX_DECLARATIONS,
    NCALLS,
    NDEALS,
    NTRICKS,
    OUT_FAILED,
    OUT_LITIGE,
    OUT_MADE,
    OUT_REDEAL,
    P_BIDDING,
    P_BIDS,
    P_COUNTING,
    P_DECLARATIONS,
    P_EPISODE_GAME,
    P_FULL,
    P_MAX_REDEALS,
    P_MUST_BEAT_DEFENSE,
    P_NSTRAINS,
    P_OFFICIELLES,
    P_OVERTRUMP_PARTNER,
    P_REWARD_WIN,
    P_SCORING,
    P_STRAINS,
    P_TARGET,
    P_THRESHOLD_INCLUSIVE,
    P_UNDERTRUMP,
    PASSES,
    PH_BIDDING,
    PH_DONE,
    PH_PLAY,
    PHASE,
    PLAYED,
    POINTS_WON,
    R_GARDE_OUT,
    R_OUTCOME,
    R_SCORE,
    REDEALS,
    SCORE,
    SCORING_CLASSIC,
    SCORING_COBRECAF,
    SCORING_COINCHE,
    SEAT,
    SEAT_PASSES,
    STOCK,
    TRICK,
    TRICK_LEN,
    TRICK_LOG,
    TRICKS_WON,
    TURNUP,
    WIN_CARD,
    WIN_SEAT,
)
from .mt import randbelow, shuffle
from .tables import (
    BID_VALUE,
    BYTE_BITS,
    BYTE_BOOLS,
    BYTE_COUNT,
    BYTE_FLOATS,
    CALL_BLOCK,
    CARD_TOTAL,
    CARRE_CARDS,
    CARRE_POINTS,
    CARRE_RANK,
    HIGHER,
    LEVEL_INDEX,
    O_BELOTE,
    O_BIDDING_SYSTEM,
    O_CALLS,
    O_CARD_POINTS,
    O_CONTRACT_KIND,
    O_CONTRACT_STRAIN,
    O_CONTRACT_VALUE,
    O_DEALER,
    O_DECLARATION_POINTS,
    O_DECLARATIONS,
    O_GAME,
    O_HAND,
    O_HIGH_CALL_SEAT,
    O_LEVEL,
    O_NUM_CALLS,
    O_PASSES,
    O_PHASE,
    O_PLAYED,
    O_TAKER,
    O_TRICK,
    O_TRICK_LEADER,
    O_TRICK_NUMBER,
    O_TRICK_WINNER,
    O_TRICKS_WON,
    O_TURNUP,
    POINTS,
    RUN_COUNT,
    RUN_LENGTH,
    RUN_START,
    SEQUENCE_POINTS,
    STRENGTH,
    SUIT_MASKS,
    TRUMP_MASK,
)

kernel = partial(njit, cache=True, _nrt=False)  # ``@kernel`` or ``@kernel(inline="always")``: see the docstring

CALL_REDEAL = -2  # apply_call's outcome when the deal is redealt (0: the bidding goes on, 1: a contract)


# --- dealing ------------------------------------------------------------------

@kernel
def deal_new(V, S, t, mt, dealer, garde):
    """DealState.random(variant, dealer, rng, garde): shuffle (in the row's DECK), deal, clear the deal columns."""
    deck = S[t, DECK:DECK + 32]
    for c in range(32):
        deck[c] = c
    shuffle(mt, deck)
    deal_deck(V, S, t, deck, dealer, garde)


@kernel
def deal_deck(V, S, t, deck, dealer, garde):
    """Deal the shuffled ``deck`` (32 card ids) as DealState.random does: ``n`` cards to each seat from the
    dealer's next, the turn-up and the stock after them in turn-up deals; clear the deal columns."""
    row = S[t]
    row[DEAL_START:] = 0
    n = 8 if V[P_FULL] else 5
    for i in range(4):
        m = 0
        for k in range(n * i, n * i + n):
            m |= 1 << deck[k]
        row[HAND + ((dealer + 1 + i) & 3)] = m
    if n == 8:
        row[TURNUP] = -1
    else:
        row[TURNUP] = deck[20]
        for k in range(11):
            row[STOCK + k] = deck[21 + k]
    row[DEALER] = dealer
    row[GARDE] = garde
    _clear_deal(row)


@kernel
def _clear_deal(row):
    for s in range(4):
        row[INITIAL + s] = row[HAND + s]
    row[DEAL_LOG_START] = row[LOGLEN]
    row[PHASE] = PH_BIDDING
    row[SEAT] = (row[DEALER] + 1) & 3
    row[HIGH] = -1
    row[HIGH_SEAT] = -1
    row[LEVEL] = 1
    row[C_TAKER] = -1
    row[C_VINDEX] = -1
    row[LEADER] = row[SEAT]
    row[LED] = -1
    row[WIN_CARD] = -1
    row[WIN_SEAT] = -1
    row[DECL_TEAM] = -1
    row[LAST_TRICK_SEAT] = -1


@kernel
def deal_from_hands(V, S, t, dealer, garde, hands, turnup, stock):
    """DealState.from_hands: a deal from given cards (5 or 8 per hand, turn-up and stock for turn-up deals)."""
    row = S[t]
    row[DEAL_START:] = 0
    for s in range(4):
        row[HAND + s] = hands[s]
    row[TURNUP] = turnup
    if turnup >= 0:
        for k in range(11):
            row[STOCK + k] = stock[k]
    row[DEALER] = dealer
    row[GARDE] = garde
    _clear_deal(row)


# --- legal actions -------------------------------------------------------------

@kernel(inline="always")
def legal_card_mask(hand, led, win_card, partner_winning, strain, overtrump_partner, undertrump):
    """play.legal_cards on masks: the cards of ``hand`` that may be played to a trick whose led suit is
    ``led`` (-1 when leading) and best card ``win_card``. The one copy of the rule in the kernels, used by
    the batched engine (:func:`legal_cards`) and the double-dummy solver (``belote_env.search.dd``)."""
    if led < 0:
        return hand
    follow = hand & SUIT_MASKS[led]
    if strain < 4:
        if follow:
            if led == strain and (overtrump_partner or not partner_winning):
                higher = follow & HIGHER[strain, win_card]
                if higher:
                    return higher
            return follow
        if partner_winning:
            return hand
        trumps = hand & TRUMP_MASK[strain]
        if not trumps:
            return hand
        if win_card >> 3 == strain:
            higher = trumps & HIGHER[strain, win_card]
            if higher:
                return higher
            return trumps if undertrump else hand
        return trumps
    if follow:
        if strain == ALL_TRUMP:
            higher = follow & HIGHER[strain, win_card]
            if higher:
                return higher
        return follow
    return hand


@kernel(inline="always")
def legal_cards(V, row):
    """play.legal_cards for the seat to act."""
    seat = row[SEAT]
    return legal_card_mask(row[HAND + seat], row[LED], row[WIN_CARD], (row[WIN_SEAT] ^ seat) == 2, row[C_STRAIN],
                           V[P_OVERTRUMP_PARTNER], V[P_UNDERTRUMP])


@kernel(inline="always")
def _bit(a):
    """The (low word, high word) bits of action id a."""
    if a < 64:
        return 1 << a, 0
    return 0, 1 << (a - 64)


@kernel
def legal_call_words(V, row):
    """bidding.*_legal: the legal calls of the seat to speak, as (ids 0..63, ids 64..111) bit words."""
    seat = row[SEAT]
    system = V[P_BIDDING]
    lo = 1 << PASS
    hi = 0
    if system == BIDDING_TAKE_OR_PASS:
        up = row[TURNUP] >> 3
        if row[NCALLS] < 4:
            return lo | (1 << (TAKE + up)), hi
        for k in range(V[P_NSTRAINS]):
            s = V[P_STRAINS + k]
            if s != up:
                lo |= 1 << (TAKE + s)
        return lo, hi
    if row[LEVEL] > 1:  # after a coinche: pass, and surcoinche for the coinched team
        if row[LEVEL] == 2 and ((seat ^ row[HIGH_SEAT]) & 1) == 0:
            lo |= 1 << SURCOINCHE
        return lo, hi
    high = row[HIGH]
    if high >= 0 and ((seat ^ row[HIGH_SEAT]) & 1) == 1:
        lo |= 1 << COINCHE
    if system == BIDDING_AUCTION:
        first = 0 if high < 0 else (high - BID) // 6 + 1
        return lo | V[P_BIDS + 2 * first], hi | V[P_BIDS + 2 * first + 1]
    # cobrecaf_81
    rank = -1 if high < 0 else _call_rank(high)
    if rank < 0:
        if row[NCALLS] < 4:
            lo |= 1 << (TAKE + (row[TURNUP] >> 3))
        else:
            for s in range(4):
                lo |= 1 << (TAKE + s)
    if rank < 1:
        for s in range(4):
            l, h = _bit(BID + 6 * CAPOT_INDEX + s)
            lo |= l
            hi |= h
    if rank < 2:
        for s in range(4):
            hi |= 1 << (EN_VOITURE + s - 64)
    if rank < 0:
        hi |= 1 << (EN_FACE - 64)
    return lo, hi


@kernel
def _call_rank(a):
    """Couleur / En face 0, Capot 1, En voiture 2."""
    if a >= EN_VOITURE and a != EN_FACE:
        return 2
    if a >= BID and a != EN_FACE:
        return 1
    return 0


@kernel(inline="always")
def legal_words(V, row):
    """The legal actions of the seat to act as two bit words (ids 0..63, 64..111), also kept in
    LEGAL_LO / LEGAL_HI; the legal action list is their set bits in ascending order."""
    phase = row[PHASE]
    if phase == PH_PLAY:
        lo, hi = legal_cards(V, row), 0
    elif phase == PH_BIDDING:
        lo, hi = legal_call_words(V, row)
    else:
        lo, hi = 0, 0
    row[LEGAL_LO] = lo
    row[LEGAL_HI] = hi
    return lo, hi


@kernel(inline="always")
def popcount(x):
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel(inline="always")
def _nth_bit(x, j):
    """Position of the j-th (from 0) set bit of x, lowest first."""
    for b in range(8):
        byte = (x >> (8 * b)) & 0xFF
        c = BYTE_COUNT[byte]
        if j < c:
            return 8 * b + BYTE_BITS[byte, j]
        j -= c
    return -1


@kernel(inline="always")
def nth_legal(lo, hi, j):
    """The j-th legal action in ascending order (``legal_actions()[j]``)."""
    n_lo = popcount(lo)
    if j < n_lo:
        return _nth_bit(lo, j)
    return 64 + _nth_bit(hi, j - n_lo)


@kernel(inline="always")
def is_legal(row, a):
    if a < 0 or a >= NUM_ACTIONS:
        return False
    if a < 64:
        return (row[LEGAL_LO] >> a) & 1 == 1
    return (row[LEGAL_HI] >> (a - 64)) & 1 == 1


@kernel(inline="always")
def write_mask(row, out):
    """The legal actions (LEGAL_LO / LEGAL_HI) as a bool row of 112."""
    for w in range(2):
        bits = row[LEGAL_LO + w]
        for b in range(8 if w == 0 else 6):
            byte = (bits >> (8 * b)) & 0xFF
            o = 64 * w + 8 * b
            for j in range(8):
                out[o + j] = BYTE_BOOLS[byte, j]


# --- calls -----------------------------------------------------------------------

@kernel
def _set_contract(V, row, taker, strain, value, vindex, kind, level, caller):
    row[C_TAKER] = taker
    row[C_STRAIN] = strain
    row[C_VALUE] = value
    row[C_VINDEX] = vindex
    row[C_KIND] = kind
    row[C_LEVEL] = level
    row[C_CALLER] = caller


@kernel
def _auction_contract(V, row):
    a = row[HIGH]
    vi = (a - BID) // 6
    kind = KIND_CAPOT if vi == CAPOT_INDEX else KIND_GENERALE if vi == GENERALE_INDEX else KIND_BID
    _set_contract(V, row, row[HIGH_SEAT], (a - BID) % 6, BID_VALUE[vi], vi, kind, row[LEVEL], row[HIGH_SEAT])


@kernel
def _cobrecaf_contract(V, row):
    a = row[HIGH]
    caller = row[HIGH_SEAT]
    if a == EN_FACE:
        _set_contract(V, row, (caller + 2) & 3, row[TURNUP] >> 3, 81, 11, KIND_EN_FACE, row[LEVEL], caller)
    elif a >= EN_VOITURE:
        _set_contract(V, row, caller, a - EN_VOITURE, 81, 11, KIND_EN_VOITURE, row[LEVEL], caller)
    elif a >= BID:
        _set_contract(V, row, caller, (a - BID) % 6, 81, 11, KIND_CAPOT, row[LEVEL], caller)
    else:
        _set_contract(V, row, caller, a - TAKE, 81, 11, KIND_COULEUR, row[LEVEL], caller)


@kernel
def _make_contract(V, row):
    if V[P_BIDDING] == BIDDING_AUCTION:
        _auction_contract(V, row)
    else:
        _cobrecaf_contract(V, row)


@kernel
def _doubling_apply(V, row, seat, a, redeal_passes):
    """bidding._doubling_apply: returns 1 when the bidding is over with a contract, CALL_REDEAL, or 0."""
    if a == PASS:
        row[PASSES] += 1
        if row[HIGH] < 0:
            return CALL_REDEAL if row[PASSES] == redeal_passes else 0
        if row[PASSES] == 3:
            _make_contract(V, row)
            return 1
        return 0
    row[PASSES] = 0
    if a == COINCHE:
        row[LEVEL] = 2
        return 0
    if a == SURCOINCHE:
        row[LEVEL] = 4
        _make_contract(V, row)
        return 1
    row[HIGH] = a
    row[HIGH_SEAT] = seat
    return 0


@kernel
def apply_call(V, row, a):
    """DealState._call."""
    seat = row[SEAT]
    row[NCALLS] += 1
    if a == PASS:
        row[SEAT_PASSES + seat] += 1
    else:
        bit = a - PASS
        row[CALLBITS + 2 * seat + (bit >> 6)] |= 1 << (bit & 63)
    system = V[P_BIDDING]
    if system == BIDDING_TAKE_OR_PASS:
        if a == PASS:
            outcome = CALL_REDEAL if row[NCALLS] == 8 else 0
        else:
            _set_contract(V, row, seat, a - TAKE, 0, -1, KIND_TAKE, 1, seat)
            outcome = 1
    elif system == BIDDING_AUCTION:
        outcome = _doubling_apply(V, row, seat, a, 4)
    else:
        outcome = _doubling_apply(V, row, seat, a, 8)
    if outcome == 0:
        row[SEAT] = (seat + 1) & 3
    elif outcome == CALL_REDEAL:
        row[PHASE] = PH_DONE
        row[R_SCORE] = 0
        row[R_SCORE + 1] = 0
        row[R_OUTCOME] = OUT_REDEAL
        row[R_GARDE_OUT] = row[GARDE]
    else:
        _start_play(V, row)


# --- start of play: turn-up, belote, declarations ----------------------------------

@kernel
def _start_play(V, row):
    """DealState._start_play."""
    taker = row[C_TAKER]
    strain = row[C_STRAIN]
    if row[TURNUP] >= 0:
        row[HAND + taker] |= 1 << row[TURNUP]
        k = 0
        for i in range(1, 5):
            seat = (row[DEALER] + i) & 3
            for _ in range(2 if seat == taker else 3):
                row[HAND + seat] |= 1 << row[STOCK + k]
                k += 1
    if strain != NO_TRUMP:
        for suit in range(4):
            if strain != ALL_TRUMP and suit != strain:
                continue
            pair = (1 << (8 * suit + KING)) | (1 << (8 * suit + QUEEN))
            for seat in range(4):
                if row[HAND + seat] & pair == pair:
                    row[BELOTE_CARDS + seat] |= pair
    if V[P_DECLARATIONS]:
        _declarations(row, strain)
    row[PHASE] = PH_PLAY
    lead = taker if row[C_KIND] == KIND_GENERALE else (row[DEALER] + 1) & 3
    row[LEADER] = lead
    row[SEAT] = lead


@kernel
def _declarations(row, strain):
    """declarations.hand_declarations for each seat, then best_team."""
    m = MAX_DECLARATIONS
    seat_of = row[DECL_LIST:DECL_LIST + m]
    points = row[DECL_LIST + m:DECL_LIST + 2 * m]
    top = row[DECL_LIST + 2 * m:DECL_LIST + 3 * m]
    suit_of = row[DECL_LIST + 3 * m:DECL_LIST + 4 * m]
    n = 0
    for seat in range(4):
        hand = row[HAND + seat]
        cards = 0
        for suit in range(4):
            bits = (hand >> (8 * suit)) & 0xFF
            for k in range(RUN_COUNT[bits]):
                start = RUN_START[bits, k]
                length = RUN_LENGTH[bits, k]
                seat_of[n] = seat
                points[n] = SEQUENCE_POINTS[length]
                top[n] = start + length - 1
                suit_of[n] = suit
                n += 1
                cards |= ((1 << length) - 1) << (8 * suit + start)
        for k in range(CARRE_RANK.shape[0]):
            if hand & CARRE_CARDS[k] == CARRE_CARDS[k]:
                seat_of[n] = seat
                points[n] = CARRE_POINTS[k]
                top[n] = CARRE_RANK[k]
                suit_of[n] = -1
                n += 1
                cards |= CARRE_CARDS[k]
        row[DECL_CARDS + seat] = cards
    team = -1
    for tm in range(2):
        for i in range(n):
            if seat_of[i] & 1 != tm:
                continue
            best = True
            for j in range(n):
                if seat_of[j] & 1 != tm and _compare(points[i], top[i], suit_of[i], points[j], top[j], suit_of[j], strain) <= 0:
                    best = False
                    break
            if best:
                team = tm
                break
        if team >= 0:
            break
    row[DECL_TEAM] = team
    if team >= 0:
        total = 0
        for i in range(n):
            if seat_of[i] & 1 == team:
                total += points[i]
        row[DECL_POINTS + team] = total


@kernel
def _compare(pa, ta, sa, pb, tb, sb, strain):
    """declarations._compare: >0 if a beats b, <0 if b beats a, 0 for a tie."""
    if pa != pb:
        return pa - pb
    if sa < 0 or sb < 0:
        return 0
    if ta != tb:
        return ta - tb
    a_trump = 1 if (strain == ALL_TRUMP or sa == strain) else 0
    b_trump = 1 if (strain == ALL_TRUMP or sb == strain) else 0
    return a_trump - b_trump


# --- card play ----------------------------------------------------------------------

@kernel(inline="always")
def beats(card, win_card, strain):
    """Whether ``card`` takes the trick from ``win_card`` in a ``strain`` contract (rules.play.beats)."""
    if card >> 3 == win_card >> 3:
        return STRENGTH[strain, card] > STRENGTH[strain, win_card]
    return (TRUMP_MASK[strain] >> card) & 1 == 1


@kernel(inline="always")
def apply_card(V, row, card):
    """DealState._play."""
    seat = row[SEAT]
    bit = 1 << card
    row[HAND + seat] ^= bit
    row[PLAYED + seat] |= bit
    if row[BELOTE_CARDS + seat] & bit:
        pair = row[BELOTE_CARDS + seat] & (0xFF << (card & ~7))
        if row[PLAYED + seat] & pair == pair:
            row[BELOTE_EVENTS + seat] |= 2
            row[BELOTE_POINTS + (seat & 1)] += 20
        else:
            row[BELOTE_EVENTS + seat] |= 1
    strain = row[C_STRAIN]
    n = row[TRICK_LEN]
    if n == 0:
        row[LED] = card >> 3
        row[WIN_CARD] = card
        row[WIN_SEAT] = seat
    else:
        if beats(card, row[WIN_CARD], strain):
            row[WIN_CARD] = card
            row[WIN_SEAT] = seat
    row[TRICK + n] = card
    n += 1
    row[TRICK_LEN] = n
    if n < 4:
        row[SEAT] = (seat + 1) & 3
        return
    rules = V[P_OFFICIELLES]
    pts = 0
    for i in range(4):
        pts += POINTS[strain, rules, row[TRICK + i]]
    winner = row[WIN_SEAT]
    log = TRICK_LOG + 7 * row[NTRICKS]
    row[log] = row[LEADER]
    for i in range(4):
        row[log + 1 + i] = row[TRICK + i]
    row[log + 5] = winner
    row[log + 6] = pts
    row[POINTS_WON + (winner & 1)] += pts
    row[TRICKS_WON + winner] += 1
    row[NTRICKS] += 1
    row[TRICK_LEN] = 0
    row[LED] = -1
    row[LEADER] = winner
    row[SEAT] = winner
    if row[NTRICKS] == 8:
        row[PHASE] = PH_DONE
        row[LAST_TRICK_SEAT] = winner
        score_deal(V, row)


@kernel(inline="always")
def apply_action(V, row, a):
    """DealState.apply for a legal action."""
    if a < 32:
        apply_card(V, row, a)
    else:
        apply_call(V, row, a)


# --- scoring (scoring.py) ----------------------------------------------------------------

@kernel
def _round10(x):
    return (x + 5) // 10 * 10


@kernel
def score_deal(V, row):
    """scoring.score_deal of the deal just played out: R_SCORE, R_OUTCOME, R_GARDE_OUT."""
    taker = row[C_TAKER]
    t = taker & 1
    d = 1 - t
    tricks0 = row[TRICKS_WON] + row[TRICKS_WON + 2]
    capot = 0 if tricks0 == 8 else 1 if tricks0 == 0 else -1
    last = row[LAST_TRICK_SEAT] & 1
    cards = (row[POINTS_WON], row[POINTS_WON + 1])
    belote = (row[BELOTE_POINTS], row[BELOTE_POINTS + 1])
    decl = (row[DECL_POINTS], row[DECL_POINTS + 1])
    kind = row[C_KIND]
    value = row[C_VALUE]
    m = row[C_LEVEL]
    strain = row[C_STRAIN]
    rules = V[P_OFFICIELLES]
    scoring = V[P_SCORING]
    garde_in = row[GARDE]
    garde_out = 0
    s0 = 0
    s1 = 0
    if scoring == SCORING_CLASSIC or scoring == SCORING_COINCHE:
        der = 100 if capot >= 0 else 10
        p0 = cards[0] + (der if last == 0 else 0) + belote[0] + decl[0]
        p1 = cards[1] + (der if last == 1 else 0) + belote[1] + decl[1]
        pt = p0 if t == 0 else p1
        pd = p1 if t == 0 else p0
        st = 0
        sd = 0
        if scoring == SCORING_CLASSIC:
            if pt > pd:
                outcome = OUT_MADE
                st = pt + garde_in
                sd = pd
            elif pt < pd:
                outcome = OUT_FAILED
                sd = CARD_TOTAL[strain, rules] + (100 if capot == d else 10) + decl[0] + decl[1] + belote[d] + garde_in
                st = belote[t]
            else:
                outcome = OUT_LITIGE
                sd = pd
                garde_out = garde_in + pt
        else:
            if kind == KIND_CAPOT:
                made = capot == t
            elif kind == KIND_GENERALE:
                made = row[TRICKS_WON + taker] == 8
            else:
                made = pt >= value and pt > pd
            if made:
                outcome = OUT_MADE
                if m == 1:
                    st = (_round10(pt) if rules else pt) + value
                    sd = _round10(pd) if rules else pd
                elif kind == KIND_CAPOT or kind == KIND_GENERALE:
                    total = CARD_TOTAL[strain, rules] + 100
                    st = ((_round10(total) if rules else total) + value) * m
                    sd = belote[d]
                else:
                    st = (160 + value) * m
                    sd = belote[d]
            else:
                outcome = OUT_FAILED
                sd = (160 + value) * m + belote[d] + decl[0] + decl[1]
                st = belote[t]
        if t == 0:
            s0, s1 = st, sd
        else:
            s0, s1 = sd, st
    elif scoring == SCORING_COBRECAF:
        pts0 = cards[0] + (10 if last == 0 else 0)
        pts1 = cards[1] + (10 if last == 1 else 0)
        p = pts0 if t == 0 else pts1
        if kind == KIND_CAPOT:
            made = capot == t
        elif V[P_THRESHOLD_INCLUSIVE]:
            made = p >= 81
        else:
            made = p > 81
        st = 0
        sd = 0
        if made:
            outcome = OUT_MADE
            if kind == KIND_COULEUR or kind == KIND_EN_FACE:
                st = 81 * m + (p - 81)
                sd = pts1 if t == 0 else pts0
            else:
                st = 81 * m + 81
        else:
            outcome = OUT_FAILED
            sd = 81 * m + 81
        if t == 0:
            s0, s1 = st + belote[0], sd + belote[1]
        else:
            s0, s1 = sd + belote[0], st + belote[1]
    else:  # contree
        raw0 = cards[0] + (10 if last == 0 else 0)
        raw1 = cards[1] + (10 if last == 1 else 0)
        raw_t = raw0 if t == 0 else raw1
        raw_d = raw1 if t == 0 else raw0
        p_taker = raw_t + belote[t]
        if kind == KIND_CAPOT:
            made = capot == t
        else:
            made = p_taker >= value and (not V[P_MUST_BEAT_DEFENSE] or p_taker > raw_d)
        faits_w = 0
        annonces_w = 0
        faits_other = 0
        if made:
            outcome = OUT_MADE
            if kind == KIND_CAPOT:
                faits_w, annonces_w = 500 * m, 250 * m
            elif capot == t:
                faits_w, annonces_w = 250 * m, value * m
            elif m == 1:
                faits_w, faits_other = _round10(raw_t), _round10(raw_d)
                annonces_w = value
            else:
                faits_w, annonces_w = 160 * m, value * m
            winner = t
        else:
            outcome = OUT_FAILED
            if kind == KIND_CAPOT:
                faits_w, annonces_w = 500 * m, 250 * m
            else:
                faits_w, annonces_w = 160 * m, value * m
            winner = d
        counting = V[P_COUNTING]
        if counting == COUNTING_FAITS:
            sw, so = faits_w, faits_other
        elif counting == COUNTING_ANNONCES:
            sw, so = annonces_w, 0
        else:
            sw = faits_w + annonces_w
            so = faits_other if (made and m == 1) else 0
        if winner == 0:
            s0, s1 = sw + belote[0], so + belote[1]
        else:
            s0, s1 = so + belote[0], sw + belote[1]
    row[R_SCORE] = s0
    row[R_SCORE + 1] = s1
    row[R_OUTCOME] = outcome
    row[R_GARDE_OUT] = garde_out


# --- observation (observation.encode) --------------------------------------------------------

@kernel(inline="always")
def _put_bits(out, offset, mask, nbytes):
    """Write the low ``8 * nbytes`` bits of ``mask`` as floats 0/1 at ``offset`` (zeros untouched)."""
    for b in range(nbytes):
        byte = (mask >> (8 * b)) & 0xFF
        if byte:
            o = offset + 8 * b
            for j in range(8):
                out[o + j] = BYTE_FLOATS[byte, j]


@kernel(inline="always")
def _put_mask(out, offset, mask):
    _put_bits(out, offset, mask, 4)


@kernel
def encode(V, row, seat, out):
    """observation.encode(game, seat) of the table in ``row``, into ``out`` (float32[853])."""
    out[:] = 0.0
    _put_mask(out, O_HAND, row[HAND + seat])
    if row[TURNUP] >= 0:
        out[O_TURNUP + row[TURNUP]] = 1.0
    for s in range(4):
        r = (s - seat) & 3
        for w in range(2):
            bits = row[CALLBITS + 2 * s + w]
            if bits:
                _put_bits(out, O_CALLS + CALL_BLOCK * r + 64 * w, bits, 8 if w == 0 else 2)
        out[O_PASSES + r] = row[SEAT_PASSES + s] / 8
    out[O_NUM_CALLS] = row[NCALLS] / 32
    if row[HIGH_SEAT] >= 0:
        out[O_HIGH_CALL_SEAT + ((row[HIGH_SEAT] - seat) & 3)] = 1.0
    has_contract = row[C_TAKER] >= 0
    level = row[C_LEVEL] if has_contract else row[LEVEL]
    out[O_LEVEL + LEVEL_INDEX[level]] = 1.0
    if has_contract:
        out[O_CONTRACT_STRAIN + row[C_STRAIN]] = 1.0
        if row[C_VINDEX] >= 0:
            out[O_CONTRACT_VALUE + row[C_VINDEX]] = 1.0
        out[O_CONTRACT_KIND + row[C_KIND]] = 1.0
        out[O_TAKER + ((row[C_TAKER] - seat) & 3)] = 1.0
    phase = row[PHASE]
    if phase == PH_PLAY:
        leader = row[LEADER]
        for i in range(row[TRICK_LEN]):
            out[O_TRICK + 32 * ((leader + i - seat) & 3) + row[TRICK + i]] = 1.0
        out[O_TRICK_LEADER + ((leader - seat) & 3)] = 1.0
        if row[TRICK_LEN]:
            out[O_TRICK_WINNER + ((row[WIN_SEAT] - seat) & 3)] = 1.0
    for s in range(4):
        _put_mask(out, O_PLAYED + 32 * ((s - seat) & 3), row[PLAYED + s])
    team = row[DECL_TEAM]
    if row[NTRICKS] > 0 and team >= 0:
        for s in range(4):
            if s & 1 == team:
                _put_mask(out, O_DECLARATIONS + 32 * ((s - seat) & 3), row[DECL_CARDS + s])
        out[O_DECLARATION_POINTS + (0 if team == seat & 1 else 1)] = row[DECL_POINTS + team] / 100
    for s in range(4):
        ev = row[BELOTE_EVENTS + s]
        r = (s - seat) & 3
        if ev & 1:
            out[O_BELOTE + 2 * r] = 1.0
        if ev & 2:
            out[O_BELOTE + 2 * r + 1] = 1.0
    out[O_TRICK_NUMBER + row[NTRICKS]] = 1.0
    out[O_DEALER + ((row[DEALER] - seat) & 3)] = 1.0
    me = seat & 1
    out[O_CARD_POINTS] = row[POINTS_WON + me] / 162
    out[O_CARD_POINTS + 1] = row[POINTS_WON + 1 - me] / 162
    tw = row[TRICKS_WON + seat] + row[TRICKS_WON + (seat ^ 2)]
    out[O_TRICKS_WON] = tw / 8
    out[O_TRICKS_WON + 1] = (row[NTRICKS] - tw) / 8
    if phase == PH_BIDDING:
        out[O_PHASE] = 1.0
    elif phase == PH_PLAY:
        out[O_PHASE + 1] = 1.0
    out[O_BIDDING_SYSTEM + V[P_BIDDING]] = 1.0
    if V[P_EPISODE_GAME]:
        target = V[P_TARGET]
        out[O_GAME] = row[SCORE + me] / target
        out[O_GAME + 1] = row[SCORE + 1 - me] / target
        out[O_GAME + 2] = row[GARDE] / target
        out[O_GAME + 3] = target / 3000


# --- the game (game.GameState) and the batched step ------------------------------------------------

@kernel
def new_episode(V, S, MT, MT0, t):
    """GameState(variant, rng=the table's generator): scores 0, dealer 0, first deal."""
    for i in range(MT.shape[1]):
        MT0[t, i] = MT[t, i]
    row = S[t]
    row[SCORE] = 0
    row[SCORE + 1] = 0
    row[NDEALS] = 1
    row[LOGLEN] = 0
    row[REDEALS] = 0
    deal_new(V, S, t, MT[t], 0, 0)


@kernel
def _end_deal(V, scale, S, MT, MT0, t, j, rew, info, final_seat, final_obs):
    """GameState._end_deal at table ``t`` and the AEC env's rewards (outputs in row ``j``); returns True when the
    episode is over. Where ``final_seat[j] >= 0``, the episode's last observation of that seat (the AEC env's, at
    its end) goes to ``final_obs[j]`` before the table starts its next episode."""
    row = S[t]
    outcome = row[R_OUTCOME]
    info[j, I_DEAL_SCORE0] = row[R_SCORE]
    info[j, I_DEAL_SCORE1] = row[R_SCORE + 1]
    info[j, I_OUTCOME] = outcome
    if row[C_TAKER] >= 0:  # an all-pass deal leaves the contract fields at -1
        info[j, I_TAKER] = row[C_TAKER]
        info[j, I_STRAIN] = row[C_STRAIN]
        info[j, I_VALUE] = row[C_VALUE]
        info[j, I_KIND] = row[C_KIND]
        info[j, I_LEVEL] = row[C_LEVEL]
        info[j, I_CALLER] = row[C_CALLER]
    info[j, I_CARD_POINTS0] = row[POINTS_WON]
    info[j, I_CARD_POINTS1] = row[POINTS_WON + 1]
    row[SCORE] += row[R_SCORE]
    row[SCORE + 1] += row[R_SCORE + 1]
    over = False
    truncated = False
    winner = -1
    game = V[P_EPISODE_GAME]
    if outcome == OUT_REDEAL:
        row[REDEALS] += 1
        truncated = V[P_MAX_REDEALS] > 0 and row[REDEALS] >= V[P_MAX_REDEALS]
    else:
        row[REDEALS] = 0
        if not game:
            over = True
            winner = 0 if row[SCORE] > row[SCORE + 1] else 1 if row[SCORE + 1] > row[SCORE] else -1
        elif max(row[SCORE], row[SCORE + 1]) >= V[P_TARGET] and row[SCORE] != row[SCORE + 1]:
            over = True
            winner = 0 if row[SCORE] > row[SCORE + 1] else 1
        if not V[P_REWARD_WIN]:
            r = (row[R_SCORE] - row[R_SCORE + 1]) / scale
            for s in range(4):
                rew[j, s] = r if s & 1 == 0 else -r
        elif over:
            for s in range(4):
                rew[j, s] = 0.0 if winner < 0 else (1.0 if (s & 1) == winner else -1.0)
    if over:
        info[j, I_SCORE0] = row[SCORE]
        info[j, I_SCORE1] = row[SCORE + 1]
        info[j, I_WINNER] = winner
        info[j, I_DEALS] = row[NDEALS]
        info[j, I_TRUNCATED] = 0
        if final_seat[j] >= 0:
            row[GARDE] = row[R_GARDE_OUT]  # GameState.garde once the deal is scored (a last litige's, then lost)
            encode(V, row, final_seat[j], final_obs[j])
        new_episode(V, S, MT, MT0, t)
        return True
    if truncated:  # the AEC env's max_redeals: the next deal is dealt (as GameState does), then the episode is cut
        deal_new(V, S, t, MT[t], (row[DEALER] + 1) & 3, row[R_GARDE_OUT])
        info[j, I_SCORE0] = row[SCORE]
        info[j, I_SCORE1] = row[SCORE + 1]
        info[j, I_WINNER] = -1
        info[j, I_DEALS] = row[NDEALS]
        info[j, I_TRUNCATED] = 1
        if final_seat[j] >= 0:
            encode(V, row, final_seat[j], final_obs[j])
        new_episode(V, S, MT, MT0, t)
        return True
    garde = row[R_GARDE_OUT]
    row[NDEALS] += 1
    deal_new(V, S, t, MT[t], (row[DEALER] + 1) & 3, garde)
    return False


@kernel
def check_actions(S, actions):
    """Index of the first table whose action is not legal, or -1."""
    for t in range(actions.shape[0]):
        if not is_legal(S[t], actions[t]):
            return t
    return -1


@kernel(inline="always")
def info_row(row, o):
    """``o``: ``row`` with what its seat to act may not know cleared (other seats' cards now and as dealt, their
    belote pairs, the stock; the declarations until the first trick is complete, then those of the team that does
    not score them; the scratch columns, which hold the dealt deck and every declaration)."""
    for c in range(row.shape[0]):
        o[c] = row[c]
    o[DECK:DECK + 32] = 0
    o[DECL_LIST:DECL_LIST + 4 * MAX_DECLARATIONS] = 0
    seat = row[SEAT]
    for s in range(4):
        if s != seat:
            o[HAND + s] = 0
            o[INITIAL + s] = 0
            o[BELOTE_CARDS + s] = 0
    for k in range(11):
        o[STOCK + k] = 0
    team = row[DECL_TEAM]
    for s in range(4):
        if row[NTRICKS] == 0 or s & 1 != team:
            o[DECL_CARDS + s] = 0
    for k in range(2):
        if row[NTRICKS] == 0 or k != team:
            o[DECL_POINTS + k] = 0
    if row[NTRICKS] == 0:
        o[DECL_TEAM] = -1


@kernel
def info_rows(S, tables, out):
    """``out[j]``: :func:`info_row` of row ``tables[j]`` of S: the engine-layout twin of
    ``VectorEnv.info_state``, read by kernel copies of rule-based agents."""
    for j in range(tables.shape[0]):
        info_row(S[tables[j]], out[j])


@kernel(inline="always")
def observe_table(V, row, t, obs, mask, seat_out):
    """Row ``t`` of ``obs``, ``mask``, ``seat_out``: the seat to act in ``row``, its legal mask (kept in
    LEGAL_LO / LEGAL_HI) and its observation."""
    legal_words(V, row)
    write_mask(row, mask[t])
    seat = row[SEAT]
    seat_out[t] = seat
    encode(V, row, seat, obs[t])


@kernel
def observe(V, S, obs, mask, seat_out):
    """Seat to act, its legal mask (kept in LEGAL_LO / LEGAL_HI) and its observation, for every table."""
    for t in range(S.shape[0]):
        observe_table(V, S[t], t, obs, mask, seat_out)


@kernel
def observe_seats(V, S, tables, seats, obs):
    """The observation of seat ``seats[k]`` at table ``tables[k]`` (any seat, not only the one to act)."""
    for k in range(tables.shape[0]):
        encode(V, S[tables[k]], seats[k], obs[k])


@kernel(inline="always")
def _step_table(V, scale, S, MT, MT0, LOG, t, j, a, obs, mask, seat_out, rew, done, info, final_seat, final_obs):
    """Table ``t`` takes action ``a``; its outputs go to row ``j`` of the output arrays."""
    apply_step(V, scale, S, MT, MT0, LOG, t, j, a, rew, done, info, final_seat, final_obs)
    observe_table(V, S[t], j, obs, mask, seat_out)


@kernel(inline="always")
def apply_step(V, scale, S, MT, MT0, LOG, t, j, a, rew, done, info, final_seat, final_obs):
    """Table ``t`` takes the legal action ``a`` (logged; the log must have room): a deal it ends is scored and an
    episode it ends is reset, as :func:`step` does, with the outputs in row ``j``; nothing is observed (the legal
    words are stale until :func:`legal_words` or :func:`observe_table`). For kernels that play tables
    themselves (``agents.heuristic.kernels.play_to_learner``)."""
    row = S[t]
    n = row[LOGLEN]
    LOG[t, n] = a
    row[LOGLEN] = n + 1
    apply_action(V, row, a)
    if row[PHASE] == PH_DONE:
        done[j] = _end_deal(V, scale, S, MT, MT0, t, j, rew, info, final_seat, final_obs)


@kernel
def step(V, scale, S, MT, MT0, LOG, actions, obs, mask, seat_out, rew, done, info, final_seat, final_obs):
    """Apply one legal action per table (checked beforehand by check_actions), reset finished
    episodes, then observe every table. Returns the longest episode log (LOGLEN). ``final_seat`` /
    ``final_obs``: see :func:`_end_deal` (all -1: none)."""
    for t in range(S.shape[0]):
        _step_table(V, scale, S, MT, MT0, LOG, t, t, actions[t], obs, mask, seat_out, rew, done, info, final_seat,
                    final_obs)
    return _longest_log(S)


@kernel(parallel=True)
def step_parallel(V, scale, S, MT, MT0, LOG, actions, obs, mask, seat_out, rew, done, info, final_seat, final_obs):
    """:func:`step` with the tables shared among numba's threads (each table is independent)."""
    for t in prange(S.shape[0]):
        _step_table(V, scale, S, MT, MT0, LOG, t, t, actions[t], obs, mask, seat_out, rew, done, info, final_seat,
                    final_obs)
    return _longest_log(S)


@kernel
def step_tables(V, scale, S, MT, MT0, LOG, tables, actions, obs, mask, seat_out, rew, done, info, final_seat,
                final_obs):
    """:func:`step` for the tables ``tables`` only (``actions[j]`` at table ``tables[j]``); the others wait.
    The outputs of table ``tables[j]`` go to row ``j`` of the output arrays (``final_seat[j]`` its seat)."""
    for j in range(tables.shape[0]):
        _step_table(V, scale, S, MT, MT0, LOG, tables[j], j, actions[j], obs, mask, seat_out, rew, done, info,
                    final_seat, final_obs)
    return _longest_log(S)


# --- factored calls (belote_env.factored: one Python function, compiled here) -----------------------------

decide = kernel(_factored.decide)
put_stage = kernel(inline="always")(_factored.put_stage)
WHAT = _factored.WHAT
CALL_CHOICE = _factored.CALL


@kernel
def decide_rows(flat, stage, strain, choice, options, out):
    """``factored.decide`` on every row: ``out[i]`` = its ``(stage, strain, action)``, ``options[i]`` its options
    (``choice[i]`` -1: the options of the decision at ``(stage[i], strain[i])`` only). For agents that play a
    factored network in the flat action space (``agents.neural.agent``)."""
    for i in range(flat.shape[0]):
        st, sn, a = decide(flat[i], stage[i], strain[i], choice[i], options[i])
        out[i, 0], out[i, 1], out[i, 2] = st, sn, a


@kernel(inline="always")
def factored_observe_table(V, row, j, stage, strain, flat, obs, options, seat_out, known):
    """Row ``j`` of the factored outputs of the table in ``row``, at decision ``(stage, strain)``: the seat to act,
    its observation with the stage cells (``obs[j]``, float32[FACTORED_OBS_SIZE]) and the legal choices of its
    decision (``options[j]``, bool[56]; ``known``: already there); ``flat`` is scratch (bool[112])."""
    legal_words(V, row)
    seat = row[SEAT]
    seat_out[j] = seat
    out = obs[j]
    encode(V, row, seat, out[:OBS_SIZE])
    for k in range(OBS_SIZE, out.shape[0]):
        out[k] = 0.0
    put_stage(out, stage, strain)
    if known:
        return
    if row[PHASE] == PH_PLAY:  # the choices are the legal cards, their flat ids (factored.decide at WHAT), at once
        bits = row[LEGAL_LO]
        mine = options[j]
        for b in range(4):
            byte = (bits >> (8 * b)) & 0xFF
            for k in range(8):
                mine[8 * b + k] = BYTE_BOOLS[byte, k]
        for k in range(32, mine.shape[0]):
            mine[k] = False
    else:
        write_mask(row, flat)
        decide(flat, stage, strain, -1, options[j])


@kernel
def factored_observe(V, S, stage, strain, flat, obs, options, seat_out):
    """:func:`observe` for the factored action space, every table at its decision ``(stage[t], strain[t])``."""
    for t in range(S.shape[0]):
        factored_observe_table(V, S[t], t, stage[t], strain[t], flat, obs, options, seat_out, False)


@kernel
def factored_resolve(S, tables, stage, strain, choices, flat_rows, flat, options, resolved):
    """Check and resolve the choices of a factored step, changing nothing: returns the first ``j`` whose choice
    ``choices[j]`` is not legal at table ``tables[j]`` (its decision ``stage``/``strain``), or -1. Else
    ``resolved[j]`` is ``(stage, strain, action)`` after the choice (``factored.decide``: ``action`` the flat
    action now complete, or -1 while the call goes on, and then ``options[j]`` holds the next decision's
    choices). Where ``flat_rows[j]``, ``choices[j]`` is a flat action, legal only at a table at its first
    decision. ``flat`` is scratch (bool[112])."""
    for j in range(tables.shape[0]):
        t = tables[j]
        c = choices[j]
        if c < 0:
            return j
        if flat_rows[j]:
            if stage[t] != WHAT or not is_legal(S[t], c):
                return j
            resolved[j, 0], resolved[j, 1], resolved[j, 2] = WHAT, -1, c
            continue
        if stage[t] == WHAT and c < CALL_CHOICE:  # a card, pass, coinche or surcoinche: the same flat id
            if not is_legal(S[t], c):
                return j
            resolved[j, 0], resolved[j, 1], resolved[j, 2] = WHAT, -1, c
            continue
        write_mask(S[t], flat)
        st, sn, a = decide(flat, stage[t], strain[t], c, options[j])
        if a == -2:
            return j
        resolved[j, 0], resolved[j, 1], resolved[j, 2] = st, sn, a
    return -1


@kernel
def factored_step_tables(V, scale, S, MT, MT0, LOG, tables, stage, strain, resolved, flat, obs, options, seat_out,
                         rew, done, info, final_seat, final_obs):
    """:func:`step_tables` in the factored action space, the choices resolved by :func:`factored_resolve` (with
    the same ``options``): table ``tables[j]`` goes to decision ``resolved[j, :2]``, and where its call (or card)
    is complete takes that flat action ``resolved[j, 2]``; the others wait (no reward, not done, the same seat
    to act). Outputs in row ``j`` as :func:`factored_observe_table` writes them. Returns the longest episode
    log."""
    for j in range(tables.shape[0]):
        t = tables[j]
        row = S[t]
        st, sn, a = resolved[j, 0], resolved[j, 1], resolved[j, 2]
        if a >= 0:
            apply_step(V, scale, S, MT, MT0, LOG, t, j, a, rew, done, info, final_seat, final_obs)
        stage[t] = st
        strain[t] = sn
        factored_observe_table(V, row, j, st, sn, flat, obs, options, seat_out, a < 0)
    return _longest_log(S)


@kernel
def _longest_log(S):
    longest = 0
    for t in range(S.shape[0]):
        longest = max(longest, S[t, LOGLEN])
    return longest


@kernel
def reset_tables(V, S, MT, MT0):
    for t in range(S.shape[0]):
        new_episode(V, S, MT, MT0, t)


# --- whole random deals --------------------------------------------------------------------------

@kernel
def rollout(V, mt, S, scores, outcomes):
    """``play_random_deal(variant, rng, dealer=k % 4)`` for k < len(scores), rng = the generator in mt:
    random deals, uniformly random legal actions (``rng.choice``), scores and outcomes out; ``S`` is one
    table's row of scratch."""
    row = S[0]
    for k in range(scores.shape[0]):
        deal_new(V, S, 0, mt, k & 3, 0)
        while row[PHASE] != PH_DONE:
            lo, hi = legal_words(V, row)
            apply_action(V, row, nth_legal(lo, hi, randbelow(mt, popcount(lo) + popcount(hi))))
        scores[k, 0] = row[R_SCORE]
        scores[k, 1] = row[R_SCORE + 1]
        outcomes[k] = row[R_OUTCOME]



@kernel
def rollout_counter(V, seed, S, st, scores, outcomes):
    """:func:`rollout` with deal k's numbers from its own counter-based stream (:mod:`.streams`, ``(seed, k)``):
    ``play_random_deal(variant, DealStream(seed, k), dealer=k % 4)`` for k < len(scores); ``st`` is the
    stream's state (uint64[1])."""
    row = S[0]
    deck = S[0, DECK:DECK + 32]
    for k in range(scores.shape[0]):
        st[0] = streams.start(np.uint64(seed), np.uint64(k))
        for c in range(32):
            deck[c] = c
        streams.shuffle(st, deck)
        deal_deck(V, S, 0, deck, k & 3, 0)
        while row[PHASE] != PH_DONE:
            lo, hi = legal_words(V, row)
            apply_action(V, row, nth_legal(lo, hi, streams.below(st, popcount(lo) + popcount(hi))))
        scores[k, 0] = row[R_SCORE]
        scores[k, 1] = row[R_SCORE + 1]
        outcomes[k] = row[R_OUTCOME]
