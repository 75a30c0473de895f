"""Shared helpers of the env tests: positions as GameStates, segment access."""

from __future__ import annotations

from belote_env.observation import SEGMENTS
from belote_env.rules import DealState, GameState, parse_action
from belote_env.variants import load_variant, variant_names

VARIANTS = tuple(variant_names())


def game_at(variant, hands, moves="", dealer=0, turnup=None, stock=None, scores=(0, 0), garde=0) -> GameState:
    """A GameState whose current deal is built from text hands and a comma-separated move list."""
    deal = DealState.from_hands(variant, dealer, hands, turnup, stock, garde)
    for m in (m for m in moves.split(",") if m.strip()):
        deal.apply(parse_action(m))
    game = GameState(variant, seed=0, dealer=dealer)
    game.deal = deal
    game.dealer = dealer
    game.scores = list(scores)
    game.garde = garde
    return game


def seg(obs, name):
    """The segment ``name`` of an observation vector."""
    off, length = SEGMENTS[name]
    return obs[off:off + length]


__all__ = ["VARIANTS", "game_at", "seg", "load_variant"]
