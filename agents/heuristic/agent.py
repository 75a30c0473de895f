"""The ``heuristic`` agent: a rule-based player for every bidding system and for card play.

It uses only what its seat may know: its own hand (``info.hand``), the
turn-up, the calls, the contract, the cards played so far (tricks and the
trick in progress), belote events. It never reads another seat's hand.

Bidding. For each strain the hand gets an estimate of the card points its
team would make as taker (:func:`estimate_points`): trump jack and nine count
heavily, then trump ace and ten, trump length, outside aces and guarded tens,
voids next to long trumps, belote where it counts. Constants were fitted by
regressing the points actually made in heuristic-played deals on the hand
features, per deal type (8 known cards; 5 cards plus the turn-up).

- take or pass (belote classique): take when the estimate beats half the deal;
- auction (coinche, contree): open or overcall at the estimate (rounded down
  to tens, at most 160); raise a partner's bid only with support (trump jack
  or nine, outside aces) and by at most 20; coinche an opposing contract when
  the own hand's defensive strength in its strain says it cannot be made;
  surcoinche only with a contract well above the bid;
- 81 points: call En voiture (it pays 162 where Couleur pays the points made,
  for the same risk) in the best suit when the estimate clears 81 with a
  margin; call En face in the turn-up's suit when the turn-up is a strong
  trump and the hand supports it; pass over a partner's call; coinche as above.

Card play keeps track of played cards and of voids shown (a seat that did not
follow suit, or did not trump when it had to). It leads master cards; as
taker's team pulls trumps while the defense may still hold some; as defender
keeps its trumps and leads its masters or low cards; gives points (tens, then
kings) to a partner whose card holds the trick safely; wins a trick with the
cheapest sure card; trumps when the trick is worth it or when forced; plays
its cheapest card when it cannot win.

These rules are written once, as numba kernels (``agents/heuristic/kernels.py``):
:meth:`HeuristicAgent.act` puts its ``InfoState`` in the engine's layout
(``belote_env.vector.info_row``) and asks the kernel, and at engine tables
:meth:`HeuristicAgent.act_rows` asks it for many tables at once.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from agents.base import Agent, InfoState


@lru_cache(maxsize=64)
def _params(variant, deal_type: str | None = None) -> np.ndarray:
    """The variant's switches as the kernels read them, the deal type overridden when ``deal_type`` is given."""
    from belote_env.fast import layout as L
    from belote_env.fast.tables import variant_params

    V = variant_params(variant)
    if deal_type is not None:
        if deal_type not in ("full", "turn_up"):
            raise ValueError(f"deal_type must be 'full' or 'turn_up', got {deal_type!r}")
        V[L.P_FULL] = deal_type == "full"
    V.setflags(write=False)
    return V


def estimate_points(hand: int, strain: int, variant, deal_type: str | None = None) -> float:
    """Expected points (cards + last trick, plus belote where it counts) of the taker's team with ``hand`` (a
    card mask) in ``strain`` (0..3 a suit, 4 no trump, 5 all trump), as the heuristic bids. ``deal_type``
    ('full' or 'turn_up') overrides the variant's, whose calibration it picks."""
    return float(kernels().estimate(_params(variant, deal_type), hand, strain))


def defense_points(hand: int, strain: int) -> float:
    """Rough card points ``hand`` takes against a contract in ``strain``."""
    return float(kernels().defense(hand, strain))


def trump_features(hand: int, trump: int, belote_counts: bool) -> float:
    """Taker strength of ``hand`` with ``trump`` as trump, in rough card points (before calibration)."""
    return float(kernels().trump_features(hand, trump, belote_counts))


class HeuristicAgent(Agent):
    """Rule-based bidding and card play; deterministic, fast, uses only the seat's information."""

    name = "heuristic"
    needs_observation = False

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray | None, info: InfoState) -> int:
        legal = info.legal
        if len(legal) == 1:
            return legal[0]
        k = kernels()  # sets _info_row and _scratch on first use
        a = int(k.decide(_params(info.variant), _info_row(info), *_scratch))
        if a not in legal:  # the kernel picks from the row's legal actions: reaching this is a bug to report
            raise RuntimeError(f"heuristic chose {a!r}, not legal in {list(legal)}; please report this position")
        return a

    def act_rows(self, params: np.ndarray, rows: np.ndarray):
        """:meth:`act` at many engine tables at once, by the same kernel; None for subclasses, which may
        change the decisions."""
        if type(self) is not HeuristicAgent:
            return None
        out = np.empty(len(rows), dtype=np.int64)
        k = kernels()
        k.act_rows(params, rows, out, *k.decide_scratch())
        return out


_kernels = _info_row = _scratch = None


def kernels():
    """:mod:`agents.heuristic.kernels`, compiled on first use and cached with the engine's kernels (its digest
    covers that file, whose constants the kernels freeze)."""
    global _kernels, _info_row, _scratch
    if _kernels is None:
        from belote_env.numba_cache import import_cached
        from belote_env.vector import info_row

        _info_row = info_row
        _kernels = import_cached("agents.heuristic.kernels", "numba-heuristic", Path(__file__).resolve().parent
                                 / "kernels.py")
        _scratch = _kernels.decide_scratch()  # act's (the kernels hold the GIL: one thread at a time uses it)
    return _kernels


__all__ = ["HeuristicAgent", "defense_points", "estimate_points", "trump_features"]
