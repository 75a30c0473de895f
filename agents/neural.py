"""Neural agents: the policy-value network trained by ``train.py`` and its loader.

One network plays every seat, bidding and card play alike: it reads the
observation vector of :func:`belote_env.observation.encode` (853 floats) and
gives 112 action logits and a value. Illegal actions are masked out before
any choice, so a :class:`NeuralAgent` never plays an illegal action.

A checkpoint written by ``train.py`` is a plain dictionary saved with
:func:`torch.save`; it holds the model config (observation size, hidden
sizes, action count), so :func:`load_agent` can rebuild the network without
the training arguments::

    from agents.neural import load_agent
    agent = load_agent("runs/coinche/checkpoints/latest.pt")
    action = agent.act(observation, action_mask, None)   # a network needs no InfoState

Loading uses ``torch.load(weights_only=True)``: a file is never unpickled
into arbitrary objects, and a damaged or foreign file raises
:class:`CheckpointError` (a ``ValueError``) that names the file and says
what was expected.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
import torch
from torch import nn

from agents import fast_linear
from agents.base import Agent
from agents.checkpoint import (  # noqa: F401  (re-exported: the checkpoint format lives there)
    CHECKPOINT_FORMAT,
    CheckpointError,
    checkpoint_dict,
    load_checkpoint,
    weights_digest,
)
from agents.sparse_input import SparseObs, csr_rows_linear, row_nonzeros, sparse_input_linear
from agents.streams import to_uniform
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS

#: Tag stored in every checkpoint; :func:`load_agent` refuses files without it.
#: Logit given to illegal actions: far below any real logit, still finite (no NaN in softmax).
MASKED_LOGIT = -1e9
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}


def _layer(n_in: int, n_out: int, gain: float) -> nn.Linear:
    """A linear layer with CleanRL's orthogonal initialisation."""
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def mlp(n_in: int, hidden_sizes, activation: str) -> nn.Sequential:
    """Linear + activation per hidden size (CleanRL's initialisation): the trunk of the policy and the critic."""
    layers, n = [], n_in
    for h in hidden_sizes:
        layers += [_layer(n, h, math.sqrt(2)), ACTIVATIONS[activation]()]
        n = h
    return nn.Sequential(*layers)


def policy_terms(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities and probabilities of masked logits (``torch.log_softmax`` / ``torch.softmax``).

    What ``torch.distributions.Categorical(logits=...)`` computes, without its ``exp`` of the
    :data:`MASKED_LOGIT` entries, which takes a slow path on CPU (measured: about 30x the time of the
    fused softmax kernels on a 2048 x 112 batch). Illegal actions get probability exactly 0.
    Entropy: ``-(probs * logp).sum(-1)``; sampling: :func:`sample_actions`."""
    return torch.log_softmax(logits, dim=-1), torch.softmax(logits, dim=-1)


def sample_actions(probs: torch.Tensor, generator: torch.Generator | None = None, u=None) -> torch.Tensor:
    """One action per row of ``probs`` (rows of :func:`policy_terms`), drawn by inverting the cumulative
    distribution with one uniform number per row: never an action of probability 0. ``u``: those numbers
    (float64 in [0, 1), one per row, e.g. ``agents.streams.uniforms``) instead of draws from ``generator``.

    The action is the number of entries of the row's float64 cumulative sums ``cdf`` (summed in order) that are
    at most ``u * cdf[-1]``; when ``u * cdf[-1]`` rounds to ``cdf[-1]`` (probability about 2**-53), the last
    action of positive probability. One numba pass per row (:func:`_inverse_cdf`), about 5x the speed of the
    same arithmetic in torch ops at collection's ~100 rows (the same actions: it was that until 2026-12-01).

    ``torch.multinomial(probs, 1)`` draws the same distribution but spends one exponential variate per
    action (112 per row), measured at a fifth of ``train.collect``'s network time on one core."""
    if u is None:
        u = torch.rand(probs.shape[:-1], dtype=torch.float64, generator=generator, device=probs.device)
    u = np.ascontiguousarray(torch.as_tensor(u, dtype=torch.float64).cpu().numpy().reshape(-1))
    if probs.dtype not in (torch.float32, torch.float64):
        probs = probs.float()  # exact for the half precisions; numba reads float32 and float64
    p = probs.detach().cpu().numpy().reshape(-1, probs.shape[-1])
    if len(u) != p.shape[0]:
        raise ValueError(f"sample_actions needs one uniform number per row: {p.shape[0]} rows, {len(u)} numbers")
    actions = _inverse_cdf(np.ascontiguousarray(p), u, np.empty(p.shape[0], dtype=np.int64))
    return torch.from_numpy(actions).reshape(probs.shape[:-1]).to(probs.device)


def sample_rows(probs: np.ndarray, logp: np.ndarray, u: np.ndarray, actions: np.ndarray, logp_out: np.ndarray) -> None:
    """:func:`sample_actions` on numpy rows, into ``actions`` (int64), with each drawn action's log-probability
    (its entry of ``logp``, the rows of :func:`policy_terms`) into ``logp_out``: ``train.collect``'s draws,
    written straight into the rollout buffer."""
    if not (probs.shape == logp.shape and probs.shape[0] == len(u) == len(actions) == len(logp_out)):
        raise ValueError(f"sample_rows: {probs.shape} probabilities, {logp.shape} log-probabilities, {len(u)} "
                         f"numbers, {len(actions)} and {len(logp_out)} outputs")
    _inverse_cdf_logp(probs, logp, u, actions, logp_out)


@numba.njit(cache=True, nogil=True, inline="always")
def _draw(p, u):
    """The action of the row ``p`` for the uniform number ``u`` (:func:`sample_actions`' rule)."""
    a = p.shape[0]
    last, total = a - 1, 0.0  # the last action of positive probability (the last action if none)
    for j in range(a):
        total += np.float64(p[j])
        if p[j] > 0:
            last = j
    threshold, cdf, below = u * total, 0.0, 0
    for j in range(a):
        cdf += np.float64(p[j])
        if cdf <= threshold:
            below += 1
    return min(below, last)


@numba.njit(cache=True, nogil=True)
def _inverse_cdf(probs, u, out):
    for i in range(probs.shape[0]):
        out[i] = _draw(probs[i], u[i])
    return out


@numba.njit(cache=True, nogil=True)
def _inverse_cdf_logp(probs, logp, u, out, logp_out):
    for i in range(probs.shape[0]):
        out[i] = _draw(probs[i], u[i])
        logp_out[i] = logp[i, out[i]]


class Learner:
    """The networks that learn on ``device`` and their CPU copies that play (collection and evaluation).

    On the CPU (the default) the copies are the networks themselves. On another device (``train.py
    --device cuda``) :meth:`move` puts the networks and the optimizer's state there after the warm start,
    and :meth:`sync` copies the weights back to the players after every update (about 2.5 MB for the
    default network): collection, the play loop and the Ray actors stay on the CPU, where one decision
    at a time is cheap, and only the PPO update runs on the device."""

    def __init__(self, device: torch.device, net: PolicyValueNet, critic: nn.Module | None = None):
        self.device = device
        self.apart = device.type != "cpu"  # the players are copies (a test sets it on the CPU too)
        self.net, self.critic = net, critic
        self.play_net, self.play_critic = net, critic

    def move(self, optimizer: torch.optim.Optimizer) -> None:
        """Copies on the CPU to play; the networks and ``optimizer``'s state to ``device``."""
        if not self.apart:
            return
        # copies, not new networks: building one would draw its initial weights from the run's torch RNG
        self.play_net = copy.deepcopy(self.net).eval()
        self.play_critic = copy.deepcopy(self.critic)
        for module in (self.net, self.critic):
            if module is not None:
                module.to(self.device)
        for state in optimizer.state.values():  # fused Adam keeps its moments (and step) on the parameters' device
            for key, value in state.items():
                if torch.is_tensor(value):
                    state[key] = value.to(self.device)

    def sync(self) -> None:
        """The learner's weights into the CPU copies (nothing on the CPU: they are the same networks)."""
        for play, learn in ((self.play_net, self.net), (self.play_critic, self.critic)):
            if play is not None and play is not learn:
                play.load_state_dict({k: v.detach().cpu() for k, v in learn.state_dict().items()})
                play.eval()


def adam(params, lr: float, eps: float = 1e-8) -> torch.optim.Adam:
    """Adam over a module's parameters (or an iterable of parameters), fused: one kernel for all of them,
    measured faster for the PPO update on one CPU core than the default per-parameter loop; same algorithm."""
    if isinstance(params, nn.Module):
        params = params.parameters()
    return torch.optim.Adam(params, lr=lr, eps=eps, fused=True)


class RowWeights(NamedTuple):
    """:meth:`PolicyValueNet.row_weights`: the first layer's ``(columns, outputs)`` table, the other trunk
    layers' weights in oneDNN's layout, and the heads' (policy and value stacked: weight in oneDNN's layout, bias)."""
    table: torch.Tensor
    hidden: list
    heads: tuple


class PolicyValueNet(nn.Module):
    """MLP trunk shared by a policy head (112 logits) and a value head (1).

    ``config()`` returns the plain dictionary that rebuilds the same
    architecture with ``PolicyValueNet(**config)``.
    """

    def __init__(self, obs_size: int = OBS_SIZE, hidden_sizes=(256, 256), num_actions: int = NUM_ACTIONS,
                 activation: str = "relu"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; accepted: {', '.join(ACTIVATIONS)}")
        hidden_sizes = [int(h) for h in hidden_sizes]
        if not hidden_sizes or min(hidden_sizes) < 1:
            raise ValueError(f"hidden_sizes must be a non-empty list of positive ints, got {hidden_sizes}")
        self.obs_size = int(obs_size)
        self.hidden_sizes = hidden_sizes
        self.num_actions = int(num_actions)
        self.activation = activation
        self.trunk = mlp(self.obs_size, hidden_sizes, activation)
        n = hidden_sizes[-1]
        self.policy = _layer(n, self.num_actions, 0.01)
        self.value = _layer(n, 1, 1.0)

    def config(self) -> dict:
        return {"obs_size": self.obs_size, "hidden_sizes": list(self.hidden_sizes),
                "num_actions": self.num_actions, "activation": self.activation}

    def features(self, obs) -> torch.Tensor:
        """The trunk's output for a dense batch, or for a :class:`~agents.sparse_input.SparseObs` batch, the
        training path: the first layer then runs on the non-zero entries only and the other products on
        oneDNN (:mod:`agents.fast_linear`); the same result up to float rounding."""
        if isinstance(obs, SparseObs):
            return self._fast_trunk(sparse_input_linear(obs, self.trunk[0]))
        return self.trunk(obs)

    def forward(self, obs, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at :data:`MASKED_LOGIT`) and values, for a batch (a dense
        ``(batch, obs_size)`` tensor or a :class:`~agents.sparse_input.SparseObs`, the training path)."""
        if isinstance(obs, SparseObs):
            return self._heads(self.features(obs), mask, fast=True)
        return self._heads(self.features(obs), mask)

    def _heads(self, h: torch.Tensor, mask: torch.Tensor, fast: bool = False,
               packed: tuple | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values; ``fast``: the training path's heads (:meth:`_fast_heads`, ``packed``)."""
        logits, value = self._fast_heads(h, packed) if fast else (self.policy(h), self.value(h))
        return torch.where(mask, logits, MASKED_LOGIT), value.squeeze(-1)

    def _fast_trunk(self, h: torch.Tensor, packed: list | None = None) -> torch.Tensor:
        """The trunk after its first layer, the products by :func:`agents.fast_linear.linear` (``packed``: the
        weights of :meth:`row_weights`, else the parameters)."""
        i = 0
        for m in itertools.islice(self.trunk, 1, None):  # not trunk[1:]: a new Sequential at every call (12 µs)
            if isinstance(m, nn.Linear):
                h = fast_linear.linear(h, m.weight if packed is None else packed[i], m.bias)
                i += 1
            else:
                h = m(h)
        return h

    def _fast_heads(self, h: torch.Tensor, packed: tuple | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy and value heads as one product of ``num_actions + 1`` outputs (oneDNN's product of one
        output is slow: 27 µs at 96 rows against a few for the extra column); ``packed``: that product's weight
        and bias from :meth:`row_weights`, else the parameters, stacked (with their gradients)."""
        weight, bias = self._stacked_heads() if packed is None else packed
        out = fast_linear.linear(h, weight, bias)
        return out[:, :self.num_actions], out[:, self.num_actions:]

    def _stacked_heads(self) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.cat([self.policy.weight, self.value.weight]), torch.cat([self.policy.bias, self.value.bias])

    def row_weights(self) -> RowWeights:
        """The weights as the training path reads them, for :meth:`forward_rows` and :meth:`value_rows`
        (``weights=``): the first layer's transposed (a ``(columns, outputs)`` table for ``embedding_bag``) and
        the others in oneDNN's layout (:func:`agents.fast_linear.pack`). Copies, valid until the weights next
        change (``train.collect`` reads them at the start of a rollout, during which they do not): about 0.5 ms
        for the default network, once a rollout; packed, oneDNN's products skip a reordering of the weight at
        every call (about 10 µs each at collection's ~100 rows)."""
        packed = [fast_linear.pack(m.weight) for m in self.trunk[1:] if isinstance(m, nn.Linear)]
        weight, bias = self._stacked_heads()
        return RowWeights(self.trunk[0].weight.detach().t().contiguous(), packed,
                          (fast_linear.pack(weight), bias.detach()))

    def _nonzero_features(self, nonzeros, k: int, weights: RowWeights) -> torch.Tensor:
        """The trunk's output on the training path for a batch of ``k`` rows given by the non-zero entries of its
        first ones (the rows after them zero rows): the first layer on those entries
        (:func:`~agents.sparse_input.csr_rows_linear`), the others on oneDNN, with ``weights`` (:meth:`row_weights`)."""
        return self._fast_trunk(csr_rows_linear(*nonzeros, k, weights.table, self.trunk[0].bias), weights.hidden)

    def forward_rows(self, obs: torch.Tensor, mask: torch.Tensor, n: int | None = None,
                     weights: RowWeights | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` on a dense CPU batch with every row's result independent of the batch it comes in,
        bit for bit, with one torch thread (``train.py``'s default): collection gives a table the same
        actions whether it is played with other tables or not (split among Ray actors: ``agents.streams``).

        MKL's matrix products (``nn.Linear``) choose their kernels by the number of rows (measured with torch
        2.13 on this machine: a row's result takes one of three values for batches of 1, 2 to 15 and 16 or more
        rows, and rows past the last multiple of 4 are summed in another order; the data's alignment did not
        matter). So the batch runs with :func:`padded_rows` rows, its results for the extra rows dropped: at most
        7 rows more (16 for batches under 16). ``n``: the batch is the first ``n`` rows of ``obs`` and ``mask``;
        when they hold ``padded_rows(n)`` rows, the rows after the batch pad it as they are (whatever they
        hold: a product's rows never mix), without a copy. Otherwise the batch is copied to a scratch tensor and
        padded with zeros. This is measured with one torch
        thread; with several, how a product is split among them may depend on the batch size (it did not on the
        AMD EPYC machine of 2026-12-01, up to 3,000 rows), so collection runs on one (:func:`one_thread`).

        ``weights``: :meth:`row_weights`, read once by the caller: the training path, :meth:`forward_nonzeros`
        on the rows' non-zero entries (``train.collect`` calls it on the entries its rollout buffer keeps). The
        first layer sums, row by row, the table's rows of the observation's non-zero entries (about 40 of 853),
        and the other products run on oneDNN (:mod:`agents.fast_linear`), as in the PPO update, so the
        log-probabilities and values collection records are those the update recomputes, bit for bit.
        The same results as without it up to float rounding, and as row-invariant (oneDNN's products are,
        padded or not). Without it (the tournament's ``NeuralAgent``), the dense layers."""
        n = obs.shape[0] if n is None else n
        if weights is not None:  # the training path: the rows' non-zero entries, as collection's
            return self.forward_nonzeros(row_nonzeros(obs[:n].numpy()), mask, n, weights)
        k = padded_rows(n)
        if obs.shape[0] < k or mask.shape[0] < k:
            obs, mask = self._scratch("_rows_obs", obs[:n]), self._scratch("_rows_mask", mask[:n])
        logits, value = self._heads(self.trunk(obs[:k]), mask[:k])
        return logits[:n], value[:n]

    def forward_nonzeros(self, nonzeros, mask: torch.Tensor, n: int,
                         weights: RowWeights) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward_rows` with ``weights`` (the training path) for ``n`` rows given by their non-zero entries
        ``(indptr from 0, int64 columns, float32 values)``, as the rollout buffer keeps them
        (``agents.collection.Rollout.add_observations``): ``train.collect``'s forward pass, with no dense rows.
        The batch runs padded to :func:`padded_rows` rows, zero rows past the given ones, which a row's result
        does not depend on (tested against the dense rows, in one batch and one row at a time). ``mask``
        holds at least the ``n`` rows (with ``padded_rows(n)`` rows, used as they are; else copied and padded)."""
        k = padded_rows(n)
        if mask.shape[0] < k:
            mask = self._scratch("_rows_mask", mask[:n])
        logits, value = self._heads(self._nonzero_features(nonzeros, k, weights), mask[:k], True, weights.heads)
        return logits[:n], value[:n]

    def value_rows(self, obs: torch.Tensor, weights: RowWeights | None = None) -> torch.Tensor:
        """The value head's output for a dense batch, row-invariant as :meth:`forward_rows` (``weights``: the same)."""
        n = obs.shape[0]
        if weights is None:
            value = self.value(self.trunk(self._scratch("_rows_obs", obs)))
        else:
            value = self._fast_heads(self._nonzero_features(row_nonzeros(obs.numpy()), padded_rows(n), weights),
                                     weights.heads)[1]
        return value[:n].squeeze(-1)

    def _scratch(self, name: str, rows: torch.Tensor) -> torch.Tensor:
        """``rows`` copied to the start of the scratch tensor ``name`` (rebuilt when too small), zeros after them up to
        :func:`padded_rows`; that padded view."""
        n, k = rows.shape[0], padded_rows(rows.shape[0])
        s = self.__dict__.get(name)
        if s is None or s.shape[0] < k or s.shape[1:] != rows.shape[1:] or s.dtype != rows.dtype or s.device != rows.device:
            s = rows.new_zeros((k,) + tuple(rows.shape[1:]))
            self.__dict__[name] = s  # a plain attribute: not a parameter or buffer, not in the state_dict
        x = s[:k]
        x[:n] = rows
        x[n:] = 0
        return x


ROW_MULTIPLE, MIN_ROWS = 8, 16


def one_thread(fn):
    """``fn`` run with one torch thread, the caller's count restored afterwards: ``train.collect`` (decorated)
    stays row-invariant (:meth:`PolicyValueNet.forward_rows`), so a run equals its Ray twin whatever
    ``torch_threads`` gives the PPO update and the evaluations."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        threads = torch.get_num_threads()
        if threads == 1:
            return fn(*args, **kwargs)
        torch.set_num_threads(1)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)
    return wrapper


def padded_rows(n: int) -> int:
    """The rows :meth:`PolicyValueNet.forward_rows` runs for a batch of ``n``: a multiple of 8, at least 16."""
    return max(MIN_ROWS, -(-n // ROW_MULTIPLE) * ROW_MULTIPLE)


class NeuralAgent(Agent):
    """An agent playing with a :class:`PolicyValueNet`.

    Greedy by default (the most probable legal action, the usual choice for
    evaluation); ``sample=True`` draws from the policy instead, with its own
    generator seeded by ``seed`` (and by :meth:`reset`). It reads only the
    observation and the mask (``needs_info = False``).
    """

    needs_info = False
    takes_seeds = True  # sampling draws row i from seeds[i] when given (agents.streams)

    def __init__(self, net: PolicyValueNet, name: str = "neural", sample: bool = False, seed: int | None = None,
                 device: str | torch.device = "cpu"):
        self.net = net
        self.name = name
        self.sample = sample
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device)
        if seed is not None:
            self.generator.manual_seed(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.generator.manual_seed(seed)

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, infos: list | None = None,
                  seeds=None) -> list[int]:
        """One forward pass for the whole batch; returns one legal action per row (``seeds``: see
        :meth:`agents.base.Agent.act_batch`; with them the batch is also run row-invariantly:
        :meth:`PolicyValueNet.forward_rows`)."""
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        mask = torch.as_tensor(np.asarray(action_masks), device=self.device).bool()
        if obs.ndim != 2 or obs.shape[1] != self.net.obs_size:
            raise ValueError(f"observations must have shape (batch, {self.net.obs_size}), got {tuple(obs.shape)}")
        if mask.shape != (obs.shape[0], self.net.num_actions):
            raise ValueError(f"action_masks must have shape ({obs.shape[0]}, {self.net.num_actions}), got {tuple(mask.shape)}")
        if not bool(mask.any(dim=1).all()):
            raise ValueError("every action mask must allow at least one action (the seat must be the one to act)")
        was_training = self.net.training
        self.net.eval()
        logits, _ = self.net(obs, mask) if seeds is None else self.net.forward_rows(obs, mask)
        self.net.train(was_training)
        if self.sample:
            probs = torch.softmax(logits, dim=1)
            if seeds is None:
                actions = sample_actions(probs, self.generator)
            else:
                actions = sample_actions(probs, u=to_uniform(seeds))
        else:
            actions = logits.argmax(dim=1)
        return actions.tolist()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info=None) -> int:
        return self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], [info])[0]


def build_net(ckpt: dict, path: str | Path = "checkpoint") -> PolicyValueNet:
    """The network described by a checkpoint dictionary, with its weights loaded."""
    try:
        net = PolicyValueNet(**ckpt["model_config"])
        net.load_state_dict(ckpt["model"])
    except (TypeError, ValueError, RuntimeError, KeyError) as e:
        raise CheckpointError(f"{path}: model config and weights do not match ({str(e).splitlines()[0][:200]})") from None
    if net.obs_size != OBS_SIZE or net.num_actions != NUM_ACTIONS:
        raise CheckpointError(
            f"{path}: network expects {net.obs_size} observation floats and {net.num_actions} actions; "
            f"this belote_env has {OBS_SIZE} and {NUM_ACTIONS} (checkpoint from another version?)"
        )
    return net


def load_agent(path: str | Path, device: str | torch.device = "cpu", sample: bool = False, seed: int | None = None) -> NeuralAgent:
    """A :class:`NeuralAgent` from a checkpoint written by ``train.py`` (greedy unless ``sample``)."""
    ckpt = load_checkpoint(path, device)
    net = build_net(ckpt, path).to(device)
    net.eval()
    return NeuralAgent(net, name=f"neural:{Path(path).name}", sample=sample, seed=seed, device=device)
