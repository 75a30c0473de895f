"""The batched engine's arrays, cell by cell: the one view of its layout for code outside the engine.

A table is one int64 row of ``S`` (``NUM_COLUMNS`` cells, named below); an *info row*
(``kernels.info_row``) has the same columns with what the seat to act may not know
cleared; each step's per-table info is a row of ``NUM_INFO`` cells (``I_*``); the
variant is the int64 row ``V`` of ``tables.variant_params`` (``P_*``). The codes
their cells hold (phases, contract kinds, outcomes, bidding systems, scorings,
countings) are here too, and ``COLUMNS`` lists the row's columns in order
(name -> first cell, number of cells).

Kernels outside the engine read a row through this module, not through names
imported one by one::

    from belote_env.fast import layout as L

    @kernel
    def my_kernel(V, row):
        hand = row[L.HAND + row[L.SEAT]]
        if V[L.P_BIDDING] == L.BIDDING_AUCTION: ...

numba reads ``L.HAND`` once, at compilation, as a constant: the same machine code
as a bare name (``agents/heuristic/kernels.py`` reads rows this way). Every
number here is part of the compiled kernels' cache key (``numba_cache.ENGINE_SOURCES``).
"""

from __future__ import annotations

from ..observation import CONTRACT_KINDS
from ..rules.variant import COUNTINGS, SCORINGS

# --- a table's row of S (and an info row) ----------------------------------------

_next = [0]
MAX_DECLARATIONS = 16  # in one deal, all seats together


_widths = {}


def _col(n: int = 1) -> int:
    start = _next[0]
    _next[0] += n
    _widths[start] = n
    return start


# The game (GameState): kept across deals of an episode.
DEALER = _col()
GARDE = _col()
SCORE = _col(2)  # game scores of teams 0, 1
NDEALS = _col()  # deals dealt in this episode, redeals included
LOGLEN = _col()  # actions in this episode (the LOG row)
REDEALS = _col()  # all-pass deals in a row
DECK = _col(32)  # scratch of deal_new: the deck it shuffles and deals
# The deal (DealState): cleared by deal_new from DEAL_START on.
DEAL_START = _next[0]
PHASE = _col()  # PH_BIDDING, PH_PLAY, PH_DONE
SEAT = _col()
HAND = _col(4)
TURNUP = _col()
STOCK = _col(11)
NCALLS = _col()
HIGH = _col()
HIGH_SEAT = _col()
LEVEL = _col()
PASSES = _col()
CALLBITS = _col(8)  # per seat, 2 words: bit (a - 32) for each non-pass call a it made
SEAT_PASSES = _col(4)
C_TAKER = _col()  # contract; -1 while there is none
C_STRAIN = _col()
C_VALUE = _col()
C_VINDEX = _col()  # one-hot index of the value in the observation (-1 for 'take')
C_KIND = _col()
C_LEVEL = _col()
C_CALLER = _col()
LEADER = _col()
LED = _col()
WIN_CARD = _col()
WIN_SEAT = _col()
TRICK = _col(4)
TRICK_LEN = _col()
NTRICKS = _col()
POINTS_WON = _col(2)
TRICKS_WON = _col(4)
PLAYED = _col(4)
BELOTE_CARDS = _col(4)
BELOTE_EVENTS = _col(4)  # per seat: bit 0 belote, bit 1 rebelote
BELOTE_POINTS = _col(2)
DECL_TEAM = _col()
DECL_POINTS = _col(2)
DECL_CARDS = _col(4)  # per seat, the cards of its declarations
DECL_LIST = _col(4 * MAX_DECLARATIONS)  # scratch of _declarations: seats, points, tops, suits of the declarations
LAST_TRICK_SEAT = _col()
R_SCORE = _col(2)  # the deal's result, once PHASE is PH_DONE
R_OUTCOME = _col()
R_GARDE_OUT = _col()
LEGAL_LO = _col()  # legal actions of the seat to act, ids 0..63
LEGAL_HI = _col()  # ids 64..111
INITIAL = _col(4)  # each seat's cards as dealt (5 in turn-up deals)
DEAL_LOG_START = _col()  # LOGLEN when the deal was dealt: its actions are LOG[t, DEAL_LOG_START:LOGLEN]
TRICK_LOG = _col(8 * 7)  # completed tricks: leader, 4 cards in play order, winner, points
NUM_COLUMNS = _next[0]
# name -> (first cell, number of cells) of every column above, in row order
COLUMNS = dict(sorted(((name, (start, _widths[start])) for name, start in list(globals().items())
                       if name.isupper() and type(start) is int
                       and name not in ("MAX_DECLARATIONS", "DEAL_START", "NUM_COLUMNS")),
                      key=lambda item: item[1]))
assert sum(w for _, w in COLUMNS.values()) == NUM_COLUMNS

PH_BIDDING, PH_PLAY, PH_DONE = 0, 1, 2  # PHASE
KIND_TAKE, KIND_BID, KIND_CAPOT, KIND_GENERALE, KIND_COULEUR, KIND_EN_FACE, KIND_EN_VOITURE = (
    CONTRACT_KINDS.index(k) for k in ("take", "bid", "capot", "generale", "couleur", "en_face", "en_voiture")
)
OUT_MADE, OUT_FAILED, OUT_LITIGE, OUT_REDEAL = range(4)  # outcomes (I_OUTCOME, R_OUTCOME): rules.scoring's order

# --- a step's per-table info -------------------------------------------------------

# Columns of the per-table info: the deal fields (I_DEAL_SCORE0 .. I_CARD_POINTS1) are written whenever a
# deal ends (scored or all-pass), the episode fields (scores, winner, deals, truncated) when an episode ends.
(I_SCORE0, I_SCORE1, I_WINNER, I_DEAL_SCORE0, I_DEAL_SCORE1, I_OUTCOME, I_TAKER, I_STRAIN, I_VALUE,
 I_KIND, I_LEVEL, I_CALLER, I_CARD_POINTS0, I_CARD_POINTS1, I_DEALS, I_TRUNCATED) = range(16)
NUM_INFO = 16


# --- the variant's row V (tables.variant_params) --------------------------------

(P_FULL, P_BIDDING, P_SCORING, P_COUNTING, P_OFFICIELLES, P_OVERTRUMP_PARTNER, P_UNDERTRUMP,
 P_DECLARATIONS, P_NO_TRUMP, P_ALL_TRUMP, P_GENERALE, P_TARGET, P_THRESHOLD_INCLUSIVE,
 P_MUST_BEAT_DEFENSE, P_EPISODE_GAME, P_REWARD_WIN, P_NSTRAINS, P_STRAINS) = range(18)
P_BIDS = P_STRAINS + 6  # 12 x (low word, high word): the auction bids of value index >= i
P_MAX_REDEALS = P_BIDS + 24  # all-pass deals in a row that truncate an episode (0: no limit)
NUM_PARAMS = P_MAX_REDEALS + 1
BIDDING_TAKE_OR_PASS, BIDDING_AUCTION, BIDDING_COBRECAF = range(3)
SCORING_CLASSIC, SCORING_COINCHE, SCORING_COBRECAF, SCORING_CONTREE = (
    SCORINGS.index(s) for s in ("classic", "coinche", "cobrecaf_81", "contree")
)
COUNTING_FAITS, COUNTING_ANNONCES, COUNTING_BOTH = (
    COUNTINGS.index(c) for c in ("points_faits", "points_annonces", "points_faits_et_annonces")
)

