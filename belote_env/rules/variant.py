"""The rule switches of a variant (RULES.md section 10) and their validation.

A :class:`Variant` is immutable and shared freely between states. It is built
from a plain dict by :meth:`Variant.from_dict`, which rejects unknown keys,
wrong types and bad values with a message naming the source, the key and what
is allowed. Reading YAML files is done one layer up, in
``belote_env.variants`` (the rules core is standard library only).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property

from .errors import VariantError, short_repr  # noqa: F401  (short_repr: re-exported, its old home)

DEALS = ("turn_up", "full")
BIDDINGS = ("take_or_pass", "auction", "cobrecaf_81")
SCORINGS = ("classic", "coinche", "cobrecaf_81", "contree")
RULESETS = ("maison", "officielles")
COUNTINGS = ("points_faits", "points_annonces", "points_faits_et_annonces")
EPISODES = ("deal", "game")



# The largest game target: far beyond any real game (RULES.md 8: 501 to 3000), and small enough for every engine (the
# kernels' int64 rows, OpenSpiel's bound on an episode's length).
MAX_TARGET = 1_000_000

# Which scoring goes with which bidding and deal (RULES.md 3, 7, 10).
_SCORING_BIDDING = {"classic": "take_or_pass", "coinche": "auction", "contree": "auction", "cobrecaf_81": "cobrecaf_81"}
_BIDDING_DEAL = {"take_or_pass": "turn_up", "auction": "full", "cobrecaf_81": "turn_up"}


def _switch(default, allowed: tuple | None = None):
    """A rule switch: its default, and the values it accepts (None: any value of its type)."""
    return field(default=default, metadata={"allowed": allowed})


@dataclass(frozen=True)
class Variant:
    """The rule switches of RULES.md section 10; each field is a key of the variant files."""

    name: str = _switch("custom")
    deal: str = _switch("full", DEALS)
    bidding: str = _switch("auction", BIDDINGS)
    scoring: str = _switch("coinche", SCORINGS)
    counting: str = _switch("points_faits", COUNTINGS)
    rules: str = _switch("maison", RULESETS)
    overtrump_partner: bool = _switch(False)
    undertrump: bool = _switch(False)
    declarations: bool = _switch(False)
    no_trump: bool = _switch(True)
    all_trump: bool = _switch(True)
    generale: bool = _switch(False)
    target: int = _switch(1000)
    threshold_inclusive: bool = _switch(False)
    must_beat_defense: bool = _switch(False)
    belote: str = _switch("auto", ("auto",))
    episode: str = _switch("deal", EPISODES)

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> "Variant":
        if not isinstance(data, dict):
            raise VariantError(f"{source}: a variant is a mapping of switches to values, got {type(data).__name__}")
        values = {}
        for key, value in data.items():
            if key not in SCHEMA:
                raise VariantError(
                    f"{source}: unknown key {short_repr(key)}; allowed keys: {', '.join(SCHEMA)}"
                )
            typ, allowed, _ = SCHEMA[key]
            ok = isinstance(value, typ) and not (typ is int and isinstance(value, bool))
            if not ok:
                raise VariantError(
                    f"{source}: key {key!r} must be {typ.__name__}"
                    + (f" (one of {', '.join(allowed)})" if allowed else "")
                    + f", got {short_repr(value)}"
                )
            if allowed is not None and value not in allowed:
                raise VariantError(f"{source}: key {key!r} has value {short_repr(value)}; allowed: {', '.join(allowed)}")
            values[key] = value
        variant = cls(**values)
        variant.check(source)
        return variant

    def check(self, source: str = "<variant>") -> None:
        """Cross-key consistency; raises VariantError naming the keys."""
        if not 0 < self.target <= MAX_TARGET:
            raise VariantError(f"{source}: key 'target' must be an int 1..{MAX_TARGET:,} (501, 1000, 2000, 3000...), "
                               f"got {short_repr(self.target)}")
        need = _SCORING_BIDDING[self.scoring]
        if self.bidding != need:
            raise VariantError(
                f"{source}: scoring {self.scoring!r} needs bidding {need!r}, got bidding {self.bidding!r}"
            )
        need = _BIDDING_DEAL[self.bidding]
        if self.deal != need:
            raise VariantError(f"{source}: bidding {self.bidding!r} needs deal {need!r}, got deal {self.deal!r}")
        if self.bidding == "cobrecaf_81" and (self.no_trump or self.all_trump):
            raise VariantError(
                f"{source}: keys 'no_trump' and 'all_trump' must be false with bidding 'cobrecaf_81' (RULES.md 3.3)"
            )
        if self.generale and self.scoring != "coinche":
            raise VariantError(
                f"{source}: key 'generale' applies only to scoring 'coinche' (RULES.md 7.2 scores it nowhere else)"
            )
        if not self.name or any(ch.isspace() or ch in "|=," for ch in self.name):
            raise VariantError(f"{source}: key 'name' must be a non-empty word without spaces or '|=,', got {short_repr(self.name)}")
        if self.declarations and self.scoring in ("contree", "cobrecaf_81"):
            raise VariantError(
                f"{source}: key 'declarations' must be false with scoring {self.scoring!r} "
                "(RULES.md section 7 scores declarations only in classic and coinche)"
            )

    def with_overrides(self, source: str = "<overrides>", **overrides) -> "Variant":
        data = self.to_dict()
        data.update(overrides)
        return Variant.from_dict(data, source)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @cached_property
    def strains(self) -> tuple[int, ...]:
        """Strains a contract may have: the four suits, then NT / AT when enabled."""
        return (0, 1, 2, 3) + ((4,) if self.no_trump else ()) + ((5,) if self.all_trump else ())


_TYPES = {"str": str, "bool": bool, "int": int}
# key -> (type, allowed values or None, default): derived from the Variant fields, the one definition.
SCHEMA: dict[str, tuple[type, tuple | None, object]] = {
    f.name: (_TYPES[f.type], f.metadata["allowed"], f.default) for f in fields(Variant)
}
