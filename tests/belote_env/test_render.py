"""The table as a JSON-ready dict (belote_env.render.table_view), what the web app draws."""

import json
import random

from belote_env.render import table_view
from belote_env.rules.game import GameState
from belote_env.rules.record import result_fields
from belote_env.variants import load_variant, variant_names


def test_table_view_shows_what_a_seat_sees_along_random_deals():
    for name in variant_names():
        game = GameState(load_variant(name), seed=7)
        rng = random.Random(name)
        deal = game.deal
        while True:
            seat = deal.seat
            for viewer in (None, 0, 1, 2, 3):
                view = table_view(deal, viewer, game)
                json.dumps(view, allow_nan=False)
                assert [h is not None for h in view["hands"]] == [viewer in (None, s) for s in range(4)]
                assert view["counts"] == [deal.hands[s].bit_count() for s in range(4)]
                mine = viewer is None or viewer == seat
                assert [m["id"] for m in view["legal"]] == (deal.legal_actions() if mine else [])
            assert view["to_act"] == seat and view["phase"] == str(deal.phase)
            game.apply(rng.choice(deal.legal_actions()))
            if deal.phase == "done":
                break
        view = table_view(deal, None, game)
        assert view["to_act"] == -1 and not view["legal"]
        assert view["result"]["scores"] == result_fields(deal)["scores"]
        assert view["game"]["scores"] == game.scores and view["variant"] == name
        if deal.contract is not None:
            assert len(view["last_trick"]["cards"]) == 4 and sum(view["tricks_won"]) == 8
