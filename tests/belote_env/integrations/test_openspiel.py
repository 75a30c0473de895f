"""OpenSpiel: every variant as ``python_belote``, checked by OpenSpiel's own random simulation test (with
serialisation), against the rules core step by step, for privacy, and with OpenSpiel's ISMCTS bot.
Skipped where OpenSpiel is not installed (it is in the README's test command: the ``dev`` extra)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from belote_env.integrations import openspiel as belote_os  # noqa: E402
from belote_env.rules.errors import IllegalActionError, NotationError  # noqa: E402
from belote_env.rules.state import DealState  # noqa: E402
from belote_env.variants import load_variant, variant_names, variant_path  # noqa: E402

FAMILIES = ("belote_classique", "coinche", "contree", "cobrecaf_81")


def random_state(game, rng, stop=lambda s: False):
    """Play chance and players uniformly from the start until the end or until ``stop(state)``."""
    state = game.new_initial_state()
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", variant_names())
def test_openspiel_random_simulation_test_passes_on_every_shipped_variant(name):
    game = pyspiel.load_game(f"python_belote(variant={name})")
    pyspiel.random_sim_test(game, num_sims=8, serialize=True, verbose=False)


@pytest.mark.parametrize("name", variant_names())
def test_openspiel_s_python_game_simulation_test_passes(name):
    # OpenSpiel's own GamesSimTest (open_spiel.python.tests): clones, pickles of the game, its type and states,
    # serialize_game_and_state round trips, utilities within the game's bounds
    from open_spiel.python.tests.games_sim_test import GamesSimTest

    GamesSimTest().sim_game(pyspiel.load_game(f"python_belote(variant={name})"))


@pytest.mark.parametrize("name", ["belote_classique", "coinche"])
def test_openspiel_random_simulation_test_passes_on_game_episodes(name):
    game = pyspiel.load_game(f"python_belote(variant={name},episode=game,switches=target:300)")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_step_agrees_with_the_rules_core(family):
    # the full check (10,000 deals per family) is benchmarks/dev/verify_openspiel.py; this is a sample of it
    assert belote_os.verify_against_rules_core(family, deals=150, seed=1) == []


def test_a_seat_sees_nothing_of_another_seat_s_hidden_cards():
    rng = random.Random(5)
    for family in FAMILIES:
        game = pyspiel.load_game(f"python_belote(variant={family})")
        for _ in range(20):
            cut = rng.randrange(1, 25)
            state = random_state(game, rng, stop=lambda s: not s.is_chance_node() and len(s.history()) > 32 + cut)
            if state.is_terminal():
                continue
            seat = state.current_player()
            other = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0., 1.))
            assert other.information_state_string(seat) == state.information_state_string(seat)
            assert other.observation_string(seat) == state.observation_string(seat)
            np.testing.assert_array_equal(other.information_state_tensor(seat), state.information_state_tensor(seat))
            np.testing.assert_array_equal(other.observation_tensor(seat), state.observation_tensor(seat))
            assert other.legal_actions() == state.legal_actions()


def test_swapping_two_hidden_cards_between_other_seats_changes_nothing_a_seat_sees():
    game = pyspiel.load_game("python_belote(variant=coinche)")
    deck = list(range(32))
    random.Random(1).shuffle(deck)
    swapped = deck[:]
    swapped[1], swapped[3] = swapped[3], swapped[1]  # seats 2 and 0 (from the dealer's left): seat 1 sees neither
    a, b = game.new_initial_state(), game.new_initial_state()
    for x, y in zip(deck, swapped):
        a.apply_action(x)
        b.apply_action(y)
    for s in (a, b):
        s.apply_action(32)  # seat 1 passes
    assert a.information_state_string(1) == b.information_state_string(1)
    np.testing.assert_array_equal(a.information_state_tensor(1), b.information_state_tensor(1))
    assert a.information_state_string(0) != b.information_state_string(0)


def test_the_state_prints_in_the_position_notation():
    game = pyspiel.load_game("python_belote(variant=belote_classique)")
    rng = random.Random(2)
    for _ in range(30):
        state = random_state(game, rng, stop=lambda s: not s.is_chance_node() and rng.random() < 0.05)
        if state.is_terminal() or state.is_chance_node():
            continue
        parsed = DealState.parse(str(state))
        assert parsed.legal_actions() == state.legal_actions()
        assert parsed.format() == str(state)


def test_parameters_and_their_errors(tmp_path):
    game = pyspiel.load_game("python_belote(variant=contree,switches=target:2000 undertrump:false,episode=game)")
    assert (game.variant.name, game.variant.target, game.variant.undertrump, game.variant.episode) == (
        "contree", 2000, False, "game")
    assert game.num_players() == 4 and game.num_distinct_actions() == 112
    assert game.observation_tensor_shape() == [853] and game.information_state_tensor_shape() == [853]
    path = tmp_path / "mine.yaml"
    path.write_text(variant_path("coinche").read_text())
    assert pyspiel.load_game(f"python_belote(variant={path})").variant.bidding == "auction"
    with pytest.raises(Exception, match="episode must be 'deal' or 'game'"):
        pyspiel.load_game("python_belote(episode=set)")
    with pytest.raises(Exception, match="key:value"):
        pyspiel.load_game("python_belote(switches=target)")
    scaled = pyspiel.load_game("python_belote(utility=score_diff)")
    assert scaled.max_utility() == pyspiel.load_game("python_belote").max_utility() / 400
    with pytest.raises(Exception, match="utility must be 'points' or 'score_diff'"):
        pyspiel.load_game("python_belote(utility=wins)")
    with pytest.raises(Exception, match="dealer must be a seat"):
        pyspiel.load_game("python_belote(dealer=4)")
    with pytest.raises(Exception, match="Unknown parameter"):
        pyspiel.load_game("python_belote(colour=red)")
    with pytest.raises((NotationError, Exception)):
        pyspiel.load_game("python_belote(variant=no_such_variant)")


@pytest.mark.parametrize("name", FAMILIES)
def test_refused_actions_and_arguments_change_nothing(name):
    """A chance outcome that is not a card still in the deck, an illegal action or any action after the end is
    refused with the project's errors, and the state is as it was (its history and each seat's view)."""
    game = pyspiel.load_game(f"python_belote(variant={name})")
    rng = random.Random(name)

    def refused(state, action, error, match):
        before = (state.history(), str(state), [state.information_state_string(p) for p in range(4)])
        with pytest.raises(error, match=match):
            state.apply_action(action)
        assert (state.history(), str(state), [state.information_state_string(p) for p in range(4)]) == before

    state = game.new_initial_state()
    refused(state, 32, belote_os.BeloteGameError, "chance outcome 32 is not a card still in the deck")
    state.apply_action(5)
    refused(state, 5, belote_os.BeloteGameError, "chance outcome 5 is not a card still in the deck")
    state = random_state(game, rng, stop=lambda s: not s.is_chance_node())
    illegal = next(a for a in range(112) if a not in state.legal_actions())
    refused(state, illegal, IllegalActionError, "illegal action")
    refused(state, 200, IllegalActionError, "illegal action 200")
    assert state.legal_actions((state.current_player() + 1) % 4) == []  # a seat not to act has none
    state = random_state(game, rng)
    refused(state, state.history()[-1], belote_os.BeloteGameError, "the episode is over")
    variant = load_variant(name)
    for dealer in (1.5, True, 4, "0"):
        with pytest.raises(belote_os.BeloteGameError, match="dealer must be a seat 0..3"):
            belote_os.game_for(variant, dealer)
    assert belote_os.game_for(variant, np.int64(2)).dealer == 2
    with pytest.raises(belote_os.BeloteGameError, match="game_for takes a Variant"):
        belote_os.game_for(name)
    with pytest.raises(belote_os.BeloteGameError, match="takes a python_belote game"):
        belote_os.state_from_deal(game, "JH QH")
    other = {"belote_classique": "belote_classique_officielles", "coinche": "coinche_officielles",
             "contree": "contree_annonces", "cobrecaf_81": "coinche"}[name]
    deal = DealState.random(load_variant(other), 0, rng)
    with pytest.raises(belote_os.BeloteGameError, match="the deal is of variant"):
        belote_os.state_from_deal(belote_os.game_for(variant, 0), deal)


def test_openspiel_s_ismcts_bot_plays_a_deal():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_belote(variant=coinche)")
    np_rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np_rng), uct_c=2.0,
                           max_simulations=20, random_state=np_rng)
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif state.current_player() % 2 == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == 0


def _encodings_are_the_rules_cores(state):
    """Every seat's tensors are the rules core's encoding of the state's game, and its strings its views."""
    from belote_env.observation import encode

    for p in range(4):
        expected = encode(state.game_state, p).tolist()
        assert state.information_state_tensor(p) == expected and state.observation_tensor(p) == expected, p
        assert state.observation_string(p) == state.seat_view(p)


@pytest.mark.parametrize("name", FAMILIES)
def test_clones_resamples_and_deserialised_states_encode_their_own_cards(name):
    """Tensors read before a clone, a resample or a serialisation never leak into the copy: a resampled state's
    tensors show the sampled hands (an ISMCTS user searches sampled worlds, not the real one), the seat that
    resampled sees exactly what it saw, and each copy's tensors are the rules core's encoding of its own game."""
    game = pyspiel.load_game(f"python_belote(variant={name},episode=game,switches=target:300)")
    rng = random.Random(name)
    checked = moved = 0
    for _ in range(12):
        state = random_state(game, rng, stop=lambda s: not s.is_chance_node() and rng.random() < 0.08)
        if state.is_terminal() or state.is_chance_node():
            continue
        _encodings_are_the_rules_cores(state)  # the encoders are made and cached here
        me = state.current_player()
        seen = (state.information_state_string(me), state.information_state_tensor(me))
        for copy in (state.clone(), pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]):
            _encodings_are_the_rules_cores(copy)
        for k in range(3):
            sampled = state.resample_from_infostate(me, lambda: rng.random())
            _encodings_are_the_rules_cores(sampled)
            assert (sampled.information_state_string(me), sampled.information_state_tensor(me)) == seen
            moved += sampled.game_state.deal.hands != state.game_state.deal.hands
            sampled.apply_action(rng.choice(sampled.legal_actions()))  # it plays on by itself
            _encodings_are_the_rules_cores(sampled)
        _encodings_are_the_rules_cores(state)  # and the original is untouched
        checked += 1
    assert checked >= 5 and moved >= 10


@pytest.mark.parametrize("max_redeals", [1, 2, 3])
def test_max_redeals_counts_all_pass_deals_as_the_aec_env_does(max_redeals):
    import belote_env

    env = belote_env.env(variant="coinche", max_redeals=max_redeals)
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else 0 + int(np.flatnonzero(observation["action_mask"])[0]))
    aec_deals = len(env.unwrapped.game.results)
    game = pyspiel.load_game(f"python_belote(variant=coinche,max_redeals={max_redeals})")
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.chance_outcomes())[0] if state.is_chance_node() else state.legal_actions()[0])
    assert state.truncated and len(state.game_state.results) == aec_deals == max_redeals
    assert state.returns() == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize(("params", "match"), [
    ("switches=episode:game", "episode is a parameter of its own"),
    ("max_redeals=0", "max_redeals must be an int 1.."),
    ("max_redeals=-3", "max_redeals must be an int 1.."),
    ("max_redeals=100000000", "lower max_redeals or the target"),
    ("episode=game,max_redeals=1000000", "lower max_redeals or the target"),
    ("switches=target:100000000", "'target' must be an int 1..1,000,000"),
    ("switches=target:" + "9" * 40, "'target' must be an int"),
])
def test_parameters_out_of_range_are_refused_naming_them(params, match):
    from belote_env.errors import BeloteError

    with pytest.raises(BeloteError, match=match):
        pyspiel.load_game(f"python_belote({params})")


def test_resample_refuses_a_bad_seat_or_sampler_and_changes_nothing():
    game = pyspiel.load_game("python_belote(variant=coinche)")
    state = random_state(game, random.Random(3), stop=lambda s: not s.is_chance_node())
    before = (str(state), [state.information_state_tensor(p) for p in range(4)])
    for seat, sampler in ((4, lambda: 0.5), (-1, lambda: 0.5), (True, lambda: 0.5), (0, lambda: "x"),
                          (0, lambda: float("nan")), (0, lambda: 1.5), (0, lambda: None)):
        with pytest.raises(belote_os.BeloteGameError, match="resample_from_infostate"):
            state.resample_from_infostate(seat, sampler)
    assert (str(state), [state.information_state_tensor(p) for p in range(4)]) == before


def test_the_observer_refuses_a_bad_seat_or_parameters():
    game = pyspiel.load_game("python_belote(variant=coinche)")
    observer = game.make_py_observer()
    state = random_state(game, random.Random(1), stop=lambda s: not s.is_chance_node())
    for player in (4, -1, True, 1.0, "0"):
        with pytest.raises(belote_os.BeloteGameError, match="player must be a seat"):
            observer.set_from(state, player)
        with pytest.raises(belote_os.BeloteGameError, match="player must be a seat"):
            observer.string_from(state, player)
    observer.set_from(state, np.int64(2))
    assert observer.tensor.tolist() == state.observation_tensor(2)
    with pytest.raises(belote_os.BeloteGameError, match="take no parameters"):
        game.make_py_observer(None, {"x": 1})
