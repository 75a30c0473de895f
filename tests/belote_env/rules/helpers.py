"""Shared helpers of the rules tests: variants, positions built from hands and moves."""

from __future__ import annotations

from belote_env.rules import DealState, parse_action, parse_card, parse_cards
from belote_env.variants import load_variant

SOUTH, WEST, NORTH, EAST = 0, 1, 2, 3  # RULES.md seats, in playing order
S, H, D, C, NT, AT = range(6)

VARIANT_NAMES = (
    "belote_classique",
    "belote_classique_officielles",
    "cobrecaf_81",
    "coinche",
    "coinche_officielles",
    "contree",
    "contree_annonces",
    "contree_faits_et_annonces",
)


def variant(name: str, **overrides):
    return load_variant(name, **overrides)


def position(v, hands, moves="", dealer=EAST, turnup=None, stock=None, garde=0) -> DealState:
    """A deal from text hands (seat 0 first) and a comma-separated move list.

    The default dealer is East, so South (seat 0) speaks first and leads.
    """
    if isinstance(v, str):
        v = variant(v)
    st = DealState.from_hands(v, dealer, hands, turnup=turnup, stock=stock, garde=garde)
    play(st, moves)
    return st


def play(st: DealState, moves: str) -> DealState:
    for name in (m for m in moves.split(",") if m.strip()):
        st.apply(parse_action(name))
    return st


def names(actions) -> set[str]:
    from belote_env.rules import action_name

    return {action_name(a) for a in actions}


def cards(text: str) -> set[int]:
    return {parse_card(t) for t in text.split()}


def legal_names(st: DealState) -> set[str]:
    return names(st.legal_actions())


def mask(text: str) -> int:
    return parse_cards(text)
