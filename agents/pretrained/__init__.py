"""Trained agents shipped with the project, built by name: ``make_agent("ppo_coinche")``.

Each ``<name>.pt`` file of this folder is a weights-only checkpoint (format
``belote_env.neural/2``: model config, half-precision weights and their
SHA-256 digest, no optimizer, options or RNG state), loaded with
``torch.load(weights_only=True)`` and checked like any checkpoint
(:func:`agents.training.runs.load_checkpoint`); ``<name>.md`` is its model card
(config, steps, wall time, machine, results with intervals). The names are
registered in :mod:`agents` at import, without importing torch.

    python -m agents.pretrained                                    # the shipped agents and their cards' first line
    python -m agents.pretrained export runs/coinche_s1/checkpoints/latest.pt ppo_coinche
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PRETRAINED_DIR = Path(__file__).resolve().parent
MAX_BYTES = 2 * 1024 * 1024  # a shipped file stays under 2 MB


def available() -> list[str]:
    """Names of the shipped agents (one ``<name>.pt`` each)."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.pt"))


def pretrained_path(name: str) -> Path:
    return PRETRAINED_DIR / f"{name}.pt"


def weights_path(spec: str) -> Path:
    """The weights file a spec names: a shipped agent's (``ppo_coinche``), else the spec read as a path."""
    return pretrained_path(spec) if spec in available() else Path(spec)


def pretrained_variant(name: str) -> str | None:
    """The variant the shipped agent ``name`` was trained on: the ``trained.variant`` its weights file
    records (written by :func:`export_pretrained`), else, without torch, the ``**Variant**: `...```
    line of its model card; None when neither says."""
    path = pretrained_path(name)
    if not path.is_file():
        from agents.errors import AgentSpecError

        raise AgentSpecError(f"no pretrained agent {name!r}; shipped: {', '.join(available()) or 'none'}")
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        variant = (torch.load(path, map_location="cpu", weights_only=True).get("trained") or {}).get("variant")
        if variant:
            return str(variant)
    card = PRETRAINED_DIR / f"{name}.md"
    if card.is_file():
        found = re.search(r"^- \*\*Variant\*\*: `([^`]+)`", card.read_text(), re.MULTILINE)
        if found:
            return found.group(1)
    return None


def trained_on(variant: str) -> list[str]:
    """The shipped agents trained on ``variant`` (a variant's name: ``coinche``), by name."""
    return [name for name in available() if pretrained_variant(name) == variant]


def variant_notes(specs, variant: str) -> list[str]:
    """One note for each shipped agent among ``specs`` trained on another variant than ``variant`` (allowed:
    every variant has the same observations and actions, but such an agent plays rules it never saw)."""
    shipped = set(available())
    notes = []
    for spec in dict.fromkeys(s for s in specs if isinstance(s, str) and s in shipped):
        trained = pretrained_variant(spec)
        if trained and trained != variant:
            notes.append(f"note: {spec} was trained on {trained}; it plays {variant} here")
    return notes


def load_pretrained(name: str, sample: bool = False, seed: int | None = None):
    """The shipped agent ``name`` as a :class:`agents.neural.NeuralAgent` (greedy unless ``sample``)."""
    from agents.neural.agent import load_agent

    path = pretrained_path(name)
    if not path.is_file():
        from agents.errors import AgentSpecError

        raise AgentSpecError(f"no pretrained agent {name!r}; shipped: {', '.join(available()) or 'none'}")
    agent = load_agent(path, sample=sample, seed=seed)
    agent.name = name
    return agent


def export_pretrained(checkpoint: str | Path, name: str, out_dir: str | Path = PRETRAINED_DIR) -> Path:
    """Write the weights of a ``train.py`` checkpoint as ``<out_dir>/<name>.pt``: half precision, weights
    only, with their digest (what :func:`load_pretrained` reads). Returns the path."""
    import torch

    from agents.errors import CheckpointError
    from agents.neural.checkpoint import atomic_save, checkpoint_dict, load_checkpoint
    from agents.neural.protocol import build_net

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name) or name.endswith(".pt"):
        from agents.errors import AgentSpecError

        raise AgentSpecError(f"a shipped agent's name is letters, digits, '_', '.' and '-' (it is also its "
                             f"agent spec: no ':', '/', space or '.pt'), got {name!r}")
    ckpt = load_checkpoint(checkpoint)
    net = build_net(ckpt, checkpoint).half()
    meta = {k: ckpt[k] for k in ("update", "global_step", "elapsed_s") if k in ckpt}
    if "args" in ckpt:
        meta["variant"] = ckpt["args"].get("variant")
    path = Path(out_dir) / f"{name}.pt"
    atomic_save(checkpoint_dict(net, trained=meta), path)
    size = path.stat().st_size
    if size > MAX_BYTES:
        path.unlink()
        raise CheckpointError(f"{name}: {size:,} bytes in half precision, over the {MAX_BYTES:,}-byte limit of a "
                              f"shipped agent")
    torch.load(path, weights_only=True)  # it reads back with the safe loader
    return path


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["export"] and len(argv) == 3:
        from belote_env.rules.errors import BeloteError

        try:
            print(export_pretrained(argv[1], argv[2]))
        except BeloteError as e:  # a missing or unreadable checkpoint, a bad name: one line, no traceback
            print(f"python -m agents.pretrained: error: {e}", file=sys.stderr)
            return 2
        return 0
    if argv:
        print(f"python -m agents.pretrained: error: expected no argument (list the shipped agents) or "
              f"'export CHECKPOINT NAME', got {' '.join(argv)!r}", file=sys.stderr)
        return 2
    for name in available():
        card = PRETRAINED_DIR / f"{name}.md"
        first = card.read_text().splitlines()[0].lstrip("# ") if card.is_file() else "(no model card)"
        print(first if first.startswith(f"{name}:") else f"{name}: {first}")
    return 0


__all__ = ["MAX_BYTES", "PRETRAINED_DIR", "available", "export_pretrained", "load_pretrained", "pretrained_path",
           "pretrained_variant", "variant_notes", "weights_path"]
