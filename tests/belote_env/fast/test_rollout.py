"""rollout(): whole random deals in the kernels equal play_random_deal on the rules core."""

from __future__ import annotations

import numpy as np
import pytest

from belote_env.fast import OUTCOMES, reference_rollout, rollout, rollout_deal
from belote_env.fast.streams import DealStream, mix, stream_start
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


@pytest.mark.parametrize("name", VARIANTS)
def test_counter_rollout_equals_the_rules_core_and_replays_any_deal_alone(name):
    scores, outcomes = rollout(name, 600, seed=2**64 - 5, rng="counter")
    ref_scores, ref_outcomes = reference_rollout(name, 600, seed=2**64 - 5, rng="counter")
    np.testing.assert_array_equal(scores, ref_scores)
    np.testing.assert_array_equal(outcomes, ref_outcomes)
    for k in (0, 1, 377, 599):  # deal k from its own stream, without the deals before it
        deal = rollout_deal(name, 2**64 - 5, k)
        assert list(deal.result.scores) == scores[k].tolist() and OUTCOMES.index(deal.result.outcome) == outcomes[k]
        assert deal.dealer == k % 4
    # the first deals of a prefix are the same deals
    np.testing.assert_array_equal(rollout(name, 50, seed=2**64 - 5, rng="counter")[0], scores[:50])


def test_cpython_rollout_deal_replays_after_the_deals_before_it():
    scores, _ = rollout("contree", 40, seed=9)
    assert list(rollout_deal("contree", 9, 37, rng="cpython").result.scores) == scores[37].tolist()


def test_the_counter_stream_is_the_documented_splitmix64():
    # SplitMix64 from state 0: its first outputs are the reference values of the algorithm
    state, outs = 0, []
    for _ in range(3):
        state = (state + 0x9E3779B97F4A7C15) % 2**64
        outs.append(mix(state))
    assert outs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    s = DealStream(3, 5)
    assert s.state == mix((3 * 0x9E3779B97F4A7C15 + 5) % 2**64) == stream_start(3, 5)
    words = [DealStream(3, 5).word() for _ in range(2)]
    assert words[0] == mix((s.state + 0x9E3779B97F4A7C15) % 2**64) >> 32 and words[0] == words[1]
    counts = np.bincount([s.below(7) for _ in range(7000)], minlength=7)
    assert counts.shape == (7,) and counts.min() > 850  # uniform enough over 0..6
    deck = list(range(32))
    s.shuffle(deck)
    assert sorted(deck) == list(range(32)) and deck != list(range(32))


def test_rollout_rng_arguments_are_checked():
    for bad in ("mt", None, 1):
        with pytest.raises(ValueError, match="rng must be one of"):
            rollout("coinche", 10, rng=bad)
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="0..2\\*\\*64-1"):
            rollout("coinche", 10, seed=bad, rng="counter")
    with pytest.raises(ValueError, match="k must be"):
        rollout_deal("coinche", 1, -1)
    with pytest.raises(ValueError, match="seed must be"):
        DealStream(-1)
