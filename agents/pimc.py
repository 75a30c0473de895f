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

Options, in the spec after a colon, comma separated: ``pimc:worlds=16,tricks=5,bid=dd``.

- ``worlds`` (16): deals sampled per decision;
- ``tricks`` (5): the solver plays the card from the trick where at most this
  many tricks remain (tricks 4 to 8 by default); earlier card decisions and,
  unless ``bid=dd``, all bidding, coinche and surcoinche decisions are the base agent's (``base``, below: the
  heuristic, :class:`agents.heuristic.HeuristicAgent`, by default). The solver's cost grows about
  tenfold per extra trick (docs/search.md), so this bounds a decision's time;
- ``obj`` (score): ``score`` or ``points``, above;
- ``bid`` (heuristic): ``heuristic``, or ``dd`` for auction calls (coinche,
  contree) from double-dummy estimates, as GIB bids: in ``bid_worlds`` (6)
  deals sampled from the seat's information, in which every other seat's bid
  is one the heuristic could have made, the DD take from the first lead of
  each strain considered (the own hand's two best by the heuristic's
  estimate, and the highest bid's), less ``bid_margin`` (16) points for the
  team holding the contract (a declarer who sees every card takes more than
  one who does not; 16 is the mean gap measured between the DD take and pimc's
  play); every call is scored as if it ended the auction (a bid: that
  contract, ours; pass: the highest bid as it stands; coinche and surcoinche:
  that bid doubled or redoubled) with the variant's scoring, and the call of
  best mean score difference is made. In belote classique (take or pass)
  each legal take is played out in ``bid_worlds`` sampled deals the same
  way and the best is made if its mean score difference is above 0 (passing:
  a redeal at best). The 81 points keep the base agent's calls. In the auction
  it measures far worse than the heuristic's calls (docs/search.md), hence not
  the default;
- ``base`` (heuristic): the agent of every decision the solver does not make (the calls, unless ``bid=dd``,
  and the card decisions before the searched tricks): ``heuristic``, a neural agent (a shipped name such as
  ``ppo_coinche``, a checkpoint path; its decisions are batched in one forward pass), or ``family``: the
  shipped agent trained on the variant played. With a neural base, the policy's probability breaks ties
  between cards of equal mean value (a double-dummy solver values many cards alike: small cards of a suit,
  discards that lose nothing in any sampled world);
- ``seed`` (0): added to the seed given by :meth:`reset`;
- ``beliefs`` (none): a neural agent (``ppo_coinche``, a checkpoint path) as the model of the other seats:
  each card decision draws ``draws`` (4 x ``worlds``) uniform worlds, weighs them by that policy's probability
  of every action the other seats took in them, to the power ``beta`` (0.2) (:mod:`agents.beliefs`), and
  searches ``worlds`` of them drawn in proportion to the weights (docs/search.md); with ``bid=dd`` each call
  draws its ``bid_worlds`` the same way (in the auction in place of the worlds that fit the heuristic's bids).

``search`` is this agent with a trained policy as its base: ``search`` = ``pimc:base=family``, and
``search:policy=ppo_coinche,worlds=32`` = ``pimc:base=ppo_coinche,worlds=32`` (docs/search.md measures it
against both its parts).

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

from agents.base import Agent
from agents.cli import key_values
from agents.heuristic import HeuristicAgent, estimate_points
from belote_env.rules.actions import ACTION_NAMES
from belote_env.rules.info import InfoState
from belote_env.rules.scoring import CAPOT_KINDS, score_deal

OPTIONS = {"worlds": int, "tricks": int, "obj": str, "bid": str, "bid_worlds": int, "bid_margin": int, "seed": int,
           "beliefs": str, "draws": int, "beta": float, "base": str}
OBJECTIVES = ("score", "points")
BIDDING = ("heuristic", "dd")
FAMILY = "family"  # base=family: the shipped agent trained on the variant played
MAX_WORLDS = 1000  # worlds a decision searches: at ~10 ms a solve, 10 s a decision already
BID_STRAINS = 2  # the auction's DD estimates cover the own hand's best strains by the heuristic's estimate


class PimcAgent(Agent):
    needs_observation = False

    def __init__(self, worlds: int = 16, tricks: int = 5, obj: str = "score", bid: str = "heuristic",
                 bid_worlds: int = 6, bid_margin: int = 16, seed: int = 0, name: str | None = None,
                 beliefs: str = "", draws: int = 0, beta: float = 0.2, base: str = "heuristic"):
        who = "search" if (name or "").startswith("search") else "pimc"  # search's errors name its options
        if not 1 <= worlds <= MAX_WORLDS:
            raise ValueError(f"{who} option worlds must be 1..{MAX_WORLDS}, got {worlds}")
        if not 1 <= tricks <= 8:
            raise ValueError(f"{who} option tricks must be 1..8, got {tricks}")
        if obj not in OBJECTIVES:
            raise ValueError(f"{who} option obj must be one of {', '.join(OBJECTIVES)}, got {obj!r}")
        if bid not in BIDDING:
            raise ValueError(f"{who} option bid must be one of {', '.join(BIDDING)}, got {bid!r}")
        if not 1 <= bid_worlds <= MAX_WORLDS:
            raise ValueError(f"{who} option bid_worlds must be 1..{MAX_WORLDS}, got {bid_worlds}")
        if draws < 0 or (beliefs and draws and draws < worlds) or draws > 100 * MAX_WORLDS:
            raise ValueError(f"{who} option draws must be at least worlds ({worlds}) and at most "
                             f"{100 * MAX_WORLDS:,}, got {draws}")
        if not 0 < beta <= 1:
            raise ValueError(f"{who} option beta must be in (0, 1], got {beta}")
        self.beliefs = beliefs
        self.draws = draws or 4 * worlds
        self.beta = beta
        self._belief_net = _neural_agent(beliefs, "beliefs", who).net if beliefs else None
        self.base = base
        self._heuristic = HeuristicAgent()
        self._bases = {}  # variant name -> base agent, for base=family
        self._base = self._heuristic if base == "heuristic" else None if base == FAMILY else _neural_agent(
            base, "policy" if who == "search" else "base", who)
        self.needs_observation = base != "heuristic"
        self.worlds = worlds
        self.tricks = tricks
        self.obj = obj
        self.bid = bid
        self.bid_worlds = bid_worlds
        self.bid_margin = bid_margin
        self.base_seed = seed
        self.seed = seed
        self._reset_seed = None  # the last reset's seed, for a base agent loaded later (base=family)
        self.name = name or "pimc"
        self._solver = None
        self._last = (None, [])  # the infos of the last act_batch and its searched cards' values (decision_extras)

    def reset(self, seed: int | None = None) -> None:
        self.seed = self.base_seed + (seed or 0)
        self._reset_seed = seed
        self._heuristic.reset(seed)
        for agent in [self._base, *self._bases.values()]:
            if agent is not None and agent is not self._heuristic:
                agent.reset(seed)

    def act(self, observation, action_mask, info: InfoState) -> int:
        return self.act_batch([observation], [action_mask], [info])[0]

    def act_batch(self, observations, action_masks, infos: list, seeds=None) -> list[int]:
        """The solver's decisions one by one, the base agent's in one batch (one forward pass for a network,
        which gives the searched decisions' tie-breaks in one more)."""
        out: list = [None] * len(infos)
        if not infos:
            return out
        base = self._base_for(infos[0].variant)
        rest, searched = [], []
        for i, info in enumerate(infos):
            legal = info.legal_actions()
            if len(legal) == 1:
                out[i] = legal[0]
            elif info.phase == "bidding" and self.bid == "dd" and info.variant.bidding == "auction":
                out[i] = self._auction(info, legal)
            elif info.phase == "bidding" and self.bid == "dd" and info.variant.bidding == "take_or_pass":
                out[i] = self._take_or_pass(info, legal)
            elif self.searches(info):
                searched.append(i)
            else:
                rest.append(i)
        if searched and base is not self._heuristic:
            priors = _policies(base.net, observations, action_masks, searched)
        else:
            priors = [None] * len(searched)
        values: list = [None] * len(infos)
        for i, prior in zip(searched, priors):
            out[i], values[i] = self._search(infos[i], infos[i].legal_actions(), prior)
        self._last = (infos, values)
        if rest:
            obs = _rows(observations, rest) if self.needs_observation else [None] * len(rest)
            for i, a in zip(rest, base.act_batch(obs, _rows(action_masks, rest), [infos[i] for i in rest])):
                out[i] = int(a)
        return out

    def searches(self, info: InfoState) -> bool:
        """Whether the solver plays this decision's card (a card decision at most ``tricks`` tricks from the
        end; the solver is not asked where only one card is legal)."""
        return info.phase == "play" and 8 - len(info.tricks) <= self.tricks

    def _base_for(self, variant):
        """The base agent: the one named, or with ``base=family`` the shipped agent trained on ``variant``."""
        if self._base is not None:
            return self._base
        agent = self._bases.get(variant.name)
        if agent is None:
            from agents.pretrained import available, trained_on

            trained = trained_on(variant.name)
            if not trained:
                raise ValueError(f"{self.name}: no shipped agent was trained on variant {variant.name!r} (shipped: "
                                 f"{', '.join(available())}); name the policy, e.g. search:policy=ppo_coinche")
            agent = self._bases[variant.name] = _neural_agent(trained[0], "base")
            agent.reset(self._reset_seed)
        return agent

    def _solver_for(self):
        from belote_env.search import Solver

        if self._solver is None:
            self._solver = Solver(log2_tt=18)
        return self._solver

    def _auction(self, info: InfoState, legal: list[int]) -> int:
        """An auction call (bid, pass, coinche, surcoinche) from DD estimates, as GIB bids: in each of
        ``bid_worlds`` sampled deals (:func:`_sample_auction_world`), the DD take (:func:`_team_take`, less the
        margin for the contract's team) of each strain considered (the own hand's best
        ``BID_STRAINS`` by the heuristic's estimate, and the strain of the highest bid); each call is scored
        as if it ended the auction (a bid: that contract, ours; pass: the highest bid as it stands, or a
        redeal; coinche and surcoinche: the highest bid doubled or redoubled) with the variant's scoring,
        and the call of best mean score difference is made. Capot and generale bids are left out."""
        from belote_env.rules.actions import COINCHE, PASS, SURCOINCHE, bid_strain, bid_value, is_bid

        variant, seat, team = info.variant, info.seat, info.seat & 1
        ranked = sorted(variant.strains, key=lambda s: -estimate_points(info.hand, s, variant))
        strains = set(ranked[:BID_STRAINS])
        bids = [a for a in legal if is_bid(a) and bid_value(a) <= 160 and bid_strain(a) in strains]
        calls = [a for a in legal if a in (PASS, COINCHE, SURCOINCHE)] + bids
        if not calls:
            return self._heuristic.act(None, None, info)
        rng = random.Random(f"{self.seed}:{seat}:{info.history}:auction")
        solver = self._solver_for()
        totals = dict.fromkeys(calls, 0.0)
        for world, count in self._worlds(info, rng, _sample_auction_world, self.bid_worlds):
            ended = {}  # strain -> the world played out to its first lead with a contract in that strain
            if info.high >= 0:  # someone has bid
                ended["high"] = _end_auction(world, None)
            for s in strains:
                ended[s] = _end_auction(world, s)
            solved = {}  # a strain and first leader are solved once, whoever holds the contract
            takes = {k: _team_take(solver, st, team, self.bid_margin, solved) for k, st in ended.items()
                     if st is not None}
            for a in calls:
                if a in (PASS, COINCHE, SURCOINCHE):
                    st = ended.get("high")
                    if st is None:  # nobody has bid: passing leads to a redeal at best
                        continue
                    contract = st.contract
                    if a != PASS:
                        contract = contract._replace(level=2 if a == COINCHE else 4)
                    totals[a] += count * _WorldScorer(st, team, contract)(takes["high"])
                else:
                    s = bid_strain(a)
                    st = ended[s]
                    if st is None:
                        continue
                    contract = st.contract._replace(value=bid_value(a))
                    totals[a] += count * _WorldScorer(st, team, contract)(takes[s])
        # ties: the call listed first (pass, then the lower bids)
        return max(calls, key=lambda a: (totals[a], -calls.index(a)))

    def _take_or_pass(self, info: InfoState, legal: list[int]) -> int:
        """A take-or-pass call (belote classique) from DD estimates: in each of ``bid_worlds`` deals sampled
        from the seat's information (the turn-up's suit, the other seats' passes taken as no information), each
        legal take is played to the first lead (the rest of the deal dealt from the world's stock) and scored
        with the team's DD take less ``bid_margin`` (:func:`_team_take`) under the variant's scoring. The take of
        best mean score difference is made if that mean is above 0, the score of passing (a redeal at best: the
        other seats' takes are not modelled); else pass."""
        from belote_env.rules.actions import PASS
        from belote_env.rules.sampling import sample_deal

        takes = [a for a in legal if a != PASS]
        if not takes:
            return PASS
        team = info.seat & 1
        rng = random.Random(f"{self.seed}:{info.seat}:{info.history}:take")
        solver = self._solver_for()
        totals = dict.fromkeys(takes, 0.0)
        for world, count in self._worlds(info, rng, sample_deal, self.bid_worlds):
            for a in takes:
                st = world.clone()
                st.apply(a)
                if st.phase == "play":
                    totals[a] += count * _WorldScorer(st, team)(_team_take(solver, st, team, self.bid_margin))
        best = max(takes, key=lambda a: (totals[a], -a))  # ties: the lower take
        return best if totals[best] > 0 else PASS

    def decision_extras(self, observations, action_masks, infos: list, actions) -> list | None:
        """For each decision of the last :meth:`act_batch` (the same ``infos``) that the solver made,
        ``{"search_values": {card name: mean}}``: every legal card's mean over the worlds of the team's deal score
        difference (4 decimals) (``obj=score``; card points taken with ``obj=points`` or a capot contract, then under
        ``"search_takes"``); None for the other decisions (deal records show them; expert iteration fits to them)."""
        last_infos, values = self._last
        if last_infos is not infos:
            return None
        return values

    def _search(self, info: InfoState, legal: list[int], prior=None) -> tuple[int, dict]:
        """The card of best total over the worlds (ties: the take, the prior, the lower card) and the extras of
        :meth:`decision_extras`."""
        from belote_env.rules.sampling import sample_deal
        from belote_env.search import Position

        solver = self._solver_for()
        rng = random.Random(f"{self.seed}:{info.seat}:{info.history}")
        team = info.seat & 1
        totals = np.zeros(32)
        takes = np.zeros(32)
        contract = info.contract
        use_score = self.obj == "score" and contract.kind not in CAPOT_KINDS
        n = 0
        for world, count in self._worlds(info, rng, sample_deal):
            values = solver.values_of(Position(world))
            scorer = _WorldScorer(world, team) if use_score else None
            for card, take in values.items():
                takes[card] += count * take
                totals[card] += count * (scorer(take) if scorer else take)
            n += count
        card = max(legal, key=lambda c: (totals[c], takes[c], 0 if prior is None else prior[c], -c))
        key = "search_values" if use_score else "search_takes"
        return card, {key: {ACTION_NAMES[c]: round(float(totals[c] / n), 4) for c in legal}}

    def _worlds(self, info: InfoState, rng: random.Random, sample_deal, n: int = 0) -> list[tuple[object, int]]:
        """The worlds of a decision, each with how many times it counts: ``n`` (``worlds`` by default) draws of
        ``sample_deal``, or with ``beliefs`` that many drawn from ``draws`` uniform ones in proportion to their
        weights under the policy (agents.beliefs, the likelihood to the power ``beta``; systematic resampling,
        each world solved once)."""
        n = n or self.worlds
        if self._belief_net is None:
            return [(sample_deal(info, rng), 1) for _ in range(n)]
        from agents.beliefs import weighted_worlds

        candidates, logw = weighted_worlds(info, self._belief_net, self.draws, rng)
        w = np.exp(self.beta * (logw - logw.max()))
        edges = np.cumsum(w / w.sum())
        picks = np.searchsorted(edges, (rng.random() + np.arange(n)) / n)
        counts = np.bincount(np.minimum(picks, len(candidates) - 1), minlength=len(candidates))
        return [(candidates[i], int(c)) for i, c in enumerate(counts) if c]


BID_TRIES = 200  # sampled deals per world before one that does not fit the bids is kept


def _sample_auction_world(info: InfoState, rng: random.Random):
    """A deal consistent with ``info`` in which every bid of another seat is one the heuristic could have
    made: the bidder's hand is worth at least the bid in its strain by the heuristic's estimate (the sampler
    itself takes no inference from calls). Rejection sampling; after ``BID_TRIES`` draws the last is kept."""
    from belote_env.rules.actions import bid_strain, bid_value, is_bid
    from belote_env.rules.sampling import sample_deal

    bids = [(seat, bid_value(a), bid_strain(a)) for seat, a in info.calls
            if seat != info.seat and is_bid(a) and bid_value(a) <= 160]
    for _ in range(BID_TRIES):
        world = sample_deal(info, rng)
        if all(estimate_points(world.hands[seat], strain, info.variant) >= value for seat, value, strain in bids):
            break
    return world


def _end_auction(world, strain):
    """A copy of ``world`` (in its auction) with the auction ended and the deal at its first lead: by the
    seat to act bidding the lowest bid it may in ``strain`` and the others passing, or, with ``strain``
    None, by everyone passing (the highest bid stands). None when that bid is not allowed or the deal is
    redealt."""
    from belote_env.rules.actions import PASS, bid_strain, is_bid

    st = world.clone()
    if strain is not None:
        bids = [a for a in st.legal_actions() if is_bid(a) and bid_strain(a) == strain]
        if not bids:
            return None
        st.apply(min(bids))
    while st.phase == "bidding":
        st.apply(PASS)
    return st if st.phase == "play" else None


def _team_take(solver, st, team: int, margin: int = 0, solved: dict | None = None) -> int:
    """The DD take of ``team`` from the first lead of ``st``, with ``margin`` points moved from the team
    holding the contract to the other (a double-dummy declarer, who sees every card, takes more than one who
    does not). ``solved``: the team's takes of this world by (strain, first leader), filled and reused (the
    take does not depend on who holds the contract)."""
    from belote_env.search import Position

    total = st.table.card_total + 10
    key = (st.contract.strain, st.seat)
    if solved is not None and key in solved:
        take = solved[key]
    else:
        take = solver.value_of(Position(st))
        if (st.seat & 1) != team:
            take = total - take
        if solved is not None:
            solved[key] = take
    take += -margin if st.contract.team == team else margin
    return min(max(take, 0), total)


class _WorldScorer:
    """The score difference (own team minus the other) of a sampled world, from the team's take, under the
    world's contract or ``contract``."""

    def __init__(self, world, team: int, contract=None):
        self.world = world
        self.contract = contract or world.contract
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
        res = score_deal(w.variant, self.contract, points, tricks, last, self.belote,
                         w.declaration_points, w.garde)
        return res.scores[team] - res.scores[1 - team]


def _rows(values, rows: list[int]) -> np.ndarray:
    return np.asarray([values[i] for i in rows])


def _policies(net, observations, action_masks, rows: list[int]) -> np.ndarray:
    """``net``'s probability of every action at the decisions ``rows`` (the tie-break between cards of equal
    value), one forward pass."""
    from agents.neural.protocol import policy_probs

    obs = _rows(observations, rows).astype(np.float32)
    return policy_probs(net, obs, _rows(action_masks, rows).astype(bool))[0]


def _neural_agent(spec: str, option: str, agent: str = "pimc"):
    """The neural agent (greedy) of ``agent``'s (pimc or search) option ``option``: a shipped name or a checkpoint
    path."""
    from agents.pretrained import available, load_pretrained

    if spec in available():
        return load_pretrained(spec)
    from agents.neural.agent import load_agent

    if not spec.endswith(".pt"):
        what = "heuristic, " if option == "base" else ""
        raise ValueError(f"{agent} option {option} names {what}a shipped agent ({', '.join(available())}) or a .pt "
                         f"checkpoint, got {spec!r}")
    return load_agent(spec)


def parse_options(text: str) -> dict:
    """``worlds=16,tricks=5`` -> {"worlds": 16, "tricks": 5}; ValueError naming the bad item."""
    return key_values(text.split(","), OPTIONS, "pimc")


def make_pimc(options: str = "") -> PimcAgent:
    name = "pimc" + (f":{options}" if options else "")
    return PimcAgent(**parse_options(options), name=name)


def policies(spec: str, variant: str) -> list[str]:
    """The neural agents (shipped names, checkpoint paths) that the ``pimc[:...]`` or ``search[:...]`` agent of
    ``spec`` loads when it plays ``variant``: its base and its beliefs (the ladder replays a cached match when
    their weights change). ValueError on options the spec's agent refuses."""
    head, _, options = spec.partition(":")
    opts = key_values(options.split(","), SEARCH_OPTIONS if head == "search" else OPTIONS, head)
    base = opts.get("policy", FAMILY) if head == "search" else opts.get("base", "heuristic")
    if base == FAMILY:
        from agents.pretrained import trained_on

        base = next(iter(trained_on(variant)), "heuristic")
    return [x for x in dict.fromkeys((base, opts.get("beliefs", ""))) if x and x != "heuristic"]


SEARCH_OPTIONS = {"policy": str, **{k: v for k, v in OPTIONS.items() if k != "base"}}


def make_search(options: str = "") -> PimcAgent:
    """``search[:policy=NAME,...]``: pimc with a trained policy as its base (every call and the card decisions
    before the searched tricks, and the tie-break between cards of equal value); ``policy`` defaults to the
    shipped agent trained on the variant played (``family``). The other options are pimc's."""
    opts = key_values(options.split(","), SEARCH_OPTIONS, "search")
    base = opts.pop("policy", FAMILY)
    return PimcAgent(**opts, base=base, name="search" + (f":{options}" if options else ""))
