"""The learner's side of training: :class:`Learner` (the networks that learn on a device and their CPU copies
that play) and :func:`adam`, the optimiser of the PPO update and the behaviour-cloning warm start."""

from __future__ import annotations

import copy

import torch
from torch import nn

from agents.neural.network import PolicyValueNet


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

    def from_players(self) -> None:
        """The CPU copies' weights into the learner's networks (after the copies were fitted apart, as by an expert
        step mid-run); nothing on the CPU."""
        for play, learn in self._apart():
            learn.load_state_dict({k: v.to(self.device) for k, v in play.state_dict().items()})

    def sync(self) -> None:
        """The learner's weights into the CPU copies (nothing on the CPU: they are the same networks)."""
        for play, learn in self._apart():
            play.load_state_dict({k: v.detach().cpu() for k, v in learn.state_dict().items()})
            play.eval()

    def _apart(self) -> list:
        """(CPU copy, learning network) of each network whose copy is a separate module."""
        return [(play, learn) for play, learn in ((self.play_net, self.net), (self.play_critic, self.critic))
                if play is not None and play is not learn]


def adam(params, lr: float, eps: float = 1e-8) -> torch.optim.Adam:
    """Adam over a module's parameters (or an iterable of parameters), fused: one kernel for all of them,
    measured faster for the PPO update on one CPU core than the default per-parameter loop; same algorithm."""
    if isinstance(params, nn.Module):
        params = params.parameters()
    return torch.optim.Adam(params, lr=lr, eps=eps, fused=True)
