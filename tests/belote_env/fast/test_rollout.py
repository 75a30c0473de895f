"""rollout(): whole random deals in the kernels equal play_random_deal on the rules core."""

from __future__ import annotations

import numpy as np
import pytest

from belote_env.fast import OUTCOMES, reference_rollout, rollout

from belote_env.variants import variant_names

VARIANTS = tuple(variant_names())


@pytest.mark.parametrize("name", VARIANTS)
def test_rollout_equals_the_rules_core(name):
    scores, outcomes = rollout(name, 1500, seed=11)
    ref_scores, ref_outcomes = reference_rollout(name, 1500, seed=11)
    np.testing.assert_array_equal(scores, ref_scores)
    np.testing.assert_array_equal(outcomes, ref_outcomes)
    assert scores.shape == (1500, 2) and outcomes.dtype == np.int8
    seen = {OUTCOMES[o] for o in outcomes}
    assert {"made", "failed"} <= seen


def test_rollout_with_overrides_and_arguments():
    a = rollout("coinche", 300, seed=2, declarations=True, rules="officielles")
    b = reference_rollout("coinche", 300, seed=2, declarations=True, rules="officielles")
    np.testing.assert_array_equal(a[0], b[0])
    assert rollout("coinche", 0)[0].shape == (0, 2)
    for bad in (-1, 1.5, True, "10"):
        with pytest.raises(ValueError, match="num_deals"):
            rollout("coinche", bad)
    with pytest.raises(ValueError, match="seed"):
        rollout("coinche", 10, seed=1.5)
