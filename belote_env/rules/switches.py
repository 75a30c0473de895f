"""Where each rule switch is implemented: one map for the fields of :class:`~belote_env.rules.variant.Variant`.

A rule lives in up to four engines, and nothing in the code links the copies: the rules core
(``belote_env/rules/``), the batched engine (``belote_env/fast/``: ``layout.py`` names the switch's cell of
the kernels' parameter row, ``tables.variant_params`` fills it, ``kernels.py`` reads it), the double-dummy
solver (``belote_env/search/``) and the heuristic agent (its kernels, ``agents/heuristic/kernels.py``, which
its Python ``act`` calls). :data:`SWITCH_MAP` says, for every switch and every engine, either which
files implement it (and a token each of them must contain, so the map cannot drift from the code) or why that
engine does not need it. ``tests/belote_env/test_switch_map.py`` checks that every field of ``Variant`` is
here with all four engines, that every named file holds its token, and that the lockstep tests (the batched
engine against the rules core, ``tests/belote_env/fast/test_vector_lockstep.py``) play every value of every
switch; a switch added to ``Variant`` and not to this map, or to this map and not to a lockstep
configuration, fails it. docs/rules.md ("Adding a rule switch") walks through one switch file by file.
"""

from __future__ import annotations

ENGINES = ("rules", "kernels", "solver", "heuristic")

# Variant fields that are not rules (the variant's name).
NOT_RULES = ("name",)

_CARD_PLAY_ONLY = "the solver searches the card play of a deal whose contract is set: it never bids"
_ONE_DEAL = "the solver values the tricks of one deal: scores, targets and episodes are after it"
_MASKED = "the heuristic plays among the legal moves the engine gives it (action_mask) and reads no such switch"

# switch -> engine -> ((file, token), ...) or the reason the engine does not need the switch
SWITCH_MAP: dict[str, dict[str, tuple[tuple[str, str], ...] | str]] = {
    "deal": {
        "rules": (("belote_env/rules/state.py", "variant.deal"),),
        "kernels": (("belote_env/fast/layout.py", "P_FULL"),
                     ("belote_env/fast/tables.py", "P_FULL"),
                     ("belote_env/fast/kernels.py", "P_FULL")),
        "solver": _CARD_PLAY_ONLY + " (the deal shape is in the hands it is given)",
        "heuristic": (("agents/heuristic/kernels.py", "L.P_FULL"),),
    },
    "bidding": {
        "rules": (("belote_env/rules/state.py", "variant.bidding"),),
        "kernels": (("belote_env/fast/layout.py", "P_BIDDING"),
                     ("belote_env/fast/tables.py", "P_BIDDING"),
                     ("belote_env/fast/kernels.py", "P_BIDDING")),
        "solver": _CARD_PLAY_ONLY,
        "heuristic": (("agents/heuristic/kernels.py", "L.P_BIDDING"),),
    },
    "scoring": {
        "rules": (("belote_env/rules/scoring.py", "variant.scoring"),),
        "kernels": (("belote_env/fast/layout.py", "P_SCORING"),
                     ("belote_env/fast/tables.py", "P_SCORING"),
                     ("belote_env/fast/kernels.py", "P_SCORING")),
        "solver": _ONE_DEAL,
        "heuristic": (("agents/heuristic/kernels.py", "L.P_SCORING"),),
    },
    "counting": {
        "rules": (("belote_env/rules/scoring.py", "variant.counting"),),
        "kernels": (("belote_env/fast/layout.py", "P_COUNTING"),
                     ("belote_env/fast/tables.py", "P_COUNTING"),
                     ("belote_env/fast/kernels.py", "P_COUNTING")),
        "solver": _ONE_DEAL,
        "heuristic": "the heuristic bids and plays the same under every counting",
    },
    "rules": {
        "rules": (("belote_env/rules/state.py", "variant.rules"), ("belote_env/rules/scoring.py", "variant.rules")),
        "kernels": (("belote_env/fast/layout.py", "P_OFFICIELLES"),
                     ("belote_env/fast/tables.py", "P_OFFICIELLES"),
                     ("belote_env/fast/kernels.py", "P_OFFICIELLES")),
        "solver": (("belote_env/search/__init__.py", "v.rules"),),
        "heuristic": (("agents/heuristic/kernels.py", "L.P_OFFICIELLES"),),
    },
    "overtrump_partner": {
        "rules": (("belote_env/rules/state.py", "v.overtrump_partner"),
                  ("belote_env/rules/sampling.py", "v.overtrump_partner")),
        "kernels": (("belote_env/fast/layout.py", "P_OVERTRUMP_PARTNER"),
                     ("belote_env/fast/tables.py", "P_OVERTRUMP_PARTNER"),
                     ("belote_env/fast/kernels.py", "P_OVERTRUMP_PARTNER")),
        "solver": (("belote_env/search/__init__.py", "v.overtrump_partner"),),
        "heuristic": _MASKED,
    },
    "undertrump": {
        "rules": (("belote_env/rules/state.py", "v.undertrump"), ("belote_env/rules/sampling.py", "v.undertrump")),
        "kernels": (("belote_env/fast/layout.py", "P_UNDERTRUMP"),
                     ("belote_env/fast/tables.py", "P_UNDERTRUMP"),
                     ("belote_env/fast/kernels.py", "P_UNDERTRUMP")),
        "solver": (("belote_env/search/__init__.py", "v.undertrump"),),
        "heuristic": _MASKED,
    },
    "declarations": {
        "rules": (("belote_env/rules/state.py", "variant.declarations"),),
        "kernels": (("belote_env/fast/layout.py", "P_DECLARATIONS"),
                     ("belote_env/fast/tables.py", "P_DECLARATIONS"),
                     ("belote_env/fast/kernels.py", "P_DECLARATIONS")),
        "solver": _ONE_DEAL + " (declarations are scored apart from the tricks)",
        "heuristic": "declarations are made by the rules core, never chosen by an agent",
    },
    "no_trump": {
        "rules": (("belote_env/rules/variant.py", "self.no_trump"),),  # Variant.strains
        "kernels": (("belote_env/fast/tables.py", "variant.strains"),
                     ("belote_env/fast/kernels.py", "P_STRAINS")),
        "solver": _CARD_PLAY_ONLY,
        "heuristic": (("agents/heuristic/kernels.py", "L.P_STRAINS"),),
    },
    "all_trump": {
        "rules": (("belote_env/rules/variant.py", "self.all_trump"),),  # Variant.strains
        "kernels": (("belote_env/fast/tables.py", "variant.strains"),
                     ("belote_env/fast/kernels.py", "P_STRAINS")),
        "solver": _CARD_PLAY_ONLY,
        "heuristic": (("agents/heuristic/kernels.py", "L.P_STRAINS"),),
    },
    "generale": {
        "rules": (("belote_env/rules/bidding.py", "variant.generale"),),
        "kernels": (("belote_env/fast/tables.py", "variant.generale"),
                     ("belote_env/fast/kernels.py", "P_BIDS")),
        "solver": _CARD_PLAY_ONLY,
        "heuristic": _MASKED.replace("legal moves", "legal calls"),
    },
    "target": {
        "rules": (("belote_env/rules/game.py", "variant.target"),),
        "kernels": (("belote_env/fast/layout.py", "P_TARGET"),
                     ("belote_env/fast/tables.py", "P_TARGET"),
                     ("belote_env/fast/kernels.py", "P_TARGET")),
        "solver": _ONE_DEAL,
        "heuristic": "the heuristic plays every deal of a game alike",
    },
    "threshold_inclusive": {
        "rules": (("belote_env/rules/scoring.py", "variant.threshold_inclusive"),),
        "kernels": (("belote_env/fast/layout.py", "P_THRESHOLD_INCLUSIVE"),
                     ("belote_env/fast/tables.py", "P_THRESHOLD_INCLUSIVE"),
                     ("belote_env/fast/kernels.py", "P_THRESHOLD_INCLUSIVE")),
        "solver": _ONE_DEAL,
        "heuristic": "the heuristic's take-or-pass estimate does not move with the threshold's last point",
    },
    "must_beat_defense": {
        "rules": (("belote_env/rules/scoring.py", "variant.must_beat_defense"),),
        "kernels": (("belote_env/fast/layout.py", "P_MUST_BEAT_DEFENSE"),
                     ("belote_env/fast/tables.py", "P_MUST_BEAT_DEFENSE"),
                     ("belote_env/fast/kernels.py", "P_MUST_BEAT_DEFENSE")),
        "solver": _ONE_DEAL,
        "heuristic": "the heuristic's bids do not read the contract-made test",
    },
    "episode": {
        "rules": (("belote_env/rules/game.py", "variant.episode"),),
        "kernels": (("belote_env/fast/layout.py", "P_EPISODE_GAME"),
                     ("belote_env/fast/tables.py", "P_EPISODE_GAME"),
                     ("belote_env/fast/kernels.py", "P_EPISODE_GAME")),
        "solver": _ONE_DEAL,
        "heuristic": "the heuristic plays every deal of a game alike",
    },
    "belote": {
        "rules": (("belote_env/rules/variant.py", '_switch("auto", ("auto",))'),),
        "kernels": "one value so far ('auto': belote-rebelote announced by the rules as RULES.md 6 says); nothing reads it",
        "solver": "one value so far; nothing reads it",
        "heuristic": "one value so far; nothing reads it",
    },
}
