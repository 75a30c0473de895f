"""The rule-switch map (belote_env/rules/switches.py): every field of Variant is there with all four engines
(rules core, kernels, solver, heuristic), every file it names holds its token, and the lockstep tests (the
batched engine against the rules core) play every value of every switch. A switch added to Variant and left
out of the map, or out of the lockstep configurations, fails here: shown with a dummy switch."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from belote_env.rules.switches import ENGINES, NOT_RULES, SWITCH_MAP
from belote_env.rules.variant import Variant
from belote_env.variants import load_variant, variant_names

from .fast.test_vector_lockstep import OVERRIDES

REPO = Path(__file__).resolve().parents[2]


def switch_fields(variant_class=Variant) -> dict[str, tuple[object, tuple | None]]:
    """The rule switches of a Variant class: name -> (default, allowed values or None)."""
    return {f.name: (f.default, f.metadata.get("allowed")) for f in fields(variant_class) if f.name not in NOT_RULES}


def lockstep_configs() -> list[Variant]:
    """Every variant the lockstep tests play: each shipped file, in deal and in game episodes, and each override."""
    out = []
    for name in variant_names():
        out += [load_variant(name), load_variant(name, episode="game")]
    out += [load_variant(name, **overrides) for name, overrides in OVERRIDES]
    return out


def values_to_play(default, allowed) -> list:
    """The values of a switch the lockstep tests must play: each allowed one, both of a flag, a number's default
    and another."""
    if allowed is not None:
        return list(allowed)
    if isinstance(default, bool):
        return [False, True]
    return [default, "another value"]


def problems(switches: dict, switch_map: dict, configs: list) -> list[str]:
    """What is wrong with ``switch_map`` for the switches ``switches`` (see :func:`switch_fields`) and the lockstep
    configurations ``configs``: one line each."""
    out = [f"{name}: in the map but not a field of Variant" for name in switch_map if name not in switches]
    for name, (default, allowed) in switches.items():
        entry = switch_map.get(name)
        if entry is None:
            out.append(f"{name}: not in belote_env/rules/switches.py's SWITCH_MAP (say where each engine implements it)")
        else:
            for engine in ENGINES:
                where = entry.get(engine)
                if where is None:
                    out.append(f"{name}: no entry for the engine {engine!r} (files and tokens, or why it needs none)")
                elif isinstance(where, str):
                    if not where.strip():
                        out.append(f"{name}: an empty reason for the engine {engine!r}")
                else:
                    for file, token in where:
                        path = REPO / file
                        if not path.is_file():
                            out.append(f"{name}: {engine} names {file}, which does not exist")
                        elif token not in path.read_text():
                            out.append(f"{name}: {engine} names {file}, which does not contain {token!r}")
        played = {getattr(v, name, default) for v in configs}
        for value in values_to_play(default, allowed):
            if value == "another value":
                if not played - {default}:
                    out.append(f"{name}: the lockstep tests play only {name}={default!r}")
            elif value not in played:
                out.append(f"{name}: the lockstep tests never play {name}={value!r} (add it to OVERRIDES in "
                           "tests/belote_env/fast/test_vector_lockstep.py)")
    return out


def test_the_map_covers_every_switch_in_every_engine_and_the_lockstep_tests_play_every_value():
    assert problems(switch_fields(), SWITCH_MAP, lockstep_configs()) == []


def test_a_new_switch_left_out_of_the_map_or_the_lockstep_tests_fails():
    switches = {**switch_fields(), "dummy": (False, None)}
    configs = lockstep_configs()
    assert problems(switches, SWITCH_MAP, configs) == [
        "dummy: not in belote_env/rules/switches.py's SWITCH_MAP (say where each engine implements it)",
        "dummy: the lockstep tests never play dummy=True (add it to OVERRIDES in "
        "tests/belote_env/fast/test_vector_lockstep.py)",
    ]
    half_mapped = {**SWITCH_MAP, "dummy": {"rules": (("belote_env/rules/state.py", "variant.dummy"),),
                                           "kernels": "no reason is no reason"}}
    found = problems(switches, half_mapped, configs)
    assert "dummy: rules names belote_env/rules/state.py, which does not contain 'variant.dummy'" in found
    assert "dummy: no entry for the engine 'solver' (files and tokens, or why it needs none)" in found
    assert "dummy: no entry for the engine 'heuristic' (files and tokens, or why it needs none)" in found
    assert problems(switch_fields(), {**SWITCH_MAP, "gone": {}}, configs) == ["gone: in the map but not a field of Variant"]
