"""The ``pimc`` agent: perfect-information Monte Carlo over the double-dummy solver.

At each card decision the agent draws ``worlds`` complete deals consistent with
its seat's information (:func:`belote_env.rules.sampling.sample_deal`: own
cards, every card played, voids and trump obligations shown, belote events),
solves every legal card in each with the double-dummy solver
(:mod:`belote_env.search`) and plays the card of best mean objective over the
worlds:

- ``obj=score`` (default): the deal score of its team minus the other team's,
  as the variant scores it (``belote_env.rules.scoring.score_deal``), from the
  card points each card secures in that world plus the world's belote and
  declarations. It weighs a point by what it is worth: near a contract's
  threshold a few points decide a made or failed contract (coinche, contree,
  81 points), far from it they count once.
- ``obj=points``: the mean card points (the solver's take) alone.

Options, in the spec after a colon, comma separated: ``pimc:worlds=16,tricks=5``.

- ``worlds`` (16): deals sampled per decision;
- ``tricks`` (5): the solver plays the card from the trick where at most this
  many tricks remain (tricks 4 to 8 by default); earlier card decisions and
  all bidding, coinche and surcoinche decisions are the heuristic's
  (:class:`agents.heuristic.HeuristicAgent`). The solver's cost grows about
  tenfold per extra trick (docs/search.md), so this bounds a decision's time;
- ``obj`` (score): ``score`` or ``points``, above;
- ``seed`` (0): added to the seed given by :meth:`reset`.

Deterministic for a given seed: each decision draws its worlds from a
generator seeded with the agent's seed, the seat and the public history, so a
decision does not depend on the order in which tables are played.

Importing this module loads neither numba nor the solver; the first card
decision does (the solver compiles once, about 25 s, and is cached on disk: a later process loads it
in about a second).
"""

from __future__ import annotations

import random

import numpy as np

from belote_env.rules.info import InfoState
from belote_env.rules.scoring import CAPOT_KINDS, score_deal

from .base import Agent
from .heuristic import HeuristicAgent

OPTIONS = {"worlds": int, "tricks": int, "obj": str, "seed": int}
OBJECTIVES = ("score", "points")


class PimcAgent(Agent):
    needs_observation = False

    def __init__(self, worlds: int = 16, tricks: int = 5, obj: str = "score", seed: int = 0, name: str | None = None):
        if worlds < 1:
            raise ValueError(f"pimc option worlds must be >= 1, got {worlds}")
        if not 1 <= tricks <= 8:
            raise ValueError(f"pimc option tricks must be 1..8, got {tricks}")
        if obj not in OBJECTIVES:
            raise ValueError(f"pimc option obj must be one of {', '.join(OBJECTIVES)}, got {obj!r}")
        self.worlds = worlds
        self.tricks = tricks
        self.obj = obj
        self.base_seed = seed
        self.seed = seed
        self.name = name or "pimc"
        self._heuristic = HeuristicAgent()
        self._solver = None

    def reset(self, seed: int | None = None) -> None:
        self.seed = self.base_seed + (seed or 0)
        self._heuristic.reset(seed)

    def act(self, observation, action_mask, info: InfoState) -> int:
        legal = info.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if info.phase != "play" or 8 - len(info.tricks) > self.tricks:
            return self._heuristic.act(observation, action_mask, info)
        return self._play(info, legal)

    def _play(self, info: InfoState, legal: list[int]) -> int:
        from belote_env.rules.sampling import sample_deal
        from belote_env.search import Position, Solver

        if self._solver is None:
            self._solver = Solver(log2_tt=18)
        rng = random.Random(f"{self.seed}:{info.seat}:{info.history}")
        team = info.seat & 1
        totals = np.zeros(32)
        takes = np.zeros(32)
        contract = info.contract
        use_score = self.obj == "score" and contract.kind not in CAPOT_KINDS
        for _ in range(self.worlds):
            world = sample_deal(info, rng)
            values = self._solver.values_of(Position(world))
            scorer = _WorldScorer(world, team) if use_score else None
            for card, take in values.items():
                takes[card] += take
                totals[card] += scorer(take) if scorer else take
        return max(legal, key=lambda c: (totals[c], takes[c], -c))


class _WorldScorer:
    """The score difference (own team minus the other) of a sampled world, from the team's take."""

    def __init__(self, world, team: int):
        self.world = world
        self.team = team
        table = world.table
        self.total = table.card_total + 10
        self.won = world.points[team]
        self.other_won = world.points[1 - team]
        belote = [0, 0]
        for seat in range(4):
            belote[seat & 1] += 10 * world.belote_cards[seat].bit_count()  # 20 per K+Q pair held
        self.belote = belote
        self.cache = {}

    def __call__(self, take: int) -> float:
        d = self.cache.get(take)
        if d is None:
            d = self.cache[take] = self._score(take)
        return d

    def _score(self, take: int) -> float:
        w, team = self.world, self.team
        mine = self.won + take
        theirs = self.total - mine
        points = [0, 0]
        points[team], points[1 - team] = mine, theirs
        last = 0 if points[0] >= points[1] else 1  # the dix de der: only the sums are scored
        points[last] -= 10
        tricks = [2, 2, 2, 2]
        if points[1 - last] == 0:  # every point to one team: read it as a capot
            tricks = [4, 0, 4, 0] if last == 0 else [0, 4, 0, 4]
        res = score_deal(w.variant, w.contract, points, tricks, last, self.belote,
                         w.declaration_points, w.garde)
        return res.scores[team] - res.scores[1 - team]


def parse_options(text: str) -> dict:
    """``worlds=16,tricks=5`` -> {"worlds": 16, "tricks": 5}; ValueError naming the bad item."""
    out = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key not in OPTIONS:
            raise ValueError(f"pimc option {item!r}: expected key=value with key one of {', '.join(OPTIONS)}")
        try:
            out[key] = OPTIONS[key](value)
        except ValueError:
            raise ValueError(f"pimc option {key!r} must be {OPTIONS[key].__name__}, got {value!r}") from None
    return out


def make_pimc(options: str = "") -> PimcAgent:
    name = "pimc" + (f":{options}" if options else "")
    return PimcAgent(**parse_options(options), name=name)
