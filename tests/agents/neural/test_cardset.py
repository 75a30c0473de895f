"""The card-set networks (--network cardset, cardset_blocks): they follow the protocol, read every card column of
the observation once, score each card action with that card's own token, let a card see its suit (cardset: the
whole suit, and nothing of the other suits outside the context; cardset_blocks: through the pooling), and a row's
result does not depend on the rows it comes with."""

import pytest
import torch

from agents.errors import CheckpointError
from agents.neural.cardset import CARD_COLUMNS, CONTEXT_COLUMNS, CardBlockNet, CardSetNet, card_planes
from agents.neural.protocol import build_net, build_network, check_shapes, forward_rows, network_spec
from belote_env.observation import OBS_SIZE, SEGMENTS


@pytest.mark.parametrize("spec, config", [
    ("cardset", {"width": 24, "hidden": 16}),
    ("cardset_blocks", {"width": 32, "depth": 2, "heads": 4, "suit_pooling": True}),
])
def test_it_follows_the_protocol_and_rebuilds_from_its_config(spec, config):
    torch.manual_seed(0)
    net = build_network(spec, config)
    check_shapes(net, spec)
    assert network_spec(net) == spec
    assert net.config() == config
    again = build_net({"network": spec, "model_config": net.config(), "model": net.state_dict()})
    obs, mask = torch.rand(3, OBS_SIZE), torch.ones(3, 112, dtype=torch.bool)
    with torch.no_grad():
        assert all(torch.equal(a, b) for a, b in zip(net(obs, mask), again(obs, mask)))


def test_a_checkpoint_of_the_other_design_is_refused_by_name():
    net = CardBlockNet()
    with pytest.raises(CheckpointError, match="old.pt: network 'cardset' cannot be built from"):
        build_net({"network": "cardset", "model_config": net.config(), "model": net.state_dict()}, "old.pt")


def test_the_card_planes_are_the_card_columns():
    obs = (torch.rand(5, OBS_SIZE) < 0.3).float()
    assert torch.equal(card_planes(obs), obs[:, torch.tensor(CARD_COLUMNS)])


def _with_cards(*columns: tuple[str, int, int]) -> torch.Tensor:
    """An observation with the given (segment, relative seat, card) bits set."""
    obs = torch.zeros(1, OBS_SIZE)
    for segment, seat, card in columns:
        obs[0, SEGMENTS[segment][0] + 32 * seat + card] = 1.0
    return obs


def _hand_and_played(in_hand: int, played: int) -> torch.Tensor:
    """An observation with one card in hand and one played by the partner (relative seat 2)."""
    return _with_cards(("hand", 0, in_hand), ("played", 2, played))


def test_the_four_suits_share_their_weights():
    """With the card embedding at zero (what tells cards apart), exchanging two suits of a deal in play exchanges
    their cards' logits: one map serves every suit (with no contract, so that the context is the same)."""
    torch.manual_seed(5)
    net = CardSetNet(width=16, hidden=16).eval()
    mask = torch.ones(1, 112, dtype=torch.bool)
    spades = [("hand", 0, 0), ("hand", 0, 5), ("played", 1, 3), ("trick", 2, 7)]
    hearts = [(segment, seat, card + 8) for segment, seat, card in spades]
    others = [("hand", 0, 17), ("played", 3, 28), ("declarations", 1, 30)]
    with torch.no_grad():
        net.card_embedding.zero_()
        a = net(_with_cards(*spades, *others), mask)[0][0]
        b = net(_with_cards(*hearts, *others), mask)[0][0]
    torch.testing.assert_close(a[list(range(8, 16)) + list(range(8)) + list(range(16, 32))], b[:32])


def test_a_card_reads_its_whole_suit_and_the_other_suits_only_through_the_context():
    """Which card of its suit the partner played moves a card's logit; which card of another suit was played
    changes nothing of it (the context is the same: played cards are card bits)."""
    torch.manual_seed(6)
    net = CardSetNet().eval()
    mask = torch.ones(1, 112, dtype=torch.bool)
    with torch.no_grad():
        logit = [net(_hand_and_played(3, card), mask)[0][0, 3] for card in (5, 6, 13, 14)]
    assert (logit[0] - logit[1]).abs() > 1e-6
    assert torch.equal(logit[2], logit[3])


def test_its_size():
    assert sum(p.numel() for p in CardSetNet().parameters()) == 51_186


def test_the_columns_cover_the_observation_once():
    card = [c for cols in CARD_COLUMNS for c in cols]
    assert len(card) == len(set(card)) == 14 * 32 and not set(card) & set(CONTEXT_COLUMNS)
    assert sorted(card + CONTEXT_COLUMNS) == list(range(OBS_SIZE))
    assert CARD_COLUMNS[0] == list(range(*[SEGMENTS["hand"][0], SEGMENTS["hand"][0] + 32]))


@pytest.mark.parametrize("suit_pooling", [True, False])
def test_a_card_changes_only_through_its_own_token(suit_pooling):
    """Swapping two cards of one suit in the observation swaps their logits and leaves the calls as they are:
    the same weights serve every card (the embedding aside, which is what tells cards apart)."""
    torch.manual_seed(1)
    net = CardBlockNet(width=16, depth=1, heads=2, suit_pooling=suit_pooling).eval()
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
        net = CardBlockNet(width=16, depth=1, heads=0, suit_pooling=suit_pooling).eval()
        with torch.no_grad():
            same_suit = net(_hand_and_played(3, 5), mask)[0][0, 3] - net(_hand_and_played(3, 6), mask)[0][0, 3]
        assert (same_suit.abs() > 1e-6) == suit_pooling


def test_without_suit_pooling_it_is_the_earlier_network():
    """``suit_pooling=False`` builds the network as it was before pooling: the same parameters, drawn alike."""
    torch.manual_seed(4)
    net = CardBlockNet(suit_pooling=False)
    assert sum(p.numel() for p in net.parameters()) == 45_458
    assert sum(p.numel() for p in CardBlockNet().parameters()) == 53_650


@pytest.mark.parametrize("make", [lambda: CardSetNet(), lambda: CardBlockNet(width=32, depth=1, heads=4)])
def test_rows_do_not_depend_on_the_batch(one_thread, make):
    torch.manual_seed(2)
    net = make().eval()
    obs = (torch.rand(40, OBS_SIZE) < 0.05).float()
    mask = torch.rand(40, 112) < 0.5
    mask[:, 0] = True
    with torch.no_grad():
        whole = forward_rows(net, obs, mask)
        for lo, hi in ((0, 1), (1, 9), (9, 40)):
            part = forward_rows(net, obs[lo:hi], mask[lo:hi])
            assert torch.equal(part[0], whole[0][lo:hi]) and torch.equal(part[1], whole[1][lo:hi])
