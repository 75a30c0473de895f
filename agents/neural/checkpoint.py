"""The checkpoint format, written and read here: ``train.py``'s checkpoints and the agents' weights.

A checkpoint is a dictionary saved with ``torch.save``: the format tag, the
model config (``PolicyValueNet(**config)`` rebuilds the network), the
weights and a SHA-256 digest of them, and for training checkpoints the
optimizer, the options, the counters and every RNG state
(:mod:`agents.training.runs`). Files are written
to a temporary name, flushed and renamed (never half written), and read with
``torch.load(weights_only=True)``: a damaged, foreign or tampered file raises
:class:`~agents.errors.CheckpointError` naming the file.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from pathlib import Path

import torch

from agents.errors import CheckpointError
from agents.files import replacing
from belote_env.rules.variant import short_repr

CHECKPOINT_FORMAT = "belote_env-checkpoint/2"  # /2: the weights carry a digest, checked on load
# Earlier tags, still read: the same format under the name of the module that once wrote it, and /1,
# read with a warning (no digest to verify).
DIGEST_FORMATS = (CHECKPOINT_FORMAT, "belote_env.neural/2")
LEGACY_FORMATS = ("belote_env.neural/1",)


def weights_digest(state_dict: dict) -> str:
    """SHA-256 over every tensor of a state dict (name, dtype, shape, bytes), in name order."""
    h = hashlib.sha256()
    for name in sorted(state_dict):
        # a copy with standard strides: a size-1 tensor with stride 0 (a corrupt file can hold one) counts as
        # contiguous, and viewing it as bytes would fail
        t = state_dict[name].detach().cpu().clone(memory_format=torch.contiguous_format)
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def checkpoint_dict(net, **extra) -> dict:
    """The dictionary a checkpoint file holds: format tag, the network's spec (``mlp`` or ``module:Class``) and
    config, weights and their digest, plus ``extra`` entries (train.py adds the optimizer, arguments, counters, RNGs)."""
    from agents.neural.protocol import network_spec

    model = net.state_dict()
    return {"format": CHECKPOINT_FORMAT, "network": network_spec(net), "model_config": net.config(), "model": model,
            "model_digest": weights_digest(model), **extra}


def load_checkpoint(path: str | Path, device: str | torch.device = "cpu") -> dict:
    """The checkpoint dictionary of ``path``, checked (format, entries, weights digest, finite
    weights); raises :class:`CheckpointError`."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist (expected a .pt file written by train.py)")
    try:
        ckpt = torch.load(path, map_location=device, weights_only=True)
    except Exception as e:  # torch raises many types (UnpicklingError, RuntimeError, EOFError...) for bad files
        first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CheckpointError(
            f"{path}: not a readable PyTorch checkpoint ({type(e).__name__}: {first_line[:200]}); "
            "the file is damaged or was not written by train.py"
        ) from None
    fmt = ckpt.get("format") if isinstance(ckpt, dict) else None
    if fmt not in DIGEST_FORMATS and fmt not in LEGACY_FORMATS:
        found = fmt if isinstance(ckpt, dict) else type(ckpt).__name__
        raise CheckpointError(
            f"{path}: not a belote_env neural checkpoint (format tag {short_repr(found)}, expected "
            f"{CHECKPOINT_FORMAT!r}); give a file written by train.py"
        )
    for key in ("model_config", "model") + (("model_digest",) if fmt in DIGEST_FORMATS else ()):
        if key not in ckpt:
            raise CheckpointError(f"{path}: checkpoint lacks the {key!r} entry; the file is incomplete")
    model = ckpt["model"]
    if not isinstance(model, dict) or not all(isinstance(t, torch.Tensor) for t in model.values()):
        raise CheckpointError(f"{path}: the 'model' entry is not a dictionary of tensors; the file is damaged")
    if fmt in DIGEST_FORMATS:
        if weights_digest(model) != ckpt["model_digest"]:
            raise CheckpointError(
                f"{path}: the weights do not match the digest stored with them; the file is damaged "
                "(copy it again, or use another checkpoint of the run)"
            )
    else:
        warnings.warn(f"{path}: checkpoint format {fmt!r} stores no digest of its weights; they cannot be verified",
                      stacklevel=2)
    for name, t in model.items():
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"{path}: tensor {name!r} holds NaN or infinite values; the weights are unusable")
    return ckpt


def atomic_save(obj, path: Path) -> None:
    """torch.save into memory, then written to a temporary name unique to this process and call, flushed to
    disk and renamed over ``path``; removed if the write fails, which raises the ``OSError`` (a full disk, a
    read-only folder: :func:`agents.files.replacing`)."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    with replacing(path) as tmp:
        tmp.write_bytes(buffer.getbuffer())
