"""Hostile variant files: every one gets a VariantError naming the file, with a
bounded message, quickly; property test over mutated shipped files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_env.rules import Variant, VariantError
from belote_env.variants import VARIANTS_DIR, load_variant, variant_names

BOMB = """a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def _write(tmp_path: Path, data, name="v.yaml") -> Path:
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


@pytest.mark.parametrize("data,match", [
    (BOMB, "aliases"),
    (b"\xff\xfe\x00bidding: auction\n", "UTF-8"),
    (bytes(range(256)), "UTF-8"),
    ("bidding: " + "[" * 5_000 + "]" * 5_000 + "\n", "nested too deeply"),
    ("bidding: auction\nbidding: take_or_pass\n", "appears twice"),
    ("", "empty"),
    ("   \n# only a comment\n", "empty"),
    ("- a\n- b\n", "mapping"),
    ("scoring: {" + ", ".join(f"k{i}: {i}" for i in range(3000)) + "}\n", "must be str"),
    ("x" * 70_000, "at most"),
], ids=["alias-bomb", "bad-utf8", "binary", "deep-nesting", "duplicate-key", "empty", "comment-only", "list",
        "huge-value", "too-big"])
def test_hostile_files_get_a_bounded_variant_error_naming_the_file(tmp_path, data, match):
    path = _write(tmp_path, data)
    # each is refused by a structural bound (aliases, depth, size), not after a time: no wall-clock assertion
    with pytest.raises(VariantError, match=match) as e:
        load_variant(str(path))
    assert str(path) in str(e.value) and len(str(e.value)) < 600


def test_bad_variant_argument():
    for bad in (None, 3, ["coinche"]):
        with pytest.raises(VariantError, match="shipped name"):
            load_variant(bad)
    # a name too long for the file system, a NUL, a path out of the shipped folder: a short VariantError
    for bad in ("x" * 5000, "a\x00b", "../variants/coinche", "coinche/../coinche"):
        with pytest.raises(VariantError) as e:
            load_variant(bad)
        assert len(str(e.value)) < 400


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    op = rng.randrange(7)
    if op == 0 and lines:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif op == 1 and lines:  # drop a line
        del lines[rng.randrange(len(lines))]
    elif op == 2:  # a character replaced
        i = rng.randrange(max(1, len(text)))
        return text[:i] + rng.choice(":-[]{}&*!|>'\"#\t x0") + text[i + 1:]
    elif op == 3 and lines:  # a value replaced
        i = rng.randrange(len(lines))
        key = lines[i].split(":")[0]
        lines[i] = f"{key}: {rng.choice(['yes', 'no', '3', '-1', '1.5', '~', '[]', '{}', '*x', '&x 1', 'null', 'x' * 200])}"
    elif op == 4:  # an unknown key
        lines.append(f"{rng.choice(['trump', 'Bidding', 'target ', ''])}: 1")
    elif op == 5:
        return text[: rng.randrange(len(text) + 1)]
    else:
        return text.encode("utf-8", "surrogateescape")[: rng.randrange(len(text) + 1)].decode("latin-1") + "\udcff"
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(variant_names())), seed=st.integers(0, 10**6), edits=st.integers(1, 3))
def test_mutated_variant_files_load_or_raise_variant_error(tmp_path, name, seed, edits):
    text = (VARIANTS_DIR / f"{name}.yaml").read_text()
    rng = random.Random(seed)
    for _ in range(edits):
        text = _mutate(text, rng)
    path = tmp_path / "mutated.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    try:
        v = load_variant(str(path))
    except VariantError as e:
        assert str(path) in str(e) and len(str(e)) < 600
        return
    assert isinstance(v, Variant)
