"""Single-agent views of the game for libraries that train one policy (Gymnasium, Stable-Baselines3).

:class:`SingleAgentEnv` is a ``gymnasium.Env`` in which one seat learns and
the three others are played by agents (``agents.Agent`` objects, callables
``fn(observation, action_mask) -> action``, or spec strings: registry names,
checkpoint paths; the partner and the opponents separately, :func:`seat_player`)::

    import gymnasium, belote_env.single_agent
    env = gymnasium.make("belote_env/Coinche-v0", partner="heuristic", opponents="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))

- observation: ``Box(853)`` float32, the learner's ``observation.encode``;
- action: ``Discrete(112)``; :meth:`SingleAgentEnv.action_masks` returns the
  legal actions as sb3-contrib's ``MaskablePPO`` expects, and ``info`` holds
  the same mask (``"action_mask"``) and the learner's ``InfoState``;
- reward: the learner's AEC reward, summed over everything that happened
  since its previous decision (the other seats' moves included);
- ``terminated`` at the end of the episode (``episode="deal"`` or
  ``"game"``), ``truncated`` after ``max_redeals`` all-pass deals in a row.

The ids ``belote_env/<Variant>-v0`` (``Coinche-v0``, ``BeloteClassique-v0``,
``Contree-v0``, ``Cobrecaf81-v0``... one per shipped variant file) are
registered with Gymnasium when this module is imported.
"""

from __future__ import annotations

import os
import random

import gymnasium
import numpy as np
from gymnasium import spaces

from .aec import DEFAULT_MAX_REDEALS, ILLEGAL_REWARD, raw_env
from .errors import EnvArgumentError
from .observation import OBS_SIZE, observation_high
from .rules.actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .rules.errors import IllegalActionError
from .rules.variant import short_repr
from .variants import variant_names

AGENT_NAMES = ("player_0", "player_1", "player_2", "player_3")


AGENT_RESOLVERS = "belote_env.agents"  # entry-point group: a callable spec -> agent (the agents package's make_agent)


class _CallablePlayer:
    """A callable ``fn(observation, action_mask) -> action`` in a seat."""

    needs_observation, needs_info = True, False

    def __init__(self, fn):
        self.fn = fn

    def act(self, observation, action_mask, info=None):
        return self.fn(observation, action_mask)  # read by SingleAgentEnv with action_id, as any player's answer

    def __repr__(self) -> str:
        return f"<callable {getattr(self.fn, '__qualname__', type(self.fn).__name__)}>"


def seat_player(spec, role: str = "agent"):
    """The player of a seat from ``spec``: an object with ``act(observation, action_mask, info)`` (an
    ``agents.Agent``: its ``needs_observation`` / ``needs_info`` and ``reset(seed)`` are honoured), a callable
    ``fn(observation, action_mask) -> action``, or a spec string (``"heuristic"``, a checkpoint path...)
    resolved by the resolver installed under the entry-point group :data:`AGENT_RESOLVERS` (the ``agents``
    package of this project registers ``agents.make_agent`` there); ``belote_env`` itself imports no agent."""
    if hasattr(spec, "act"):
        return spec
    if callable(spec):
        return _CallablePlayer(spec)
    if isinstance(spec, (str, os.PathLike)):
        from importlib.metadata import entry_points

        resolvers = entry_points(group=AGENT_RESOLVERS)
        if not resolvers:
            raise EnvArgumentError(
                f"{role}={spec!r}: a spec string needs an agent resolver installed under the entry-point group "
                f"{AGENT_RESOLVERS!r} (pip install -e . installs the agents package's); "
                "or pass an agent object or a callable fn(observation, action_mask) -> action")
        return sorted(resolvers, key=lambda e: e.name)[0].load()(spec)
    raise EnvArgumentError(f"{role} must be an agent (with act()), a callable fn(observation, action_mask) -> action "
                           f"or a spec string, got {type(spec).__name__} {spec!r}")


class SingleAgentEnv(gymnasium.Env):
    """One learning seat; the other seats played by agents. See the module docstring.

    ``SingleAgentEnv(variant="coinche", seat=0, partner="heuristic", opponents="heuristic",
    reward="score_diff", max_redeals=100, render_mode=None, illegal="terminate", **overrides)``: ``seat`` is the
    learner's seat 0..3 (or ``"random"``: drawn at every reset); ``partner`` and ``opponents``
    are ``Agent`` objects, callables ``fn(observation, action_mask)`` or agent specs (``"random"``,
    ``"heuristic"``, a checkpoint path; :func:`seat_player`);
    ``overrides`` are rule switches (``episode="game"``, ``rules="officielles"``...). An illegal
    action ends the episode with -1 to the learner and ``info["illegal_action"]`` naming it and the
    legal set (``illegal="terminate"``, as PettingZoo's TerminateIllegalWrapper), or raises
    ``IllegalActionError`` (``illegal="raise"``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, variant="coinche", seat=0, partner="heuristic", opponents="heuristic",
                 reward: str = "score_diff", max_redeals: int | None = DEFAULT_MAX_REDEALS,
                 render_mode: str | None = None, illegal: str = "terminate", **overrides):
        given_seat = seat
        if illegal not in ("terminate", "raise"):
            raise EnvArgumentError(f"illegal must be 'terminate' or 'raise', got {illegal!r}")
        self.illegal = illegal
        self._ended = False

        if seat != "random":
            seat = action_id(seat)  # an int or a numpy integer; not a bool or a float
            if seat is None or not 0 <= seat <= 3:
                raise EnvArgumentError(f"seat must be 0..3 or 'random', got {short_repr(given_seat)}")
        if render_mode not in (None, "ansi"):
            raise EnvArgumentError(f"unknown render_mode {render_mode!r}; accepted: None, 'ansi'")
        self.aec = raw_env(variant, reward=reward, max_redeals=max_redeals,
                           render_mode="ansi" if render_mode else None, **overrides)
        self.variant = self.aec.variant
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else seat
        self.partner = seat_player(partner, "partner")
        self.opponents = seat_player(opponents, "opponents")
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, observation_high(), shape=(OBS_SIZE,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
        self._seat_rng = random.Random()

    # --- gymnasium API ----------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._seat_rng.seed(seed)
            for k, agent in enumerate((self.partner, self.opponents)):
                if hasattr(agent, "reset"):
                    agent.reset(seed * 3 + k + 1)
        if self.seat_choice == "random":
            self.seat = self._seat_rng.randrange(4)
        self.aec.reset(seed=seed)
        self._ended = False
        reward, done, truncated = self._others_play()
        return self._observe(), self._info(truncated)

    def step(self, action):
        aec = self.aec
        if aec.game is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        agent = AGENT_NAMES[self.seat]
        if aec.agent_selection != agent or not aec.agents or aec.terminations[agent] or aec.truncations[agent]:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset()")
        if self._ended:
            raise gymnasium.error.ResetNeeded("the episode ended on an illegal action: call reset()")
        a = action_id(action)
        if not (a is not None and 0 <= a < NUM_ACTIONS and self._mask[a]):
            legal = np.flatnonzero(self._mask).tolist()
            message = (f"illegal action {action!r} for the learner (seat {self.seat}) in phase "
                       f"{aec.game.deal.phase}; legal: {', '.join(ACTION_NAMES[x] for x in legal)}")
            if self.illegal == "raise":
                raise IllegalActionError(message, action, self.seat, aec.game.deal.phase, legal)
            self._ended = True  # as PettingZoo's TerminateIllegalWrapper: the episode ends, -1 to the offender
            info = self._info(False)
            info["illegal_action"] = message
            return self._observe(), ILLEGAL_REWARD, True, False, info
        aec.step(a)
        reward = aec.rewards[agent]
        more, done, truncated = self._others_play()
        return self._observe(), float(reward + more), done and not truncated, truncated, self._info(truncated)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool[112]), as sb3-contrib's MaskablePPO asks for them."""
        return self._mask.copy()

    def render(self):
        return self.aec.render() if self.render_mode == "ansi" else None

    # --- internals ----------------------------------------------------------

    def _others_play(self) -> tuple[float, bool, bool]:
        """Let the other seats act until the learner is to act or the episode ends; returns the learner's
        reward over those moves, whether the episode ended, and whether it was truncated."""
        aec = self.aec
        me = AGENT_NAMES[self.seat]
        reward = 0.0
        while True:
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                truncated = aec.truncations[me]
                self._mask[:] = False
                return reward, True, truncated
            if agent == me:
                self._mask[:] = aec.observe(agent)["action_mask"].astype(bool)
                return reward, False, False
            seat = AGENT_NAMES.index(agent)
            player = self.partner if (seat ^ self.seat) == 2 else self.opponents
            obs = aec.observe(agent) if getattr(player, "needs_observation", True) else None
            info = aec.infos[agent].get("info_state") if getattr(player, "needs_info", True) else None
            mask = obs["action_mask"] if obs is not None else aec._encoder.action_mask(seat)
            given = player.act(obs["observation"] if obs is not None else None, mask, info)
            a = action_id(given)
            if a is None or not 0 <= a < NUM_ACTIONS or not mask[a]:
                legal = np.flatnonzero(mask).tolist()
                what = "partner" if (seat ^ self.seat) == 2 else "opponents"
                raise IllegalActionError(
                    f"the {what} agent {player!r} at seat {seat} returned {type(given).__name__} {short_repr(given)}, "
                    f"{'not an action id (an int)' if a is None else 'which is not legal there'}; legal: "
                    f"{', '.join(ACTION_NAMES[x] for x in legal)}. Nothing was applied.",
                    given, seat, aec.game.deal.phase, legal)
            aec.step(a)
            reward += aec.rewards[me]

    def _observe(self) -> np.ndarray:
        return self.aec.observe(AGENT_NAMES[self.seat])["observation"]

    def _info(self, truncated: bool) -> dict:
        info = {"action_mask": self._mask.copy(), "seat": self.seat}
        state = self.aec.infos.get(AGENT_NAMES[self.seat], {}).get("info_state")
        if state is not None:
            info["info_state"] = state
        game = self.aec.game
        if game.over or truncated:
            info["scores"] = tuple(game.scores)
            info["winner"] = game.winner
        return info


def _env_id(name: str) -> str:
    return "belote_env/" + "".join(part.capitalize() for part in name.split("_")) + "-v0"


ENV_IDS = {name: _env_id(name) for name in variant_names()}
# gymnasium.make_vec(id, num_envs) builds the batched twin (agents.arena.single_seat, loaded only then: belote_env
# imports nothing from agents) where this gymnasium knows vector entry points and autoreset modes (>= 1.1).
VECTOR_ENTRY_POINT = "agents.arena.single_seat:SingleSeatVectorEnv"
_VECTOR = {"vector_entry_point": VECTOR_ENTRY_POINT} if hasattr(gymnasium.vector, "AutoresetMode") else {}
for _name, _id in ENV_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(_id, entry_point="belote_env.single_agent:SingleAgentEnv", kwargs={"variant": _name},
                           **_VECTOR)

__all__ = ["SingleAgentEnv", "ENV_IDS", "seat_player", "AGENT_RESOLVERS"]
