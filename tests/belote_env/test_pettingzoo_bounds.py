"""The env's wrapper subclasses PettingZoo's OrderEnforcingWrapper and reads some private attributes, so the
pettingzoo version is bounded in pyproject.toml (tested on 1.25.0 and 1.27.0; 1.24 fails). This
checks the installed version lies in the bounds and that the attributes relied on exist."""

from __future__ import annotations

import re
from pathlib import Path

import pettingzoo
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers import order_enforcing

import belote_env

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def test_installed_pettingzoo_is_within_the_declared_bounds():
    m = re.search(r'"pettingzoo>=([\d.]+),<([\d.]+)"', PYPROJECT.read_text())
    assert m, "pyproject.toml must bound pettingzoo: the wrappers rely on its private attributes"
    low, high = _version(m.group(1)), _version(m.group(2))
    assert low <= _version(pettingzoo.__version__) < high


def test_private_attributes_the_wrappers_rely_on_exist():
    e = belote_env.env("coinche")
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert hasattr(e, "_has_reset") and hasattr(e, "_has_updated")
    for name in ("_terminated", "_illegal_value"):
        assert hasattr(e, name), name
    raw = e.unwrapped
    for name in ("_was_dead_step", "_deads_step_first", "_accumulate_rewards"):
        assert callable(getattr(raw, name)), name
    assert order_enforcing.AECOrderEnforcingIterable and order_enforcing.AECOrderEnforcingIterator
