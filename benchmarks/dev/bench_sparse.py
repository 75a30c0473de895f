"""The PPO update's cost with the dense or the sparse first layer, plain or fused Adam: one figure per line.

    python benchmarks/dev/bench_sparse.py [--rows 6144] [--minibatches 4] [--epochs 4] [--repeats 5] [--clock cpu]

Observations come from random play at 512 coinche tables (all phases); one
"update" is ``--epochs`` passes over ``--rows`` of them in ``--minibatches``
minibatches, each a forward pass of ``PolicyValueNet`` (MLP 256 x 256), a
PPO-like loss, ``backward``, gradient clipping and an Adam step, on one
thread, as ``train.ppo_update`` does. The sparse variants convert the rows to
a ``SparseObs`` once per update (counted). Also: the forward pass alone at
batch sizes of the collection. Milliseconds, median (min, max) of
``--repeats``; ``--clock cpu`` times by this process's CPU time (steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.neural.network import PolicyValueNet  # noqa: E402
from agents.neural.sampling import policy_terms
from agents.neural.sparse import SparseObs  # noqa: E402
from belote_env.vector import VectorEnv  # noqa: E402


def observations(rows: int, seed: int = 0):
    env = VectorEnv("coinche", 512, seed=seed)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    all_obs, all_mask = [], []
    for _ in range(max(1, -(-rows // 512)) * 4):
        all_obs.append(obs.copy())
        all_mask.append(mask.copy())
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, *_ = env.step(a)
    o, m = np.concatenate(all_obs), np.concatenate(all_mask)
    pick = rng.permutation(len(o))[:rows]
    return o[pick], m[pick]


CLOCK = [time.perf_counter]


def timed(f, repeats: int) -> tuple[float, float, float]:
    f()  # warm-up (numba's cache, allocator)
    ts = []
    for _ in range(repeats):
        t0 = CLOCK[0]()
        f()
        ts.append((CLOCK[0]() - t0) * 1e3)
    return statistics.median(ts), min(ts), max(ts)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=6144)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    a = ap.parse_args(argv)
    if a.clock == "cpu":
        CLOCK[0] = time.process_time
    torch.set_num_threads(1)
    obs, mask = observations(a.rows)
    nnz = (obs != 0).sum(1)
    print(f"observations: {a.rows} rows, non-zero entries per row: mean {nnz.mean():.1f}, max {nnz.max()} of {obs.shape[1]}")
    x, m = torch.from_numpy(obs), torch.from_numpy(mask)
    size = a.rows // a.minibatches
    results = {}
    for fused in (False, True):
        for sparse in (False, True):
            torch.manual_seed(0)
            net = PolicyValueNet()
            opt = torch.optim.Adam(net.parameters(), lr=1e-4, fused=fused)

            def update():
                batch = SparseObs.from_dense(obs) if sparse else x
                for _ in range(a.epochs):
                    perm = torch.randperm(a.rows)
                    for q in range(a.minibatches):
                        mb = perm[q * size:(q + 1) * size]
                        logits, value = net(batch.index_select(0, mb), m.index_select(0, mb))
                        logp, probs = policy_terms(logits)
                        loss = -logp.max(1).values.mean() + (probs * logp).sum(-1).mean() + value.square().mean()
                        opt.zero_grad()
                        loss.backward()
                        torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                        opt.step()

            label = f"{'sparse' if sparse else 'dense'} first layer, {'fused' if fused else 'plain'} Adam"
            results[label] = med = timed(update, a.repeats)
            print(f"update, {label}: {med[0]:,.0f} ms (min {med[1]:,.0f}, max {med[2]:,.0f}, {a.repeats} runs)")
    base = results["dense first layer, plain Adam"][0]
    best = results["sparse first layer, fused Adam"][0]
    print(f"update speed-up, sparse + fused / dense + plain: {base / best:.2f}x")
    net = PolicyValueNet()
    with torch.no_grad():
        for rows in (64, 128, 512):
            d = timed(lambda: net(x[:rows], m[:rows]), a.repeats * 10)
            s = timed(lambda: net(SparseObs.from_dense(obs[:rows]), m[:rows]), a.repeats * 10)
            print(f"forward, {rows} rows: dense {d[0]:.2f} ms, sparse (conversion included) {s[0]:.2f} ms")


if __name__ == "__main__":
    main()
