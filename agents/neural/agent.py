"""Neural agents: :class:`NeuralAgent` plays a :class:`~agents.neural.network.PolicyValueNet`;
:func:`load_agent` builds one from a checkpoint written by ``train.py``::

    from agents.neural import load_agent
    agent = load_agent("runs/coinche/checkpoints/latest.pt")
    action = agent.act(observation, action_mask, None)   # a network needs no InfoState

Loading uses ``torch.load(weights_only=True)``: a file is never unpickled
into arbitrary objects, and a damaged or foreign file raises
:class:`~agents.errors.CheckpointError` (a ``ValueError``) that names the file and says
what was expected (:mod:`agents.neural.checkpoint`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.base import Agent
from agents.counter_rng import to_uniform
from agents.neural.checkpoint import load_checkpoint
from agents.counter_rng import derived
from agents.neural.protocol import build_net, forward_rows, is_factored, mask_logits, policy_probs
from agents.neural.sampling import sample_actions
from belote_env.factored import (FACTORED_NAMES, FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS, WHAT, factored_mask,
                                 stage_cells)
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import ACTION_NAMES, NUM_ACTIONS


class NeuralAgent(Agent):
    """An agent playing with a network (:mod:`agents.neural.protocol`; the built-in one is :class:`~agents.neural.network.PolicyValueNet`).

    Greedy by default (the most probable legal action, the usual choice for
    evaluation); ``sample=True`` draws from the policy instead, with its own
    generator seeded by ``seed`` (and by :meth:`reset`). It reads only the
    observation and the mask (``needs_info = False``).

    A network trained with factored calls (``train.py --factored-calls``: 862 observation floats, 56 actions;
    :func:`~agents.neural.protocol.is_factored`) plays the flat action space all the same: at each decision it
    makes the factored choices in turn (what, then the strain, then the level, each a forward pass of the rows
    still deciding, ``belote_env.factored.decide`` between them) and returns the flat action they complete.
    """

    needs_info = False
    takes_seeds = True  # sampling draws row i from seeds[i] when given (agents.counter_rng)

    def __init__(self, net: torch.nn.Module, name: str = "neural", sample: bool = False, seed: int | None = None,
                 device: str | torch.device = "cpu"):
        self.net = net
        self.factored = is_factored(net)
        self.name = name
        self.sample = sample
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device)
        if seed is not None:
            self.generator.manual_seed(int(seed) % 2**64)  # torch takes 64 bits; a larger seed is folded, not refused

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.generator.manual_seed(int(seed) % 2**64)

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, infos: list | None = None,
                  seeds=None) -> list[int]:
        """One forward pass for the whole batch; returns one legal action per row (``seeds``: see
        :meth:`agents.base.Agent.act_batch`; with them the batch is also run row-invariantly:
        :func:`agents.neural.protocol.forward_rows`)."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        mask = torch.as_tensor(np.asarray(action_masks), device=self.device).bool()
        if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
            raise ValueError(f"observations must have shape (batch, {OBS_SIZE}), got {tuple(obs.shape)}")
        if mask.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(f"action_masks must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got {tuple(mask.shape)}")
        if not bool(mask.any(dim=1).all()):
            raise ValueError("every action mask must allow at least one action (the seat must be the one to act)")
        if self.factored:
            return self._factored_actions(obs, mask, seeds)
        return self._choose(obs, mask, seeds).tolist()

    def _choose(self, obs: torch.Tensor, mask: torch.Tensor, seeds) -> torch.Tensor:
        """The network's choice on each row (greedy, or sampled from ``seeds`` or the agent's generator)."""
        was_training = self.net.training
        self.net.eval()
        if seeds is None:
            logits = mask_logits(self.net(obs, mask)[0], mask)
        else:
            logits = forward_rows(self.net, obs, mask)[0]
        self.net.train(was_training)
        if self.sample:
            probs = torch.softmax(logits, dim=1)
            if seeds is None:
                return sample_actions(probs, self.generator)
            return sample_actions(probs, u=to_uniform(seeds))
        return logits.argmax(dim=1)

    def _factored_actions(self, obs: torch.Tensor, mask: torch.Tensor, seeds) -> list[int]:
        """The flat action of each row, made as factored choices in turn (see the class docstring); the ``k``-th
        choice of a row samples from ``derived(seeds, k)`` (the first from ``seeds``)."""
        from belote_env.fast.kernels import decide_rows

        n = obs.shape[0]
        flat = np.ascontiguousarray(mask.cpu().numpy())
        x = torch.zeros((n, FACTORED_OBS_SIZE), dtype=torch.float32, device=self.device)
        x[:, :OBS_SIZE] = obs
        stage, strain = np.full(n, WHAT, dtype=np.int64), np.full(n, -1, dtype=np.int64)
        options = np.zeros((n, NUM_FACTORED_ACTIONS), dtype=np.bool_)
        out = np.full(n, -1, dtype=np.int64)
        rows = np.arange(n)
        for k in range(3):  # what, strain, level: a call is complete after at most three choices
            m, at = len(rows), torch.from_numpy(rows).to(self.device)
            x[at, OBS_SIZE:] = torch.from_numpy(stage_cells(stage[rows], strain[rows])).to(self.device)
            resolved = np.empty((m, 3), dtype=np.int64)
            decide_rows(flat[rows], stage[rows], strain[rows], np.full(m, -1, np.int64), options[:m], resolved)
            row_seeds = None if seeds is None else np.asarray(seeds)[rows]
            if row_seeds is not None and k:
                row_seeds = derived(row_seeds, k)
            choice = self._choose(x[at], torch.from_numpy(options[:m].copy()).to(self.device), row_seeds)
            decide_rows(flat[rows], stage[rows], strain[rows], choice.cpu().numpy().astype(np.int64), options[:m],
                        resolved)  # the decision each row is at now, and the flat action of those complete
            done = resolved[:, 2] >= 0
            out[rows[done]] = resolved[done, 2]
            stage[rows], strain[rows] = resolved[:, 0], resolved[:, 1]
            rows = rows[~done]
            if not len(rows):
                break
        return out.tolist()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info=None) -> int:
        return self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], [info])[0]

    def decision_extras(self, observations, action_masks, infos, actions) -> list[dict]:
        """For deal records: per decision, ``{"probs": {legal action name: probability}, "value": estimate}`` (4
        decimals; legal actions whose probability rounds to 0 are left out; the value in the network's reward
        scale, ``score_diff``'s by default)."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        mask = torch.as_tensor(np.asarray(action_masks), device=self.device).bool()
        names = ACTION_NAMES
        if self.factored:  # the first decision's choices (a card, pass, call...), as the network sees it
            names = FACTORED_NAMES
            first = np.full(len(mask), WHAT), np.full(len(mask), -1)
            mask = torch.from_numpy(factored_mask(mask.cpu().numpy(), *first)).to(self.device)
            obs = torch.cat([obs, torch.from_numpy(stage_cells(*first)).to(self.device)], dim=1)
        probs, value = policy_probs(self.net, obs, mask)
        out = []
        for p, v in zip(probs, value):
            shown = {names[a]: round(float(p[a]), 4) for a in np.flatnonzero(p)}
            out.append({"probs": {name: x for name, x in shown.items() if x > 0}, "value": round(float(v), 4)})
        return out


def load_agent(path: str | Path, device: str | torch.device = "cpu", sample: bool = False, seed: int | None = None) -> NeuralAgent:
    """A :class:`NeuralAgent` from a checkpoint written by ``train.py`` (greedy unless ``sample``)."""
    ckpt = load_checkpoint(path, device)
    net = build_net(ckpt, path).to(device)
    net.eval()
    return NeuralAgent(net, name=f"neural:{Path(path).name}", sample=sample, seed=seed, device=device)
