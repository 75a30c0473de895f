"""Errors: illegal actions, bad notation, bad variant files; overrides from code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from belote_env.rules import (
    BeloteError,
    DealState,
    IllegalActionError,
    NotationError,
    Variant,
    VariantError,
    action_name,
    parse_action,
    parse_card,
    parse_cards,
    parse_strain,
)
from belote_env.variants import load_variant, variant_names

from .helpers import VARIANT_NAMES, WEST, position, variant

FULL_HANDS = [
    "7S 8S 9S 10S JS QS KS AS",
    "7H 8H 9H 10H JH QH KH AH",
    "7D 8D 9D 10D JD QD KD AD",
    "7C 8C 9C 10C JC QC KC AC",
]


def test_error_classes_are_value_errors():
    for cls in (IllegalActionError, NotationError, VariantError):
        assert issubclass(cls, BeloteError) and issubclass(cls, ValueError)


def test_illegal_call_message_names_action_seat_phase_and_legal_set():
    st = position("coinche", FULL_HANDS, "100 H")
    with pytest.raises(IllegalActionError) as e:
        st.apply(parse_action("90 S"))
    msg = str(e.value)
    assert "'90 S'" in msg and "seat 1" in msg and "bidding" in msg
    assert "legal:" in msg and "110 H" in msg and "coinche" in msg and "pass" in msg
    assert e.value.seat == WEST and e.value.phase == "bidding"
    assert e.value.action == parse_action("90 S")
    assert set(e.value.legal) == set(st.legal_actions())


def test_illegal_card_message():
    st = position("coinche", FULL_HANDS, "80 S, pass, pass, pass, AS")
    with pytest.raises(IllegalActionError) as e:
        st.apply(parse_card("AS"))  # already played, and not West's
    msg = str(e.value)
    assert "'AS'" in msg and "seat 1" in msg and "play" in msg
    for c in ("7H", "8H", "AH"):
        assert c in msg
    assert e.value.legal == tuple(st.legal_actions())


def test_card_not_in_hand_and_call_during_play_are_illegal():
    st = position("coinche", FULL_HANDS, "80 S, pass, pass, pass")
    for bad in ("7H", "pass", "coinche", "100 S"):
        with pytest.raises(IllegalActionError):
            st.apply_name(bad)
    assert st.history == [parse_action(a) for a in ("80 S", "pass", "pass", "pass")]  # nothing recorded


@pytest.mark.parametrize("bad", [-1, 112, 1000, "AS", None, 3.0])
def test_bad_action_values_raise(bad):
    st = position("coinche", FULL_HANDS, "")
    with pytest.raises(IllegalActionError) as e:
        st.apply(bad)
    assert repr(bad) in str(e.value) or str(bad) in str(e.value)


class IntLike:
    """An integer type of another library (numpy's int64 from an argmax behaves like this)."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_integer_like_actions_are_accepted():
    st = position("coinche", FULL_HANDS, "")
    st.apply(IntLike(parse_action("80 S")))
    assert st.history == [parse_action("80 S")] and type(st.history[0]) is int
    with pytest.raises(IllegalActionError):
        st.apply(IntLike(parse_action("80 S")))


def test_action_after_the_deal_is_over():
    st = position("coinche", FULL_HANDS, "pass, pass, pass, pass")
    assert st.is_over
    with pytest.raises(IllegalActionError) as e:
        st.apply_name("pass")
    assert "over" in str(e.value)


@pytest.mark.parametrize("text", ["1S", "JX", "", "10", "AHH", "ace of spades"])
def test_bad_card_notation(text):
    with pytest.raises(NotationError) as e:
        parse_card(text)
    assert repr(text) in str(e.value)


def test_bad_notation_other():
    with pytest.raises(NotationError):
        parse_cards("AS KS AS")
    with pytest.raises(NotationError):
        parse_strain("XX")
    with pytest.raises(NotationError) as e:
        parse_action("bid 85 H")
    assert "'bid 85 H'" in str(e.value)
    with pytest.raises(NotationError):
        action_name(112)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda t: t.replace("belote-position-1", "chess-fen"), "belote-position-1"),
        (lambda t: t.replace("dealer: 3", "dealer: x"), "dealer"),
        (lambda t: t.replace("dealer: 3", "dealer: 7"), "dealer"),
        (lambda t: t.replace("hands: 7S", "hands: 1S"), "'hands'"),
        (lambda t: t.replace("deal=full", "deal=fulll"), "deal"),
        (lambda t: t.replace("undertrump=false", "undertrump=maybe"), "undertrump"),
        (lambda t: t.replace("target=1000", "target=lots"), "target"),
        (lambda t: t + " | colour: red", "colour"),
        (lambda t: t.replace("| garde: 0 ", "| garde 0 "), "garde 0"),
        (lambda t: t.replace("moves: 80 S", "moves: 80 X"), "'moves'"),
        (lambda t: t.replace("moves: 80 S", "moves: 85 S"), "85 S"),
        (lambda t: t.replace("moves: 80 S, pass", "moves: 80 S, 70 S"), "move 2"),
        (lambda t: t.replace("KS AS / 7H", "KS / 7H"), "seat 0"),
    ],
)
def test_bad_position_text_names_the_field(mutate, field):
    st = position("coinche", FULL_HANDS, "80 S, pass")
    text = st.format()
    bad = mutate(text)
    assert bad != text
    with pytest.raises(BeloteError) as e:
        DealState.parse(bad)
    assert field in str(e.value)


def test_from_hands_rejects_bad_hands():
    v = variant("coinche")
    with pytest.raises(NotationError, match="seat 1"):
        DealState.from_hands(v, 0, ["7S 8S 9S 10S JS QS KS AS", "AS 8H 9H 10H JH QH KH AH", FULL_HANDS[2], FULL_HANDS[3]])
    with pytest.raises(NotationError, match="7 cards"):
        DealState.from_hands(v, 0, ["7S 8S 9S 10S JS QS KS", *FULL_HANDS[1:]])
    with pytest.raises(NotationError, match="dealer"):
        DealState.from_hands(v, 4, FULL_HANDS)
    with pytest.raises(NotationError, match="turn-up"):
        DealState.from_hands(variant("belote_classique"), 0, ["7S 8S 9S 10S JS", "QS KS AS 7H 8H",
                                                              "9H 10H JH QH KH", "AH 7D 8D 9D 10D"])


# --- variant files ----------------------------------------------------------

def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "my_variant.yaml"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "text, key, allowed",
    [
        ("deal: full\nfoo: 1\n", "'foo'", "allowed keys"),
        ("undertrump: yes_please\n", "'undertrump'", "bool"),
        ("target: '1000'\n", "'target'", "int"),
        ("target: true\n", "'target'", "int"),
        ("target: -5\n", "'target'", "1..1,000,000"),
        ("rules: federale\n", "'rules'", "maison, officielles"),
        ("scoring: bridge\n", "'scoring'", "classic, coinche, cobrecaf_81, contree"),
        ("counting: points\n", "'counting'", "points_faits"),
        ("episode: forever\n", "'episode'", "deal, game"),
        ("bidding: take_or_pass\n", "bidding", "auction"),  # cross-key: scoring coinche needs auction
        ("deal: turn_up\n", "deal", "full"),
        ("deal: turn_up\nbidding: cobrecaf_81\nscoring: cobrecaf_81\n", "'no_trump'", "false"),
        ("generale: true\ndeal: turn_up\nbidding: take_or_pass\nscoring: classic\n", "'generale'", "coinche"),
        ("generale: true\nscoring: contree\n", "'generale'", "coinche"),
        ("name: my variant\n", "'name'", "without spaces"),
        ("scoring: contree\ndeclarations: true\n", "'declarations'", "false"),
    ],
)
def test_bad_variant_file_names_file_key_and_allowed(tmp_path, text, key, allowed):
    p = write(tmp_path, text)
    with pytest.raises(VariantError) as e:
        load_variant(p)
    msg = str(e.value)
    assert str(p) in msg
    assert key in msg
    assert allowed in msg


def test_variant_file_not_a_mapping_or_bad_yaml(tmp_path):
    p = write(tmp_path, "- a\n- b\n")
    with pytest.raises(VariantError, match="mapping"):
        load_variant(p)
    p = write(tmp_path, "deal: [unclosed\n")
    with pytest.raises(VariantError, match="YAML"):
        load_variant(p)


def test_unknown_variant_name():
    with pytest.raises(VariantError) as e:
        load_variant("belote_de_comptoir")
    assert "belote_de_comptoir" in str(e.value) and "coinche" in str(e.value)
    with pytest.raises(VariantError, match="does not exist"):
        load_variant("/nonexistent/x.yaml")
    with pytest.raises(VariantError, match="unknown variant ''"):
        load_variant("")
    with pytest.raises(VariantError, match="is a folder"):
        load_variant(Path(__file__).parent)


def test_overrides_from_code():
    v = load_variant("coinche", undertrump=True, target=2000, episode="game")
    assert (v.undertrump, v.target, v.episode) == (True, 2000, "game")
    assert load_variant("coinche").undertrump is False
    with pytest.raises(VariantError) as e:
        load_variant("coinche", undertrump="sometimes")
    assert "undertrump" in str(e.value) and "coinche.yaml" in str(e.value)
    with pytest.raises(VariantError, match="'colour'"):
        load_variant("coinche", colour="red")
    base = load_variant("contree")
    assert load_variant(base) is base
    assert load_variant(base, must_beat_defense=True).must_beat_defense is True
    assert Variant.from_dict({"rules": "officielles"}).rules == "officielles"
    with pytest.raises(VariantError, match="<dict>"):
        Variant.from_dict({"rules": "x"})


# RULES.md section 10, column by column.
TABLE10 = {
    "belote_classique": ("turn_up", "take_or_pass", "classic", "maison", False, True, True, True, 1000),
    "belote_classique_officielles": ("turn_up", "take_or_pass", "classic", "officielles", True, True, True, True, 1000),
    "coinche": ("full", "auction", "coinche", "maison", False, False, False, True, 1000),
    "coinche_officielles": ("full", "auction", "coinche", "officielles", True, False, False, True, 1000),
    "contree": ("full", "auction", "contree", "officielles", True, False, False, False, 2000),
    "contree_annonces": ("full", "auction", "contree", "officielles", True, False, False, False, 2000),
    "contree_faits_et_annonces": ("full", "auction", "contree", "officielles", True, False, False, False, 3000),
    "cobrecaf_81": ("turn_up", "cobrecaf_81", "cobrecaf_81", "maison", False, True, False, False, 1000),
}
COUNTING = {"contree": "points_faits", "contree_annonces": "points_annonces",
            "contree_faits_et_annonces": "points_faits_et_annonces"}
GENERALE = {"coinche": True, "coinche_officielles": True, "contree": False, "contree_annonces": False,
            "contree_faits_et_annonces": False}


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_shipped_variant_files_match_rules_table(name):
    v = load_variant(name)
    deal, bidding, scoring, rules, otp, under, decl, nt_at, target = TABLE10[name]
    assert (v.deal, v.bidding, v.scoring, v.rules) == (deal, bidding, scoring, rules)
    assert (v.overtrump_partner, v.undertrump, v.declarations) == (otp, under, decl)
    assert v.no_trump == v.all_trump == nt_at
    assert v.target == target
    if name in COUNTING:
        assert v.counting == COUNTING[name]
    if name in GENERALE:
        assert v.generale == GENERALE[name]
    assert (v.threshold_inclusive, v.must_beat_defense, v.belote, v.episode) == (False, False, "auto", "deal")
    assert v.name == name


def test_every_shipped_file_is_listed():
    assert set(variant_names()) == set(VARIANT_NAMES)


def test_rules_core_imports_no_heavy_dependency():
    code = (
        "import sys, belote_env.rules as r; "
        "st = r.DealState.random(r.Variant(), 0, __import__('random').Random(0)); st.legal_actions(); "
        "bad = [m for m in ('numpy', 'torch', 'gymnasium', 'pettingzoo', 'yaml') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
