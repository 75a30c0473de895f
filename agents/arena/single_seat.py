"""One learning seat at many tables: a ``gymnasium.vector.VectorEnv`` on the batched engine.

:class:`SingleSeatVectorEnv` is :class:`belote_env.single_agent.SingleAgentEnv` for ``num_envs`` tables at once:
one seat learns and the three others are agents (the partner and the opponents, any spec ``agents.make_agent``
takes, an ``Agent`` or a callable ``fn(observation, action_mask)``). The tables are those of one
:class:`belote_env.vector.VectorEnv`, and the other seats play through the play loop's :class:`Runner`: inside the
engine for agents with a kernel copy (``heuristic``), in one batched call per step for the others (a network, a
``module:factory`` policy); when the heuristic holds every other seat, one kernel call plays them all
(``agents.heuristic.kernels.play_to_learner``). A table waits while its learner has not answered; the others play
on::

    import gymnasium, belote_env.single_agent
    envs = gymnasium.make_vec("belote_env/Coinche-v0", num_envs=256, partner="heuristic", opponents="heuristic")
    obs, infos = envs.reset(seed=0)                         # obs float32[256, 853]; infos["action_mask"] bool[256, 112]
    obs, rewards, terminated, truncated, infos = envs.step(actions)   # actions int[256], legal under the masks

- Sub-env ``i`` is ``SingleAgentEnv`` reset with seed ``seed + i`` (then plain resets): the same observations,
  masks, rewards (float64, summed over the other seats' moves), episode ends, for deterministic agents
  (``heuristic``, a network played by its most likely action), bit for bit
  (``tests/agents/arena/test_single_seat.py``). ``reset(seed=[s_0, ...])`` seeds each sub-env.
- Autoreset: Gymnasium's ``SAME_STEP`` mode (``metadata["autoreset_mode"]``). A sub-env whose episode ends in a
  step starts its next one in that step: its returned observation and mask are the new episode's first (the
  other seats' opening moves played), and ``infos["final_obs"]`` (with the mask ``infos["_final_obs"]``) holds the
  learner's observation at the end of the episode, ``infos["scores"]`` / ``["winner"]`` its result (masks
  ``"_scores"``, ``"_winner"``).
- An action outside a sub-env's mask raises ``VectorIllegalActionError`` naming the sub-env and the legal set, and
  nothing is applied (a learner sampling from its masked policy never meets it).
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
from gymnasium import spaces

from agents.loop import Runner
from agents.base import Agent
from agents.errors import AgentSpecError
from belote_env.aec import DEFAULT_MAX_REDEALS
from belote_env.errors import EnvArgumentError
from belote_env.observation import OBS_SIZE, observation_high
from belote_env.rules.actions import NUM_ACTIONS, action_id
from belote_env.rules.scoring import Outcome
from belote_env.rules.variant import short_repr
from belote_env.vector import MAX_TABLES, VectorEnv

_REDEAL = tuple(Outcome).index(Outcome.REDEAL)

try:
    from gymnasium.vector import AutoresetMode
except ImportError:  # pragma: no cover - gymnasium < 1.1
    raise ImportError(f"agents.arena.single_seat needs gymnasium >= 1.1 (AutoresetMode), found "
                      f"{gymnasium.__version__}") from None


def seat_agent(spec, role: str) -> Agent:
    """An agent for a seat: an ``Agent``, a callable ``fn(observation, action_mask)``, or a spec string."""
    from agents.policy import PolicyAgent
    from agents.registry import make_agent

    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, str):
        return make_agent(spec)
    if callable(spec):
        return PolicyAgent(spec, name=getattr(spec, "__name__", role))
    raise AgentSpecError(f"{role} must be an agent, a callable fn(observation, action_mask) -> action or an agent "
                         f"spec, got {type(spec).__name__} {short_repr(spec)}")


def _sub_env_seeds(seed, n: int) -> list[int] | None:
    """``reset``'s ``seed`` as one Python int per sub-env (None: no reseeding), or EnvArgumentError naming it."""
    if seed is None:
        return None
    wanted = f"seed must be a non-negative int, a sequence of {n} of them (or None) or None"
    if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
        first = action_id(seed)  # an int or a numpy integer; not a bool, a float or a string
        if first is None or first < 0:
            raise EnvArgumentError(f"{wanted}, got {type(seed).__name__} {short_repr(seed)}")
        return [first + i for i in range(n)]
    if isinstance(seed, np.ndarray) and seed.ndim != 1:
        raise EnvArgumentError(f"{wanted}, got an array of shape {seed.shape}")
    if len(seed) != n:
        raise EnvArgumentError(f"{wanted}, got {len(seed)} seeds for {n} sub-envs")
    seeds = []
    for i, x in enumerate(seed):
        s = random.SystemRandom().getrandbits(63) if x is None else action_id(x)
        if s is None or s < 0:
            raise EnvArgumentError(f"{wanted}: seed[{i}] is {type(x).__name__} {short_repr(x)}")
        seeds.append(s)
    return seeds


def _episode_ends(n: int) -> dict:
    """Where a step records the episodes that end at its tables (rows read only where one ended)."""
    return {"final_obs": np.empty((n, OBS_SIZE), dtype=np.float32), "truncated": np.zeros(n, dtype=bool),
            "scores": np.full((n, 2), -1, dtype=np.int64), "winner": np.full(n, -1, dtype=np.int64)}


def _fused_heuristic(partner: Agent, opponents: Agent):
    """The kernel that plays the other seats inside the engine when they are all the plain heuristic, or None."""
    from agents.heuristic.agent import HeuristicAgent, kernels

    if type(partner) is HeuristicAgent and type(opponents) is HeuristicAgent:
        k = kernels()
        scratch = k.play_scratch(OBS_SIZE)
        return lambda *args: k.play_to_learner(*args, *scratch)
    return None


class SingleSeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables, one learning seat each; see the module docstring.

    ``SingleSeatVectorEnv(num_envs=256, variant="coinche", seat=0, partner="heuristic", opponents="heuristic",
    reward="score_diff", max_redeals=100, **overrides)``: the arguments of ``SingleAgentEnv`` (``seat`` 0..3; the
    same for every sub-env), ``overrides`` rule switches (``episode="game"``...).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 256, variant="coinche", seat=0, partner="heuristic", opponents="heuristic",
                 reward: str = "score_diff", max_redeals: int | None = DEFAULT_MAX_REDEALS, **overrides):
        given = seat
        seat = action_id(seat)
        if seat is None or not 0 <= seat <= 3:
            raise EnvArgumentError(f"seat must be 0..3, got {short_repr(given)}")
        if action_id(num_envs) is None or not 1 <= num_envs <= MAX_TABLES:
            raise EnvArgumentError(f"num_envs must be a positive int (at most {MAX_TABLES:,}: about 12 KB of memory "
                                   f"each), got {short_repr(num_envs)}")
        # Unseeded, the tables draw their seeds from the OS (as gymnasium.make's env does): workers that never
        # seed collect different deals.
        self._venv = VectorEnv(variant, int(num_envs), seed=None, reward=reward, max_redeals=max_redeals,
                               **overrides)
        self.num_envs = n = self._venv.num_tables
        self.variant = self._venv.variant
        self.seat = seat
        self.partner = seat_agent(partner, "partner")
        self.opponents = seat_agent(opponents, "opponents")
        seating = np.ones((n, 4), dtype=np.int64)
        seating[:, seat] = -1
        seating[:, seat ^ 2] = 0
        self._runner = Runner(self._venv, [self.partner, self.opponents], seating)
        self._fused = _fused_heuristic(self.partner, self.opponents)
        self._learner = np.full(n, seat, dtype=np.int64)
        self._sign = 1.0 if seat % 2 == 0 else -1.0
        self._win = reward == "win"
        self._scale = self._venv._scale
        self.single_observation_space = spaces.Box(0.0, observation_high(), shape=(OBS_SIZE,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
        self._seat = np.zeros(n, dtype=np.int8)
        self._ready = False

    # --- the gymnasium API ---------------------------------------------------------------------------------------

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start an episode at every sub-env: ``seed`` an int (sub-env ``i`` gets ``seed + i``), a sequence or
        array of one seed per sub-env (an entry None: a seed drawn from the OS for that sub-env), or None (each
        continues its generator). A refused seed changes nothing. Returns ``obs, infos``."""
        n = self.num_envs
        seeds = _sub_env_seeds(seed, n)  # python ints, checked before anything changes
        if seeds is None:
            obs, mask, seat = self._venv.reset()
        else:
            obs, mask, seat = self._venv.reset(table_seeds=seeds)
            for k, agent in enumerate((self.partner, self.opponents)):
                agent.reset(seeds[0] * 3 + k + 1)
        self._obs, self._mask, self._seat = obs, mask, seat
        self._ready = True
        self._others_play(np.zeros(n, dtype=bool), np.zeros(n), {})
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, actions):
        """One action per sub-env, legal under its mask. Returns ``obs, rewards, terminated, truncated, infos``."""
        if not self._ready:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        n = self.num_envs
        if self._fused is not None:
            return self._step_fused(actions)
        every = np.arange(n)
        obs, mask, seat, rew, done, info, final = self._venv.step_tables(every, actions, self._learner)
        rewards = self._learner_rewards(rew, info)
        ended = done.copy()
        extra = _episode_ends(n)
        self._record_ends(every, done, info, final, extra)
        self._obs, self._mask, self._seat = obs, mask, seat  # fresh arrays: the other seats' play fills them in
        self._others_play(ended, rewards, extra)
        return self._outcome(ended, rewards, extra)

    def _step_fused(self, actions):
        """:meth:`step` when the heuristic holds every other seat: the learner's actions and the other seats' play
        in one kernel call (``agents.heuristic.kernels.play_to_learner``)."""
        n = self.num_envs
        learner_actions = self._venv.checked_actions(actions).copy()  # the kernel marks the ones applied
        rewards, ended = np.zeros(n), np.zeros(n, dtype=bool)
        extra = _episode_ends(n)
        self._obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        self._mask = np.empty((n, NUM_ACTIONS), dtype=np.bool_)
        self._seat = np.empty(n, dtype=np.int8)
        self._run_fused(np.arange(n), learner_actions, rewards, ended, extra)
        return self._outcome(ended, rewards, extra)

    def _outcome(self, ended: np.ndarray, rewards: np.ndarray, extra: dict):
        n = self.num_envs
        truncated = extra["truncated"]
        infos = {"action_mask": self._mask.copy()}
        if ended.any():
            infos["final_obs"] = final = np.full(n, None, dtype=object)
            for i in np.flatnonzero(ended):
                final[i] = extra["final_obs"][i]
            infos["_final_obs"] = ended.copy()
            infos["scores"], infos["_scores"] = extra["scores"], ended.copy()
            infos["winner"], infos["_winner"] = extra["winner"], ended.copy()
        return self._obs, rewards, ended & ~truncated, truncated, infos  # self._obs: a new array at every step

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, 112]: each sub-env's legal actions (as sb3-contrib's MaskablePPO asks for them)."""
        return self._mask.copy()

    def close_extras(self, **kwargs) -> None:
        pass

    # --- internals --------------------------------------------------------------------------------------------

    def _others_play(self, ended: np.ndarray, rewards: np.ndarray, extra: dict) -> None:
        """The other seats act, every table where the learner is not to act, until it is to act everywhere.
        Rewards (and episode ends) count at a table until its episode ended in this step."""
        if self._fused is not None:
            return self._play_fused(ended, rewards, extra)
        venv, learner = self._venv, self.seat
        actions = np.zeros(self.num_envs, dtype=np.int64)
        while True:
            waiting = np.flatnonzero(self._seat != learner)
            if not len(waiting):
                return
            self._runner.actions(self._obs, self._mask, self._seat, out=actions, active=self._seat != learner)
            obs, mask, seat, rew, done, info, final = venv.step_tables(waiting, actions[waiting],
                                                                       self._learner[waiting])
            live = ~ended[waiting]
            if extra:
                r = self._learner_rewards(rew, info)
                rewards[waiting[live]] += r[live]
                now = done & live
                if now.any():
                    self._record_ends(waiting, now, info, final, extra)
                    ended[waiting[now]] = True
            self._obs[waiting], self._mask[waiting], self._seat[waiting] = obs, mask, seat

    def _play_fused(self, ended: np.ndarray, rewards: np.ndarray, extra: dict) -> None:
        """:meth:`_others_play` when the heuristic sits at every other seat: one kernel call plays them all inside
        the engine (``agents.heuristic.kernels.play_to_learner``), with the same results, decision for decision."""
        waiting = np.flatnonzero(self._seat != self.seat)
        if not len(waiting):
            return
        n = self.num_envs
        if not extra:  # reset: the opening moves' rewards and ends count for nothing
            rewards, ended = np.zeros(n), np.zeros(n, dtype=bool)
            extra = _episode_ends(n)
        self._run_fused(waiting, np.full(n, -1, dtype=np.int64), rewards, ended, extra)

    def _run_fused(self, tables, learner_actions, rewards, ended, extra) -> None:
        done = 0
        while done < len(tables):
            self._venv.reserve_log(16)
            done = self._fused(*self._venv.engine_arrays(), tables, done, self.seat, self._win, learner_actions,
                               rewards, ended, extra["final_obs"], extra["scores"], extra["winner"],
                               extra["truncated"], self._obs, self._mask, self._seat)

    def _learner_rewards(self, rew: np.ndarray, info: dict) -> np.ndarray:
        """The learner's reward at each table of a step, in float64 as the AEC env computes it."""
        if self._win:
            return rew[:, self.seat].astype(np.float64)
        scored = (info["outcome"] >= 0) & (info["outcome"] != _REDEAL)
        diff = (info["deal_scores"][:, 0] - info["deal_scores"][:, 1]) / self._scale
        return np.where(scored, diff if self._sign > 0 else -diff, 0.0)

    def _record_ends(self, tables, ends, info, final, extra) -> None:
        where = tables[ends]
        extra["final_obs"][where] = final[ends]
        extra["truncated"][where] = info["truncated"][ends] == 1
        extra["scores"][where] = info["scores"][ends]
        extra["winner"][where] = info["winner"][ends]


def sb3_vec_env(envs):
    """Stable-Baselines3's ``VecEnv`` over a :class:`SingleSeatVectorEnv` (or what ``gymnasium.make_vec`` built
    around one), for ``sb3_contrib.MaskablePPO`` and the other SB3 algorithms: ``reset()`` returns the
    observations, ``step_wait()`` ``obs, rewards, dones, infos`` with SB3's ``terminal_observation`` and
    ``TimeLimit.truncated`` at the episodes that ended, ``env_method("action_masks")`` the masks. Seeds from
    ``vec.seed(s)`` go to the next reset (sub-env ``i``: ``s + i``). Needs stable-baselines3 (the ``sb3`` extra)."""
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv

    inner = getattr(envs, "unwrapped", envs)
    if not isinstance(inner, SingleSeatVectorEnv):
        raise EnvArgumentError(f"sb3_vec_env wraps a SingleSeatVectorEnv, got {type(inner).__name__}")

    class SingleSeatSB3VecEnv(VecEnv):
        def __init__(self):
            super().__init__(inner.num_envs, inner.single_observation_space, inner.single_action_space)
            self.envs = inner
            self._actions = None

        def reset(self):
            seeds = getattr(self, "_seeds", None)
            seeded = seeds is not None and any(x is not None for x in seeds)
            obs, _ = inner.reset(seed=list(seeds) if seeded else None)  # an entry None: drawn from the OS
            if hasattr(self, "_reset_seeds"):
                self._reset_seeds()
            self.reset_infos = [{} for _ in range(self.num_envs)]
            return obs

        def step_async(self, actions) -> None:
            self._actions = actions

        def step_wait(self):
            obs, rewards, terminated, truncated, infos = inner.step(self._actions)
            dones = terminated | truncated
            out = [{} for _ in range(self.num_envs)]
            for i in np.flatnonzero(dones):
                out[i]["terminal_observation"] = infos["final_obs"][i]
                out[i]["TimeLimit.truncated"] = bool(truncated[i])
            return obs, rewards.astype(np.float32), dones, out

        def close(self) -> None:
            inner.close()

        def get_attr(self, attr_name, indices=None):
            return [getattr(inner, attr_name) for _ in self._get_indices(indices)]

        def set_attr(self, attr_name, value, indices=None) -> None:
            setattr(inner, attr_name, value)

        def env_method(self, method_name, *args, indices=None, **kwargs):
            rows = list(self._get_indices(indices))
            if method_name == "action_masks":
                masks = inner.action_masks()
                return [masks[i] for i in rows]
            return [getattr(inner, method_name)(*args, **kwargs) for _ in rows]

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False for _ in self._get_indices(indices)]

    return SingleSeatSB3VecEnv()


__all__ = ["SingleSeatVectorEnv", "sb3_vec_env", "seat_agent"]
