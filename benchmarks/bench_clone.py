"""Clone at equal wall time: how well each network fits the same recorded decisions in the same seconds.

    python benchmarks/bench_clone.py NETWORK [NETWORK ...] [--seconds 60] [--decisions 400000]
                                     [--variant coinche] [--teacher heuristic] [--threads 2]

A NETWORK is a spec as ``train.py --network`` takes it (``mlp``, ``cardset``, ``cardset_blocks``,
``module:Class``), optionally with keyword arguments after ``@``: ``cardset@hidden=48`` or
``cardset_blocks@heads=4`` (values read as YAML, as ``--network-kwargs``). ``--decisions`` decisions of
``--teacher`` are recorded once; each network is then fitted to them by the warm start's losses
(:func:`agents.training.behaviour_cloning.clone_losses`) with Adam, its learning rate falling linearly to a tenth
over ``--seconds`` of wall time, and scored on 10,000 held-out decisions: held-out accuracy (auction and card
play apart) and value loss, with the rows fitted per second. A quick guide to which network learns more per
minute of this machine before spending a 15-minute PPO run on it (docs/training.md); the noise between two runs
of one network is about a point of accuracy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def parse_network(text: str) -> tuple[str, dict]:
    """``SPEC`` or ``SPEC@key=value,...`` as (spec, kwargs)."""
    from agents.training.options import key_values

    spec, _, kwargs = text.partition("@")
    return spec, key_values("network_kwargs", kwargs.split(",")) if kwargs else {}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("networks", nargs="+", metavar="NETWORK",
                   help="SPEC or SPEC@key=value,... (mlp, cardset, cardset_blocks, module:Class)")
    p.add_argument("--seconds", type=float, default=60.0, help="wall-clock seconds of fitting per network")
    p.add_argument("--decisions", type=int, default=400_000, help="recorded decisions (10,000 of them held out)")
    p.add_argument("--variant", default="coinche")
    p.add_argument("--teacher", default="heuristic", help="the agent whose decisions are recorded")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--threads", type=int, default=2, help="torch threads")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    if a.seconds <= 0 or a.decisions < 20_000 or a.batch_size < 1:
        p.error("--seconds must be positive, --decisions at least 20000 and --batch-size at least 1")

    import torch

    from agents.errors import NetworkSpecError
    from agents.neural.protocol import build_network, training_path
    from agents.training.behaviour_cloning import clone_losses, clone_validation, record_demonstrations
    from agents.training.learner import adam
    from agents.training.options import ConfigError
    from belote_env.variants import load_variant

    try:
        networks = [(text, *parse_network(text)) for text in a.networks]
        for text, spec, kwargs in networks:
            build_network(spec, kwargs)
    except (NetworkSpecError, ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    torch.set_num_threads(a.threads)
    t0 = time.time()
    demo = record_demonstrations(load_variant(a.variant), a.teacher, a.decisions, seed=a.seed, progress=True)
    print(f"{a.decisions:,} decisions of {a.teacher} ({a.variant}) recorded in {time.time() - t0:.0f} s; "
          f"each network fitted for {a.seconds:g} s on {a.threads} torch threads")
    order = torch.randperm(a.decisions, generator=torch.Generator().manual_seed(a.seed))
    held_out, fitted = order[:10_000], order[10_000:]
    mask, actions, returns = (torch.from_numpy(x) for x in (demo.mask, demo.actions, demo.returns))
    print(f"{'network':40s} {'parameters':>10s} {'rows/s':>8s} {'epochs':>6s} {'held-out':>8s} {'auction':>8s} "
          f"{'card play':>9s} {'value loss':>10s}")
    for text, spec, kwargs in networks:
        torch.manual_seed(a.seed)
        net = build_network(spec, kwargs)
        obs = training_path(net).dense_batch(demo.obs)
        optimizer = adam(net, a.learning_rate)
        rows, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < a.seconds:
            batch = fitted[torch.randint(len(fitted), (a.batch_size,))]
            optimizer.param_groups[0]["lr"] = a.learning_rate * (1.0 - 0.9 * elapsed / a.seconds)
            _, policy_loss, value_loss = clone_losses(net, obs.index_select(0, batch), mask[batch], actions[batch],
                                                      returns[batch])
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            rows += a.batch_size
        f = clone_validation(net, obs.index_select(0, held_out), mask[held_out], actions[held_out], returns[held_out])
        params = sum(t.numel() for t in net.parameters())
        print(f"{text:40s} {params:10,d} {rows / a.seconds:8,.0f} {rows / len(fitted):6.2f} "
              f"{100 * f['val_accuracy']:7.1f}% {100 * f['val_accuracy_bidding']:7.1f}% "
              f"{100 * f['val_accuracy_play']:8.1f}% {f['val_value_loss']:10.4f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
