"""The card-set network (``--network cardset``): cards as tokens with one shared embedding.

The observation (:mod:`belote_env.observation`) is read as 32 card tokens and one context vector:

- each card's token is its own embedding (the same weights wherever the card appears) plus a projection of what
  the observer knows of it: in its hand, the turn-up, in the trick in progress by which relative seat, played by
  which relative seat, declared by which relative seat (14 bits);
- the context is every other entry of the observation (the calls, the contract, the trick's leader and winner,
  the scores...), through a small MLP, added to every token.

``depth`` blocks of self-attention between the cards of a row (``heads`` heads; none with ``heads=0``) and a
per-token MLP, each with a residual connection, then: each card token scores its own card action (actions 0..31 are the cards), and the
mean and max of the tokens with the context give the 80 call logits and the value. Rows never mix, so a row's
result does not depend on the batch beyond the products' own kernels (:mod:`agents.neural.protocol`).
"""

from __future__ import annotations

import torch
from torch import nn

from belote_env.observation import OBS_SIZE, SEGMENTS
from belote_env.rules.actions import NUM_ACTIONS, NUM_CARDS


def _card_columns() -> list[list[int]]:
    """For each of the 14 card features, the observation column of each card (``[feature][card]``)."""
    columns = [list(range(SEGMENTS["hand"][0], SEGMENTS["hand"][0] + NUM_CARDS)),
               list(range(SEGMENTS["turnup"][0], SEGMENTS["turnup"][0] + NUM_CARDS))]
    for name in ("trick", "played", "declarations"):
        start = SEGMENTS[name][0]
        columns += [list(range(start + NUM_CARDS * s, start + NUM_CARDS * (s + 1))) for s in range(4)]
    return columns


CARD_COLUMNS = _card_columns()
CARD_FEATURES = len(CARD_COLUMNS)
CONTEXT_COLUMNS = sorted(set(range(OBS_SIZE)) - {c for cols in CARD_COLUMNS for c in cols})


class _Block(nn.Module):
    """Self-attention between the cards of a row (none when ``heads`` is 0: a set network, whose tokens meet only
    through the context and the final pooling), then a per-token MLP; both residual, pre-normalised."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True) if heads else None
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.ReLU(), nn.Linear(2 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.attention is not None:
            h = self.norm1(x)
            x = x + self.attention(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class CardSetNet(nn.Module):
    """Cards as tokens; see the module docstring. ``width``: token size; ``depth``: blocks; ``heads``: attention
    heads of each block (a divisor of ``width``; 0: no attention, a set network)."""

    def __init__(self, width: int = 32, depth: int = 1, heads: int = 0):
        super().__init__()
        if width < 1 or depth < 0 or heads < 0 or (heads and width % heads):
            raise ValueError(f"width >= 1, depth >= 0 and heads 0 or dividing width, got {width}, {depth}, {heads}")
        self.width, self.depth, self.heads = int(width), int(depth), int(heads)
        self.register_buffer("card_index", torch.tensor(CARD_COLUMNS).t().contiguous(), persistent=False)
        self.register_buffer("context_index", torch.tensor(CONTEXT_COLUMNS), persistent=False)
        self.card_embedding = nn.Parameter(torch.randn(NUM_CARDS, width) * 0.1)
        self.card_features = nn.Linear(CARD_FEATURES, width)
        self.context = nn.Sequential(nn.Linear(len(CONTEXT_COLUMNS), 2 * width), nn.ReLU(), nn.Linear(2 * width, width))
        self.blocks = nn.ModuleList(_Block(width, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(width)
        self.card_logit = nn.Linear(width, 1)
        self.summary = nn.Sequential(nn.Linear(3 * width, 2 * width), nn.ReLU())
        self.call_logits = nn.Linear(2 * width, NUM_ACTIONS - NUM_CARDS)
        self.value = nn.Linear(2 * width, 1)
        nn.init.zeros_(self.call_logits.bias)
        nn.init.normal_(self.call_logits.weight, std=0.01)
        nn.init.normal_(self.card_logit.weight, std=0.01)

    def config(self) -> dict:
        return {"width": self.width, "depth": self.depth, "heads": self.heads}

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = obs[:, self.card_index]                                  # [B, 32, 14]
        context = self.context(obs.index_select(1, self.context_index))     # [B, width]
        x = self.card_embedding + self.card_features(features) + context[:, None, :]
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        card_logits = self.card_logit(x).squeeze(-1)                        # [B, 32]: each card its own action
        summary = self.summary(torch.cat([x.mean(1), x.amax(1), context], dim=1))
        logits = torch.cat([card_logits, self.call_logits(summary)], dim=1)
        return logits, self.value(summary).squeeze(-1)


__all__ = ["CardSetNet", "CARD_COLUMNS", "CONTEXT_COLUMNS"]
