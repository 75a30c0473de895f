"""agents.neural: sampling actions from masked policies."""

import numpy as np
import torch


def test_sample_actions_draws_the_distribution_and_only_legal_actions():
    from agents.neural import MASKED_LOGIT, policy_terms, sample_actions

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
