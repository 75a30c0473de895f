"""Opponent pool for ``train.py``: past snapshots of the policy, played at some self-play tables.

``--pool-fraction F --pool-size N --pool-every K``: every ``K`` updates a CPU
copy of the policy network joins the pool (the oldest leaves once ``N`` are
kept); at a fraction ``F`` of the tables one team (drawn at random) is a
snapshot drawn uniformly from the pool, the other the current policy, whose
decisions alone are trained on. A snapshot acts as a :class:`NeuralAgent`
sampling from its policy (one forward pass for all its waiting tables, through
the play loop ``agents.loop``), with the random numbers of the tables it
plays at (``agents.counter_rng``) like the fixed opponents. The pool is saved in every checkpoint
(:meth:`OpponentPool.state`), so ``--resume`` continues with the same
snapshots, bit for bit.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.neural.agent import NeuralAgent
from agents.neural.protocol import build_network


class OpponentPool:
    """Up to ``size`` snapshots of a network of spec ``network`` and config ``net_config``, in a ring: slot
    ``i`` is the agent ``agents[i]``; ``updates[i]`` the update after which it was taken."""

    def __init__(self, size: int, network: str, net_config: dict):
        self.size = int(size)
        self.agents = []
        for i in range(self.size):
            net = build_network(network, net_config)
            net.eval()
            self.agents.append(NeuralAgent(net, name=f"pool:{i}", sample=True))
        self.updates: list[int] = []  # per filled slot
        self.added = 0  # snapshots taken so far (the next one goes to slot added % size)

    def __len__(self) -> int:
        return len(self.updates)

    @torch.no_grad()
    def add(self, net: nn.Module, update: int) -> int:
        """A copy of ``net``'s current weights joins the pool (replacing the oldest when full); returns its slot."""
        slot = self.added % self.size
        self.agents[slot].net.load_state_dict({k: v.detach().cpu() for k, v in net.state_dict().items()})
        if slot < len(self.updates):
            self.updates[slot] = int(update)
        else:
            self.updates.append(int(update))
        self.added += 1
        return slot

    def state(self) -> dict:
        """What a checkpoint keeps of the pool (plain ints, lists and tensors: ``weights_only`` loadable)."""
        return {"added": self.added, "updates": list(self.updates),
                "weights": [{k: v.clone() for k, v in self.agents[i].net.state_dict().items()}
                            for i in range(len(self))]}

    def load_state(self, state: dict) -> None:
        """The pool of :meth:`state` (a checkpoint's): the same slots and ring position, unless ``size``
        changed on resume after the ring wrapped (then the newest snapshots, oldest first)."""
        updates, weights, added = list(state["updates"]), list(state["weights"]), int(state["added"])
        keep = list(range(len(updates)))
        if len(updates) > self.size or (added != len(updates) and len(updates) != self.size):  # size changed:
            keep = sorted(keep, key=lambda i: (i - added) % len(updates))[-self.size:]  # oldest first, newest kept
            added = len(keep)
        self.updates = [int(updates[i]) for i in keep]
        for slot, i in enumerate(keep):
            self.agents[slot].net.load_state_dict(weights[i])
        self.added = added
