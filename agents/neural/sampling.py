"""Choosing actions from the policy's logits: :func:`policy_terms` (log-probabilities and probabilities of
masked logits) and :func:`sample_actions` / :func:`sample_rows` (one action per row by inverting the cumulative
distribution with one uniform number per row, in numba)."""

from __future__ import annotations

import numba
import numpy as np
import torch

from belote_env.numba_cache import heal_damaged_files

heal_damaged_files()  # a damaged cache file of the kernels below is compiled again, not fatal


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
    (float64 in [0, 1), one per row, e.g. ``agents.counter_rng.uniforms``) instead of draws from ``generator``.

    The action is the number of entries of the row's float64 cumulative sums ``cdf`` (summed in order) that are
    at most ``u * cdf[-1]``; when ``u * cdf[-1]`` rounds to ``cdf[-1]`` (probability about 2**-53), the last
    action of positive probability. One numba pass per row (:func:`_inverse_cdf`). (``torch.multinomial``
    draws the same distribution but spends one exponential variate per action, 112 per row.)"""
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
    (its entry of ``logp``, the rows of :func:`policy_terms`) into ``logp_out``: ``agents.training.ppo.collect``'s draws,
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
