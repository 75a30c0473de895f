"""Policies from outside the project as agents: ``PolicyAgent(fn)`` and factories for common libraries.

``fn(observation, action_mask) -> action`` sees what a player sees (the
float32[853] observation and the 112-entry mask); with ``batched=True`` it is
called once for many decisions, ``fn(observations[B, 853], masks[B, 112]) ->
actions[B]``. Either way the agent needs no InfoState and plays wherever an
agent is accepted: tables, duplicate matches, the tournament command (as a
``module:factory`` spec, see :func:`agents.make_agent`).

:func:`sb3_agent` wraps a Stable-Baselines3 / sb3-contrib model (for
``MaskablePPO`` the mask is passed to ``predict``), :func:`rllib_agent` an
RLlib algorithm, RLModule or checkpoint, :func:`tianshou_agent` a Tianshou
policy or algorithm. Each makes one batched forward pass per step of the
tables; illegal actions are masked out before the choice (deterministic: the
most likely legal action).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from agents.base import Agent


class PolicyAgent(Agent):
    """An agent calling ``fn(observation, action_mask)`` (or, ``batched``, once per batch of decisions)."""

    needs_info = False

    def __init__(self, fn: Callable, name: str = "policy", batched: bool = False,
                 reset: Callable[[int | None], None] | None = None):
        if not callable(fn):
            raise TypeError(f"PolicyAgent needs a callable fn(observation, action_mask) -> action, got {fn!r}")
        self.fn = fn
        self.name = name
        self.batched = batched
        self._reset = reset

    def reset(self, seed: int | None = None) -> None:
        """Tables reseed agents per batch of deals; ``reset(seed)`` given to the constructor reseeds a
        stochastic policy's generator, so its draws do not depend on how a match is split."""
        if self._reset is not None:
            self._reset(seed)

    def act(self, observation, action_mask, info=None):
        """``fn``'s answer as it is: the caller (the tables, ``SingleAgentEnv``, the OpenSpiel bot) reads it by
        the rule of ``belote_env.rules.actions.action_id`` and refuses what is not a legal action id, naming
        this agent, the seat and the legal set (``int()`` here would play card 3 for ``3.7``)."""
        if self.batched:
            got = self.fn(np.asarray(observation)[None], np.asarray(action_mask)[None])
            try:
                (one,) = got  # the one action of a batch of one decision
            except (TypeError, ValueError):
                return got
            return one
        return self.fn(observation, action_mask)

    def act_batch(self, observations, action_masks, infos):
        if not self.batched:
            return [self.fn(o, m) for o, m in zip(observations, action_masks)]
        return self.fn(np.asarray(observations), np.asarray(action_masks))


def sb3_agent(model, name: str = "sb3", deterministic: bool = True) -> PolicyAgent:
    """A Stable-Baselines3 or sb3-contrib model as an agent (batched ``predict``; masked for MaskablePPO)."""
    import inspect

    masked = "action_masks" in inspect.signature(model.predict).parameters

    def fn(observations, masks):
        if masked:
            actions, _ = model.predict(observations, action_masks=masks.astype(bool), deterministic=deterministic)
        else:
            actions, _ = model.predict(observations, deterministic=deterministic)
        return actions

    return PolicyAgent(fn, name=name, batched=True)


def _masked_choice(scores, masks: np.ndarray, deterministic: bool, rng: np.random.Generator | None) -> np.ndarray:
    """One legal action per row: the highest score (``deterministic``) or a draw from softmax(scores) over the
    legal actions. ``scores``: logits (or Q-values), a torch tensor or an array [B, 112]."""
    scores = np.asarray(scores.detach().cpu().numpy() if hasattr(scores, "detach") else scores, dtype=np.float64)
    legal = np.asarray(masks) > 0
    if scores.shape != legal.shape:
        raise ValueError(f"the policy gave scores of shape {scores.shape} for masks of shape {legal.shape}")
    scores = np.where(legal, scores, -np.inf)
    if deterministic:
        return scores.argmax(axis=1)
    rng = rng if rng is not None else np.random.default_rng()
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return np.array([rng.choice(len(row), p=row) for row in p])


def rllib_module(model, module_id: str | None = None):
    """The RLModule to play with: ``model`` is an RLlib ``Algorithm`` (``module_id`` picks one of its
    modules; default the only one, or ``"shared"``), an ``RLModule``, a ``MultiRLModule``, or the path of an
    algorithm checkpoint (``algo.save()``) or of a module checkpoint."""
    from pathlib import Path

    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModule
    from ray.rllib.core.rl_module.rl_module import RLModule

    if isinstance(model, (str, Path)):
        path = Path(model)
        if not path.exists():
            raise FileNotFoundError(f"RLlib checkpoint {str(path)!r} does not exist")
        modules = path / "learner_group" / "learner" / "rl_module"
        model = RLModule.from_checkpoint(modules if modules.is_dir() else path)
    if hasattr(model, "get_module") and hasattr(model, "config") and not isinstance(model, RLModule):
        ids = sorted(model.config.policies)  # an Algorithm
        model = model.get_module(_pick_module_id(ids, module_id))
        if model is None:
            raise ValueError(f"the algorithm has no RLModule {module_id!r} (modules: {', '.join(ids)})")
        return model
    if isinstance(model, MultiRLModule):
        return model[_pick_module_id(sorted(model.keys()), module_id)]
    if isinstance(model, RLModule):
        if module_id is not None:
            raise ValueError(f"module_id={module_id!r} given for a single RLModule")
        return model
    raise TypeError(f"rllib_agent needs an RLlib Algorithm, RLModule, MultiRLModule or checkpoint path, "
                    f"got {type(model).__name__}")


def _pick_module_id(ids: list[str], module_id: str | None) -> str:
    if module_id is not None:
        if module_id not in ids:
            raise ValueError(f"no RLModule {module_id!r}; modules: {', '.join(ids)}")
        return module_id
    if len(ids) == 1:
        return ids[0]
    if "shared" in ids:
        return "shared"
    raise ValueError(f"several RLModules ({', '.join(ids)}): say which plays with module_id=")


def rllib_agent(model, module_id: str | None = None, name: str = "rllib", deterministic: bool = True,
                seed: int | None = None) -> PolicyAgent:
    """An RLlib model as an agent: an ``Algorithm`` (``module_id`` for ``"team"`` mode: ``"team_0"`` or
    ``"team_1"``), an ``RLModule`` or a checkpoint path (see :func:`rllib_module`). The module gets
    ``{"observations", "action_mask"}`` when its observation space is a dict (the masked modules of
    :mod:`belote_env.integrations.rllib`), else the bare observation; its action logits are masked here too.
    ``deterministic=False`` draws from the masked softmax with a generator seeded by ``seed`` and reseeded by
    the tables at every batch of deals (reproducible tournaments)."""
    import gymnasium
    import torch
    from ray.rllib.core.columns import Columns

    module = rllib_module(model, module_id)
    dict_obs = isinstance(getattr(module, "observation_space", None), gymnasium.spaces.Dict)
    rng = np.random.default_rng(seed)

    def reset(s):
        nonlocal rng
        rng = np.random.default_rng(s)

    def fn(observations, masks):
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        mask = torch.as_tensor(np.asarray(masks, dtype=np.float32))
        batch = {Columns.OBS: {"observations": obs, "action_mask": mask} if dict_obs else obs}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return _masked_choice(logits, masks, deterministic, rng)

    return PolicyAgent(fn, name=name, batched=True, reset=reset)


def tianshou_agent(policy, name: str = "tianshou", deterministic: bool = True, dict_obs: bool = True,
                   seed: int | None = None) -> PolicyAgent:
    """A Tianshou policy (or an ``Algorithm``, whose ``.policy`` plays) as an agent. With ``dict_obs`` the
    policy gets ``Batch(obs=Batch(obs=..., mask=...))``, the format of Tianshou's ``PettingZooEnv`` and of
    :mod:`belote_env.integrations.tianshou`; otherwise the bare observations. ``deterministic``: the legal
    action with the highest output (logits or Q-values). Otherwise a draw from the policy's action
    distribution restricted to the legal actions (a generator seeded by ``seed``, reseeded by the tables at
    every batch of deals); a policy without a categorical distribution gives its own action, checked legal."""
    import torch
    from tianshou.data import Batch

    policy = getattr(policy, "policy", policy)
    if not callable(policy):
        raise TypeError(f"tianshou_agent needs a Tianshou policy or algorithm, got {type(policy).__name__}")
    rng = np.random.default_rng(seed)

    def reset(s):
        nonlocal rng
        rng = np.random.default_rng(s)

    def fn(observations, masks):
        observations = np.asarray(observations, dtype=np.float32)
        legal = np.asarray(masks) > 0
        obs = Batch(obs=observations, mask=legal) if dict_obs else observations
        was_training = getattr(policy, "training", False)
        if hasattr(policy, "eval"):
            policy.eval()
        try:
            with torch.no_grad():
                out = policy(Batch(obs=obs, info=Batch()))
        finally:
            if was_training:
                policy.train()
        if deterministic:
            return _masked_choice(out.logits, legal, True, None)
        probs = getattr(out.get("dist", None), "probs", None)
        if probs is not None:
            return _masked_choice(torch.log(probs), legal, False, rng)
        actions = np.asarray(out.act.detach().cpu().numpy() if hasattr(out.act, "detach") else out.act).reshape(-1)
        if not legal[np.arange(len(actions)), actions].all():
            raise ValueError(f"Tianshou policy {name!r} sampled an illegal action (does it mask its logits?)")
        return actions

    return PolicyAgent(fn, name=name, batched=True, reset=reset)


__all__ = ["PolicyAgent", "sb3_agent", "rllib_agent", "rllib_module", "tianshou_agent"]
