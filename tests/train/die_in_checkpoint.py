"""Run ``train.py`` in this process and die (``os._exit(137)``, as SIGKILL would) at one point of one checkpoint
write: ``python tests/train/die_in_checkpoint.py CALL PHASE TRAIN_ARGS...``.

Each checkpoint is two atomic writes (``ckpt_<update>.pt``, then ``latest.pt``); CALL counts them from 1. PHASE:
``before`` the write starts, ``during`` it (part of its temporary file written), ``after`` it is renamed in
place."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import agents.training.runs as runs  # noqa: E402
from agents.files import temporary_name  # noqa: E402

CALL, PHASE = int(sys.argv[1]), sys.argv[2]
real_save = runs.atomic_save
calls = 0


def dying_save(obj, path):
    global calls
    calls += 1
    if calls != CALL:
        return real_save(obj, path)
    if PHASE == "before":
        os._exit(137)
    if PHASE == "during":
        temporary_name(path).write_bytes(b"PK\x03\x04 half a checkpoint")
        os._exit(137)
    real_save(obj, path)
    os._exit(137)


runs.atomic_save = dying_save

import train  # noqa: E402

train.main(sys.argv[3:])
raise SystemExit(f"the run ended before write {CALL}")
