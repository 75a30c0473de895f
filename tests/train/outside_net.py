"""A network written outside the package, as a researcher would: it follows the protocol of
agents.neural.protocol (forward(obs, mask) -> (logits, value), config()) and nothing else. It leaves the
masking of illegal actions to the trainer and has separate policy and value towers."""

import torch
from torch import nn


class TwoTowers(nn.Module):
    def __init__(self, width: int = 16, obs_size: int = 853, num_actions: int = 112):
        super().__init__()
        self.width, self.obs_size, self.num_actions = width, obs_size, num_actions
        self.policy = nn.Sequential(nn.Linear(obs_size, width), nn.Tanh(), nn.Linear(width, num_actions))
        self.value = nn.Sequential(nn.Linear(obs_size, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor):
        return self.policy(obs), self.value(obs).squeeze(-1)

    def config(self) -> dict:
        return {"width": self.width, "obs_size": self.obs_size, "num_actions": self.num_actions}
