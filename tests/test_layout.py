"""The layering of the code, read from the sources (every import, lazy ones inside functions included):
no import circle between modules, nothing in ``belote_env`` imports ``agents`` or ``train``, no module imports
another module's private (underscore) names, and no package folder holds more than 15 modules."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("belote_env", "agents")
MAX_MODULES_PER_FOLDER = 15


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for the packages and train.py (a package is its ``__init__.py``)."""
    found = {"train": REPO / "train.py"}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = module_files()


def imports_of(name: str, path: Path) -> list[tuple[str, tuple[str, ...], int]]:
    """``(module, names, line)`` for every import statement of the file; ``names`` are those of a ``from``
    import (empty for ``import x``), relative imports resolved against ``name``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            out.append((base, tuple(alias.name for alias in node.names), node.lineno))
    return out


def targets(module: str, names: tuple[str, ...]) -> list[str]:
    """The project modules an import statement reaches: ``from pkg import sub`` reaches ``pkg.sub`` when that
    is a module, otherwise ``pkg``; modules outside the project reach nothing."""
    reached = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    if len(reached) < len(names) or not names:
        probe = module
        while probe and probe not in MODULES:
            probe = probe.rpartition(".")[0]
        if probe:
            reached.append(probe)
    return reached


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for name, path in MODULES.items():
        for module, names, _ in imports_of(name, path):
            edges[name].update(t for t in targets(module, names) if t != name)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_walker_sees_lazy_and_relative_imports(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("from . import vector\nfrom .rules.errors import _x\n\ndef f():\n    import agents.registry\n")
    found = imports_of("belote_env.aec", path)
    assert ("belote_env", ("vector",), 1) in found and ("belote_env.rules.errors", ("_x",), 2) in found
    assert ("agents.registry", (), 5) in found
    assert targets("belote_env", ("vector",)) == ["belote_env.vector"]
    assert targets("agents.registry", ("make_agent",)) == ["agents.registry"]
    assert targets("numpy", ("zeros",)) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles():
    found = cycles(graph())
    assert not found, "import circles between modules:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_belote_env_imports_neither_agents_nor_train():
    bad = [f"{path.relative_to(REPO)}:{line} imports {module}"
           for name, path in MODULES.items() if name.split(".")[0] == "belote_env"
           for module, names, line in imports_of(name, path) if module.split(".")[0] in ("agents", "train")]
    assert not bad, "belote_env must not import agents or train.py:\n" + "\n".join(bad)


def test_no_private_names_imported_across_modules():
    bad = []
    for name, path in MODULES.items():
        for module, names, line in imports_of(name, path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private and module != name and targets(module, ()):
                bad.append(f"{path.relative_to(REPO)}:{line}: from {module} import {', '.join(private)}")
    assert not bad, "private names imported from other modules (make them public or move the code):\n" + "\n".join(bad)


# The layers, lowest first: a module imports only modules of its own layer or of layers below it (README,
# "Development"). A module is in the layer of the longest name that is it or a package above it; belote_env's
# own modules are named one by one, so a new one must be placed here.
LAYERS = (
    ("belote_env.rules",),                                      # the rules core: pure logic
    ("belote_env.observation", "belote_env.rewards", "belote_env.variants", "belote_env.errors",
     "belote_env.render", "belote_env.numba_cache", "belote_env.factored"),  # what the engines share
    ("belote_env.fast",),                                       # the kernels
    ("belote_env.search",),                                     # the double-dummy solver
    ("belote_env", "belote_env.aec", "belote_env.vector", "belote_env.single_agent",
     "belote_env.lockstep"),                                    # the environments
    ("belote_env.integrations",),                               # other libraries' views of them
    ("agents",),                                                # the players and the one play loop
    ("agents.arena",),                                          # matches, tournaments, the ladder
    ("agents.training",),                                       # the trainer's library
    ("train", "agents.__main__"),                               # the commands on top
)


def layer_of(module: str) -> int | None:
    best, found = -1, None
    for k, names in enumerate(LAYERS):
        for n in names:
            fits = module == n or (module.startswith(n + ".") and n != "belote_env")
            if fits and len(n) > best:
                best, found = len(n), k
    return found


def test_layers_place_modules_by_their_longest_name():
    assert layer_of("belote_env.fast.kernels") < layer_of("belote_env.search") < layer_of("belote_env.vector")
    assert layer_of("belote_env") == layer_of("belote_env.aec") < layer_of("agents.heuristic.kernels")
    assert layer_of("agents.arena.ladder.cache") < layer_of("agents.training.runs") < layer_of("train")
    assert layer_of("belote_env.something_new") is None  # must be placed by hand


def test_every_import_goes_down_the_layers():
    unplaced = sorted(m for m in MODULES if layer_of(m) is None)
    assert not unplaced, f"modules in no layer of tests/test_layout.py's LAYERS: {unplaced}"
    bad = []
    for name, path in MODULES.items():
        for module, names, line in imports_of(name, path):
            for target in targets(module, names):
                if target != name and layer_of(target) > layer_of(name):
                    bad.append(f"{path.relative_to(REPO)}:{line}: {name} imports {target}, a layer above it")
    assert not bad, "imports up the layers (move the code, or the module to another layer):\n" + "\n".join(bad)


# The edges the import walker cannot see: belote_env reaches agents at run time through names in strings (an
# entry point of pyproject.toml, a gymnasium entry point), never by an import. Each is listed here with why.
HIDDEN_EDGES = {
    "agents.registry:make_agent": "belote_env.single_agent.seat_player resolves agent spec strings through the "
                                  "entry-point group belote_env.agents (pyproject.toml)",
    "agents.arena.single_seat:SingleSeatVectorEnv": "gymnasium.make_vec builds the batched single-seat env from "
                                                    "belote_env.single_agent.VECTOR_ENTRY_POINT",
}


def hidden_edges() -> dict[str, str]:
    """Names of agents objects in belote_env's string constants and in pyproject.toml's entry points of belote_env
    groups: name -> where it was found."""
    import re
    import tomllib

    found = {}
    pattern = re.compile(r"^agents(\.[A-Za-z_]\w*)+(:[A-Za-z_]\w*)?$")
    for name, path in MODULES.items():
        if name.split(".")[0] != "belote_env":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.match(node.value):
                found[node.value] = f"{path.relative_to(REPO)}:{node.lineno}"
    groups = tomllib.loads((REPO / "pyproject.toml").read_text())["project"].get("entry-points", {})
    for group, points in groups.items():
        if group.split(".")[0] == "belote_env":
            found.update({value: f"pyproject.toml [project.entry-points.{group!r}]" for value in points.values()})
    return found


def test_hidden_edges_are_listed_and_real():
    import importlib

    found = hidden_edges()
    unlisted = {k: v for k, v in found.items() if k not in HIDDEN_EDGES}
    assert not unlisted, f"belote_env names agents objects not in tests/test_layout.py's HIDDEN_EDGES: {unlisted}"
    assert not set(HIDDEN_EDGES) - set(found), f"listed but no longer named: {set(HIDDEN_EDGES) - set(found)}"
    for edge in HIDDEN_EDGES:
        module, _, attr = edge.partition(":")
        try:
            assert hasattr(importlib.import_module(module), attr), edge
        except ImportError:  # a module that needs an optional library (single_seat: gymnasium >= 1.1): by its source
            assert f"{attr} = " in MODULES[module].read_text() or f"class {attr}(" in MODULES[module].read_text(), edge


def test_no_folder_holds_more_than_15_modules():
    for package in PACKAGES:
        for folder in [REPO / package, *(p.parent for p in (REPO / package).rglob("__init__.py"))]:
            count = len(list(folder.glob("*.py")))
            assert count <= MAX_MODULES_PER_FOLDER, f"{folder.relative_to(REPO)} holds {count} modules"


def layer(module: str) -> int:
    """The layer of a module, lowest first: belote_env, the players (agents), the arena, training, train.py."""
    if module == "train":
        return 4
    for depth, prefix in ((3, "agents.training"), (2, "agents.arena"), (1, "agents")):
        if module == prefix or module.startswith(prefix + "."):
            return depth
    return 0


def test_rooms_import_only_downward():
    """Players never import the arena or training, the arena never imports training (``__main__`` modules, the
    command entry points, excepted)."""
    bad = [f"{a} imports {b}" for a, targets_of in graph().items() if not a.endswith("__main__")
           for b in sorted(targets_of) if layer(b) > layer(a)]
    assert not bad, "imports that go up a layer:\n" + "\n".join(bad)
