"""One flat action space shared by every variant: cards first, then calls.

| ids | action | name |
|---|---|---|
| 0..31 | play a card | ``"7S"`` .. ``"AC"`` |
| 32 | pass | ``"pass"`` |
| 33 | coinche (double) | ``"coinche"`` |
| 34 | surcoinche (redouble) | ``"surcoinche"`` |
| 35..40 | take in a strain (S H D C NT AT): belote classique, and Couleur of the 81-points variant | ``"take H"`` |
| 41..106 | bid value x strain: values 80..160, capot, generale; id = 41 + 6 * value_index + strain | ``"80 H"``, ``"capot S"``, ``"generale AT"`` |
| 107..110 | En voiture in a suit (81 points) | ``"en_voiture H"`` |
| 111 | En face (81 points) | ``"en_face"`` |

The 81-points Capot call is the bid ``"capot <suit>"``. Ids never change
between variants; a variant only changes which of them can be legal.
"""

from __future__ import annotations

import operator

from .cards import CARD_NAMES, STRAIN_NAMES, parse_card, parse_strain
from .errors import NotationError, short_repr

NUM_CARDS = 32
PASS = 32
COINCHE = 33
SURCOINCHE = 34
TAKE = 35  # + strain
BID = 41  # + 6 * value_index + strain
BID_VALUES = (80, 90, 100, 110, 120, 130, 140, 150, 160, 250, 500)
CAPOT_VALUE = 250
GENERALE_VALUE = 500
CAPOT_INDEX = 9
GENERALE_INDEX = 10
EN_VOITURE = 107  # + suit
EN_FACE = 111
NUM_ACTIONS = 112
FIRST_CALL = PASS


def take_action(strain: int) -> int:
    return TAKE + strain


def bid_action(value: int, strain: int) -> int:
    try:
        vi = BID_VALUES.index(value)
    except ValueError:
        raise NotationError(f"bad bid value {short_repr(value)}: allowed 80..160 by tens, 250 (capot), "
                            "500 (generale)") from None
    return BID + 6 * vi + strain


def bid_value(action: int) -> int:
    return BID_VALUES[(action - BID) // 6]


def bid_strain(action: int) -> int:
    return (action - BID) % 6


def is_bid(action: int) -> bool:
    return BID <= action < EN_VOITURE


def _build_names() -> tuple[str, ...]:
    names = list(CARD_NAMES) + ["pass", "coinche", "surcoinche"]
    names += [f"take {s}" for s in STRAIN_NAMES]
    for v in BID_VALUES:
        label = "capot" if v == CAPOT_VALUE else "generale" if v == GENERALE_VALUE else str(v)
        names += [f"{label} {s}" for s in STRAIN_NAMES]
    names += [f"en_voiture {s}" for s in STRAIN_NAMES[:4]]
    names.append("en_face")
    assert len(names) == NUM_ACTIONS
    return tuple(names)


ACTION_NAMES = _build_names()
_NAME_TO_ACTION = {n.upper(): a for a, n in enumerate(ACTION_NAMES)}


def action_id(action) -> int | None:
    """An action id from an int or an integer of another library (a policy's numpy argmax, a
    0-d array); None for anything else (bools, though Python counts them as ints, floats,
    strings, arrays of other shapes). Whether the id is in range or legal is not checked."""
    if isinstance(action, bool) or type(action).__name__ in ("bool_", "bool"):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def action_name(action: int) -> str:
    if isinstance(action, bool) or not isinstance(action, int):
        raise NotationError(f"{short_repr(action)} is not an action id: expected an int 0..{NUM_ACTIONS - 1}")
    if not 0 <= action < NUM_ACTIONS:
        raise NotationError(f"action id {short_repr(action)} is out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def parse_action(text: str) -> int:
    """Inverse of :func:`action_name`; also accepts any card spelling of parse_card."""
    if not isinstance(text, str):
        raise NotationError(f"an action is text like 'JH', 'pass' or '100 H', got {short_repr(text)}")
    t = " ".join(text.split()).upper()
    a = _NAME_TO_ACTION.get(t)
    if a is not None:
        return a
    parts = t.split(" ")
    if len(parts) == 2:
        head, strain = parts
        try:
            s = parse_strain(strain)
        except NotationError:
            s = None
        if s is not None:
            alias = f"{head} {STRAIN_NAMES[s]}"
            if alias in _NAME_TO_ACTION:
                return _NAME_TO_ACTION[alias]
    try:
        return parse_card(text)
    except NotationError:
        raise NotationError(
            f"bad action {short_repr(text)}: expected a card ('JH', '10S'), 'pass', 'coinche', 'surcoinche', "
            "'take <strain>', '<80..160|capot|generale> <strain>', 'en_voiture <suit>' or 'en_face'"
        ) from None
