"""The three bidding systems (RULES.md section 3).

Each system is two functions over a :class:`~belote_env.rules.state.DealState`:
``legal`` lists the legal calls of the seat to speak, ``apply`` records a
legal call and returns the :class:`Contract` when the bidding is over, the
string ``"redeal"`` when everyone passed, or None while it goes on.

The auction fields of the state: ``calls`` (seat, action) in order, ``high``
(highest call so far or -1), ``high_seat`` (who made it), ``level`` (1, 2
coinche, 4 surcoinche), ``passes`` (consecutive passes since the last call).
"""

from __future__ import annotations

from .actions import (
    BID,
    CAPOT_INDEX,
    COINCHE,
    EN_FACE,
    EN_VOITURE,
    GENERALE_INDEX,
    PASS,
    SURCOINCHE,
    TAKE,
    bid_strain,
    bid_value,
)
from .scoring import REDEAL, Contract, ContractKind

# --- take or pass (belote classique) -------------------------------------

def take_or_pass_legal(st, seat: int) -> list[int]:
    up = st.turnup >> 3
    if len(st.calls) < 4:
        return [PASS, TAKE + up]
    return [PASS] + [TAKE + s for s in st.variant.strains if s != up]


def take_or_pass_apply(st, seat: int, a: int):
    if a == PASS:
        return REDEAL if len(st.calls) == 8 else None
    return Contract(seat, a - TAKE, 0, ContractKind.TAKE, 1, seat)


# --- auction (coinche, contree) ------------------------------------------

def _doubling_calls(st, seat: int) -> list[int]:
    """After a coinche: pass, and surcoinche for the coinched team."""
    if st.level == 2 and (seat ^ st.high_seat) & 1 == 0:
        return [PASS, SURCOINCHE]
    return [PASS]


def _coinche_allowed(st, seat: int) -> bool:
    return st.high >= 0 and (seat ^ st.high_seat) & 1 == 1


_BIDS_ABOVE: dict[tuple, tuple[int, ...]] = {}


def _bids_above(high: int, variant) -> tuple[int, ...]:
    """Bid ids of a strictly higher value than ``high`` (-1: all), cached per variant."""
    key = (high, variant.generale, variant.strains)
    bids = _BIDS_ABOVE.get(key)
    if bids is None:
        first = 0 if high < 0 else (high - BID) // 6 + 1
        last = GENERALE_INDEX if variant.generale else CAPOT_INDEX
        bids = _BIDS_ABOVE[key] = tuple(BID + 6 * vi + s for vi in range(first, last + 1) for s in variant.strains)
    return bids


def auction_legal(st, seat: int) -> list[int]:
    if st.level > 1:
        return _doubling_calls(st, seat)
    out = [PASS, COINCHE] if _coinche_allowed(st, seat) else [PASS]  # ids ascending
    out.extend(_bids_above(st.high, st.variant))
    return out


def _doubling_apply(st, seat: int, a: int, make_contract, redeal_passes: int):
    """Shared by auction and 81 points: pass counting, coinche, surcoinche."""
    if a == PASS:
        st.passes += 1
        if st.high < 0:
            return REDEAL if st.passes == redeal_passes else None
        return make_contract(st) if st.passes == 3 else None
    st.passes = 0
    if a == COINCHE:
        st.level = 2
        return None
    if a == SURCOINCHE:
        st.level = 4
        return make_contract(st)
    st.high = a
    st.high_seat = seat
    return None


def _auction_contract(st) -> Contract:
    a = st.high
    vi = (a - BID) // 6
    kind = ContractKind.CAPOT if vi == CAPOT_INDEX else ContractKind.GENERALE if vi == GENERALE_INDEX else ContractKind.BID
    return Contract(st.high_seat, bid_strain(a), bid_value(a), kind, st.level, st.high_seat)


def auction_apply(st, seat: int, a: int):
    return _doubling_apply(st, seat, a, _auction_contract, 4)


# --- 81 points (Cobrecaf) --------------------------------------------------

def _call_rank(a: int) -> int:
    """Couleur / En face 0, Capot 1, En voiture 2."""
    if a >= EN_VOITURE and a != EN_FACE:
        return 2
    if a >= BID and a != EN_FACE:
        return 1
    return 0


def cobrecaf_legal(st, seat: int) -> list[int]:
    if st.level > 1:
        return _doubling_calls(st, seat)
    out = [PASS, COINCHE] if _coinche_allowed(st, seat) else [PASS]  # ids ascending
    rank = -1 if st.high < 0 else _call_rank(st.high)
    if rank < 0:
        up = st.turnup >> 3
        if len(st.calls) < 4:
            out.append(TAKE + up)
        else:
            out.extend(TAKE + s for s in range(4))
    if rank < 1:
        out.extend(BID + 6 * CAPOT_INDEX + s for s in range(4))
    if rank < 2:
        out.extend(EN_VOITURE + s for s in range(4))
    if rank < 0:
        out.append(EN_FACE)
    return out


def _cobrecaf_contract(st) -> Contract:
    a, caller = st.high, st.high_seat
    if a == EN_FACE:
        return Contract((caller + 2) & 3, st.turnup >> 3, 81, ContractKind.EN_FACE, st.level, caller)
    if a >= EN_VOITURE:
        return Contract(caller, a - EN_VOITURE, 81, ContractKind.EN_VOITURE, st.level, caller)
    if a >= BID:
        return Contract(caller, bid_strain(a), 81, ContractKind.CAPOT, st.level, caller)
    return Contract(caller, a - TAKE, 81, ContractKind.COULEUR, st.level, caller)


def cobrecaf_apply(st, seat: int, a: int):
    return _doubling_apply(st, seat, a, _cobrecaf_contract, 8)


SYSTEMS = {
    "take_or_pass": (take_or_pass_legal, take_or_pass_apply),
    "auction": (auction_legal, auction_apply),
    "cobrecaf_81": (cobrecaf_legal, cobrecaf_apply),
}
