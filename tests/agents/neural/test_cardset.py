"""The card-set network (--network cardset): it follows the protocol, reads every card column of the
observation once, scores each card action with that card's own token, lets a card see its suit through the
pooling, and a row's result does not depend on the rows it comes with."""

import pytest
import torch

from agents.neural.cardset import CARD_COLUMNS, CONTEXT_COLUMNS, CardSetNet
from agents.neural.protocol import build_net, build_network, check_shapes, forward_rows, network_spec
from belote_env.observation import OBS_SIZE, SEGMENTS


def test_it_follows_the_protocol_and_rebuilds_from_its_config():
    torch.manual_seed(0)
    net = build_network("cardset", {"width": 32, "depth": 2, "heads": 4})
    check_shapes(net, "cardset")
    assert network_spec(net) == "cardset"
    assert net.config() == {"width": 32, "depth": 2, "heads": 4, "suit_pooling": True}
    again = build_net({"network": "cardset", "model_config": net.config(), "model": net.state_dict()})
    obs, mask = torch.rand(3, OBS_SIZE), torch.ones(3, 112, dtype=torch.bool)
    with torch.no_grad():
        assert all(torch.equal(a, b) for a, b in zip(net(obs, mask), again(obs, mask)))


def test_the_columns_cover_the_observation_once():
    card = [c for cols in CARD_COLUMNS for c in cols]
    assert len(card) == len(set(card)) == 14 * 32 and not set(card) & set(CONTEXT_COLUMNS)
    assert sorted(card + CONTEXT_COLUMNS) == list(range(OBS_SIZE))
    assert CARD_COLUMNS[0] == list(range(*[SEGMENTS["hand"][0], SEGMENTS["hand"][0] + 32]))


def _hand_and_played(in_hand: int, played: int) -> torch.Tensor:
    """An observation with one card in hand and one played by the partner (relative seat 2)."""
    obs = torch.zeros(1, OBS_SIZE)
    obs[0, SEGMENTS["hand"][0] + in_hand] = 1.0
    obs[0, SEGMENTS["played"][0] + 2 * 32 + played] = 1.0
    return obs


@pytest.mark.parametrize("suit_pooling", [True, False])
def test_a_card_changes_only_through_its_own_token(suit_pooling):
    """Swapping two cards of one suit in the observation swaps their logits and leaves the calls as they are:
    the same weights serve every card (the embedding aside, which is what tells cards apart)."""
    torch.manual_seed(1)
    net = CardSetNet(width=16, depth=1, heads=2, suit_pooling=suit_pooling).eval()
    mask = torch.ones(1, 112, dtype=torch.bool)
    with torch.no_grad():
        net.card_embedding.zero_()  # cards told apart only by what is known of them
        a, b = net(_hand_and_played(3, 5), mask)[0][0], net(_hand_and_played(5, 3), mask)[0][0]
    torch.testing.assert_close(a[[3, 5]], b[[5, 3]])
    torch.testing.assert_close(a[32:], b[32:])


def test_a_card_sees_its_suit_through_the_pooling():
    """Without attention, a card's logit moves when another card of its suit is played only through the suit
    pooling; a card of another suit leaves the suit's own pooled mean unchanged."""
    torch.manual_seed(3)
    mask = torch.ones(1, 112, dtype=torch.bool)
    for suit_pooling in (True, False):
        net = CardSetNet(width=16, depth=1, heads=0, suit_pooling=suit_pooling).eval()
        with torch.no_grad():
            same_suit = net(_hand_and_played(3, 5), mask)[0][0, 3] - net(_hand_and_played(3, 6), mask)[0][0, 3]
        assert (same_suit.abs() > 1e-6) == suit_pooling


def test_without_suit_pooling_it_is_the_earlier_network():
    """``suit_pooling=False`` builds the network as it was before pooling: the same parameters, drawn alike."""
    torch.manual_seed(4)
    net = CardSetNet(suit_pooling=False)
    assert sum(p.numel() for p in net.parameters()) == 45_458
    assert sum(p.numel() for p in CardSetNet().parameters()) == 53_650


def test_rows_do_not_depend_on_the_batch(one_thread):
    torch.manual_seed(2)
    net = CardSetNet(width=32, depth=1, heads=4).eval()
    obs = (torch.rand(40, OBS_SIZE) < 0.05).float()
    mask = torch.rand(40, 112) < 0.5
    mask[:, 0] = True
    with torch.no_grad():
        whole = forward_rows(net, obs, mask)
        for lo, hi in ((0, 1), (1, 9), (9, 40)):
            part = forward_rows(net, obs[lo:hi], mask[lo:hi])
            assert torch.equal(part[0], whole[0][lo:hi]) and torch.equal(part[1], whole[1][lo:hi])
