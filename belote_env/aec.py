# noqa: D205
"""
# Belote

| Import             | `from belote_env import env, raw_env`                 |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual Control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents             | 4                                                      |
| Action Shape       | Discrete(112)                                          |
| Action Values      | Discrete(112)                                          |
| Observation Shape  | (853,) float32, plus the (112,) int8 action mask       |
| Observation Values | [0, 1] except the few counters listed below            |

The French trick-taking card game Belote for four players in two teams, in
every variant shipped in `configs/variants/` (belote classique, coinche,
contrée, the 81-points "Cobrecaf" variant and their rule switches). The rules
are those of `RULES.md`, implemented in `belote_env.rules`; this module only
turns them into a PettingZoo AEC environment named `belote_v0`.

```python
from belote_env import env

e = env(variant="coinche", reward="score_diff", render_mode="ansi")
e.reset(seed=42)
for agent in e.agent_iter():
    observation, reward, termination, truncation, info = e.last()
    if termination or truncation:
        action = None
    else:
        mask = observation["action_mask"]
        action = e.action_space(agent).sample(mask)
    e.step(action)
```

### Arguments

``env(variant="coinche", render_mode=None, reward="score_diff", render_view=None, **overrides)``

* `variant`: the name of a file in `configs/variants/` (`belote_classique`,
  `belote_classique_officielles`, `coinche`, `coinche_officielles`, `contree`,
  `contree_annonces`, `contree_faits_et_annonces`, `cobrecaf_81`), the path
  of a YAML variant file, or a `belote_env.rules.Variant`.
* `**overrides`: any rule switch of RULES.md section 10, e.g.
  `rules="officielles"`, `undertrump=True`, `target=501`, and
  `episode="deal"` (default, one scored deal; all-pass deals are redealt
  automatically) or `episode="game"` (deals until a team reaches the target,
  dealer rotating, garde carried).
* `reward`: `"score_diff"` or `"win"` (see Rewards).
* `render_mode`: `None`, `"ansi"` (render() returns the table as text) or
  `"human"` (prints it after every reset and step).
* `render_view`: `None` shows all four hands; an agent name shows only that
  player's hand, as it sees the table.
* `max_redeals`: after this many deals in a row that everyone passed
  (default 100), the episode is truncated: every agent gets
  `truncation=True`, no reward, and `infos[agent]["truncated_after_redeals"]`.
  A policy that always passes would otherwise redeal forever. An int
  1..2**31-1, or `None`: no limit.
* `calls`: `"flat"` (default, the action space below) or `"factored"`: a
  call made as up to three small decisions, each with its own mask, in
  `Discrete(56)` (`belote_env.factored`): a card (0..31), pass, coinche,
  surcoinche (32..34), call (35) or en_face (36); after call the strain
  (37..42); then the level (43..55). A decision with one legal option is
  made by itself. The observation gains 9 entries (862): the decision of the
  seat to act (one-hot what, strain, level; the others see the first) and
  the strain it chose (one-hot, zeros before); the mask has 56 entries.
  While a call is under way the same agent acts again, with no reward.

Unknown switches or bad values raise `belote_env.rules.VariantError`, a bad
`reward`, `render_mode` or `calls` raises `EnvArgumentError` (both are `ValueError`).

### Agents

`player_0` .. `player_3` are the seats in playing order: `player_0` and
`player_2` are partners (team 0), `player_1` and `player_3` the other team.
The dealer of the first deal is `player_0`, so `player_1` speaks first; in
game episodes the dealer rotates one seat per deal.

### Action space

One flat space of 112 actions shared by every variant; a variant only changes
which are ever legal.

| ids | action |
|---|---|
| 0..31 | play a card: `suit * 8 + rank`, suits ♠ ♥ ♦ ♣, ranks 7 8 9 10 J Q K A |
| 32 | pass |
| 33 | coinche (double) |
| 34 | surcoinche (redouble) |
| 35..40 | take in a strain ♠ ♥ ♦ ♣ NT AT (belote classique; Couleur of the 81 points) |
| 41..106 | bid: id = 41 + 6 * value_index + strain, values 80..160, capot (250), générale (500) |
| 107..110 | En voiture in a suit (81 points) |
| 111 | En face (81 points) |

`belote_env.rules.action_name(a)` and `parse_action(text)` convert ids and
text (`"JH"`, `"100 H"`, `"capot S"`, `"pass"`).

### Observation space

`observe(agent)` returns `{"observation": float32[853], "action_mask": int8[112]}`.
The vector is exactly `belote_env.observation.encode(game, seat)` (kept up to
date incrementally by the environment) and holds what a player at the table
knows, nothing more. Seats in it are **relative to the observer**: 0 = self,
1 = the next player (left opponent), 2 = partner, 3 = right opponent.

| offsets | length | segment | meaning |
|---|---|---|---|
| 0..31 | 32 | `hand` | own cards now held |
| 32..63 | 32 | `turnup` | the turned-up card (turn-up deals), one-hot, shown the whole deal |
| 64..383 | 320 | `calls` | per relative seat (4 blocks of 80), the non-pass calls it made, by call id - 32 |
| 384..387 | 4 | `passes` | per relative seat, number of passes / 8 |
| 388 | 1 | `num_calls` | calls made so far / 32 |
| 389..392 | 4 | `high_call_seat` | relative seat holding the highest call so far, one-hot |
| 393..398 | 6 | `contract_strain` | contract strain S H D C NT AT, one-hot (zero while bidding) |
| 399..410 | 12 | `contract_value` | bid value one-hot over 80..160, 250, 500, then 81 (81 points) |
| 411..417 | 7 | `contract_kind` | take, bid, capot, generale, couleur, en_face, en_voiture |
| 418..421 | 4 | `taker` | taker's relative seat, one-hot |
| 422..424 | 3 | `level` | coinche level 1, 2, 4 (also during bidding), one-hot |
| 425..552 | 128 | `trick` | current trick: per relative seat, the card it played, one-hot |
| 553..556 | 4 | `trick_leader` | relative seat that led the current trick |
| 557..560 | 4 | `trick_winner` | relative seat currently holding the trick |
| 561..688 | 128 | `played` | every card played so far, per relative seat (current trick included) |
| 689..816 | 128 | `declarations` | cards of public scoring declarations, per relative seat |
| 817..818 | 2 | `declaration_points` | declaration points scored: own team, other team, / 100 |
| 819..826 | 8 | `belote` | per relative seat: belote announced, rebelote announced |
| 827..835 | 9 | `trick_number` | tricks completed 0..8, one-hot |
| 836..839 | 4 | `dealer` | dealer's relative seat |
| 840..841 | 2 | `card_points` | card points won so far: own team, other team, / 162 |
| 842..843 | 2 | `tricks_won` | tricks won: own team, other team, / 8 |
| 844..845 | 2 | `phase` | bidding, play (both zero once the episode is over) |
| 846..848 | 3 | `bidding_system` | take_or_pass, auction, cobrecaf_81 |
| 849..852 | 4 | `game` | own score, other score, garde (/ target), target / 3000 (game episodes; zero otherwise) |

All entries lie in [0, 1] except `num_calls`, `declaration_points` and the
first three `game` entries, which are non-negative counters that can exceed
1 (long auctions, big declarations, scores past the target); the observation
space's `high` says so entry by entry. `docs/observation.md` details every
segment with examples.

#### Action mask

`action_mask[a] == 1` exactly when action `a` is legal for the observing
agent: calls while bidding, cards while playing. It is all zeros for every
agent but the one to act, and for everyone once the episode is over.

### Rewards

Zero-sum between the teams; both partners always receive their team's reward.

* `reward="score_diff"` (default): after every scored deal, (own team's deal
  score - other team's) / scale, with scale 162 (classic, 81 points), 400
  (coinche) or 300 (contrée): the score of an ordinary contract, so most deals
  fall in [-1, 1] and coinched or capot deals go beyond, in proportion to the
  points (up to about ±4 for a surcoinched capot). In game episodes it is
  given after each deal. A redeal scores nothing.
* `reward="win"`: +1 / -1 at the end of the episode to the team with the
  higher score (0 to both for a drawn single deal).

Under `env()`, an illegal action ends the episode (every agent terminated)
with a reward of -1 to the offender and 0 to the others, as PettingZoo's
`TerminateIllegalWrapper` specifies, and warns naming the action and the
legal set. Under `raw_env`, an illegal action raises
`belote_env.rules.IllegalActionError` (a `ValueError`).

### Information state

`infos[agent]["info_state"]` holds the acting agent's
`belote_env.rules.InfoState`: its own cards, the turn-up, the calls, the
contract, the tricks, played cards, belote events, public declarations, its
legal actions, and in game episodes the scores and garde. It refers to no
game state, so rule-based and search agents can sit at tables run by other
libraries without access to hidden cards. Only the agent to act has it.
It is built when first read (`infos[agent]` is an `AgentInfo`, a `dict`
whose every reading method builds it first), so loops that never read it
do not pay for it.

### For search agents

`env.unwrapped.game` is the rules state (`belote_env.rules.GameState`; its
`.deal` is the current `DealState`), `env.unwrapped.variant` the `Variant`.
Clone them freely (`game.clone()`); never mutate the env's own. To search
without peeking at hidden cards, draw complete deals consistent with one
seat's information with `belote_env.rules.sampling.sample_deal(deal, seat, rng)`.

### Version history

* v0: Initial version.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from .errors import EnvArgumentError
from .factored import (CALLS, FACTORED_NAMES, FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS, STAGE_FEATURES, WHAT, decide,
                       put_stage)
from .observation import OBS_SIZE, IncrementalEncoder, observation_high
from .rewards import REWARD_KINDS, scored_deal_reward
from .rules.actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .rules.errors import IllegalActionError
from .rules.game import GameState
from .rules.info import info_state
from .rules.scoring import REDEAL
from .rules.variant import Variant, short_repr
from .variants import load_variant

AGENTS = ("player_0", "player_1", "player_2", "player_3")
RENDER_MODES = ("human", "ansi")
ILLEGAL_REWARD = -1.0
DEFAULT_MAX_REDEALS = 100  # all-pass deals in a row before the episode is truncated (an always-pass policy)
MAX_REDEALS_BOUND = 2**31 - 1  # the largest max_redeals any env takes (the kernels and OpenSpiel count in ints)


def checked_max_redeals(value, error=EnvArgumentError, none_allowed: bool = True) -> int | None:
    """``max_redeals`` as an int 1..MAX_REDEALS_BOUND (or None: no limit, where allowed), or ``error`` naming it.
    The one reading of the argument for the AEC env, ``VectorEnv`` and the OpenSpiel game."""
    if value is None and none_allowed:
        return None
    n = action_id(value)  # an int or a numpy integer; not a bool or a float
    if n is None or not 1 <= n <= MAX_REDEALS_BOUND:
        also = " or None (no limit)" if none_allowed else ""
        raise error(f"max_redeals must be an int 1..{MAX_REDEALS_BOUND}{also}, got {short_repr(value)}")
    return n


class AgentInfo(dict):
    """One agent's ``infos`` entry: a plain ``dict`` whose ``"info_state"`` is built when first read.

    The env names the acting agent's position (:meth:`pending`) at every step instead of building its
    :class:`~belote_env.rules.InfoState`, which costs about a tenth of a step and which most training loops
    never read. Every way of reading the dict (``d["info_state"]``, ``get``, ``in``, iteration, ``len``,
    ``items``, ``copy``, ``==``, ``dict(d)``, ``{**d}``, pickling) builds it first, so it reads exactly as if
    it had been there all along; the env drops it (:meth:`drop`) when the agent's turn is over, as before.
    """

    __slots__ = ("_source",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._source = None

    def pending(self, game: GameState, seat: int) -> None:
        """``"info_state"`` is ``seat``'s InfoState in ``game`` as it stands now, built on first read. The env
        calls it on a dict without the entry (it drops the previous turn's first) and drops it before the game
        moves on."""
        self._source = (game, seat)

    def drop(self) -> None:
        """No ``"info_state"`` any more, built or not."""
        self._source = None
        dict.pop(self, "info_state", None)

    def _fill(self) -> None:
        game, seat = self._source
        self._source = None
        dict.__setitem__(self, "info_state", info_state(game, seat))

    def _reading(name):  # noqa: N805 - builds the methods below: fill, then what dict does
        method = getattr(dict, name)

        def reading(self, *args, **kwargs):
            if self._source is not None:
                self._fill()
            for other in args:
                if type(other) is AgentInfo and other._source is not None:
                    other._fill()
            return method(self, *args, **kwargs)

        reading.__name__ = name
        reading.__doc__ = method.__doc__
        return reading

    for _name in ("__getitem__", "get", "__contains__", "__iter__", "__len__", "__reversed__", "keys", "values",
                  "items", "copy", "__repr__", "__eq__", "__ne__", "__or__", "__ror__", "__ior__", "setdefault",
                  "pop", "popitem", "update", "__delitem__", "__setitem__"):
        locals()[_name] = _reading(_name)
    del _name, _reading

    def clear(self) -> None:
        self._source = None
        dict.clear(self)

    def __reduce__(self):
        return (AgentInfo, (), None, None, iter(self.items()))

    __hash__ = None


def env(variant: str | Variant = "coinche", **kwargs) -> AECEnv:
    """The Belote AEC environment with what PettingZoo's standard wrappers do (:class:`StandardWrapper`).

    Same arguments as :class:`raw_env`: an illegal action ends the episode with -1 to the offender (PettingZoo's
    ``TerminateIllegalWrapper``; the warning here also names the action and the legal set), an action outside
    ``Discrete(112)`` fails an assertion (``AssertOutOfBoundsWrapper``) and calls out of order raise
    (``OrderEnforcingWrapper``: step before reset...).
    """
    return StandardWrapper(raw_env(variant, **kwargs), illegal_reward=ILLEGAL_REWARD)


class StandardWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's three standard wrappers (``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``,
    ``OrderEnforcingWrapper``, outermost last) as one layer over :class:`raw_env`.

    It behaves as the three stacked: the same errors, warnings and rewards in the same order (out of order
    first, then out of bounds, then illegal). Three layers cost three Python calls and a ``__getattr__`` per
    wrapper for each attribute read on every step, more than the game itself; here an integer action goes
    straight to ``raw_env.step``, whose game refuses an illegal one before changing anything (the mask the
    three wrappers would read is the same: the state has not moved since the last observation). It is an
    ``OrderEnforcingWrapper`` (PettingZoo's agent iterator requires one); ``env.env`` is the ``raw_env``.
    """

    def __init__(self, env: AECEnv, illegal_reward: float):
        assert isinstance(env, AECEnv), "StandardWrapper is only compatible with AEC environments"
        self._has_reset = False
        self._has_updated = False
        wrappers.BaseWrapper.__init__(self, env)
        self._raw = env.unwrapped
        self._illegal_value = illegal_reward
        self._terminated = False  # the episode was ended by an illegal action

    def _get(name):  # noqa: N805 - builds the properties below
        def get(self):
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

        return property(get)

    agents = _get("agents")
    rewards = _get("rewards")
    terminations = _get("terminations")
    truncations = _get("truncations")
    infos = _get("infos")
    agent_selection = _get("agent_selection")
    del _get

    @property
    def _cumulative_rewards(self):
        return self._raw._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        self._raw.reset(seed=seed, options=options)

    def observe(self, agent: str):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self._raw
        agent = raw.agent_selection
        return (raw.observe(agent) if observe else None, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])

    def step(self, action) -> None:
        raw = self._raw
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        t = type(action)
        if (t is int or t is np.int64) and 0 <= action < raw.num_actions and not self._terminated:
            # An action id: straight to the game, which refuses an illegal one before changing anything (a dead
            # agent's step is raw_env's to take, as under the three wrappers).
            try:
                raw.step(action)
                return
            except IllegalActionError:
                pass
        self._checked_step(agent, action)

    def _checked_step(self, agent: str, action) -> None:
        """Every other case, as the three wrappers handle it."""
        raw = self._raw
        dead = raw.terminations[agent] or raw.truncations[agent]
        assert (action is None and dead) or raw.action_space(agent).contains(action), "action is not in action space"
        if dead:
            if self._terminated:
                raw._was_dead_step(action)
            else:
                raw.step(action)
            return
        a = action_id(action)
        names = raw.action_names
        if a is not None and 0 <= a < len(names) and raw.observe(agent)["action_mask"][a]:
            raw.step(a)
            return
        shown = f"{names[a]!r} (id {a})" if a is not None and 0 <= a < len(names) else short_repr(action)
        legal = ", ".join(f"{names[x]} ({x})" for x in raw.legal_actions())
        kind = "factored choice" if raw.factored else "action"
        warnings.warn(
            f"illegal {kind} {shown} by {agent} in phase {raw.game.deal.phase}; legal: {legal}. "
            f"The episode ends with {ILLEGAL_REWARD} to {agent}.",
            stacklevel=3,
        )
        # PettingZoo's handling of an illegal move (terminate, -1 to the offender), without its generic warning.
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the unwrapped env directly."""

    def __next__(self) -> str:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


class raw_env(AECEnv, EzPickle):
    """The Belote AEC environment without wrappers; see the module docstring.

    ``raw_env(variant="coinche", render_mode=None, reward="score_diff",
    render_view=None, **overrides)``. Attributes beyond PettingZoo's:
    ``game`` (the :class:`~belote_env.rules.GameState`), ``variant``
    (the :class:`~belote_env.rules.Variant`), ``reward_kind``.
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "belote_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str | Variant = "coinche",
        render_mode: str | None = None,
        reward: str = "score_diff",
        render_view: str | None = None,
        max_redeals: int | None = DEFAULT_MAX_REDEALS,
        calls: str = "flat",
        **overrides,
    ):
        EzPickle.__init__(self, variant, render_mode, reward, render_view, max_redeals, calls, **overrides)
        super().__init__()
        if reward not in REWARD_KINDS:
            raise EnvArgumentError(f"unknown reward {reward!r}; accepted: {', '.join(REWARD_KINDS)}")
        if calls not in CALLS:
            raise EnvArgumentError(f"unknown calls {short_repr(calls)}; accepted: {', '.join(CALLS)}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise EnvArgumentError(
                f"unknown render_mode {render_mode!r}; accepted: None, {', '.join(map(repr, RENDER_MODES))}"
            )
        if render_view is not None and render_view not in AGENTS:
            raise EnvArgumentError(
                f"unknown render_view {render_view!r}; accepted: None (all hands) or one of {', '.join(AGENTS)}"
            )
        self.variant: Variant = load_variant(variant, **overrides)
        self.reward_kind = reward
        self.render_mode = render_mode
        self.render_view = render_view
        self.max_redeals = checked_max_redeals(max_redeals)
        self._redeals = 0

        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._seat = {a: i for i, a in enumerate(AGENTS)}
        self.calls = calls
        self.factored = calls == "factored"
        self.num_actions = NUM_FACTORED_ACTIONS if self.factored else NUM_ACTIONS
        self.action_names = FACTORED_NAMES if self.factored else ACTION_NAMES
        self._stage, self._strain = WHAT, -1  # the acting seat's decision, with factored calls
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in AGENTS}
        high = observation_high()
        if self.factored:
            high = np.concatenate([high, np.ones(STAGE_FEATURES, dtype=np.float32)])
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=high, shape=high.shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }
        self._rng: random.Random | None = None
        self.game: GameState | None = None
        self._encoder: IncrementalEncoder | None = None
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: AgentInfo() for a in AGENTS}
        self.agent_selection = AGENTS[0]
        self._info_agent = None
        self._rewarded = False

    # --- PettingZoo API --------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode. ``seed`` seeds every random draw (deals); with
        no seed, episodes continue from the generator of the last seeded reset
        (or from fresh OS entropy if there never was one)."""
        if seed is not None or self._rng is None:
            # Same deals as GameState(variant, seed=seed); unseeded resets continue the stream.
            self._rng = random.Random(seed)
        self.game = GameState(self.variant, rng=self._rng)
        if self._encoder is None:
            self._encoder = IncrementalEncoder(self.game)
        else:
            self._encoder.reset(self.game)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: AgentInfo() for a in AGENTS}
        self._info_agent = None
        self._redeals = 0
        self._rewarded = False
        self._stage, self._strain = WHAT, -1
        self.agent_selection = AGENTS[self.game.deal.seat]
        self._give_info_state()
        if self.render_mode == "human":
            self.render()

    def _give_info_state(self) -> None:
        """The acting agent's InfoState in its infos (under "info_state"); the others' are dropped."""
        infos = self.infos
        prev = self._info_agent
        if prev is not None:
            infos[prev].drop()
        agent = self.agent_selection
        infos[agent].pending(self.game, self._seat[agent])
        self._info_agent = agent

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        if self.factored:
            return self._factored_observation(seat)
        return {
            "observation": self._encoder.observation(seat),
            "action_mask": self._encoder.action_mask(seat),
        }

    def _factored_observation(self, seat: int) -> dict:
        """The flat observation and the stage cells (belote_env.factored.put_stage; the seat to act at its
        decision, the others at the first), and the mask of the factored choices of the seat to act."""
        flat = self._encoder.action_mask(seat)
        acting = flat.any()
        stage, strain = (self._stage, self._strain) if acting else (WHAT, -1)
        obs = np.zeros(FACTORED_OBS_SIZE, dtype=np.float32)
        obs[:OBS_SIZE] = self._encoder.observation(seat)
        put_stage(obs, stage, strain)
        options = np.zeros(NUM_FACTORED_ACTIONS, dtype=bool)
        if acting:
            decide(flat.view(bool), stage, strain, -1, options)
        return {"observation": obs, "action_mask": options.view(np.int8)}

    def _factored_step(self, choice) -> int:
        """The flat action the acting seat's factored ``choice`` completes, or -1 while its call goes on (its
        decision advanced); an illegal choice raises IllegalActionError before anything changes."""
        game = self.game
        flat = self._encoder.action_mask(game.deal.seat).view(bool)
        options = np.zeros(NUM_FACTORED_ACTIONS, dtype=bool)
        c = action_id(choice)
        ok = c is not None and 0 <= c < NUM_FACTORED_ACTIONS
        stage, strain, action = decide(flat, self._stage, self._strain, c if ok else NUM_FACTORED_ACTIONS, options)
        if action == -2:
            decide(flat, self._stage, self._strain, -1, options)
            legal = np.flatnonzero(options).tolist()
            shown = f"{FACTORED_NAMES[c]!r} (id {c})" if ok else short_repr(choice)
            raise IllegalActionError(
                f"illegal factored choice {shown} by seat {game.deal.seat} in phase {game.deal.phase}; legal: "
                f"{', '.join(FACTORED_NAMES[x] for x in legal)}", c, game.deal.seat, game.deal.phase, legal)
        self._stage, self._strain = stage, strain
        return int(action)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int and isinstance(action, np.integer):
            action = int(action)
        game = self.game
        if self.factored:
            action = self._factored_step(action)
        # an illegal action raises here, before anything changes; a factored call under way waits
        result = game.apply(action) if action >= 0 else None
        if self._rewarded:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewarded = False
        self._cumulative_rewards[agent] = 0.0
        if action < 0:
            if self.render_mode == "human":
                self.render()
            return
        if result is not None:
            if result.outcome != REDEAL:
                self._redeals = 0
                self._deal_ended(result)
            else:
                self._redeals += 1
        truncated = self.max_redeals is not None and self._redeals >= self.max_redeals and not game.over
        if game.over or truncated:
            if truncated:  # everyone passed max_redeals deals in a row: the episode is cut, with no reward
                self.truncations = dict.fromkeys(self.agents, True)
                self.infos = {a: AgentInfo(self.infos[a], truncated_after_redeals=self._redeals) for a in self.agents}
            else:
                self.terminations = dict.fromkeys(self.agents, True)
            if self._info_agent is not None:
                self.infos[self._info_agent].drop()
                self._info_agent = None
        else:
            self.agent_selection = AGENTS[game.deal.seat]
            self._give_info_state()
        if self.render_mode == "human":
            self.render()

    def _deal_ended(self, result) -> None:
        game = self.game
        r = scored_deal_reward(self.reward_kind, self.variant, result, game.over, game.winner)
        if r is None:
            return
        rewards = self.rewards
        cum = self._cumulative_rewards
        for seat, a in enumerate(AGENTS):
            rewards[a] = r[seat & 1]
            cum[a] += r[seat & 1]
        self._rewarded = True

    def render(self) -> str | None:
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'", stacklevel=2)
            return None
        from .render import render_table

        viewer = None if self.render_view is None else self._seat[self.render_view]
        if self.game is None:
            text = "Belote: no deal yet (call reset() first)"
        else:
            text = render_table(self.game, viewer=viewer, names=AGENTS)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # --- helpers -----------------------------------------------------------

    def legal_action(self, action) -> bool:
        """Whether ``action`` is legal for the agent to act (False once the game is over)."""
        game = self.game
        if game is None or game.over:
            return False
        try:
            a = int(action)
        except (TypeError, ValueError):
            return False
        if self.factored:
            return 0 <= a < NUM_FACTORED_ACTIONS and bool(self.observe(self.agent_selection)["action_mask"][a])
        return 0 <= a < NUM_ACTIONS and bool(game.deal.legal_mask() >> a & 1)

    def legal_actions(self, agent: str | None = None) -> list[int]:
        """Legal action ids of ``agent`` (default: the agent to act; factored choices with ``calls="factored"``);
        [] when it is not its turn."""
        game = self.game
        seat = self._seat[agent or self.agent_selection]
        if game.over or game.deal.seat != seat:
            return []
        if self.factored:
            return np.flatnonzero(self.observe(AGENTS[seat])["action_mask"]).tolist()
        return list(game.deal.legal_actions())
