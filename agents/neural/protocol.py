"""The network protocol: what ``train.py``, the agents, the pool, the export and the checkpoints ask of a network.

A network is a ``torch.nn.Module`` with

- ``forward(obs, mask) -> (logits, value)``: ``obs`` float32 ``[B, 853]`` (the env's observation), ``mask``
  bool ``[B, 112]`` (the legal actions); ``logits`` float ``[B, 112]``, ``value`` float ``[B]``. Masking the
  illegal actions is the trainer's business (:func:`mask_logits` sets them to :data:`MASKED_LOGIT` wherever
  logits are used); a network may ignore ``mask`` or use it as an input;
- ``config() -> dict``: the keyword arguments that rebuild it, ``Class(**net.config())``; plain values (numbers,
  strings, lists, dicts) so that a checkpoint stays ``torch.load(weights_only=True)`` loadable.

A network is named by a spec: a built-in name (:data:`BUILTIN_NETWORKS`: ``mlp``, ``cardset``,
``cardset_blocks``) or ``module:Class`` of the user's own code. Checkpoints keep the spec and the config
(:func:`network_spec`), and :func:`build_net` imports only that module.

Training reads rows through a *training path* (:func:`training_path`): the network's own
``training_path()`` when it has one (the built-in MLP: its first layer on the observations' non-zero entries
and oneDNN's products, :mod:`agents.neural.network`), else :class:`DensePath`, which runs ``forward`` on dense
rows padded to :func:`~agents.neural.network.padded_rows` rows. Padded and on one torch thread, an MLP-like
network gives each row the same result in any batch, so a Ray run equals the local run; a network whose rows
interact (batch normalisation in training mode, attention across the batch) or whose kernels change with the
batch size loses that guarantee, and a Ray run of it then need not equal the local run bit for bit.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.errors import CheckpointError, NetworkSpecError
from agents.neural.network import MASKED_LOGIT, padded_rows
from belote_env.factored import FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS

BUILTIN_NETWORKS = {"mlp": "agents.neural.network:PolicyValueNet", "cardset": "agents.neural.cardset:CardSetNet",
                    "cardset_blocks": "agents.neural.cardset:CardBlockNet"}


def network_class(spec: str) -> type:
    """The class a network spec names: a built-in name or ``module:Class``; :class:`NetworkSpecError` saying
    what was wrong otherwise."""
    if not isinstance(spec, str) or not spec:
        raise NetworkSpecError(f"a network spec is a built-in name ({', '.join(BUILTIN_NETWORKS)}) or module:Class, "
                               f"got {spec!r}")
    target = BUILTIN_NETWORKS.get(spec, spec)
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise NetworkSpecError(f"unknown network {spec!r}: built-in networks are {', '.join(BUILTIN_NETWORKS)}; "
                               "a network of your own is module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise NetworkSpecError(f"network {spec!r}: cannot import module {module_name!r} ({e})") from None
    cls = getattr(module, attr, None)
    if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
        raise NetworkSpecError(f"network {spec!r}: module {module_name!r} has no torch.nn.Module class {attr!r}")
    return cls


def network_spec(net: nn.Module) -> str:
    """The spec of ``net``'s class: its built-in name, else ``module:Class``."""
    target = f"{type(net).__module__}:{type(net).__qualname__}"
    return next((name for name, t in BUILTIN_NETWORKS.items() if t == target), target)


def build_network(spec: str, config: dict) -> nn.Module:
    """A new network of class ``spec`` built from ``config`` (its ``config()`` must give that back)."""
    cls = network_class(spec)
    try:
        net = cls(**config)
    except (TypeError, ValueError, RuntimeError, MemoryError) as e:  # RuntimeError: torch's, memory it cannot get
        raise NetworkSpecError(f"network {spec!r} cannot be built from {config}: "
                               f"{str(e).splitlines()[0][:300] if str(e) else type(e).__name__}") from None
    if not callable(getattr(net, "config", None)):
        raise NetworkSpecError(f"network {spec!r} has no config() method: the protocol asks for one "
                               "(the keyword arguments that rebuild it; docs/training.md)")
    return net


def net_sizes(net: nn.Module) -> tuple[int, int]:
    """``(observation floats, actions)`` of ``net`` (its ``obs_size`` and ``num_actions``; the flat space's when it
    does not say): ``(853, 112)`` for the flat action space, ``(862, 56)`` for factored calls
    (``belote_env.factored``)."""
    return getattr(net, "obs_size", OBS_SIZE), getattr(net, "num_actions", NUM_ACTIONS)


def is_factored(net: nn.Module) -> bool:
    """Whether ``net`` plays factored calls (``train.py --factored-calls``): observations of 862 floats, 56 actions."""
    return net_sizes(net) == (FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS)


def check_shapes(net: nn.Module, where: str, sizes: tuple[int, int] | None = None) -> None:
    """One forward pass on two empty rows: ``(logits [2, actions], value [2])`` or an error naming ``where``;
    ``sizes``: ``(observation floats, actions)``, by default the network's own (:func:`net_sizes`)."""
    obs_size, num_actions = net_sizes(net) if sizes is None else sizes
    was_training = net.training
    net.eval()
    try:
        with torch.no_grad():
            out = net(torch.zeros(2, obs_size), torch.ones(2, num_actions, dtype=torch.bool))
    except RuntimeError as e:
        raise NetworkSpecError(f"{where}: the network fails on a batch of observations of {obs_size} floats and masks "
                               f"of {num_actions} actions ({str(e).splitlines()[0][:200]})") from None
    finally:
        net.train(was_training)
    ok = (isinstance(out, tuple) and len(out) == 2 and tuple(out[0].shape) == (2, num_actions)
          and tuple(out[1].shape) == (2,))
    if not ok:
        shapes = tuple(tuple(o.shape) for o in out) if isinstance(out, tuple) else type(out).__name__
        raise NetworkSpecError(f"{where}: forward(obs, mask) must return (logits [B, {num_actions}], value [B]), "
                               f"got {shapes}")


def build_net(ckpt: dict, path: str | Path = "checkpoint") -> nn.Module:
    """The network described by a checkpoint dictionary (its spec, ``mlp`` for files written before specs were
    kept, and its config), with its weights loaded; :class:`~agents.errors.CheckpointError` naming ``path``."""
    spec = ckpt.get("network", "mlp")
    try:
        net = build_network(spec, ckpt["model_config"])
        net.load_state_dict(ckpt["model"])
    except NetworkSpecError as e:
        raise CheckpointError(f"{path}: {e}") from None
    except (TypeError, ValueError, RuntimeError, KeyError) as e:
        raise CheckpointError(f"{path}: model config and weights do not match ({str(e).splitlines()[0][:200]})") from None
    sizes = net_sizes(net)
    if sizes not in ((OBS_SIZE, NUM_ACTIONS), (FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS)):
        raise CheckpointError(
            f"{path}: network expects {sizes[0]} observation floats and {sizes[1]} actions; "
            f"this belote_env has {OBS_SIZE} and {NUM_ACTIONS} ({FACTORED_OBS_SIZE} and {NUM_FACTORED_ACTIONS} with "
            "factored calls; checkpoint from another version?)"
        )
    try:
        check_shapes(net, str(path))
    except NetworkSpecError as e:
        raise CheckpointError(str(e)) from None
    return net


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the illegal actions at :data:`MASKED_LOGIT` (unchanged where a network masked them)."""
    return torch.where(mask, logits, MASKED_LOGIT)


@torch.no_grad()
def policy_probs(net: nn.Module, obs, mask) -> tuple[np.ndarray, np.ndarray]:
    """The policy of ``net`` on a dense batch, in eval mode: float32[B, 112] probabilities (0 where ``mask`` is
    False) and float32[B] values, as numpy arrays (``obs`` float32[B, 853] and ``mask`` bool[B, 112], numpy
    arrays or tensors on the network's device)."""
    obs = torch.as_tensor(obs, dtype=torch.float32)
    mask = torch.as_tensor(mask).bool()
    was_training = net.training
    net.eval()
    try:
        logits, value = net(obs, mask)
    finally:
        net.train(was_training)
    return (torch.softmax(mask_logits(logits, mask), dim=1).cpu().numpy(),
            value.reshape(-1).cpu().numpy())


def forward_rows(net: nn.Module, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``net``'s masked logits and values for a dense batch, run padded with zero rows to ``padded_rows(n)`` rows
    so that each row's result does not depend on how many rows come with it (one torch thread; see the module
    docstring for the networks that cannot promise it)."""
    n, k = obs.shape[0], padded_rows(obs.shape[0])
    padded_obs = obs.new_zeros((k, obs.shape[1]))
    padded_obs[:n] = obs
    padded_mask = mask.new_zeros((k, mask.shape[1]))
    padded_mask[:n] = mask
    logits, value = net(padded_obs, padded_mask)
    return mask_logits(logits[:n], mask), value[:n]


class DensePath:
    """The training path of a network without one of its own: ``forward`` on dense rows (:func:`forward_rows`)."""

    def __init__(self, net: nn.Module):
        self.net = net

    def begin(self) -> None:
        """Called once at the start of each rollout (the weights do not change during one)."""

    def buffer_rows(self, buf, start: int, k: int, nonzeros) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values of the rollout buffer's rows ``start .. start + k`` (``nonzeros``: those rows'
        non-zero entries, as ``buf.add_observations`` returned them; a path may use them instead of dense rows)."""
        return forward_rows(self.net, torch.from_numpy(buf.observations(start, start + k)),
                            torch.from_numpy(buf.mask[start:start + k]))

    def values(self, obs: torch.Tensor) -> torch.Tensor:
        """Values of a dense batch, row-invariant as :meth:`buffer_rows`."""
        return forward_rows(self.net, obs, torch.ones(obs.shape[0], net_sizes(self.net)[1], dtype=torch.bool))[1]

    def batch(self, buf, n: int, device: torch.device):
        """The rollout's first ``n`` observations as the PPO update feeds them to the network (indexable with
        ``index_select(0, rows)``)."""
        return torch.from_numpy(buf.observations(0, n)).to(device)

    def dense_batch(self, obs):
        """Recorded dense observations (a numpy array) as the warm start feeds them to the network."""
        return torch.from_numpy(obs)


def training_path(net: nn.Module):
    """The network's own training path (``net.training_path()``) when it offers one, else :class:`DensePath`."""
    make = getattr(net, "training_path", None)
    return make() if callable(make) else DensePath(net)


__all__ = ["BUILTIN_NETWORKS", "network_class", "network_spec", "build_network", "build_net", "check_shapes",
           "is_factored", "net_sizes",
           "mask_logits", "forward_rows", "DensePath", "training_path"]
