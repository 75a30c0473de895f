"""Loading variant files (``configs/variants/*.yaml``) into :class:`Variant`.

``load_variant("coinche")`` reads ``configs/variants/coinche.yaml``;
``load_variant("path/to/my.yaml")`` reads any file. Keyword overrides replace
switches from code: ``load_variant("coinche", rules="officielles")``. Unknown
keys and bad values raise :class:`VariantError` naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path

from .rules.errors import VariantError
from .rules.variant import Variant

VARIANTS_DIR = Path(__file__).resolve().parent.parent / "configs" / "variants"


def variant_names() -> list[str]:
    """Names of the variant files shipped in configs/variants/."""
    return sorted(p.stem for p in VARIANTS_DIR.glob("*.yaml"))


def variant_path(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.exists():
        if not p.is_file():
            raise VariantError(f"variant file {str(p)!r} does not exist")
        return p
    p = VARIANTS_DIR / f"{name_or_path}.yaml"
    if not p.is_file():
        raise VariantError(
            f"unknown variant {str(name_or_path)!r}; shipped variants: {', '.join(variant_names())} "
            "(or give the path of a .yaml file)"
        )
    return p


def load_variant(name_or_path: str | Path | Variant = "coinche", **overrides) -> Variant:
    """A validated :class:`Variant` from a shipped name or a YAML path, plus overrides."""
    import yaml

    if isinstance(name_or_path, Variant):
        base = name_or_path
        return base.with_overrides("overrides", **overrides) if overrides else base
    path = variant_path(name_or_path)
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise VariantError(f"{path}: not valid YAML: {e}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise VariantError(f"{path}: a variant file is a mapping of switches to values")
    data.setdefault("name", "_".join(path.stem.split()) or "custom")
    variant = Variant.from_dict(data, str(path))
    if overrides:
        variant = variant.with_overrides(f"{path} with overrides {overrides}", **overrides)
    return variant
