"""The training path's products, torch's (MKL) against oneDNN's (``agents.neural.onednn``): one figure per line.

    python benchmarks/dev/bench_onednn.py [--rows 104 1520 2048] [--repeats 5] [--clock cpu]

For each layer of the default network after its first (256 x 256, and the heads' 113 x 256: the policy's 112
outputs and the value's one, stacked as ``PolicyValueNet`` runs them) and each batch size of ``--rows``
(104: collection's decisions a step with 128 tables; 1,520 and 2,048: the PPO update's minibatches), on one
torch thread, with hot caches, microseconds per call, median (min, max) of ``--repeats`` rounds:

- ``forward``: ``F.linear(x, W, b)`` against ``agents.neural.onednn.linear`` with ``W`` as it is and packed
  (``onednn.pack``, what collection does once a rollout);
- ``grad input``: ``G @ W`` against oneDNN's product of ``G`` by ``W^T`` (the copy of ``W^T`` counted);
- ``grad weight``: ``G.t() @ X``, what ``onednn``'s backward pass computes, against oneDNN's product of
  ``G^T`` by the "weight" ``X^T`` (both copies counted). That one is unsteady: at 1,520 rows of 256 x 256 it
  took 1.5 ms in some processes and 4.1 ms in others (torch's: 2.4 ms), so the backward pass keeps torch's.

``X`` is a ReLU's output (half zeros) and ``G`` normal: what the products see inside the update.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from agents.neural import onednn  # noqa: E402
from common import fmt  # noqa: E402

SHAPES = (("256 x 256", 256, 256), ("heads 113 x 256", 113, 256))


def per_call(fn, clock, repeats: int, budget: float = 0.05) -> list[float]:
    """Microseconds per call of ``fn`` in each of ``repeats`` rounds of about ``budget`` seconds."""
    fn()
    t0, calls = clock(), 0
    while clock() - t0 < budget / 4 or calls < 3:
        fn()
        calls += 1
    n = max(3, int(calls * budget / max(clock() - t0, 1e-9) / 4 * 4))
    out = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(n):
            fn()
        out.append((clock() - t0) / n * 1e6)
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, nargs="+", default=[104, 1520, 2048])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time by wall clock or by this process's CPU time (steadier on a shared machine)")
    args = p.parse_args(argv)
    if args.repeats < 1 or min(args.rows) < 2:
        p.error("--repeats must be at least 1 and every --rows at least 2")
    if not onednn.available():
        sys.exit("error: this torch build has no oneDNN linear op: agents.neural.onednn falls back to F.linear")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    torch.set_num_threads(1)
    op = torch.ops.mkldnn._linear_pointwise
    torch.manual_seed(0)
    for name, n_out, n_in in SHAPES:
        w, b = torch.randn(n_out, n_in) / n_in ** 0.5, torch.randn(n_out)
        packed = onednn.pack(w)
        for rows in args.rows:
            x, g = torch.relu(torch.randn(rows, n_in)), torch.randn(rows, n_out)
            cases = (
                ("forward, torch", lambda: F.linear(x, w, b)),
                ("forward, oneDNN", lambda: onednn.linear(x, w, b)),
                ("forward, oneDNN packed", lambda: onednn.linear(x, packed, b)),
                ("grad input, torch", lambda: g @ w),
                ("grad input, oneDNN", lambda: op(g, w.t().contiguous(), None, "none", [], "")),
                ("grad weight, torch", lambda: g.t() @ x),
                ("grad weight, oneDNN", lambda: op(g.t().contiguous(), x.t().contiguous(), None, "none", [], "")),
            )
            for label, fn in cases:
                print(fmt(f"{name}, {rows} rows, {label}", per_call(fn, clock, args.repeats), "µs"), flush=True)


if __name__ == "__main__":
    main()
