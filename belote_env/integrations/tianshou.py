"""Tianshou: the single-agent env with Tianshou's masked observation dict, and a masked actor and critic.

::

    from belote_env.integrations import tianshou as belote_ts
    env = belote_ts.make_env("coinche", partner="heuristic", opponents="random")
    actor, critic = belote_ts.MaskedActor(), belote_ts.Critic()

- :func:`make_env`: :class:`belote_env.single_agent.SingleAgentEnv` (one learning
  seat, the others played by agents) whose observation is
  ``{"obs": float32[853], "mask": bool[112]}``, the keys of Tianshou's own
  ``PettingZooEnv`` (which also works on :func:`belote_env.env` as is, for
  several learning seats). The mask travels with the observation, so it is in
  the replay buffer beside the observation it belongs to (``info`` would hold
  the mask of the next one).
- :class:`MaskedActor`: an MLP giving logits with the illegal actions at
  -inf (a row whose mask is all zero, a terminal observation, is left
  unmasked); use it with ``DiscreteActorPolicy`` (the default categorical
  ``dist_fn`` takes logits). :class:`Critic`: an MLP value on ``obs.obs``.

The trained policy plays in tables and tournaments through
:func:`agents.policy.tianshou_agent`.
"""

from __future__ import annotations

try:
    import tianshou  # noqa: F401
    from tianshou.utils.net.common import AbstractDiscreteActor
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"belote_env.integrations.tianshou needs Tianshou: "
                      f"pip install 'belote_env[tianshou]' ({e})") from None

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from torch import nn

from ..observation import OBS_SIZE
from ..rules.actions import NUM_ACTIONS
from ..single_agent import SingleAgentEnv


class MaskedObservation(gymnasium.ObservationWrapper):
    """``SingleAgentEnv``'s observation as ``{"obs": float32[853], "mask": bool[112]}``; its ``info`` without
    the ``InfoState``, the mask (in the observation now) and ``None`` values, which Tianshou's buffer would
    store as objects and report as missing data."""

    def __init__(self, env: SingleAgentEnv):
        super().__init__(env)
        self.observation_space = spaces.Dict({
            "obs": env.observation_space,
            "mask": spaces.MultiBinary(NUM_ACTIONS),
        })

    def observation(self, observation):
        return {"obs": observation, "mask": self.env.unwrapped.action_masks()}

    @staticmethod
    def _info(info: dict) -> dict:
        return {k: v for k, v in info.items() if k not in ("info_state", "action_mask") and v is not None}

    def reset(self, **kwargs):
        observation, info = super().reset(**kwargs)
        return observation, self._info(info)

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        return observation, reward, terminated, truncated, self._info(info)


def make_env(variant: str = "coinche", **kwargs) -> MaskedObservation:
    """``SingleAgentEnv(variant, **kwargs)`` with Tianshou's masked observation dict."""
    return MaskedObservation(SingleAgentEnv(variant, **kwargs))


def _mlp(sizes: tuple[int, ...], out: int) -> nn.Sequential:
    layers, last = [], OBS_SIZE
    for size in sizes:
        layers += [nn.Linear(last, size), nn.ReLU()]
        last = size
    return nn.Sequential(*layers, nn.Linear(last, out))


def _split(obs) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(observations, mask or None) as tensors from a Tianshou ``obs`` (a Batch with obs / mask, or an array)."""
    if hasattr(obs, "obs"):
        x, mask = obs.obs, getattr(obs, "mask", None)
    else:
        x, mask = obs, None
    x = torch.as_tensor(np.asarray(x) if not torch.is_tensor(x) else x, dtype=torch.float32)
    if mask is not None:
        mask = torch.as_tensor(np.asarray(mask) if not torch.is_tensor(mask) else mask).bool()
    return x, mask


class MaskedActor(AbstractDiscreteActor):
    """Logits over the 112 actions from ``obs.obs``, illegal actions (``obs.mask`` false) at -inf."""

    def __init__(self, hidden_sizes: tuple[int, ...] = (256, 256)):
        super().__init__(NUM_ACTIONS)
        self.net = _mlp(hidden_sizes, NUM_ACTIONS)

    def get_preprocess_net(self) -> nn.Module:
        return nn.Identity()

    def forward(self, obs, state=None, info=None):
        x, mask = _split(obs)
        logits = self.net(x.to(next(self.parameters()).device))
        if mask is not None:
            mask = mask.to(logits.device)
            keep = mask | ~mask.any(dim=1, keepdim=True)  # terminal observations: nothing legal, leave unmasked
            logits = logits.masked_fill(~keep, torch.finfo(logits.dtype).min)
        return logits, state


class Critic(nn.Module):
    """State value from ``obs.obs`` (the mask is ignored)."""

    def __init__(self, hidden_sizes: tuple[int, ...] = (256, 256)):
        super().__init__()
        self.net = _mlp(hidden_sizes, 1)

    def forward(self, obs, state=None, info=None):
        x, _ = _split(obs)
        return self.net(x.to(next(self.parameters()).device))


__all__ = ["MaskedObservation", "make_env", "MaskedActor", "Critic"]
