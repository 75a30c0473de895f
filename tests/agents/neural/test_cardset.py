"""The card-set network (--network cardset): it follows the protocol, reads every card column of the
observation once, scores each card action with that card's own token, and a row's result does not depend on the
rows it comes with."""

import torch

from agents.neural.cardset import CARD_COLUMNS, CONTEXT_COLUMNS, CardSetNet
from agents.neural.protocol import build_net, build_network, check_shapes, forward_rows, network_spec
from belote_env.observation import OBS_SIZE, SEGMENTS


def test_it_follows_the_protocol_and_rebuilds_from_its_config():
    torch.manual_seed(0)
    net = build_network("cardset", {"width": 32, "depth": 2, "heads": 4})
    check_shapes(net, "cardset")
    assert network_spec(net) == "cardset" and net.config() == {"width": 32, "depth": 2, "heads": 4}
    again = build_net({"network": "cardset", "model_config": net.config(), "model": net.state_dict()})
    obs, mask = torch.rand(3, OBS_SIZE), torch.ones(3, 112, dtype=torch.bool)
    with torch.no_grad():
        assert all(torch.equal(a, b) for a, b in zip(net(obs, mask), again(obs, mask)))


def test_the_columns_cover_the_observation_once():
    card = [c for cols in CARD_COLUMNS for c in cols]
    assert len(card) == len(set(card)) == 14 * 32 and not set(card) & set(CONTEXT_COLUMNS)
    assert sorted(card + CONTEXT_COLUMNS) == list(range(OBS_SIZE))
    assert CARD_COLUMNS[0] == list(range(*[SEGMENTS["hand"][0], SEGMENTS["hand"][0] + 32]))


def test_a_card_changes_only_through_its_own_token():
    """Swapping two cards' columns in the observation swaps their logits when the network sees no context
    difference: the same weights serve every card (the embedding aside, which is what tells cards apart)."""
    torch.manual_seed(1)
    net = CardSetNet(width=16, depth=1, heads=2).eval()
    with torch.no_grad():
        net.card_embedding.zero_()  # cards told apart only by what is known of them
        obs = torch.zeros(1, OBS_SIZE)
        obs[0, SEGMENTS["hand"][0] + 3] = 1.0  # card 3 in hand, card 9 played by the partner
        obs[0, SEGMENTS["played"][0] + 2 * 32 + 9] = 1.0
        swapped = torch.zeros(1, OBS_SIZE)
        swapped[0, SEGMENTS["hand"][0] + 9] = 1.0
        swapped[0, SEGMENTS["played"][0] + 2 * 32 + 3] = 1.0
        mask = torch.ones(1, 112, dtype=torch.bool)
        a, b = net(obs, mask)[0][0], net(swapped, mask)[0][0]
    torch.testing.assert_close(a[[3, 9]], b[[9, 3]])
    torch.testing.assert_close(a[32:], b[32:])


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
