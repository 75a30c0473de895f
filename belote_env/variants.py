"""Loading variant files (``configs/variants/*.yaml``) into :class:`Variant`.

``load_variant("coinche")`` reads ``configs/variants/coinche.yaml``;
``load_variant("path/to/my.yaml")`` reads any file. Keyword overrides replace
switches from code: ``load_variant("coinche", rules="officielles")``. Unknown
keys and bad values raise :class:`VariantError` naming the file and the key.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .rules.errors import VariantError
from .rules.variant import Variant, short_repr

# The shipped files are package data (belote_env/data/variants, found through importlib.resources, so a
# wheel install finds them); configs/variants in the repository is a link to that folder.
VARIANTS_DIR = Path(str(resources.files("belote_env").joinpath("data", "variants")))


def variant_names() -> list[str]:
    """Names of the variant files shipped with the package (``configs/variants/`` in the repository)."""
    return sorted(p.stem for p in VARIANTS_DIR.glob("*.yaml"))


def variant_path(name_or_path: str | Path) -> Path:
    if not isinstance(name_or_path, (str, Path)):
        raise VariantError(f"a variant is a shipped name, a YAML path or a Variant, got {short_repr(name_or_path)}")
    p = Path(name_or_path)
    shown = short_repr(str(p))
    try:
        if str(name_or_path).strip() and (p.suffix in (".yaml", ".yml") or p.exists()):
            if p.is_dir():
                raise VariantError(f"variant path {shown} is a folder; give a shipped name or a .yaml file")
            if not p.is_file():
                raise VariantError(f"variant file {shown} does not exist")
            return p
        known = str(name_or_path) in variant_names()  # a shipped name, never a path built from arbitrary text
    except (OSError, ValueError) as e:  # a name too long for the file system, a NUL character
        if isinstance(e, VariantError):
            raise
        raise VariantError(f"variant {short_repr(str(name_or_path))} is neither a shipped name nor a readable "
                           f"path ({type(e).__name__}: {short_repr(str(e))})") from None
    if not known:
        raise VariantError(
            f"unknown variant {short_repr(str(name_or_path))}; shipped variants: {', '.join(variant_names())} "
            "(or give the path of a .yaml file)"
        )
    return VARIANTS_DIR / f"{name_or_path}.yaml"


MAX_FILE_BYTES = 64 * 1024  # a variant file is a dozen lines
MAX_ALIASES = 16  # YAML aliases allowed in one file (a "billion laughs" file has thousands)


class _YamlLimit(Exception):
    """A variant file beyond what a variant file can need: aliases, duplicate keys."""


def _loader_class():
    import yaml

    class Loader(yaml.SafeLoader):
        """SafeLoader that refuses duplicate keys and counts aliases."""

        def __init__(self, stream):
            super().__init__(stream)
            self.aliases = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise _YamlLimit(f"more than {MAX_ALIASES} YAML aliases")
            return super().compose_node(parent, index)

        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    if key_node.value in seen:
                        raise _YamlLimit(f"key {short_repr(key_node.value)} appears twice "
                                         f"(line {key_node.start_mark.line + 1})")
                    seen.add(key_node.value)
            return super().construct_mapping(node, deep)

    return Loader


def read_variant_file(path: Path) -> dict:
    """The mapping in a variant file; VariantError naming the file for anything else."""
    import yaml

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise VariantError(f"{path}: cannot be read ({e.strerror or e})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise VariantError(f"{path}: {len(raw):,} bytes; a variant file is at most {MAX_FILE_BYTES:,}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VariantError(f"{path}: not UTF-8 text (byte {e.start}); a variant file is YAML text") from None
    empty = f"{path}: the file is empty; a variant file maps switches to values, e.g. 'bidding: auction'"
    if not text.strip():
        raise VariantError(empty)
    try:
        data = yaml.load(text, Loader=_loader_class())
    except _YamlLimit as e:
        raise VariantError(f"{path}: {e}") from None
    except RecursionError:
        raise VariantError(f"{path}: nested too deeply; a variant file is a flat mapping of switches") from None
    except yaml.YAMLError as e:
        raise VariantError(f"{path}: not valid YAML: {short_repr(str(e))}") from None
    if data is None:
        raise VariantError(empty)
    if not isinstance(data, dict):
        raise VariantError(f"{path}: a variant file is a mapping of switches to values, got {type(data).__name__}")
    return data


def load_variant(name_or_path: str | Path | Variant = "coinche", **overrides) -> Variant:
    """A validated :class:`Variant` from a shipped name or a YAML path, plus overrides."""
    if isinstance(name_or_path, Variant):
        base = name_or_path
        return base.with_overrides("overrides", **overrides) if overrides else base
    path = variant_path(name_or_path)
    data = read_variant_file(path)
    data.setdefault("name", "_".join(path.stem.split()) or "custom")
    variant = Variant.from_dict(data, str(path))
    if overrides:
        variant = variant.with_overrides(f"{path} with overrides {short_repr(overrides)}", **overrides)
    return variant
