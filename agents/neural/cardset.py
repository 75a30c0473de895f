"""The card-set networks: cards as tokens with one shared embedding.

The observation (:mod:`belote_env.observation`) is read as 32 card tokens and one context vector. What the
observer knows of each card is 14 bits (:data:`CARD_COLUMNS`): in its hand, the turn-up, in the trick in progress
by which relative seat, played by which relative seat, declared by which relative seat; the context is every other
entry of the observation (the calls, the contract, the trick's leader and winner, the scores...).

:class:`CardSetNet` (``--network cardset``) gives each card token one hidden layer of ``hidden`` units whose input
is a sum of terms, each computed where it is cheapest: the card's own (its embedding, the same weights wherever the
card appears), the card's 14 bits, its suit's (the 8 cards x 14 bits of the suit and whether the suit is the
contract's trump, one linear map shared by the four suits, so that a card knows which higher cards of its suit are
in hand, in the trick or gone) and the row's (the context, through its own layer). No product of width x width
runs per token, so that a training step costs it about 1.3 times the MLP's. Each card token scores its own card
action (actions 0..31 are the cards); the mean of each suit's tokens (in suit order, so that a call can tell which
suit holds the strength) and the context, layer-normalised, give the 80 call logits and the value.

:class:`CardBlockNet` (``--network cardset_blocks``) is the earlier design: the context added to each token, then
``depth`` residual blocks of self-attention between the cards (``heads`` heads; none with ``heads=0``) and a
per-token MLP that can read its suit's and the deal's mean token (``suit_pooling``). About three times the
update's cost of ``cardset`` for less fitted in the same time (docs/training.md).

In both, rows never mix, so a row's result does not depend on the batch beyond the products' own kernels
(:mod:`agents.neural.protocol`).
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
# The card columns are three runs of the observation: hand and turn-up, the trick, played and declarations.
_CARD_RUNS = ((SEGMENTS["hand"][0], 2), (SEGMENTS["trick"][0], 4), (SEGMENTS["played"][0], 8))
_STRAIN = SEGMENTS["contract_strain"][0]  # strains S H D C NT AT: the first four are the suits, in card order


def card_planes(obs: torch.Tensor) -> torch.Tensor:
    """The 14 card features of a batch as planes, ``[B, 14, 32]``: ``card_planes(obs)[:, f, c]`` is
    ``obs[:, CARD_COLUMNS[f][c]]``."""
    b = obs.shape[0]
    return torch.cat([obs[:, start:start + NUM_CARDS * n].view(b, n, NUM_CARDS) for start, n in _CARD_RUNS], 1)


def suit_means(x: torch.Tensor) -> torch.Tensor:
    """The mean of each suit's tokens, ``[B, 4, width]`` (card ``suit * 8 + rank``, :mod:`belote_env.rules.cards`):
    their sum times 1/8, the same values as ``mean`` with a cheaper backward."""
    return x.view(x.shape[0], 4, 8, x.shape[2]).sum(2) * 0.125


class _Block(nn.Module):
    """Self-attention between the cards of a row (none when ``heads`` is 0), then a per-token MLP that also reads
    its suit's and the deal's mean token when ``suit_pooling``; both residual, pre-normalised. Without attention
    nor pooling, tokens meet only through the context and the final summary."""

    def __init__(self, width: int, heads: int, suit_pooling: bool):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True) if heads else None
        self.suit = nn.Linear(width, width, bias=False) if suit_pooling else None
        self.deal = nn.Linear(width, width, bias=False) if suit_pooling else None
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.ReLU(), nn.Linear(2 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.attention is not None:
            h = self.norm1(x)
            x = x + self.attention(h, h, h, need_weights=False)[0]
        h = self.norm2(x)
        if self.suit is not None:
            b, _, width = h.shape
            suits = suit_means(h)                                               # [B, 4, width]
            pooled = self.suit(suits)[:, :, None, :] + self.deal(suits.mean(1))[:, None, None, :]
            h = (h.view(b, 4, 8, width) + pooled).view(b, NUM_CARDS, width)
        return x + self.mlp(h)


def _add_heads(net: nn.Module, summary: int) -> None:
    """The 80 call logits and the value, read from a summary of ``summary`` units; the call logits and the card
    logit (``net.card_logit``) start small."""
    net.call_logits = nn.Linear(summary, NUM_ACTIONS - NUM_CARDS)
    net.value = nn.Linear(summary, 1)
    nn.init.zeros_(net.call_logits.bias)
    nn.init.normal_(net.call_logits.weight, std=0.01)
    nn.init.normal_(net.card_logit.weight, std=0.01)


class CardSetNet(nn.Module):
    """Cards as tokens, one hidden layer each, its input summed from per-card, per-suit and per-row terms; see the
    module docstring. ``hidden``: units of a card token; ``width``: the context's and the summary's size (twice
    ``width`` each)."""

    def __init__(self, width: int = 32, hidden: int = 32):
        super().__init__()
        if width < 1 or hidden < 1:
            raise ValueError(f"width >= 1 and hidden >= 1, got {width}, {hidden}")
        self.width, self.hidden = int(width), int(hidden)
        self.register_buffer("context_index", torch.tensor(CONTEXT_COLUMNS), persistent=False)
        self.card_embedding = nn.Parameter(torch.randn(NUM_CARDS, hidden) * 0.1)
        self.card_features = nn.Linear(CARD_FEATURES, hidden, bias=False)
        self.suit_features = nn.Linear(CARD_FEATURES * 8 + 1, hidden, bias=False)
        self.context = nn.Sequential(nn.Linear(len(CONTEXT_COLUMNS), 2 * width), nn.ReLU())
        self.context_token = nn.Linear(2 * width, hidden)
        self.card_logit = nn.Linear(hidden, 1)
        summary = 4 * hidden + 2 * width  # each suit's mean token, the context
        self.summary = nn.Sequential(nn.LayerNorm(summary), nn.Linear(summary, 2 * width), nn.ReLU())
        _add_heads(self, 2 * width)

    def config(self) -> dict:
        return {"width": self.width, "hidden": self.hidden}

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, hidden = obs.shape[0], self.hidden
        planes = card_planes(obs)                                                      # [B, 14, 32]
        suits = torch.cat([planes.view(b, CARD_FEATURES, 4, 8).transpose(1, 2).reshape(b, 4, CARD_FEATURES * 8),
                           obs[:, _STRAIN:_STRAIN + 4, None]], 2)                      # [B, 4, 113]: trump or not
        context = self.context(obs.index_select(1, self.context_index))                # [B, 2 width]
        per_suit = self.suit_features(suits) + self.context_token(context)[:, None, :]  # [B, 4, hidden]
        tokens = self.card_features(planes.transpose(1, 2)).view(b, 4, 8, hidden) + per_suit[:, :, None, :]
        h = torch.relu(tokens.view(b, NUM_CARDS, hidden) + self.card_embedding)      # [B, 32, hidden]
        card_logits = self.card_logit(h).squeeze(-1)                                   # each card its own action
        summary = self.summary(torch.cat([suit_means(h).flatten(1), context], 1))  # each suit's mean, the context
        return torch.cat([card_logits, self.call_logits(summary)], 1), self.value(summary).squeeze(-1)


class CardBlockNet(nn.Module):
    """Cards as tokens through residual blocks; see the module docstring. ``width``: token size; ``depth``:
    blocks; ``heads``: attention heads of each block (a divisor of ``width``; 0: no attention, a set network);
    ``suit_pooling``: each block's tokens read their suit's and the deal's mean token, and the summary keeps each
    suit's mean apart (False: tokens meet only at the summary, through one mean over all 32)."""

    def __init__(self, width: int = 32, depth: int = 1, heads: int = 0, suit_pooling: bool = True):
        super().__init__()
        if width < 1 or depth < 0 or heads < 0 or (heads and width % heads):
            raise ValueError(f"width >= 1, depth >= 0 and heads 0 or dividing width, got {width}, {depth}, {heads}")
        self.width, self.depth, self.heads, self.suit_pooling = int(width), int(depth), int(heads), bool(suit_pooling)
        self.register_buffer("card_index", torch.tensor(CARD_COLUMNS).t().contiguous(), persistent=False)
        self.register_buffer("context_index", torch.tensor(CONTEXT_COLUMNS), persistent=False)
        self.card_embedding = nn.Parameter(torch.randn(NUM_CARDS, width) * 0.1)
        self.card_features = nn.Linear(CARD_FEATURES, width)
        self.context = nn.Sequential(nn.Linear(len(CONTEXT_COLUMNS), 2 * width), nn.ReLU(), nn.Linear(2 * width, width))
        self.blocks = nn.ModuleList(_Block(width, heads, self.suit_pooling) for _ in range(depth))
        self.norm = nn.LayerNorm(width)
        self.card_logit = nn.Linear(width, 1)
        self.summary = nn.Sequential(nn.Linear((6 if self.suit_pooling else 3) * width, 2 * width), nn.ReLU())
        _add_heads(self, 2 * width)

    def config(self) -> dict:
        return {"width": self.width, "depth": self.depth, "heads": self.heads, "suit_pooling": self.suit_pooling}

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = obs[:, self.card_index]                                  # [B, 32, 14]
        context = self.context(obs.index_select(1, self.context_index))     # [B, width]
        x = self.card_embedding + self.card_features(features) + context[:, None, :]
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        card_logits = self.card_logit(x).squeeze(-1)                        # [B, 32]: each card its own action
        pooled = suit_means(x).flatten(1) if self.suit_pooling else x.mean(1)  # [B, 4 * width] or [B, width]
        summary = self.summary(torch.cat([pooled, x.amax(1), context], dim=1))
        logits = torch.cat([card_logits, self.call_logits(summary)], dim=1)
        return logits, self.value(summary).squeeze(-1)


__all__ = ["CardSetNet", "CardBlockNet", "CARD_COLUMNS", "CONTEXT_COLUMNS", "card_planes"]
