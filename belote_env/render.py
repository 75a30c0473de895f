"""A readable text table of a Belote position, with unicode suits.

:func:`render_table` is what ``render_mode="ansi"`` returns and
``render_mode="human"`` prints: the variant and dealer, the hands (all four,
or only the viewer's with the others' card counts), the turn-up, the calls,
the contract, the trick in progress, the tricks and card points won so far,
and in game episodes the scores, the garde and the target.

:func:`table_view` is the same table as a JSON-ready dict (cards and calls by
their names in the project's notation), what the web table draws.
"""

from __future__ import annotations

from .rules.actions import ACTION_NAMES, NUM_CARDS
from .rules.cards import CARD_NAMES, RANK_NAMES, STRAIN_NAMES, SUIT_SYMBOLS, cards_of
from .rules.game import GameState
from .rules.state import BIDDING, DONE, DealState

STRAIN_SYMBOLS = tuple(SUIT_SYMBOLS) + ("NT", "AT")
DEFAULT_NAMES = ("player_0", "player_1", "player_2", "player_3")


def card_text(card: int) -> str:
    """``"J♥"``, ``"10♠"``."""
    return RANK_NAMES[card & 7] + SUIT_SYMBOLS[card >> 3]


def hand_text(mask: int) -> str:
    """Cards grouped by suit: ``"♠ 7 A  ♥ J 9  ♦ -  ♣ K"``."""
    groups = []
    for suit in range(4):
        ranks = [RANK_NAMES[c & 7] for c in cards_of(mask) if c >> 3 == suit]
        groups.append(f"{SUIT_SYMBOLS[suit]} {' '.join(ranks) if ranks else '-'}")
    return "  ".join(groups)


def call_text(action: int) -> str:
    """A call with unicode suits: ``"100 ♥"``, ``"take ♠"``, ``"pass"``."""
    name = ACTION_NAMES[action]
    head, _, strain = name.rpartition(" ")
    if head and strain in STRAIN_NAMES:
        return f"{head} {STRAIN_SYMBOLS[STRAIN_NAMES.index(strain)]}"
    return name


def move_text(action: int) -> str:
    """A card or a call with unicode suits: ``"J♥"``, ``"100 ♥"``."""
    return card_text(action) if action < NUM_CARDS else call_text(action)


def contract_text(contract) -> str:
    strain = STRAIN_SYMBOLS[contract.strain]
    if contract.kind == "take":
        what = f"take {strain}"
    elif contract.kind in ("bid",):
        what = f"{contract.value} {strain}"
    else:
        what = f"{contract.kind} {strain}" + (f" ({contract.value})" if contract.value else "")
    level = {1: "", 2: ", coinché", 4: ", surcoinché"}[contract.level]
    return f"{what}{level}"


def render_table(game: GameState, viewer: int | None = None, names=DEFAULT_NAMES) -> str:
    """The table as text. ``viewer``: None shows every hand, a seat shows only its own."""
    st = game.deal
    v = game.variant
    lines = [f"Belote ({v.name}) - deal {len(game.results) + (0 if st.phase == DONE else 1)}, "
             f"dealer {names[st.dealer]}"]
    if v.episode == "game" or game.results:
        lines.append(
            f"Scores: team 0 ({names[0]}, {names[2]}) {game.scores[0]}, team 1 ({names[1]}, {names[3]}) "
            f"{game.scores[1]}; garde {game.garde}; target {v.target}"
        )
    for seat in range(4):
        marker = ">" if st.phase != DONE and st.seat == seat and not game.over else " "
        if viewer is None or viewer == seat:
            held = hand_text(st.hands[seat])
        else:
            held = f"({st.hands[seat].bit_count()} cards)"
        lines.append(f"{marker} {names[seat]:<9} {held}")
    if st.turnup >= 0:
        lines.append(f"Turn-up: {card_text(st.turnup)}")
    if st.calls:
        calls = ", ".join(f"{names[s]} {call_text(a)}" for s, a in st.calls)
        lines.append(f"Calls: {calls}")
    if st.contract is not None:
        c = st.contract
        lines.append(f"Contract: {contract_text(c)} by {names[c.taker]}")
    elif st.phase == BIDDING:
        lines.append("Contract: (bidding)")
    if st.tricks or st.trick:
        lines.append(
            f"Tricks: {len(st.tricks)} played; won team 0 {st.tricks_won[0] + st.tricks_won[2]}, "
            f"team 1 {st.tricks_won[1] + st.tricks_won[3]}; card points {st.points[0]} - {st.points[1]}"
        )
    if st.trick:
        shown = ", ".join(f"{names[s]} {card_text(c)}" for s, c in st.trick_seats())
        lines.append(f"Trick {len(st.tricks) + 1}: {shown} (held by {names[st.win_seat]})")
    elif st.tricks and st.phase != DONE:
        last = st.tricks[-1]
        shown = ", ".join(f"{names[last.seat_of(i)]} {card_text(c)}" for i, c in enumerate(last.cards))
        lines.append(f"Last trick: {shown} (won by {names[last.winner]}, {last.points} points)")
    for ev in st.belote_events:
        lines.append(f"{names[ev.seat]}: {ev.kind} ({card_text(ev.card)})")
    for d in st.public_declarations():
        cards = " ".join(card_text(c) for c in cards_of(d.cards))
        lines.append(f"{names[d.seat]} declared {d.kind} ({d.points}): {cards}")
    if st.phase == DONE and st.result is not None and st.result.contract is not None:
        r = st.result
        lines.append(f"Deal {r.outcome}: team 0 scores {r.scores[0]}, team 1 scores {r.scores[1]}")
    if game.over:
        lines.append("Game over: " + ("draw" if game.winner < 0 else f"team {game.winner} wins"))
    elif st.phase != DONE:
        action = "to play" if st.phase != BIDDING else "to call"
        lines.append(f"{names[st.seat]} {action}")
    return "\n".join(lines)


def contract_fields(contract) -> dict | None:
    """A contract as JSON fields, with its text (``"100 ♥, coinché"``)."""
    if contract is None:
        return None
    return {"taker": contract.taker, "strain": STRAIN_NAMES[contract.strain], "value": contract.value,
            "kind": str(contract.kind), "level": contract.level, "caller": contract.caller,
            "text": contract_text(contract)}


def table_view(deal: DealState, viewer: int | None = None, game: GameState | None = None) -> dict:
    """The table of ``deal`` as a JSON-ready dict: what a seat sees (``viewer``: its hand, the others' card
    counts) or everything (``viewer=None``: every hand). Cards and actions go by name (``"JH"``, ``"100 H"``);
    ``legal`` lists the legal actions (``id``, ``name``, ``text`` with unicode suits) when ``viewer`` is to act, or
    whoever is to act with ``viewer=None``; ``dealt`` the hands as dealt when every card may be seen (``viewer=None``
    or the deal is over), else None. ``game`` adds the game's scores, garde, target and deal number."""
    st = deal
    to_act = st.seat if st.phase != DONE else -1
    hands = [[CARD_NAMES[c] for c in cards_of(st.hands[s])] if viewer is None or viewer == s else None
             for s in range(4)]
    last = None
    if st.tricks:
        t = st.tricks[-1]
        last = {"cards": [{"seat": t.seat_of(i), "card": CARD_NAMES[c]} for i, c in enumerate(t.cards)],
                "winner": t.winner, "points": t.points}
    view = {
        "variant": st.variant.name, "dealer": st.dealer, "phase": str(st.phase), "to_act": to_act,
        "hands": hands, "counts": [st.hands[s].bit_count() for s in range(4)],
        "turnup": CARD_NAMES[st.turnup] if st.turnup >= 0 else None,
        "calls": [{"seat": s, "action": ACTION_NAMES[a], "text": call_text(a)} for s, a in st.calls],
        "contract": contract_fields(st.contract),
        "trick": [{"seat": s, "card": CARD_NAMES[c]} for s, c in st.trick_seats()],
        "trick_number": len(st.tricks) + (1 if st.trick else 0), "last_trick": last,
        "tricks_won": [st.tricks_won[0] + st.tricks_won[2], st.tricks_won[1] + st.tricks_won[3]],
        "points": list(st.points),
        "belote": [{"seat": e.seat, "kind": e.kind, "card": CARD_NAMES[e.card]} for e in st.belote_events],
        "declarations": [{"seat": d.seat, "kind": d.kind, "points": d.points,
                          "cards": [CARD_NAMES[c] for c in cards_of(d.cards)]} for d in st.public_declarations()],
        "result": None, "legal": [],
        # the hands as dealt, once every card may be seen: the deal is over, or the view shows every hand
        "dealt": ([[CARD_NAMES[c] for c in cards_of(m)] for m in st.initial]
                  if viewer is None or st.phase == DONE else None),
    }
    if st.result is not None:
        r = st.result
        view["result"] = {"outcome": str(r.outcome), "scores": list(r.scores), "card_points": list(r.card_points),
                          "contract": contract_fields(r.contract)}
    if to_act >= 0 and (viewer is None or viewer == to_act):
        view["legal"] = [{"id": a, "name": ACTION_NAMES[a], "text": move_text(a)}
                         for a in st.legal_actions()]
    if game is not None:
        scored = sum(1 for r in game.results if r.outcome != "redeal")
        view["game"] = {"scores": list(game.scores), "garde": game.garde, "target": game.variant.target,
                        "episode": game.variant.episode, "deals_scored": scored, "over": game.over,
                        "winner": game.winner}
    return view


__all__ = ["render_table", "table_view", "contract_fields", "move_text",
           "card_text", "hand_text", "call_text", "contract_text", "NUM_CARDS"]
