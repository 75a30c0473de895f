"""Beliefs about the hidden hands, weighted by what the table said (issue 36, item 1: a first measure).

A seat's uniform beliefs are the deals :func:`belote_env.rules.sampling.sample_deal` draws: every deal consistent
with its information (own cards, cards played, voids and trump obligations shown, belote, declarations) equally
likely. Calls and the choice of cards say more: a seat that bid 100 hearts probably holds hearts. Here a policy
(a neural agent: the shipped ``ppo_coinche``...) is the model of the other seats' play, and a drawn world is
weighted by the probability the policy gives every action the other seats took in it, each seen from that seat's
own observation in that world::

    log w(world) = sum over the other seats' past actions a of  log pi(a | that seat's observation in world)

(importance weights over uniform draws: the posterior of the world under "the others play as the policy does").
:func:`weighted_worlds` draws and weighs; :func:`holder_probabilities` turns worlds and weights into the
probability of each seat holding each hidden card; :func:`card_log_likelihood` scores those against the true
deal, the measure ``benchmarks/bench_beliefs.py`` reports for uniform and weighted beliefs on held-out deals.
"""

from __future__ import annotations

import random

import numpy as np

from belote_env.observation import OBS_SIZE, action_mask, encode
from belote_env.rules.game import GameState
from belote_env.rules.info import InfoState
from belote_env.rules.sampling import sample_deal
from belote_env.rules.state import DealState


def others_decisions(world: DealState, seat: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Every past decision of the seats other than ``seat`` in ``world``: their observations (float32[k, 853])
    and masks (bool[k, 112]) as they were at that point of ``world``, and the actions taken."""
    game = GameState.__new__(GameState)  # a shell for encode: the deal, no game scores (deal episodes)
    game.variant, game.scores, game.garde, game.over = world.variant, [0, 0], world.garde, False
    st = world.as_dealt()
    game.deal = st
    obs, masks, actions = [], [], []
    for a in world.history:
        actor = st.seat
        if actor != seat:
            obs.append(encode(game, actor))
            masks.append(action_mask(game, actor).astype(bool))
            actions.append(a)
        st.apply(a)
    if not obs:
        return np.zeros((0, OBS_SIZE), np.float32), np.zeros((0, 112), bool), []
    return np.stack(obs), np.stack(masks), actions


def policy_log_probs(net, obs: np.ndarray, masks: np.ndarray, actions: list[int], floor: float = 1e-4) -> np.ndarray:
    """log pi(action | observation) under ``net`` (``forward(obs, mask) -> (logits, value)``), the probability
    mixed with ``floor`` times uniform over the legal actions (a policy that is sure of a move it would not
    have made must not rule a world out: the others are not this policy)."""
    from agents.neural.protocol import policy_probs

    if not len(actions):
        return np.zeros(0)
    p, _ = policy_probs(net, obs, masks)
    legal = masks.sum(axis=1)
    chosen = p[np.arange(len(actions)), np.asarray(actions)]
    return np.log((1 - floor) * chosen + floor / legal)


def weighted_worlds(info: InfoState, net, draws: int, rng: random.Random) -> tuple[list[DealState], np.ndarray]:
    """``draws`` deals consistent with ``info`` (uniform, :func:`sample_deal`) and their log weights under the
    policy ``net`` (None: all zero, the uniform beliefs)."""
    worlds = [sample_deal(info, rng) for _ in range(draws)]
    logw = np.zeros(draws)
    if net is None:
        return worlds, logw
    parts = [others_decisions(w, info.seat) for w in worlds]
    counts = [len(p[2]) for p in parts]
    if sum(counts):
        obs = np.concatenate([p[0] for p in parts])
        masks = np.concatenate([p[1] for p in parts])
        actions = [a for p in parts for a in p[2]]
        lp = policy_log_probs(net, obs, masks, actions)
        logw = np.bincount(np.repeat(np.arange(draws), counts), weights=lp, minlength=draws)
    return worlds, logw


def holder_probabilities(worlds: list[DealState], logw: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """float[32, 4]: the weighted share of worlds in which each seat held each card as dealt (turn-up deals:
    at the end of the deal's dealing, the hands of ``initial`` plus what was dealt after the take), smoothed by
    ``prior`` worlds spread evenly over the four seats."""
    w = np.exp(logw - logw.max())
    w /= w.sum()
    n = len(worlds)
    out = np.full((32, 4), prior / 4 / (n + prior))
    for weight, world in zip(w, worlds):
        held = _dealt_hands(world)
        for s in range(4):
            m = held[s]
            while m:
                c = (m & -m).bit_length() - 1
                out[c, s] += weight * n / (n + prior)
                m &= m - 1
    return out


def _dealt_hands(deal: DealState) -> list[int]:
    """Every card each seat held during the deal (its hand now plus what it played)."""
    return [deal.hands[s] | deal.played[s] for s in range(4)]


def card_log_likelihood(probs: np.ndarray, truth: DealState, info: InfoState) -> float:
    """Mean over the cards hidden from ``info``'s seat (held by another seat, not played yet) of the log
    probability ``probs`` gives its true holder."""
    held = _dealt_hands(truth)
    seen = info.hand
    for s in range(4):
        seen |= info.played[s]
    total, n = 0.0, 0
    for s in range(4):
        if s == info.seat:
            continue
        m = held[s] & ~seen
        while m:
            c = (m & -m).bit_length() - 1
            total += float(np.log(probs[c, s]))
            n += 1
            m &= m - 1
    return total / n if n else 0.0


__all__ = ["card_log_likelihood", "holder_probabilities", "others_decisions", "policy_log_probs", "weighted_worlds"]
