"""The files the README, docs/ and the code's docstrings name are in the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITED = re.compile(r"\b((?:benchmarks|tests|agents|belote_env|configs|docs|scripts)/[\w./-]+\.(?:py|md|yaml|json|csv|png|pt))")
# paths the docs show as examples of the user's own files
EXAMPLES = {"configs/train/V.yaml", "configs/variants/mine.yaml"}


def cited_paths():
    sources = [ROOT / "README.md", ROOT / "train.py", *(ROOT / "docs").rglob("*.md")]
    for package in ("agents", "belote_env", "benchmarks", "tests"):
        sources += (ROOT / package).rglob("*.py")
    for source in sources:
        for path in CITED.findall(source.read_text(encoding="utf-8")):
            yield source.relative_to(ROOT), path.rstrip(".")


def test_every_cited_file_exists():
    missing = sorted({f"{path} (named in {source})" for source, path in cited_paths()
                      if path not in EXAMPLES and not (ROOT / path).exists()})
    assert not missing, "files named but not in the repository:\n" + "\n".join(missing)
