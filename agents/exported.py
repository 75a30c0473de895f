"""Policies as files: any PyTorch policy network, from any library, saved as a ``.pt2`` agent spec.

A policy network that maps a batch of observations (float32[B, 853], what every surface of the project hands a
player: the AEC env, ``SingleAgentEnv``, ``make_vec``, OpenSpiel's ``python_belote``) to action logits
(float[B, 112]) is written by :func:`export_policy` with ``torch.export``: the file holds the network's graph and
weights, so it plays without the library that trained it, its classes or its version::

    export_policy(model.policy_logits_network, "runs/a2c.pt2", name="openspiel_a2c", library="open_spiel 1.6")
    belote-eval runs/a2c.pt2 -f coinche        # or make_agent("runs/a2c.pt2"), belote-tournament, the ladder

The agent (:class:`ExportedAgent`) plays the legal action of highest logit, one batched forward pass per step
of the tables. Its ladder and belote-eval caches are keyed by the file's SHA-256, as checkpoints are. The
programs ``belote-export --program`` writes of this project's networks (``(observation, action_mask) ->
(logits, value)``) carry the same description (:func:`policy_meta`) and play the same way.

:class:`Snapshots` is the clock of a training run on a wall-clock budget (``examples/`` and the baselines page,
``benchmarks/baselines.py``): it says when the budget is spent and when a snapshot is due, and writes each
snapshot as a ``.pt2`` file with a line of ``snapshots.jsonl`` (training minutes, the library's step count);
the time spent writing snapshots is not counted as training.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.errors import AgentActionError, AgentSpecError
from agents.files import replacing

SUFFIX = ".pt2"
FORMAT = "belote_env.policy/1"
META_FILE = "belote_env.json"  # inside the .pt2 archive: name, library, observation and action sizes
LOG_FILE = "snapshots.jsonl"


def is_exported_spec(spec: str) -> bool:
    """Whether an agent spec names an exported policy file (``.pt2``)."""
    return str(spec).endswith(SUFFIX)


def export_policy(module, path: str | Path, name: str = "policy", library: str = "") -> Path:
    """Write ``module`` (observations float32[B, 853] -> logits [B, 112]; any batch size) to ``path`` (.pt2), in
    inference mode; ``name`` (the agent's name) and ``library`` (what trained it) are stored beside it."""
    import torch

    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS

    path = Path(path)
    if path.suffix != SUFFIX:
        raise ValueError(f"an exported policy's file name ends in {SUFFIX}, got {str(path)!r}")
    was_training = module.training
    module.eval()
    try:
        batch = torch.export.Dim("batch", min=1, max=1 << 20)
        example = torch.zeros(2, OBS_SIZE)
        with torch.no_grad():
            got = module(example)
            if tuple(got.shape) != (2, NUM_ACTIONS):
                raise ValueError(f"the policy gives logits of shape {tuple(got.shape)} for 2 observations; "
                                 f"an exported policy gives [batch, {NUM_ACTIONS}]")
            program = torch.export.export(module, (example,), dynamic_shapes=({0: batch},))
    finally:
        module.train(was_training)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp, open(tmp, "wb") as f:  # a file object: torch wants names ending in .pt2
        save_program(program, f, policy_meta(name, library))
    return path


def policy_meta(name: str, library: str, inputs: tuple[str, ...] = ("observation",),
                outputs: tuple[str, ...] = ("logits",)) -> dict:
    """What an exported policy file says of itself: its agent name, what trained it, its inputs (observation
    float32[B, 853], then optionally action_mask bool[B, 112]) and outputs (logits [B, 112] first)."""
    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS

    return {"format": FORMAT, "name": name, "library": library, "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS,
            "inputs": list(inputs), "outputs": list(outputs)}


def save_program(program, f, meta: dict) -> None:
    """``torch.export.save`` of ``program`` to the open file or buffer ``f``, ``meta`` stored beside it."""
    import torch

    torch.export.save(program, f, extra_files={META_FILE: json.dumps(meta)})


def read_meta(path: str | Path) -> dict:
    """What :func:`export_policy` stored beside the network (an AgentSpecError for a file that is not one)."""
    return _load(path)[1]


def _load(path: str | Path):
    """The program of a policy file (read by :mod:`agents.neural.pt2`: nothing of the file is run but ATen
    operators) and its description, both checked: an AgentSpecError naming the file says what is wrong."""
    from agents.neural.pt2 import read_program

    path = Path(path)
    if not path.is_file():
        raise AgentSpecError(f"exported policy {str(path)!r} does not exist")
    program, extra = read_program(path)
    try:
        meta = json.loads(extra[META_FILE]) if extra.get(META_FILE) else {}
    except ValueError:
        raise AgentSpecError(f"{str(path)!r}: its {META_FILE} is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise AgentSpecError(f"{str(path)!r} was not written by agents.exported.export_policy (no {META_FILE})")
    _check_program(program, meta, path)
    return program, meta


def _check_program(program, meta: dict, path: Path) -> None:
    """The program takes what the description says (observations float32[B, 853], then the mask bool[B, 112]
    when listed) and gives logits [B, 112] first; an AgentSpecError saying what it does instead."""
    import torch

    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS

    name = f"{str(path)!r}"
    inputs = meta.get("inputs", ["observation"])
    if inputs not in (["observation"], ["observation", "action_mask"]):
        raise AgentSpecError(f"{name}: its description lists inputs {str(inputs)[:100]}; a policy takes "
                             "['observation'] or ['observation', 'action_mask']")
    wanted = [(torch.float32, OBS_SIZE, "observations"), (torch.bool, NUM_ACTIONS, "action masks")][:len(inputs)]
    if len(program.inputs) != len(wanted):
        raise AgentSpecError(f"{name}: the network takes {len(program.inputs)} inputs; its description lists "
                             f"{len(wanted)} ({', '.join(inputs)})")
    for (_, dtype, shape), (want_dtype, size, what) in zip(program.inputs, wanted):
        if shape is not None and (len(shape) != 2 or shape[1] != size):
            raise AgentSpecError(f"{name}: the network takes {what} of shape {list(shape)}; belote_env's are "
                                 f"[batch, {size}]")
        if dtype is not None and dtype != want_dtype:
            raise AgentSpecError(f"{name}: the network takes {what} of {dtype}; belote_env's are {want_dtype}")
    for batch in (2, 3):  # two sizes: a graph that fixed its batch size fails here, not at a table
        example = (torch.zeros(batch, OBS_SIZE), torch.ones(batch, NUM_ACTIONS, dtype=torch.bool))[:len(wanted)]
        try:
            with torch.inference_mode():
                out = program(*example)
        except Exception as e:  # whatever an operator raises on the file's graph
            raise AgentSpecError(f"{name}: the network fails on a batch of {batch} observations "
                                 f"({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''})") from None
        logits = out[0] if out else None
        if not (isinstance(logits, torch.Tensor) and logits.is_floating_point()
                and tuple(logits.shape) == (batch, NUM_ACTIONS)):
            got = (f"{logits.dtype} of shape {list(logits.shape)}" if isinstance(logits, torch.Tensor)
                   else type(logits).__name__)
            raise AgentSpecError(f"{name}: for {batch} observations the network's first output is {got}; a policy "
                                 f"gives float logits of shape [batch, {NUM_ACTIONS}]")


class ExportedAgent(Agent):
    """A policy file written by :func:`export_policy`: the legal action of highest logit (ties, and a row whose
    legal logits are all -inf, to the lowest legal action); a NaN logit of a legal action is an
    :class:`~agents.errors.AgentActionError` naming the file."""

    needs_info = False

    def __init__(self, path: str | Path, name: str | None = None):
        program, meta = _load(path)
        self.path = Path(path)
        self.meta = meta
        self.net = program
        given = meta.get("name")
        self.name = name or (given if isinstance(given, str) and given.isprintable() and 0 < len(given) <= 64
                             else self.path.stem)
        self.with_mask = "action_mask" in meta.get("inputs", ())

    def act(self, observation, action_mask, info=None) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], None)[0])

    def act_batch(self, observations, action_masks, infos):
        import torch

        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        legal = np.asarray(action_masks) > 0
        with torch.inference_mode():
            if self.with_mask:
                logits = self.net(obs, torch.from_numpy(legal))[0]
            else:
                logits = self.net(obs)[0]
        scores = np.where(legal, logits.numpy().astype(np.float64), -np.inf)
        if np.isnan(scores).any():
            row = int(np.flatnonzero(np.isnan(scores).any(axis=1))[0])
            raise AgentActionError(f"policy {str(self.path)!r} gave NaN logits for legal actions (row {row} of "
                                   f"{len(scores)}): the network's weights or its input are broken")
        best = scores.argmax(axis=1)
        return np.where(legal[np.arange(len(best)), best], best, legal.argmax(axis=1))


class Snapshots:
    """A training run's wall-clock budget and its snapshots (``snapshot_<k>.pt2`` + ``snapshots.jsonl`` in
    ``folder``; a new clock clears the files of an earlier run there).

    ``minutes`` is the training budget; ``every_minutes`` the spacing of snapshots. The loop asks
    :meth:`over` and :meth:`due`, and calls :meth:`save`: the first snapshot is due at once (the untrained
    policy, minute 0) and the last one is written by :meth:`finish`. Time spent in :meth:`save` is not training.
    """

    def __init__(self, folder: str | Path | None, minutes: float, every_minutes: float, name: str, library: str):
        if minutes <= 0 or every_minutes <= 0:
            raise ValueError(f"minutes and every_minutes must be positive, got {minutes} and {every_minutes}")
        self.folder = Path(folder) if folder is not None else None
        self.budget = 60.0 * minutes
        self.every = 60.0 * every_minutes
        self.name, self.library = name, library
        self.count = 0
        self.last: tuple[int, Path] | None = None  # (steps, path) of the latest snapshot
        self._next = 0.0
        self._paused = 0.0
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            for old in [*self.folder.glob(f"snapshot_*{SUFFIX}"), self.folder / LOG_FILE]:
                old.unlink(missing_ok=True)
        self._start = time.monotonic()

    def seconds(self) -> float:
        """Training seconds so far (snapshots' writing left out)."""
        return time.monotonic() - self._start - self._paused

    def over(self) -> bool:
        return self.seconds() >= self.budget

    def due(self) -> bool:
        return self.folder is not None and self.seconds() >= self._next

    def save(self, module, steps: int) -> Path | None:
        """Write the policy now (``steps``: the library's own count of training steps so far)."""
        if self.folder is None:
            return None
        t0 = time.monotonic()
        seconds = self.seconds()
        path = export_policy(module, self.folder / f"snapshot_{self.count:03d}{SUFFIX}", self.name, self.library)
        with open(self.folder / LOG_FILE, "a") as f:
            f.write(json.dumps({"snapshot": path.name, "minutes": round(seconds / 60, 4), "steps": int(steps)}) + "\n")
        self.count += 1
        self.last = (int(steps), path)
        while self._next <= seconds:
            self._next += self.every
        self._paused += time.monotonic() - t0
        return path

    def finish(self, module, steps: int) -> Path | None:
        """The run's last snapshot (the trained policy; the latest one when no step was trained since)."""
        if self.last is not None and self.last[0] == int(steps):
            return self.last[1]
        return self.save(module, steps)


def read_snapshots(folder: str | Path) -> list[dict]:
    """The lines of a run's ``snapshots.jsonl``: {"snapshot", "minutes", "steps"}, in the order written."""
    path = Path(folder) / LOG_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def add_budget_options(parser, snapshot_minutes: float = 1.5) -> None:
    """``--minutes`` (the training budget), ``--snapshots DIR`` and ``--snapshot-minutes``: the options by which
    ``benchmarks/baselines.py`` runs every example's training on the same clock (:meth:`Snapshots.from_args`)."""
    parser.add_argument("--minutes", type=float, default=None,
                        help="wall-clock training budget in minutes (default: none, the step count decides)")
    parser.add_argument("--snapshots", type=Path, default=None,
                        help="write the policy there as .pt2 files (agent specs) every --snapshot-minutes, "
                             "with snapshots.jsonl (training minutes, steps)")
    parser.add_argument("--snapshot-minutes", type=float, default=snapshot_minutes,
                        help=f"minutes of training between snapshots (default {snapshot_minutes})")


def snapshots_from_args(args, name: str, library: str) -> Snapshots:
    """The :class:`Snapshots` clock of an example's options (:func:`add_budget_options`)."""
    minutes = float("inf") if args.minutes is None else args.minutes
    if minutes <= 0 or args.snapshot_minutes <= 0:
        raise SystemExit(f"error: --minutes and --snapshot-minutes must be positive, got {args.minutes} and "
                         f"{args.snapshot_minutes}")
    return Snapshots(args.snapshots, minutes, args.snapshot_minutes, name, library)
