"""Export a trained network for use outside the project: torch.export, TorchScript and ONNX.

    python -m agents.training.export runs/quick_s1/checkpoints/latest.pt --program policy.pt2 --torchscript policy.pt --onnx policy.onnx

All take ``observation`` float32[B, 853] and ``action_mask`` bool[B, 112]
(the env's observation and mask) and return ``logits`` float32[B, 112]
(illegal actions at -1e9, so ``argmax`` is the greedy legal action, as
``NeuralAgent`` plays) and ``value`` float32[B]. The batch size is dynamic.
The program (``torch.export``, the format torch 2.13 recommends in place of
TorchScript) loads with ``torch.export.load(path).module()``, and is an agent
spec too (``belote-eval policy.pt2``, :mod:`agents.exported`); TorchScript
with ``torch.jit.load`` (no project code needed for either); ONNX needs the
``onnx`` package to write (``pip install belote_env[export]``) and runs in
onnxruntime or any ONNX runtime.

Each file is serialized in memory, then written under a temporary name and renamed
(:func:`agents.files.replacing`): a full disk or a kill never leaves a partial file, and
an existing file is replaced whole. A destination that is a folder is refused
(:class:`~agents.training.errors.ExportError`).
"""

from __future__ import annotations

import argparse
import io
import sys
import warnings
from pathlib import Path

import torch
from torch import nn

from agents.cli import CommandParser, check_writable
from agents.exported import policy_meta, save_program
from agents.files import replacing
from agents.neural.checkpoint import load_checkpoint
from agents.neural.protocol import build_net, is_factored, mask_logits
from agents.training.errors import ExportError
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS


class ExportedPolicy(nn.Module):
    """The network with its mask: (observation, action_mask) -> (masked logits, value)."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net.eval()

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor):
        logits, value = self.net(observation, action_mask)
        return mask_logits(logits, action_mask), value


def _policy(checkpoint) -> ExportedPolicy:
    """The checkpoint's policy to export; ExportError for a network trained with factored calls (an export plays
    the flat action space: one forward pass a decision)."""
    net = build_net(load_checkpoint(checkpoint), checkpoint)
    if is_factored(net):
        raise ExportError(f"{checkpoint}: a network trained with factored calls (train.py --factored-calls) cannot be "
                          "exported yet: an exported policy takes flat observations and masks in one forward pass, "
                          "where this one makes a call in up to three (load the checkpoint itself: make_agent(path))")
    return ExportedPolicy(net)


def _example():
    return torch.zeros(2, OBS_SIZE), torch.ones(2, NUM_ACTIONS, dtype=torch.bool)


def _destination(out: str | Path, example: str = "policy.pt", flag: str = "") -> Path:
    """``out`` as a Path; ExportError if it is a folder (the file would have no name)."""
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{flag + ' ' if flag else ''}{str(out)!r} is a folder; give a file path, such as "
                          f"{str(out / example)!r}")
    return out


def _write(out: Path, buffer: io.BytesIO) -> Path:
    """The serialized export written whole to ``out`` (temporary name, flushed, renamed); ExportError naming the
    file when it cannot be written (a full disk, a read-only folder), with nothing left behind."""
    try:
        with replacing(out) as tmp:
            tmp.write_bytes(buffer.getbuffer())
    except OSError as e:
        raise ExportError(f"cannot write {str(out)!r}: {e.strerror or e}") from None
    return out


def export_torchscript(checkpoint: str | Path, out: str | Path) -> Path:
    """A TorchScript file of the checkpoint's policy (``torch.jit.load(out)``)."""
    out = _destination(out)
    model = _policy(checkpoint)
    with torch.no_grad():
        traced = torch.jit.trace(model, _example())
    buffer = io.BytesIO()
    torch.jit.save(traced, buffer)
    return _write(out, buffer)


def export_program(checkpoint: str | Path, out: str | Path) -> Path:
    """A ``torch.export`` program of the checkpoint's policy, dynamic batch size (``torch.export.load(out).module()``)."""
    out = _destination(out, "policy.pt2")
    model = _policy(checkpoint)
    batch = torch.export.Dim("batch", min=1)
    with torch.no_grad():
        program = torch.export.export(model, _example(),
                                      dynamic_shapes={"observation": {0: batch}, "action_mask": {0: batch}})
    buffer = io.BytesIO()
    save_program(program, buffer, policy_meta(Path(checkpoint).stem, "belote_env train.py",
                                              inputs=("observation", "action_mask"), outputs=("logits", "value")))
    return _write(out, buffer)


def export_onnx(checkpoint: str | Path, out: str | Path) -> Path:
    """An ONNX file of the checkpoint's policy, dynamic batch size (needs the ``onnx`` package)."""
    out = _destination(out, "policy.onnx")
    model = _policy(checkpoint)
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        # dynamo=False on purpose (the TorchScript-based exporter handles the masked network without onnxscript);
        # its deprecation notice is not the user's business
        warnings.filterwarnings("ignore", "You are using the legacy TorchScript-based ONNX export",
                                DeprecationWarning)
        torch.onnx.export(
            model, _example(), buffer, dynamo=False, input_names=["observation", "action_mask"],
            output_names=["logits", "value"],
            dynamic_axes={"observation": {0: "batch"}, "action_mask": {0: "batch"}, "logits": {0: "batch"},
                          "value": {0: "batch"}},
        )
    return _write(out, buffer)


def main(argv=None) -> int:
    p = CommandParser(prog="python -m agents.training.export", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", help="a checkpoint written by train.py")
    p.add_argument("--program", metavar="PATH", help="write a torch.export program (.pt2)")
    p.add_argument("--torchscript", metavar="PATH", help="write a TorchScript file")
    p.add_argument("--onnx", metavar="PATH", help="write an ONNX file (needs the onnx package)")
    args = p.parse_args(argv)
    if not args.program and not args.torchscript and not args.onnx:
        p.error("give at least one of --program PATH, --torchscript PATH, --onnx PATH")
    try:
        for flag, path, example in (("--program", args.program, "policy.pt2"),
                                    ("--torchscript", args.torchscript, "policy.pt"),
                                    ("--onnx", args.onnx, "policy.onnx")):
            if path:  # a file path whose folder is made if needed and must be writable, before any export
                _destination(path, example, flag)
                check_writable(Path(path).resolve().parent, flag)
        if args.program:
            print(f"wrote {export_program(args.checkpoint, args.program)}")
        if args.torchscript:
            print(f"wrote {export_torchscript(args.checkpoint, args.torchscript)}")
        if args.onnx:
            print(f"wrote {export_onnx(args.checkpoint, args.onnx)}")
    except ValueError as e:  # CheckpointError and friends
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"error: {e}; install it with: pip install onnx", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
