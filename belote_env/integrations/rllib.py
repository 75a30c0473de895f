"""RLlib (new API stack): the Belote AEC env as a ``MultiAgentEnv`` with action masking.

::

    from ray.rllib.algorithms.ppo import PPOConfig
    from belote_env.integrations import rllib as belote_rllib

    config = belote_rllib.ppo_config(PPOConfig(), variant="coinche", policies="team")
    algo = config.build_algo()
    algo.train()

- :class:`BeloteMultiAgentEnv` (registered with Tune as ``"belote"`` by
  :func:`register_env`; :func:`env_creator` is its creator): each agent's
  observation is ``{"observations": float32[853], "action_mask": float32[112]}``,
  the keys RLlib's action-masking RLModule
  (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) reads. Only
  the agent to act receives an observation; its reward is everything it
  received since its previous decision (PettingZoo's cumulative reward), so a
  deal's reward reaches all four seats in the last step. ``env_config`` holds
  the arguments of :func:`belote_env.env` (``variant``, ``reward``,
  ``max_redeals``, rule switches).
- :func:`policy_mapping_fn` / :func:`policy_ids`: ``policies="shared"`` (one
  module ``"shared"`` for the four seats, self-play) or ``"team"`` (modules
  ``"team_0"`` for player_0 / player_2 and ``"team_1"`` for player_1 / player_3).
- :func:`ppo_config`: fills an ``AlgorithmConfig`` with the env, the policy
  mapping and one masked PPO RLModule per policy id.

A trained algorithm, RLModule or checkpoint plays in tables and tournaments
through :func:`agents.policy.rllib_agent`.
"""

from __future__ import annotations

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"belote_env.integrations.rllib needs RLlib: pip install 'belote_env[rllib]' ({e})") from None

import numpy as np
from gymnasium import spaces

from ..aec import AGENTS
from ..aec import env as make_aec_env
from ..observation import OBS_SIZE, observation_high
from ..rules.actions import NUM_ACTIONS

ENV_NAME = "belote"
POLICY_MODES = ("shared", "team")
OBS_KEY = "observations"
MASK_KEY = "action_mask"


def observation_space() -> spaces.Dict:
    """One agent's observation space: the 853-vector under ``"observations"``, the mask under ``"action_mask"``."""
    return spaces.Dict({
        OBS_KEY: spaces.Box(0.0, observation_high(), shape=(OBS_SIZE,), dtype=np.float32),
        MASK_KEY: spaces.Box(0.0, 1.0, shape=(NUM_ACTIONS,), dtype=np.float32),
    })


class BeloteMultiAgentEnv(MultiAgentEnv):
    """The AEC env (:func:`belote_env.env`, so illegal actions end the episode with -1) for RLlib.

    ``config``: the keyword arguments of :func:`belote_env.env` (RLlib's ``env_config``).
    """

    def __init__(self, config: dict | None = None):
        super().__init__()
        self.aec = make_aec_env(**dict(config or {}))
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        space = observation_space()
        self.observation_spaces = {a: space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)

    def _obs(self, agent: str) -> dict:
        o = self.aec.observe(agent)
        return {OBS_KEY: o["observation"], MASK_KEY: o["action_mask"].astype(np.float32)}

    @staticmethod
    def _info(info: dict) -> dict:
        # The InfoState is for rule-based agents; RLlib would only copy it around. dict.items reads the entries
        # as they stand, so an AgentInfo does not build the InfoState it is about to leave out.
        return {k: v for k, v in dict.items(info) if k != "info_state"}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        agent = self.aec.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(self, action_dict: dict):
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"it is {agent}'s turn, but the actions given are for {sorted(action_dict)}")
        aec.step(int(action_dict[agent]))
        obs, rewards, terminateds, truncateds, infos = {}, {}, {}, {}, {}
        while aec.agents:
            agent = aec.agent_selection
            _, reward, terminated, truncated, info = aec.last(observe=False)
            obs[agent] = self._obs(agent)
            rewards[agent] = float(reward)
            terminateds[agent] = bool(terminated)
            truncateds[agent] = bool(truncated)
            infos[agent] = self._info(info)
            if not (terminated or truncated):
                break
            aec.step(None)  # PettingZoo's dead step: the next finished agent is selected
        over = not aec.agents
        terminateds["__all__"] = over and not any(truncateds.values())
        truncateds["__all__"] = over and any(truncateds.values())
        return obs, rewards, terminateds, truncateds, infos

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


def env_creator(config: dict | None = None) -> BeloteMultiAgentEnv:
    """RLlib / Tune env creator: ``BeloteMultiAgentEnv(config)``."""
    return BeloteMultiAgentEnv(config)


def register_env(name: str = ENV_NAME) -> str:
    """Register :func:`env_creator` with Tune under ``name`` (for ``config.environment(name)``); returns the name."""
    from ray.tune.registry import register_env as tune_register_env

    tune_register_env(name, env_creator)
    return name


def _check_mode(policies: str) -> None:
    if policies not in POLICY_MODES:
        raise ValueError(f"policies must be one of {', '.join(map(repr, POLICY_MODES))}, got {policies!r}")


def policy_ids(policies: str = "shared") -> list[str]:
    """The module ids for ``policies="shared"`` (``["shared"]``) or ``"team"`` (``["team_0", "team_1"]``)."""
    _check_mode(policies)
    return ["shared"] if policies == "shared" else ["team_0", "team_1"]


def policy_for(agent_id: str, policies: str = "shared") -> str:
    """The module id playing ``agent_id`` (``player_0`` .. ``player_3``)."""
    _check_mode(policies)
    if agent_id not in AGENTS:
        raise ValueError(f"unknown agent {agent_id!r}; agents are {', '.join(AGENTS)}")
    return "shared" if policies == "shared" else f"team_{AGENTS.index(agent_id) % 2}"


def policy_mapping_fn(policies: str = "shared"):
    """An RLlib ``policy_mapping_fn(agent_id, episode, **kwargs)`` for one shared module or one per team."""
    _check_mode(policies)

    def mapping(agent_id, episode=None, **kwargs):
        return policy_for(agent_id, policies)

    return mapping


def masked_module_spec(model_config: dict | None = None):
    """An ``RLModuleSpec`` for RLlib's action-masking PPO module (torch)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    try:
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    except ImportError as e:  # pragma: no cover - depends on the RLlib version
        raise ImportError(f"this RLlib has no ActionMaskingTorchRLModule in its examples ({e}); "
                          "pass your own masking module to ppo_config(module_spec=...)") from None
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config=dict(model_config or {"fcnet_hiddens": [256, 256], "head_fcnet_hiddens": []}))


def ppo_config(config, variant: str = "coinche", policies: str = "shared", env_config: dict | None = None,
               model_config: dict | None = None, module_spec=None):
    """``config`` (an RLlib ``AlgorithmConfig``, e.g. ``PPOConfig()``) set up for Belote: the env
    (``env_config`` plus ``variant``), the multi-agent policy mapping (``"shared"`` or ``"team"``, all
    trained) and one masked module per policy id (``module_spec``, default :func:`masked_module_spec`)."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    ids = policy_ids(policies)
    spec = module_spec if module_spec is not None else masked_module_spec(model_config)
    return (
        config.environment(register_env(), env_config={"variant": variant, **dict(env_config or {})})
        .multi_agent(policies=set(ids), policy_mapping_fn=policy_mapping_fn(policies), policies_to_train=ids)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={pid: spec for pid in ids}))
    )


__all__ = ["BeloteMultiAgentEnv", "ENV_NAME", "POLICY_MODES", "env_creator", "register_env", "policy_ids",
           "policy_for", "policy_mapping_fn", "masked_module_spec", "ppo_config", "observation_space"]
