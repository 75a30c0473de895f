"""Scoring a deal (RULES.md section 7): classic, coinche, 81 points, contree.

:func:`score_deal` takes the facts of a played-out deal (card points per team,
tricks per seat, who won the last trick, belote and declarations) and returns
a :class:`DealResult` with the full breakdown. The engine calls it at the end
of every deal; tests may call it directly with the facts of a worked example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from .cards import strain_table
from .variant import Variant


class Outcome(StrEnum):
    """How a deal ended; equal to its plain string (``Outcome.MADE == "made"``)."""

    MADE = "made"
    FAILED = "failed"
    LITIGE = "litige"
    REDEAL = "redeal"


class ContractKind(StrEnum):
    """The kind of a contract (RULES.md sections 3 and 7); equal to its plain string."""

    TAKE = "take"  # belote classique
    BID = "bid"  # auction, 80..160
    CAPOT = "capot"  # auction capot, or the 81 points' Capot
    GENERALE = "generale"
    COULEUR = "couleur"  # 81 points
    EN_FACE = "en_face"
    EN_VOITURE = "en_voiture"


MADE, FAILED, LITIGE, REDEAL = Outcome.MADE, Outcome.FAILED, Outcome.LITIGE, Outcome.REDEAL
CAPOT_KINDS = (ContractKind.CAPOT, ContractKind.GENERALE)


class Contract(NamedTuple):
    """The contract of a deal.

    ``kind``: ``take`` (belote classique), ``bid`` (auction, value 80..160),
    ``capot`` / ``generale`` (auction, or Capot of the 81 points),
    ``couleur`` / ``en_face`` / ``en_voiture`` (81 points).
    ``value``: the bid (0 for ``take``, 81 in the 81 points, 250 capot, 500 generale).
    ``level``: 1, 2 (coinche), 4 (surcoinche). ``caller``: the seat that made
    the call (the taker's partner for En face).
    """

    taker: int
    strain: int
    value: int
    kind: str
    level: int = 1
    caller: int = -1

    @property
    def team(self) -> int:
        return self.taker & 1


@dataclass
class DealResult:
    """Breakdown of a scored deal; every list is indexed by team (0 = seats 0/2)."""

    contract: Contract | None
    outcome: str  # made, failed, litige, redeal
    card_points: list[int] = field(default_factory=lambda: [0, 0])
    tricks: list[int] = field(default_factory=lambda: [0, 0])
    last_trick: int = -1  # team
    dix_de_der: list[int] = field(default_factory=lambda: [0, 0])
    belote: list[int] = field(default_factory=lambda: [0, 0])
    declarations: list[int] = field(default_factory=lambda: [0, 0])
    capot: int = -1  # team that won every trick, or -1
    contract_points: list[int] = field(default_factory=lambda: [0, 0])  # what the contract is judged on
    scores: list[int] = field(default_factory=lambda: [0, 0])
    garde_in: int = 0
    garde_out: int = 0
    detail: dict = field(default_factory=dict)

    @property
    def made(self) -> bool:
        return self.outcome == MADE


def round10(x: int) -> int:
    """Nearest ten, halves up: 45 -> 50, 114 -> 110, 115 -> 120."""
    return (x + 5) // 10 * 10


def score_deal(
    variant: Variant,
    contract: Contract,
    card_points: list[int],
    tricks_by_seat: list[int],
    last_trick_seat: int,
    belote: list[int] | None = None,
    declarations: list[int] | None = None,
    garde: int = 0,
) -> DealResult:
    """Score a played deal.

    ``belote`` and ``declarations`` are the points each team scores for them
    (declarations already resolved to the team holding the best one).
    """
    belote = list(belote or (0, 0))
    declarations = list(declarations or (0, 0))
    tricks = [tricks_by_seat[0] + tricks_by_seat[2], tricks_by_seat[1] + tricks_by_seat[3]]
    capot = 0 if tricks[0] == 8 else 1 if tricks[1] == 8 else -1
    last = last_trick_seat & 1
    res = DealResult(
        contract=contract,
        outcome=MADE,
        card_points=list(card_points),
        tricks=tricks,
        last_trick=last,
        belote=belote,
        declarations=declarations,
        capot=capot,
        garde_in=garde,
    )
    scorer = _SCORERS[variant.scoring]
    scorer(variant, contract, res, tricks_by_seat)
    return res


def _classic(variant: Variant, c: Contract, res: DealResult, tricks_by_seat) -> None:
    t, d = c.team, 1 - c.team
    card_total = strain_table(c.strain, variant.rules).card_total
    res.dix_de_der[res.last_trick] = 100 if res.capot >= 0 else 10
    tot = [res.card_points[k] + res.dix_de_der[k] + res.belote[k] + res.declarations[k] for k in (0, 1)]
    res.contract_points = tot
    scores = [0, 0]
    if tot[t] > tot[d]:
        res.outcome = MADE
        scores = list(tot)
        scores[t] += res.garde_in
    elif tot[t] < tot[d]:
        res.outcome = FAILED
        deal = card_total + (100 if res.capot == d else 10)
        scores[d] = deal + res.declarations[0] + res.declarations[1] + res.belote[d] + res.garde_in
        scores[t] = res.belote[t]
    else:
        res.outcome = LITIGE
        scores[d] = tot[d]
        res.garde_out = res.garde_in + tot[t]
    res.scores = scores


def _coinche(variant: Variant, c: Contract, res: DealResult, tricks_by_seat) -> None:
    t, d = c.team, 1 - c.team
    res.dix_de_der[res.last_trick] = 100 if res.capot >= 0 else 10
    p = [res.card_points[k] + res.dix_de_der[k] + res.belote[k] + res.declarations[k] for k in (0, 1)]
    res.contract_points = p
    if c.kind == ContractKind.CAPOT:
        made = res.capot == t
    elif c.kind == ContractKind.GENERALE:
        made = tricks_by_seat[c.taker] == 8
    else:
        made = p[t] >= c.value and p[t] > p[d]
    rnd = round10 if variant.rules == "officielles" else int
    m = c.level
    scores = [0, 0]
    if made:
        res.outcome = MADE
        if m == 1:
            scores[t] = rnd(p[t]) + c.value
            scores[d] = rnd(p[d])
        elif c.kind in CAPOT_KINDS:
            capot_total = strain_table(c.strain, variant.rules).card_total + 100
            scores[t] = (rnd(capot_total) + c.value) * m
            scores[d] = res.belote[d]
        else:
            scores[t] = (160 + c.value) * m
            scores[d] = res.belote[d]
    else:
        res.outcome = FAILED
        scores[d] = (160 + c.value) * m + res.belote[d] + res.declarations[0] + res.declarations[1]
        scores[t] = res.belote[t]
    res.scores = scores


def _cobrecaf_81(variant: Variant, c: Contract, res: DealResult, tricks_by_seat) -> None:
    t, d = c.team, 1 - c.team
    res.dix_de_der[res.last_trick] = 10  # the total is always 162, capot included
    pts = [res.card_points[k] + res.dix_de_der[k] for k in (0, 1)]
    res.contract_points = pts
    p = pts[t]
    if c.kind == ContractKind.CAPOT:
        made = res.capot == t
    else:
        made = p >= 81 if variant.threshold_inclusive else p > 81
    m = c.level
    scores = [0, 0]
    if made:
        res.outcome = MADE
        if c.kind in (ContractKind.COULEUR, ContractKind.EN_FACE):
            scores[t] = 81 * m + (p - 81)
            scores[d] = pts[d]
        else:
            scores[t] = 81 * m + 81
    else:
        res.outcome = FAILED
        scores[d] = 81 * m + 81
    res.scores = [scores[k] + res.belote[k] for k in (0, 1)]


def _contree(variant: Variant, c: Contract, res: DealResult, tricks_by_seat) -> None:
    t, d = c.team, 1 - c.team
    res.dix_de_der[res.last_trick] = 10
    raw = [res.card_points[k] + res.dix_de_der[k] for k in (0, 1)]
    p_taker = raw[t] + res.belote[t]  # the defense's belote never helps the taker fail
    res.contract_points = [p_taker if k == t else raw[k] for k in (0, 1)]
    if c.kind == ContractKind.CAPOT:
        made = res.capot == t
    else:
        made = p_taker >= c.value and (not variant.must_beat_defense or p_taker > raw[d])
    m = c.level
    faits = [0, 0]
    annonces = [0, 0]
    if made:
        res.outcome = MADE
        if c.kind == ContractKind.CAPOT:
            faits[t], annonces[t] = 500 * m, 250 * m
        elif res.capot == t:
            faits[t], annonces[t] = 250 * m, c.value * m
        elif m == 1:
            faits[t], faits[d] = round10(raw[t]), round10(raw[d])
            annonces[t] = c.value
        else:
            faits[t], annonces[t] = 160 * m, c.value * m
        winner = t
    else:
        res.outcome = FAILED
        if c.kind == ContractKind.CAPOT:
            faits[d], annonces[d] = 500 * m, 250 * m
        else:
            faits[d], annonces[d] = 160 * m, c.value * m
        winner = d
    if variant.counting == "points_faits":
        scores = faits
    elif variant.counting == "points_annonces":
        scores = annonces
    else:
        scores = [0, 0]
        scores[winner] = faits[winner] + annonces[winner]
        if made and m == 1:
            scores[1 - winner] = faits[1 - winner]
    res.detail = {"points_faits": faits, "points_annonces": annonces}
    res.scores = [scores[k] + res.belote[k] for k in (0, 1)]


_SCORERS = {"classic": _classic, "coinche": _coinche, "cobrecaf_81": _cobrecaf_81, "contree": _contree}
