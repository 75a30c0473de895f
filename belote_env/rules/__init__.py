"""The rules core: the reference implementation of RULES.md, standard library only.

Main entry points:

- :class:`Variant` (rule switches), built by ``belote_env.variants.load_variant``
  from the YAML files in ``configs/variants/`` or by ``Variant.from_dict``;
- :class:`DealState` (one deal: ``from_hands``, ``random``, ``legal_actions``,
  ``apply``, ``clone``, ``format`` / ``parse``, ``tricks``, ``result``);
- :class:`GameState` (deals to the target, garde, dealer rotation, redeals);
- :class:`InfoState` (what one seat knows; ``deal.info_state(seat)``), the
  only thing agents are handed;
- :func:`score_deal` and :class:`DealResult` (the scoring of section 7);
- the flat action space: :func:`action_name`, :func:`parse_action`, ``NUM_ACTIONS``.
"""

from .actions import (
    ACTION_NAMES,
    BID,
    COINCHE,
    EN_FACE,
    EN_VOITURE,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    SURCOINCHE,
    TAKE,
    action_id,
    action_name,
    bid_action,
    parse_action,
)
from .cards import (
    ALL_TRUMP,
    CARD_NAMES,
    NO_TRUMP,
    STRAIN_NAMES,
    card_name,
    cards_of,
    format_cards,
    parse_card,
    parse_cards,
    parse_strain,
    strain_table,
)
from .declarations import Declaration, hand_declarations
from .errors import BeloteError, IllegalActionError, NotationError, VariantError
from .game import GameState
from .info import InfoState, info_state
from .play import legal_cards
from .scoring import Contract, ContractKind, DealResult, Outcome, round10, score_deal
from .state import BIDDING, DONE, PLAY, BeloteEvent, DealState, Phase, Trick, play_random_deal
from .variant import SCHEMA, Variant

__all__ = [name for name in dir() if not name.startswith("_")]
