"""Belote as an OpenSpiel game: ``import belote_env.integrations.openspiel`` registers ``python_belote``.

    import pyspiel
    import belote_env.integrations.openspiel  # registers the game

    game = pyspiel.load_game("python_belote(variant=coinche)")
    state = game.new_initial_state()

Every variant of the project plays, with the rules core (:mod:`belote_env.rules`) as the single truth: this
module only deals the cards as chance nodes and keeps the information each seat has seen.

Parameters (``pyspiel.load_game("python_belote(variant=contree,episode=game)")``):

- ``variant``: a shipped variant name (``coinche``, ``belote_classique``...) or a variant file path;
- ``switches``: rule switches over the variant's, as ``key:value`` words separated by spaces, for example
  ``"target:2000 undertrump:false"`` (OpenSpiel's game strings cannot hold ``=`` inside a value);
- ``episode``: ``deal`` (default, one scored deal) or ``game`` (deals until a team reaches the target); a
  parameter, refused among the ``switches``;
- ``max_redeals``: the episode ends, truncated, at its ``max_redeals``-th all-pass deal in a row, with the scores it
  has (default 100; the AEC env's reading of it);
- ``dealer``: the seat that deals first (default 0);
- ``utility``: ``points`` (default: returns in points) or ``score_diff`` (the points divided by the scale of the
  AEC env's ``score_diff`` reward, ``belote_env.rewards.REWARD_SCALE``: most deals in [-1, 1], for learners).

The game: sequential, explicit chance, imperfect information, zero-sum, four players (seat ``p``'s partner is
``p + 2``; teams are seats 0/2 and 1/3), terminal rewards. Chance deals the cards one at a time, each outcome a
card still in the deck with equal probability: 32 cards to the seats in turn from the dealer's left in full deals;
in turn-up deals 20 cards, then the turn-up, and after the take the 11 cards of the second distribution in the
order the rules core deals them (the non-takers 3 each from the dealer's left, the taker 2). A redeal deals again
by chance. Returns are in points (or scaled, ``utility``): seat ``p`` gets its team's score minus the other
team's over the episode (:meth:`BeloteState.returns`).

Observations: the information-state string of seat ``p`` is everything it has seen, in perfect recall: the
cards it was dealt, the turn-up, every call and card with its seat, belote announcements and public
declarations, the scores, and the same records of the earlier deals of a game. Its observation string is the same
for the current deal only. Both tensors are the project's 853-float observation of the seat (docs/observation.md),
all zeros while the cards are being dealt; the tensor of a game episode describes the current deal and the
scores, not the earlier deals' cards. Nothing of another seat's hidden cards is in any of them.
"""

from __future__ import annotations

import random

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"belote_env.integrations.openspiel needs OpenSpiel: pip install -e \".[openspiel]\" ({e})") \
        from None

from ..aec import DEFAULT_MAX_REDEALS, checked_max_redeals
from ..observation import OBS_SIZE, SEGMENTS, IncrementalEncoder
from ..rewards import REWARD_SCALE
from ..rules.actions import ACTION_NAMES, NUM_ACTIONS, action_id
from ..rules.cards import CARD_NAMES, cards_of, format_cards
from ..rules.errors import BeloteError
from ..rules.game import GameState
from ..rules.info import InfoState, info_state
from ..rules.sampling import sample_deal
from ..rules.scoring import REDEAL
from ..rules.state import BIDDING, DONE, DealState, parse_switches
from ..rules.variant import Variant, short_repr
from ..variants import load_variant

SHORT_NAME = "python_belote"
FULL_DECK = (1 << 32) - 1
MAX_CALLS = 64  # calls of one deal, a bound (an auction has at most 11 bid levels, each with passes, and doublings)
MAX_SCORED_DEAL_POINTS = 10_000  # a bound on one deal's score difference (a surcoinched generale with everything)
MAX_GAME_LENGTH = 2**31 - 1  # OpenSpiel's GameInfo counts an episode's moves in a C++ int
PARAMETERS = {"variant": "coinche", "switches": "", "episode": "deal", "max_redeals": DEFAULT_MAX_REDEALS,
              "dealer": 0, "utility": "points"}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Belote (belote_env: classique, coinche, contree, 81 points)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class BeloteGameError(BeloteError):
    """A bad ``python_belote`` parameter or argument, or a chance outcome that is not a card still in the deck
    (a ValueError)."""


class _ParameterError(BeloteGameError):
    """A bad parameter, its message prefixed with the game's name."""

    def __init__(self, message: str):
        super().__init__(f"python_belote: {message}")


def variant_of(params: dict):
    """The :class:`~belote_env.rules.variant.Variant` named by the game's parameters."""
    episode = params.get("episode", "deal")
    if episode not in ("deal", "game"):
        raise BeloteGameError(f"python_belote: episode must be 'deal' or 'game', got {episode!r}")
    words = str(params.get("switches", "")).split()
    bad = [w for w in words if ":" not in w]
    if bad:
        raise BeloteGameError(f"python_belote: switches are 'key:value' words, got {short_repr(bad[0])}")
    overrides = parse_switches(" ".join(w.replace(":", "=", 1) for w in words))
    if "episode" in overrides:  # it would be overridden by the parameter, silently
        raise BeloteGameError(f"python_belote: episode is a parameter of its own (python_belote(episode="
                              f"{short_repr(overrides['episode'])})), not a switch")
    return load_variant(params.get("variant", "coinche"), **{**overrides, "episode": episode})


class BeloteGame(pyspiel.Game):
    """``python_belote``: one variant of the project as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params: dict | None = None):
        params = {**PARAMETERS, **(params or {})}
        self.variant = variant_of(params)
        # The AEC env's max_redeals: the episode is truncated at its max_redeals-th all-pass deal in a row.
        self.max_redeals = checked_max_redeals(params["max_redeals"], _ParameterError, none_allowed=False)
        if params["utility"] not in ("points", "score_diff"):
            raise BeloteGameError(f"python_belote: utility must be 'points' or 'score_diff', got "
                                  f"{short_repr(params['utility'])}")
        self.utility_scale = 1.0 if params["utility"] == "points" else REWARD_SCALE[self.variant.scoring]
        self.dealer = action_id(params["dealer"])
        if self.dealer is None or not 0 <= self.dealer <= 3:
            raise BeloteGameError(f"python_belote: dealer must be a seat 0..3, got {short_repr(params['dealer'])}")
        self.hand_size = 8 if self.variant.deal == "full" else 5
        per_deal = 32 + MAX_CALLS + 32  # chance, calls, cards
        deals = 1 if self.variant.episode == "deal" else 4 * -(-self.variant.target // 80) + 4
        bound = MAX_SCORED_DEAL_POINTS * deals
        longest = per_deal * deals * (self.max_redeals + 1)
        if longest > MAX_GAME_LENGTH:
            raise BeloteGameError(
                f"python_belote: max_redeals={self.max_redeals} and target={self.variant.target} allow an episode of "
                f"{longest:,} moves, more than OpenSpiel's bound {MAX_GAME_LENGTH:,}: lower max_redeals or the "
                "target")
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=32,
            num_players=4,
            min_utility=-bound / self.utility_scale,
            max_utility=bound / self.utility_scale,
            utility_sum=0.0,
            max_game_length=longest,
        )
        super().__init__(_GAME_TYPE, info, params)
        self.blank = GameState(self.variant, seed=0, dealer=self.dealer)  # read-only: a state before its deal

    def new_initial_state(self) -> "BeloteState":
        return BeloteState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "BeloteObserver":
        return BeloteObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class BeloteState(pyspiel.State):
    """A ``python_belote`` state: a :class:`~belote_env.rules.game.GameState` whose deals come from chance nodes.

    ``game_state`` is the rules core's game (its ``deal`` is the deal in play once its cards are dealt); the
    chance nodes of a deal fill ``dealt`` (the cards in the order chance drew them)."""

    def __init__(self, game: BeloteGame):
        super().__init__(game)
        self.variant = game.variant
        self._max_redeals = game.max_redeals
        self._hand_size = game.hand_size
        self._utility_scale = game.utility_scale
        self._blank = game.blank
        self.game_state = game.blank  # a new game of its own once the first cards are dealt (_start_deal)
        self.dealt: list[int] = []  # the current deal's chance outcomes so far
        self._dealing = True  # the first distribution (and turn-up) is being dealt
        self._pending = -1  # in turn-up deals, the call that took, applied once the second distribution is dealt
        self._redeals = 0  # all-pass deals in a row
        self.truncated = False
        self._encoder: IncrementalEncoder | None = None
        self.records: list[list[InfoState]] = [[], [], [], []]  # each seat's view of the earlier deals

    # --- OpenSpiel's State API -------------------------------------------------

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self._dealing or self._pending >= 0:
            return pyspiel.PlayerId.CHANCE
        return self.game_state.current_seat

    def is_terminal(self) -> bool:
        return self.truncated or self.game_state.over

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():  # OpenSpiel's convention: a seat not to act has none
            return []
        return self.game_state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        used = self._used()
        p = 1.0 / (32 - len(self.dealt))
        return [(c, p) for c in range(32) if not used >> c & 1]

    def _apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise BeloteGameError(f"python_belote: the episode is over; action {action} cannot be applied")
        if self._dealing or self._pending >= 0:
            if not 0 <= action < 32 or self._used() >> action & 1:
                deck = " ".join(CARD_NAMES[c] for c, _ in self.chance_outcomes())
                raise BeloteGameError(f"python_belote: chance outcome {action} is not a card still in the deck "
                                      f"({deck}); nothing was dealt")
        if self._dealing:
            self.dealt.append(action)
            if len(self.dealt) == 4 * self._hand_size + (self._hand_size == 5):
                self._start_deal()
        elif self._pending >= 0:
            self.dealt.append(action)
            if len(self.dealt) == 4 * self._hand_size + 1 + 11:
                self._second_distribution()
        elif self.variant.deal != "full" and self.game_state.deal.phase == BIDDING and self._takes(action):
            self._pending = action  # the stock is dealt by chance first
        else:
            self._play(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARD_NAMES[action]}"
        return ACTION_NAMES[action]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0, 0.0, 0.0]
        s = self.game_state.scores
        d = (s[0] - s[1]) / self._utility_scale
        return [d, -d, d, -d]

    def __str__(self) -> str:
        """The deal in the project's position notation (``DealState.format``; ``DealState.parse`` reads it back),
        or the cards dealt so far while chance deals; game episodes add the scores."""
        g = self.game_state
        head = f"scores: {g.scores[0]} {g.scores[1]} | " if self.variant.episode == "game" else ""
        if self._dealing:
            return head + f"dealer: {g.dealer} | dealing: {' '.join(CARD_NAMES[c] for c in self.dealt)}"
        text = g.deal.format()
        if self._pending >= 0:
            text += f" | pending: {ACTION_NAMES[self._pending]} | stock so far: " + \
                    " ".join(CARD_NAMES[c] for c in self.dealt[4 * self._hand_size + 1:])
        return head + text

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "BeloteState":
        """A state with the same information state for ``player_id``, the other seats' hidden cards (and the
        stock not yet dealt) drawn among the deals consistent with what it has seen
        (:func:`belote_env.rules.sampling.sample_deal`, uniform where it can be, from a ``random.Random`` seeded
        by one call of ``probability_sampler``). The earlier deals of a game stay as they were, and so does
        ``history()``: only the current deal's hidden cards change. Once the cards are dealt (a seat acts)."""
        if action_id(player_id) is None or not 0 <= player_id <= 3:
            raise BeloteGameError(f"resample_from_infostate: player_id must be a seat 0..3, got "
                                  f"{short_repr(player_id)}")
        if self._dealing or self.is_terminal():
            raise BeloteGameError("resample_from_infostate: the cards of this deal are not all dealt (or the "
                                  "episode is over); resample at a seat's decision")
        u = probability_sampler()
        if isinstance(u, bool) or not isinstance(u, (int, float, np.floating)) or not 0.0 <= u <= 1.0:
            raise BeloteGameError(f"resample_from_infostate: probability_sampler() must return a float in [0, 1], "
                                  f"got {type(u).__name__} {short_repr(u)}")
        rng = random.Random(int(u * 2**53))
        deal = self.game_state.deal
        sampled = sample_deal(info_state(deal, int(player_id)), rng)  # the deal's actions replayed on it
        new = self.clone()
        new.game_state.deal = sampled
        n = 4 * self._hand_size
        order = [0] * n  # the first distribution again, round by round from the dealer's left
        seats = [cards_of(sampled.initial[s]) for s in range(4)]
        for k in range(n):
            order[k] = seats[self._seat_of(k)][k // 4]
        new.dealt = order + ([sampled.turnup, *sampled.stock[:len(self.dealt) - n - 1]] if self._hand_size == 5
                             else [])
        return new

    # --- the deal --------------------------------------------------------------

    def _used(self) -> int:
        m = 0
        for c in self.dealt:
            m |= 1 << c
        return m

    def _seat_of(self, k: int) -> int:
        """The seat that gets the ``k``-th card of the first distribution."""
        return (self.game_state.dealer + 1 + k) & 3

    def _start_deal(self) -> None:
        """The first distribution is complete: the rules core's deal of those hands (turn-up deals: with a
        provisional stock, replaced by the chance nodes' after the take)."""
        g = self.game_state
        if g is self._blank:  # shared by the fresh states of the game (OpenSpiel makes one per observation)
            g = self.game_state = GameState(self.variant, seed=0, dealer=g.dealer)  # its deal is replaced below
        n = 4 * self._hand_size
        hands = [0, 0, 0, 0]
        for k, c in enumerate(self.dealt[:n]):
            hands[self._seat_of(k)] |= 1 << c
        turnup = self.dealt[n] if self._hand_size == 5 else None
        g.deal = DealState.from_hands(self.variant, g.dealer, hands, turnup=turnup, garde=g.garde)
        self._dealing = False

    def _takes(self, action: int) -> bool:
        probe = self.game_state.deal.clone()
        probe.apply(action)
        return probe.phase not in (BIDDING, DONE)

    def _second_distribution(self) -> None:
        """The stock is dealt: the deal again from its cards with the chance nodes' stock, its calls replayed."""
        g = self.game_state
        old = g.deal
        n = 4 * self._hand_size + 1
        deal = DealState.from_hands(self.variant, old.dealer, old.initial, turnup=old.turnup,
                                    stock=self.dealt[n:], garde=old.garde)
        for a in old.history:
            deal.apply(a)
        g.deal = deal
        action, self._pending = self._pending, -1
        self._play(action)

    def _play(self, action: int) -> None:
        g = self.game_state
        deal = g.deal
        result = g.apply(action)
        if result is None:
            return
        for seat in range(4):
            self.records[seat].append(info_state(deal, seat))
        if g.over:
            return
        self._redeals = self._redeals + 1 if result.outcome == REDEAL else 0
        self.dealt = []
        self._dealing = True  # the next deal's cards come from chance (the rules core's own deal is never seen)
        if self._redeals >= self._max_redeals:  # as the AEC env: cut at the max_redeals-th all-pass deal in a row
            self.truncated = True

    # --- what a seat knows -----------------------------------------------------

    def encoder(self) -> IncrementalEncoder:
        """The observations of the four seats (``encode`` of the rules core's game), kept up to date step by
        step; made on first use."""
        if self._encoder is None or self._encoder.game is not self.game_state:
            # A clone's copy of the encoder follows a copy of the game of its own (GameState copies itself), and a
            # resampled state's deal is another: an encoder is only ever read for the game it was made for.
            self._encoder = IncrementalEncoder(self.game_state)
        return self._encoder

    def seat_view(self, seat: int) -> str:
        """Seat ``seat``'s view of the current deal (what it has seen of it so far)."""
        g = self.game_state
        head = f"seat {seat}, dealer {g.dealer}, scores {g.scores[0]}-{g.scores[1]}, garde {g.garde}"
        if self._dealing:
            mine = [c for k, c in enumerate(self.dealt[:4 * self._hand_size]) if self._seat_of(k) == seat]
            return f"{head}\ndealing, my cards so far: {' '.join(CARD_NAMES[c] for c in mine)}"
        text = render(info_state(g, seat))
        if self._pending >= 0:
            text += f"\n{g.deal.seat} calls {ACTION_NAMES[self._pending]}; the second distribution is being dealt"
        return text

    def information_view(self, seat: int) -> str:
        """Everything seat ``seat`` has seen in the episode: the earlier deals' records, then this deal's."""
        return "\n".join([*map(render, self.records[seat]), self.seat_view(seat)])


def render(info: InfoState) -> str:
    """An information state as text: every field of it, cards and calls by name."""
    lines = [f"seat {info.seat}, dealer {info.dealer}, phase {info.phase}, to act {info.current_seat}, "
             f"scores {info.scores[0]}-{info.scores[1]}, garde {info.garde}",
             f"hand {format_cards(info.hand)}; dealt {format_cards(info.initial_hand)}"
             + (f"; turn-up {CARD_NAMES[info.turnup]}" if info.turnup >= 0 else "")]
    if info.calls:
        lines.append("calls " + ", ".join(f"{s}:{ACTION_NAMES[a]}" for s, a in info.calls))
    if info.contract is not None:
        c = info.contract
        lines.append(f"contract {c.kind} {c.value} strain {c.strain} taker {c.taker} level {c.level}")
    for t in info.tricks:
        lines.append(f"trick {t.leader}: {' '.join(CARD_NAMES[c] for c in t.cards)} won by {t.winner} ({t.points})")
    if info.trick:
        lines.append(f"trick {info.leader}: {' '.join(CARD_NAMES[c] for c in info.trick)}")
    for e in info.belote_events:
        lines.append(f"{e.seat} {e.kind} {CARD_NAMES[e.card]}")
    for d in info.declarations:
        lines.append(f"{d.seat} declares {d.describe()} ({d.points})")
    return "\n".join(lines)


class BeloteObserver:
    """OpenSpiel's PyObserver for ``python_belote``: the 853-float observation (with a named view per segment of
    docs/observation.md in ``dict``) and the strings of :class:`BeloteState`; ``perfect_recall`` chooses the
    information-state string (every deal of the episode) or the observation string (the current deal)."""

    def __init__(self, iig_obs_type, params=None):
        if params:
            raise BeloteGameError(f"python_belote observers take no parameters, got {short_repr(params)}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise BeloteGameError("python_belote observes one seat's private and the public information "
                                  f"(IIGObservationType(perfect_recall=...)), not {short_repr(iig_obs_type)}")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {name: self.tensor[start:start + size] for name, (start, size) in SEGMENTS.items()}

    def set_from(self, state: BeloteState, player: int) -> None:
        _check_player(player)
        if state._dealing:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.encoder().observation(player)

    def string_from(self, state: BeloteState, player: int) -> str:
        _check_player(player)
        return state.information_view(player) if self.perfect_recall else state.seat_view(player)


def _check_player(player) -> None:
    """A seat 0..3 (OpenSpiel's own calls check it first; a Python caller of the observer may not)."""
    if type(player) is not int or not 0 <= player <= 3:
        if action_id(player) is None or not 0 <= action_id(player) <= 3:
            raise BeloteGameError(f"python_belote: player must be a seat 0..3, got {short_repr(player)}")


# --- from the rules core to OpenSpiel -------------------------------------------------------------------------


def game_for(variant, dealer: int = 0) -> BeloteGame:
    """The ``python_belote`` game of a :class:`~belote_env.rules.variant.Variant` (a shipped one or any other:
    every switch is passed) whose first deal is dealt by ``dealer``."""
    if not isinstance(variant, Variant):
        raise BeloteGameError(f"game_for takes a Variant (belote_env.variants.load_variant), got "
                              f"{type(variant).__name__} {short_repr(variant)}")
    if action_id(dealer) is None or not 0 <= action_id(dealer) <= 3:
        raise BeloteGameError(f"python_belote: dealer must be a seat 0..3, got {short_repr(dealer)}")
    switches = " ".join(f"{k}:{str(v).lower() if isinstance(v, bool) else v}" for k, v in variant.to_dict().items()
                        if k not in ("name", "episode"))
    game = pyspiel.load_game(SHORT_NAME, {"variant": "coinche", "switches": switches, "episode": variant.episode,
                                          "dealer": int(dealer)})
    if game.variant.with_overrides(name=variant.name) != variant:
        raise BeloteGameError(f"python_belote cannot express the variant {variant.name!r}")
    game.variant = variant  # the same rules under the variant's own name
    game.blank = GameState(variant, seed=0, dealer=game.dealer)
    return game


def state_from_deal(game: BeloteGame, deal: DealState) -> BeloteState:
    """The ``python_belote`` state of ``deal`` (its cards dealt by the chance nodes, then its actions), in a game
    whose first dealer is the deal's (:func:`game_for`); the first deal of the episode."""
    if not isinstance(game, BeloteGame) or not isinstance(deal, DealState):
        raise BeloteGameError(f"state_from_deal takes a python_belote game (game_for) and a DealState, got "
                              f"{type(game).__name__} and {type(deal).__name__}")
    if game.dealer != deal.dealer:
        raise BeloteGameError(f"state_from_deal: the game's first dealer is {game.dealer}, the deal's {deal.dealer}")
    if deal.variant.with_overrides(name=game.variant.name) != game.variant:  # its scoring would differ, silently
        theirs, ours = deal.variant.to_dict(), game.variant.to_dict()
        diff = [k for k in ours if k != "name" and ours[k] != theirs[k]]
        raise BeloteGameError(f"state_from_deal: the deal is of variant {deal.variant.name!r}, the game of "
                              f"{game.variant.name!r}; they differ in {', '.join(diff)} (game_for(deal.variant))")
    state = game.new_initial_state()
    n = game.hand_size
    seats = [cards_of(deal.initial[s]) for s in range(4)]
    for k in range(4 * n):
        state.apply_action(seats[(deal.dealer + 1 + k) & 3][k // 4])
    if n == 5:
        state.apply_action(deal.turnup)
    for a in deal.history:
        state.apply_action(a)
        if state.is_chance_node():  # the take of a turn-up deal: the stock, in the order it is dealt
            for c in deal.stock:
                state.apply_action(c)
    return state


# --- the check against the rules core ------------------------------------------------------------------------


def replay_on_the_rules_core(variant, history: list[int], check) -> list[int]:
    """Replay an OpenSpiel history (chance outcomes and actions) deal by deal on ``DealState.from_hands``, from
    the cards as the chance nodes dealt them (round by round from the dealer's left; in turn-up deals the
    turn-up, and the stock after the take), calling ``check(deal)`` before each player action; returns the
    summed scores of the episode's deals (deal episodes: up to the first scored deal)."""
    n = 8 if variant.deal == "full" else 5
    dealer, garde, scores, i = 0, 0, [0, 0], 0
    while i < len(history):
        hands = [0, 0, 0, 0]
        for k, c in enumerate(history[i:i + 4 * n]):
            hands[(dealer + 1 + k) & 3] |= 1 << c
        i += 4 * n
        if n == 5:
            turnup, i = history[i], i + 1
            deal = DealState.from_hands(variant, dealer, hands, turnup=turnup, garde=garde)
            calls = []
            while deal.phase == BIDDING:
                check(deal)
                calls.append(history[i])
                deal.apply(history[i])
                i += 1
            if deal.phase != DONE:  # taken: the next 11 outcomes are the stock, in the order it is dealt
                stock, i = history[i:i + 11], i + 11
                deal = DealState.from_hands(variant, dealer, hands, turnup=turnup, stock=stock, garde=garde)
                for a in calls:
                    deal.apply(a)
        else:
            deal = DealState.from_hands(variant, dealer, hands, garde=garde)
        while deal.phase != DONE:
            check(deal)
            deal.apply(history[i])
            i += 1
        scores = [scores[0] + deal.result.scores[0], scores[1] + deal.result.scores[1]]
        garde = deal.result.garde_out
        if deal.result.outcome != REDEAL and variant.episode == "deal":
            break
        dealer = (dealer + 1) & 3
    return scores


def verify_against_rules_core(variant: str, deals: int, seed: int = 0) -> list[str]:
    """Play ``deals`` random deal episodes of ``python_belote(variant=...)`` (uniform chance and actions) and
    replay each on the rules core (:func:`replay_on_the_rules_core`): the player to act and the legal actions
    at every step, the chance outcomes (the cards left, equally likely) and the returns must agree. Returns
    the disagreements (empty when there are none)."""
    game = pyspiel.load_game(SHORT_NAME, {"variant": variant})
    rng = random.Random(seed)
    problems = []
    for d in range(deals):
        state = game.new_initial_state()
        seen = []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                left = [c for c in range(32) if not state._used() >> c & 1]
                if [c for c, _ in outcomes] != left or abs(sum(p for _, p in outcomes) - 1.0) > 1e-9:
                    problems.append(f"deal {d}: chance outcomes {outcomes}")
                state.apply_action(rng.choice(outcomes)[0])
            else:
                legal = state.legal_actions()
                seen.append((state.current_player(), legal))
                state.apply_action(rng.choice(legal))
        expected = []
        try:
            scores = replay_on_the_rules_core(game.variant, state.history(),
                                              lambda deal: expected.append((deal.seat, deal.legal_actions())))
        except BeloteError as e:
            problems.append(f"deal {d}: the rules core refuses the history: {e}")
            continue
        diff = float(scores[0] - scores[1])
        if seen != expected:
            step = next(k for k, (a, b) in enumerate(zip(seen, expected + [None] * len(seen))) if a != b)
            problems.append(f"deal {d}: step {step}: OpenSpiel {seen[step]}, rules core {expected[step:step + 1]}")
        if state.returns() != [diff, -diff, diff, -diff]:
            problems.append(f"deal {d}: returns {state.returns()}, rules core scores {scores}")
    return problems


pyspiel.register_game(_GAME_TYPE, BeloteGame)

__all__ = ["SHORT_NAME", "BeloteGame", "BeloteGameError", "BeloteObserver", "BeloteState", "game_for", "render",
           "replay_on_the_rules_core", "state_from_deal", "variant_of", "verify_against_rules_core"]
