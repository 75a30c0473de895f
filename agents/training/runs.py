"""Run folders and exact resume for ``train.py``: a run folder held by one process at a time (:func:`claim_run`),
where a run's checkpoints go (``<runs_dir>/<run_name>/checkpoints``),
:func:`save_checkpoint` (the weights, the optimizer, the options, the counters and every RNG state, written
atomically to ``ckpt_<update>.pt`` and ``latest.pt``), :func:`resume_checkpoint` and :func:`restore_rngs` (a
resumed run continues bit for bit), and :func:`init_checkpoint` (``--init-from``). The file format itself is
:mod:`agents.neural.checkpoint`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import shutil
import signal
import socket
import sys
import time
from pathlib import Path

import numpy as np
import torch

from agents.cli import check_writable
from agents.errors import CheckpointError
from agents.files import replacing
from agents.neural.checkpoint import atomic_save, checkpoint_dict, load_checkpoint
from agents.training.errors import ConfigError, DivergedError, RunInUseError, RunWriteError
from belote_env.rules.errors import BeloteError

LOCK_FILE = "run.lock"


@contextlib.contextmanager
def claim_run(run_dir: Path):
    """Hold the run folder ``run_dir`` for this process while the block runs: an exclusive lock on
    ``<run_dir>/run.lock`` (``flock``; the system releases it when the process ends, killed or not, so it is
    never stale). A folder another process holds raises :class:`RunInUseError` naming that process, before
    anything is written; a folder that cannot be created raises :class:`ConfigError`. The lock file stays
    (removing it would let a third process lock a new file while a second one waits on the old)."""
    run_dir = Path(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        fh = open(run_dir / LOCK_FILE, "a+")  # noqa: SIM115 (held until the block ends)
    except OSError as e:
        raise ConfigError(f"cannot use the run folder {str(run_dir)!r}: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise RunInUseError(f"run {run_dir.name!r} ({run_dir}) is in use by {holder}; wait for it to end, "
                                "or choose another --run-name") from None
        with contextlib.suppress(OSError):  # who holds it, for the message above (a full disk only loses that)
            fh.seek(0)
            fh.truncate()
            fh.write(f"train.py pid {os.getpid()} on {socket.gethostname()}, since "
                     f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n")
            fh.flush()
        yield run_dir
    finally:
        fh.close()  # releases the lock


class RunInterrupted(Exception):
    """SIGINT or SIGTERM stopped the run at a checkpoint (``where``: which); ``exit_status`` is 128 + the signal's
    number. The message says how to continue the run."""

    def __init__(self, signum: int, where: str, run_dir: Path):
        super().__init__(f"{signal.Signals(signum).name}: stopped after {where}; continue with: python train.py "
                         f"--resume --run-name {run_dir.name} --runs-dir {run_dir.parent}")
        self.exit_status = 128 + signum


class Stops(list):
    """The numbers of the signals a run received (:func:`stop_on_signals`); while ``quiet``, a phase that stops at
    once on them runs (an expert recording) and says so itself."""

    quiet = False


@contextlib.contextmanager
def stop_on_signals(say=print, where: str = "the next checkpoint"):
    """While the block runs, SIGINT (Ctrl-C) and SIGTERM ask the run to stop at ``where`` instead of killing it:
    the yielded :class:`Stops` list gets the signal's number (``say`` tells the user at once unless it is
    ``quiet``), and the signal's previous
    handler is put back, so a second one acts as usual (Ctrl-C: ``KeyboardInterrupt``, at once). Outside the
    main thread signals cannot be caught: they then act as usual."""
    got = Stops()
    previous = {}

    def handler(signum, frame):
        got.append(signum)
        signal.signal(signum, previous[signum])
        if not got.quiet:
            say(f"{signal.Signals(signum).name}: stopping at {where}, from which --resume is exact; send it again "
                "to stop at once (the last checkpoint is kept)")

    try:
        for s in (signal.SIGINT, signal.SIGTERM):
            previous[s] = signal.signal(s, handler)
    except ValueError:  # not the main thread
        pass
    try:
        yield got
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def run_command(main, argv=None) -> int:
    """``main(argv)`` as ``train.py``'s command: its exit status, 0 when it returns. A BeloteError (a bad option,
    a checkpoint that cannot be read or written) is one ``error:`` line and status 2; a run stopped by a signal
    (:class:`RunInterrupted`) prints its line and exits 130 / 143; a Ctrl-C that stops at once, one line and 130."""
    try:
        main(argv)
    except BeloteError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except RunInterrupted as e:
        print(e, file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        print("interrupted: stopped at once; the run's last checkpoint, if any, is kept (--resume continues from "
              "it)", file=sys.stderr)
        return 130
    return 0


def checkpoint_dir(run_dir: Path) -> Path:
    """Where the run in ``run_dir`` (``<runs_dir>/<run_name>``) keeps its checkpoints."""
    return Path(run_dir) / "checkpoints"


def check_finite(what: str, hint: str, *modules) -> None:
    """:class:`DivergedError` naming ``what`` (the fit or update just done), the first weight that is NaN or inf,
    and ``hint`` (the options to lower) when a module of ``modules`` (None entries skipped) has one: a diverged
    network is never played, evaluated or written."""
    for module in modules:
        if module is None:
            continue
        for name, t in module.state_dict().items():
            if t.is_floating_point() and not bool(torch.isfinite(t).all()):
                raise DivergedError(f"{what} left the network's weights not finite (NaN or inf in {name}): the fit "
                                    f"diverged; nothing of it was written or played. {hint}")


def save_checkpoint(run_dir: Path, options: dict, keep: int, net, optimizer, collect_rng, update: int,
                    global_step: int, elapsed: float, **extra) -> Path:
    """Everything a run needs to continue exactly: written to ``ckpt_<update>.pt`` and ``latest.pt`` in the
    run's checkpoint folder, the ``keep`` newest ``ckpt_*.pt`` kept. ``options``: the run's options (saved as
    ``args``, what ``--resume`` continues with). ``extra``: more entries (the central critic, the opponent pool)."""
    ckpt = checkpoint_dict(
        net,
        optimizer=optimizer.state_dict(),
        args=options,
        update=update,
        global_step=global_step,
        elapsed_s=elapsed,
        rng={"python": random.getstate(), "numpy": _np_global_state(), "torch": torch.get_rng_state(),
             "collect": collect_rng.bit_generator.state},
        **extra,
    )
    d = checkpoint_dir(run_dir)
    path = d / f"ckpt_{update:07d}.pt"
    try:
        d.mkdir(parents=True, exist_ok=True)
        atomic_save(ckpt, path)
        atomic_save(ckpt, d / "latest.pt")
        for old in sorted(d.glob("ckpt_*.pt"))[:-keep]:
            old.unlink()
    except OSError as e:
        kept = latest_checkpoint(run_dir)
        raise RunWriteError(f"cannot write the checkpoint of update {update} in {d}: {e.strerror or e}; "
                            + (f"the last one kept is {kept.name} (--resume continues from it)" if kept else
                               "no checkpoint of this run is kept")) from None
    return path


def prepare_checkpoints(run_dir: Path, newest: Path | None = None) -> None:
    """Before the first update (the run folder held): the checkpoint folder can be made and written
    (RunWriteError otherwise). On resume from ``newest``, the temporary files of a write that was killed are
    removed and ``latest.pt`` becomes a copy of ``newest`` (a run killed between the two writes of its last
    checkpoint has an older ``latest.pt``)."""
    d = checkpoint_dir(run_dir)
    check_writable(d, "checkpoint folder", RunWriteError)
    if newest is None:
        return
    for tmp in d.glob("*.tmp"):
        tmp.unlink(missing_ok=True)
    with replacing(d / "latest.pt") as tmp:
        shutil.copyfile(newest, tmp)


def _np_global_state() -> dict:
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    return {"kind": kind, "keys": torch.from_numpy(keys.astype(np.int64)), "pos": int(pos),
            "has_gauss": int(has_gauss), "gauss": float(gauss)}


def _np_set_global_state(s: dict) -> None:
    np.random.set_state((s["kind"], s["keys"].numpy().astype(np.uint32), s["pos"], s["has_gauss"], s["gauss"]))


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest ``ckpt_*.pt`` of the run in ``run_dir``, or None."""
    found = sorted(checkpoint_dir(run_dir).glob("ckpt_*.pt"))
    return found[-1] if found else None


def free_run_name(runs_dir: str | Path, run_name: str, announce: bool = False) -> str:
    """``run_name`` if that run (in ``runs_dir``) has no checkpoint, else the first ``<run_name>_<k>`` (k = 2,
    3, ...) whose directory does not exist (``announce``: print that choice)."""
    runs_dir = Path(runs_dir)
    if latest_checkpoint(runs_dir / run_name) is None:
        return run_name
    k = 2
    while (runs_dir / f"{run_name}_{k}").exists():
        k += 1
    name = f"{run_name}_{k}"
    if announce:
        print(f"run {run_name!r} already has checkpoints (pass --resume to continue it); "
              f"this run is {name!r}: {runs_dir / name}")
    return name


def init_checkpoint(spec: str, network: str, net_config: dict) -> tuple[dict, Path]:
    """The checkpoint dictionary and path named by ``init_from`` (a checkpoint path or a shipped agent's name,
    ``ppo_coinche``), checked to hold a network of spec ``network`` built from ``net_config`` (the run's);
    ConfigError otherwise."""
    from agents.pretrained import available, weights_path

    path = weights_path(spec)
    if not path.is_file():
        raise ConfigError(f"option 'init_from': {spec!r} is neither a checkpoint file nor a shipped agent "
                          f"({', '.join(available()) or 'none shipped'})")
    try:
        ckpt = load_checkpoint(path)
    except CheckpointError as e:
        raise ConfigError(f"option 'init_from': {e}") from None
    found = (ckpt.get("network", "mlp"), ckpt["model_config"])
    if found != (network, net_config):
        raise ConfigError(f"option 'init_from': {path} holds the network {found[0]} {found[1]}; this run's is "
                          f"{network} {net_config} (set network, network_kwargs, hidden_sizes and activation to match)")
    return ckpt, path


RESUME_ENTRIES = ("args", "optimizer", "update", "global_step", "rng")


def resume_checkpoint(run_dir: Path, cli_overrides: dict | None = None) -> tuple[dict, Path, dict]:
    """The latest training checkpoint of the run in ``run_dir``, its path, and the options to continue with (the
    saved ones, overridden by those given on the command line); ConfigError when there is none or it holds
    weights only."""
    path = latest_checkpoint(run_dir)
    if path is None:
        raise ConfigError(f"--resume: no checkpoint in {checkpoint_dir(run_dir)}; start the run without --resume")
    ckpt = load_checkpoint(path)
    missing = [k for k in RESUME_ENTRIES if k not in ckpt]
    if missing:
        raise ConfigError(
            f"--resume: {path} holds the network's weights only (no {', '.join(missing)}); it can be "
            "evaluated (--evaluate PATH) or played as an agent, but a run resumes only from a checkpoint "
            "train.py wrote during training"
        )
    saved = dict(ckpt["args"])
    for name in FIXED_ON_RESUME:
        if name in (cli_overrides or {}) and name in saved and cli_overrides[name] != saved[name]:
            raise ConfigError(f"--resume: option {name!r} cannot change on resume (the run has {saved[name]!r}, "
                              f"given {cli_overrides[name]!r}): {FIXED_ON_RESUME[name]}")
    saved.update(cli_overrides or {})  # only options given on the command line may change on resume
    return ckpt, path, saved


# Options a resumed run keeps, and why.
FIXED_ON_RESUME = {
    "hidden_sizes": "the checkpoint's network has the run's sizes; train another network in a new run",
    "activation": "the checkpoint's network has the run's activation; train another network in a new run",
    "network": "the checkpoint holds the run's network; train another network in a new run",
    "network_kwargs": "the checkpoint's network was built from the run's network_kwargs; train another in a new run",
    "num_envs": "the run's updates are batches of num_envs x num_steps decisions",
    "num_steps": "the run's updates are batches of num_envs x num_steps decisions",
}


def restore_rngs(ckpt: dict, collect_rng: np.random.Generator) -> None:
    """Python, NumPy, torch and collection RNG states as saved by :func:`save_checkpoint`."""
    rng = ckpt["rng"]
    random.setstate(rng["python"])
    _np_set_global_state(rng["numpy"])
    torch.set_rng_state(rng["torch"])
    collect_rng.bit_generator.state = rng["collect"]
