"""Centralised critic for ``train.py --central-critic``: a value network that also sees the hidden hands.

Perfect-information training, imperfect-information execution (as PerfectDou
for DouDizhu): during training the advantages come from a :class:`CentralCritic`
that reads the acting seat's observation plus the cards the three other seats
hold now (:func:`hidden_features`, from the engine's state); the policy network
(:class:`agents.neural.PolicyValueNet`) reads the observation alone, and it is
the only network an agent, an evaluation or an export ever loads (the
checkpoint's ``model``; the critic is stored beside it under ``critic`` for
``--resume`` only). The policy network's own value head is still fitted to the
same returns (an auxiliary loss, so that the trunk is shaped as in a run
without the option and an exported network's value stays meaningful).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.neural.network import layer, mlp
from agents.neural.sparse import SparseObs, sparse_input_linear

#: 32 card bits of each other seat's hand: seat+1 (left), seat+2 (partner), seat+3 (right), in that order
HIDDEN_SIZE = 96
_OTHERS = np.array([1, 2, 3], dtype=np.int64)
_BITS = np.arange(32, dtype=np.int64)


def hand_bits(hands: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """float32[k, 96]: for each row, the card masks ``hands[j, (seats[j] + i) & 3]`` (i = 1, 2, 3) as 32 bits each
    (bit ``c`` = card id ``c``, the encoding of the observation's own hand)."""
    seats = np.asarray(seats, dtype=np.int64).reshape(-1, 1)
    others = np.take_along_axis(np.asarray(hands, dtype=np.int64), (seats + _OTHERS) & 3, axis=1)
    return ((others[:, :, None] >> _BITS) & 1).astype(np.float32).reshape(len(seats), HIDDEN_SIZE)


def hidden_features(venv, tables, seats) -> np.ndarray:
    """float32[k, 96]: what seat ``seats[j]`` cannot see at table ``tables[j]`` of ``venv``: the other seats' hands."""
    return hand_bits(venv.hands(tables), seats)


class CentralCritic(nn.Module):
    """MLP (observation + :data:`HIDDEN_SIZE` hidden-hand bits) -> value; ``config()`` rebuilds it."""

    def __init__(self, obs_size: int, hidden_sizes=(256, 256), activation: str = "relu", extra_size: int = HIDDEN_SIZE):
        super().__init__()
        self.obs_size, self.extra_size = int(obs_size), int(extra_size)
        self.hidden_sizes, self.activation = [int(h) for h in hidden_sizes], activation
        self.trunk = nn.Sequential(*mlp(self.obs_size + self.extra_size, self.hidden_sizes, activation),
                                   layer(self.hidden_sizes[-1], 1, 1.0))

    def config(self) -> dict:
        return {"obs_size": self.obs_size, "hidden_sizes": list(self.hidden_sizes), "activation": self.activation,
                "extra_size": self.extra_size}

    def forward(self, obs, hidden: torch.Tensor) -> torch.Tensor:
        """Values of a batch: ``obs`` a dense tensor or a :class:`~agents.neural.sparse.SparseObs` (the first
        layer then runs on the non-zero entries of the observation and of the hidden bits)."""
        if isinstance(obs, SparseObs):
            x = obs.with_columns(hidden, self.obs_size)
            return self.trunk[1:](sparse_input_linear(x, self.trunk[0])).squeeze(-1)
        return self.trunk(torch.cat([obs, hidden], dim=1)).squeeze(-1)


def critic_state(critic: CentralCritic) -> dict:
    """The checkpoint entry of a critic (config and weights)."""
    return {"config": critic.config(), "model": critic.state_dict()}


def load_critic(entry: dict) -> CentralCritic:
    critic = CentralCritic(**entry["config"])
    critic.load_state_dict(entry["model"])
    return critic
