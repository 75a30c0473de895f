"""agents.neural: sampling actions from masked policies."""

import numpy as np
import pytest
import torch


def test_sample_actions_draws_the_distribution_and_only_legal_actions():
    from agents.neural.network import MASKED_LOGIT
    from agents.neural.sampling import policy_terms, sample_actions

    logits = torch.full((4000, 6), MASKED_LOGIT)
    logits[:, 1] = 0.0
    logits[:, 3] = np.log(3.0)
    logits[:2000, 5] = 0.0  # rows 0..1999: probabilities 1/5, 3/5, 1/5
    _, probs = policy_terms(logits)
    g = torch.Generator().manual_seed(0)
    a = sample_actions(probs, g)
    assert set(a.tolist()) <= {1, 3, 5} and not (a[2000:] == 5).any()
    assert abs((a[2000:] == 3).float().mean().item() - 0.75) < 0.04
    assert abs((a[:2000] == 5).float().mean().item() - 0.2) < 0.04
    assert torch.equal(a, sample_actions(probs, torch.Generator().manual_seed(0)))  # seeded: reproducible
    one = torch.zeros(3, 5)
    one[:, 4] = 1.0
    assert sample_actions(one).tolist() == [4, 4, 4]


def _inverse_cdf_in_torch(probs, u):
    """sample_actions as it was written in torch ops until 2026-12-01: the numba pass must draw the same actions."""
    cdf = probs.double().cumsum(-1)
    action = (cdf <= torch.as_tensor(u, dtype=torch.float64)[:, None] * cdf[..., -1:]).sum(-1)
    last = probs.shape[-1] - 1 - (probs.flip(-1) > 0).to(torch.int64).argmax(-1)
    return torch.minimum(action, last)


def test_sample_actions_is_the_torch_inverse_cdf_action_for_action():
    from agents.neural.network import MASKED_LOGIT
    from agents.neural.sampling import policy_terms, sample_actions

    rng = np.random.default_rng(0)
    for trial in range(60):
        logits = torch.from_numpy(rng.normal(size=(128, 112)).astype(np.float32) * rng.uniform(0.1, 8))
        mask = torch.from_numpy(rng.random((128, 112)) < rng.uniform(0.02, 1))
        mask[torch.arange(128), torch.from_numpy(rng.integers(0, 112, 128))] = True
        _, probs = policy_terms(torch.where(mask, logits, torch.tensor(MASKED_LOGIT)))
        u = rng.random(128)
        u[:4] = [0.0, np.nextafter(1.0, 0.0), 0.5, 1e-300]
        assert torch.equal(sample_actions(probs, u=u), _inverse_cdf_in_torch(probs, u)), trial
    for dtype in (torch.float64, torch.float16, torch.bfloat16):
        assert torch.equal(sample_actions(probs.to(dtype), u=u), _inverse_cdf_in_torch(probs.to(dtype), u)), dtype
    batch = probs.reshape(4, 32, 112)  # any leading shape, one number per row
    assert sample_actions(batch, u=u.reshape(4, 32)).shape == (4, 32)
    with pytest.raises(ValueError, match="one uniform number per row"):
        sample_actions(probs, u=u[:5])


def test_sample_rows_writes_sample_actions_draws_and_their_log_probabilities():
    from agents.neural.network import MASKED_LOGIT
    from agents.neural.sampling import policy_terms, sample_actions, sample_rows

    rng = np.random.default_rng(1)
    logits = torch.from_numpy(rng.normal(size=(100, 112)).astype(np.float32) * 3)
    mask = torch.from_numpy(rng.random((100, 112)) < 0.2)
    mask[:, 7] = True
    logp, probs = policy_terms(torch.where(mask, logits, MASKED_LOGIT))
    u = rng.random(100)
    actions, chosen = np.full(100, -1, dtype=np.int64), np.zeros(100, dtype=np.float32)
    sample_rows(probs.numpy(), logp.numpy(), u, actions, chosen)
    assert np.array_equal(actions, sample_actions(probs, u=u).numpy())
    assert np.array_equal(chosen, logp.numpy()[np.arange(100), actions])
    with pytest.raises(ValueError, match="sample_rows"):
        sample_rows(probs.numpy(), logp.numpy(), u[:5], actions, chosen)
