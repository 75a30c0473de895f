"""The observation table is defined once (observation._SEGMENT_SPEC); the env's
docstring and docs/observation.md must give every segment with the same
offsets and length, in the same order."""

from __future__ import annotations

import re
from pathlib import Path

import belote_env.aec as env_module
from belote_env.observation import _SEGMENT_SPEC, OBS_SIZE, SEGMENTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "observation.md"


def _offsets(name: str) -> str:
    off, length = SEGMENTS[name]
    return str(off) if length == 1 else f"{off}..{off + length - 1}"


def _rows(text: str) -> list[tuple[str, str, str]]:
    """(segment, offsets, length) of every table row that names a segment in backquotes."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = [c for c in cells if re.fullmatch(r"`[a-z_]+`", c)]
        if len(cells) >= 4 and names:
            name = names[0].strip("`")
            numbers = [c for c in cells if re.fullmatch(r"\d+(\.\.\d+)?", c)]
            if name in SEGMENTS and len(numbers) >= 2:
                out.append((name, numbers[0], numbers[1]))
    return out


def _expected():
    return [(name, _offsets(name), str(length)) for name, length, _ in _SEGMENT_SPEC]


def test_env_docstring_table_matches_the_segments():
    assert _rows(env_module.__doc__) == _expected()


def test_docs_observation_table_matches_the_segments():
    assert _rows(DOC.read_text()) == _expected()
    assert f"{OBS_SIZE}" in DOC.read_text()
