"""Speed of train.py on this machine, against the wrapped AEC env and the previous train.py: one figure per line.

    python benchmarks/bench_train.py [--config configs/train/coinche.yaml] [--repeats 5] [--updates 3]
                                     [--baseline ed320d5] [--bc-decisions 20000] [--num-envs N] [--clock cpu]

With the network, table count, rollout length and opponent mix of
``--config``, each round measures, in fresh processes one after the other:

- this tree's ``train.py``: collection steps/s (``agents.training.ppo.collect``: the batched
  engine, the network's forward pass and sampling, the fixed opponents through
  the play loop, the trajectory bookkeeping, which since 2026-12-02 holds
  the scan of the network's rows into the rollout buffer; the engine writes the
  observations, so encoding is inside "env"), the time split of collection,
  the PPO update's decisions/s and whole-training steps/s (collection + GAE +
  update, as the ``charts/SPS`` curve counts them, without evaluation);
- the same loop with the ``train.py`` of ``--baseline`` (a git revision,
  checked out in a temporary worktree and run there with its own packages;
  default: the last train.py on the rules core);
- the wrapped PettingZoo AEC env (``bench_env.py``'s loop: ``agent_iter``,
  ``last``, a random legal action, ``step``) in this process.

Figures are medians with min and max over ``--repeats`` rounds; ratios divide
medians. When the config sets ``bc_agent``, also the warm start's recording
(decisions/s of ``agents.training.behaviour_cloning.record_demonstrations``) and one cloning epoch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_env import run_loop  # noqa: E402
from common import fmt  # noqa: E402

BASELINE = "ed320d5"  # train.py before the play loop moved onto the batched engine

# Run in a fresh process inside a tree (this one or the baseline's worktree): both train.py versions
# share Tables / Rollout / collect / compute_gae / ppo_update; the newer Tables takes end_on_redeal.
MEASURE = r"""
import inspect, json, sys, time
import numpy as np, torch
sys.path.insert(0, ".")
try:
    from agents.training import ppo as train  # the trainer's library; train.py is its command (since 2026-12-07)
except ImportError:
    import train  # earlier trees: the trainer was train.py itself
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS
from belote_env.variants import load_variant

config, updates, seed, bc_decisions, num_envs = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                                                 sys.argv[6])
if sys.argv[5] == "cpu":  # CPU time of this process: steadier than wall time when other processes share the cores
    time.perf_counter = time.process_time
args, _, _ = train.parse_args(["--config", config] + (["--num-envs", num_envs] if num_envs != "0" else []))
torch.set_num_threads(args.torch_threads)
Collector = getattr(train, "Collector", None) or train.Tables  # named Tables before the layout move
PolicyValueNet = getattr(train, "PolicyValueNet", None)
if PolicyValueNet is None:
    from agents.neural.network import PolicyValueNet
new = "end_on_redeal" in inspect.signature(Collector).parameters


def run(updates, seed):
    torch.manual_seed(seed)
    net = PolicyValueNet(OBS_SIZE, args.hidden_sizes, NUM_ACTIONS, args.activation)
    if hasattr(train, "adam"):  # the optimizer train.py builds (fused Adam since the sparse first layer)
        opt = train.adam(net, args.learning_rate, eps=1e-5)
    else:
        opt = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    variant = load_variant(args.variant)
    rng = np.random.default_rng(seed)
    if new:
        tables = Collector(variant, args.num_envs, args.opponent_mix, rng, args.end_on_redeal)
    else:
        tables = Collector(variant, args.num_envs, args.opponent_mix, rng)
    buf = train.Rollout(args.num_envs * args.num_steps)
    timing, t_collect, t_update, trained = {}, 0.0, 0.0, 0
    for _ in range(updates):
        stats = {"return_team0": [], "return_team1": []}
        net.eval()
        t0 = time.perf_counter()
        if new:
            train.collect(net, tables, buf, args.num_steps, stats, timing)
        else:
            train.collect(net, tables, buf, args.num_steps, stats, args.end_on_redeal)
        t1 = time.perf_counter()
        adv, ret = train.compute_gae(buf, args.gamma, args.gae_lambda)
        net.train()
        train.ppo_update(net, opt, buf, adv, ret, args)
        t_collect += t1 - t0
        t_update += time.perf_counter() - t1
        trained += buf.size
    steps = updates * args.num_envs * args.num_steps
    out = {"collect": steps / t_collect, "update": trained / t_update, "train": steps / (t_collect + t_update),
           "collect_s": t_collect, "update_s": t_update, "timing": timing}
    return out


run(1, 0)  # warm-up: imports, numba's cache, allocator, first forward passes
out = run(updates, seed)
if bc_decisions and args.bc_agent:
    from agents.training import behaviour_cloning as bc
    from agents.training.behaviour_cloning import behaviour_clone, record_demonstrations
    t0 = time.perf_counter()
    demo = record_demonstrations(load_variant(args.variant), args.bc_agent, bc_decisions, seed)
    t1 = time.perf_counter()
    net = PolicyValueNet(OBS_SIZE, args.hidden_sizes, NUM_ACTIONS, args.activation)
    if hasattr(bc, "Fitting"):  # the fit's settings (since 2026-12-07); before, the run's options
        behaviour_clone(net, demo, bc.Fitting(1, args.bc_batch_size, args.bc_learning_rate, args.bc_value_coef,
                                              args.max_grad_norm * 10))
    else:
        behaviour_clone(net, demo, train.Args(**{**vars(args), "bc_epochs": 1, "progress": False}))
    out["bc_record"] = bc_decisions / (t1 - t0)
    out["bc_clone"] = bc_decisions / (time.perf_counter() - t1)
print("RESULT " + json.dumps(out))
"""


CLOCK = ["wall"]
NUM_ENVS = [0]  # 0: the config's


def measure(tree: Path, config: str, updates: int, seed: int, bc_decisions: int) -> dict:
    """One round of ``MEASURE`` in a fresh process in ``tree``."""
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(ROOT / config), str(updates), str(seed), str(bc_decisions),
                           CLOCK[0], str(NUM_ENVS[0])],
                          cwd=tree, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"the measurement failed in {tree}:\n{proc.stderr[-3000:]}")


def aec_rate(seconds: float, seed: int, variant: str) -> float:
    import belote_env

    e = belote_env.env(variant=variant)
    steps, dt, deals = 0, 0.0, 0
    while dt < seconds:
        s, t = run_loop(e, 50, seed * 1000 + deals)
        steps, dt, deals = steps + s, dt + t, deals + 50
    return steps / dt


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/train/coinche.yaml")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--updates", type=int, default=3)
    p.add_argument("--baseline", default=BASELINE, help="git revision of the previous train.py ('' to skip)")
    p.add_argument("--bc-decisions", type=int, default=20_000, help="decisions of the warm-start figures (0: skip)")
    p.add_argument("--aec-seconds", type=float, default=5.0)
    p.add_argument("--num-envs", type=int, default=0, help="tables, instead of the config's num_envs")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="cpu: time each side by its process's CPU time (for a machine shared with other work)")
    ns = p.parse_args()
    CLOCK[0] = ns.clock
    NUM_ENVS[0] = ns.num_envs
    if ns.clock == "cpu":
        time.perf_counter = time.process_time  # bench_env's AEC loop reads this clock too
    import yaml

    cfg = yaml.safe_load((ROOT / ns.config).read_text())
    variant = cfg.get("variant", "coinche")
    base_tree = None
    if ns.baseline:
        base_tree = Path(tempfile.mkdtemp(prefix="belote-baseline-"))
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(base_tree), ns.baseline],
                       check=True, capture_output=True)
    rows, base_rows, aec = [], [], []
    try:
        for r in range(ns.repeats):
            rows.append(measure(ROOT, ns.config, ns.updates, r + 1, ns.bc_decisions))
            if base_tree is not None:
                base_rows.append(measure(base_tree, ns.config, ns.updates, r + 1, ns.bc_decisions))
            aec.append(aec_rate(ns.aec_seconds, r, variant))
            print(f"round {r + 1}/{ns.repeats} done", file=sys.stderr)
    finally:
        if base_tree is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)], capture_output=True)
    where = f"[{Path(ns.config).stem}, {ns.num_envs or cfg.get('num_envs', 128)} tables]"
    med = lambda xs: statistics.median(xs)  # noqa: E731
    print(fmt(f"collection {where}", [r["collect"] for r in rows], "steps/s"))
    split = {k: med([r["timing"][k] / r["collect_s"] for r in rows]) for k in rows[0]["timing"]}
    print("collection split: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in split.items())
          + " (env: engine step, observation and mask included)")
    print(fmt(f"PPO update {where}", [r["update"] for r in rows], "decisions/s"))
    print(fmt(f"training, no eval {where}", [r["train"] for r in rows], "steps/s"))
    total = [r["collect_s"] + r["update_s"] for r in rows]
    t_split = {k: med([r["timing"][k] / t for r, t in zip(rows, total)]) for k in rows[0]["timing"]}
    t_split["update"] = med([r["update_s"] / t for r, t in zip(rows, total)])
    print("training split: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in t_split.items()))
    print(fmt(f"wrapped AEC env [{variant}, random legal actions]", aec, "steps/s"))
    print(f"collection/AEC steps/s: {med([r['collect'] for r in rows]) / med(aec):.1f}x")
    if base_rows:
        print(fmt(f"previous train.py ({ns.baseline}) collection {where}", [r["collect"] for r in base_rows], "steps/s"))
        print(fmt(f"previous train.py ({ns.baseline}) PPO update {where}", [r["update"] for r in base_rows], "decisions/s"))
        print(fmt(f"previous train.py ({ns.baseline}) training, no eval {where}", [r["train"] for r in base_rows], "steps/s"))
        print(f"collection/previous train.py steps/s: {med([r['collect'] for r in rows]) / med([r['collect'] for r in base_rows]):.2f}x, "
              f"PPO update/previous: {med([r['update'] for r in rows]) / med([r['update'] for r in base_rows]):.2f}x")
        print(f"training/previous train.py steps/s: {med([r['train'] for r in rows]) / med([r['train'] for r in base_rows]):.1f}x")
    if "bc_record" in rows[0]:
        for key, name in (("bc_record", "bc record"), ("bc_clone", "bc clone, one epoch")):
            print(fmt(f"{name} [{cfg.get('bc_agent')}]", [r[key] for r in rows], "decisions/s"))
        if base_rows and "bc_record" in base_rows[0]:
            print(f"bc record/previous: {med([r['bc_record'] for r in rows]) / med([r['bc_record'] for r in base_rows]):.1f}x")


if __name__ == "__main__":
    main()
