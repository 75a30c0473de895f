"""Speed of the batched engine against the PettingZoo AEC env: one figure per line.

    python benchmarks/bench_vector.py [--variant coinche] [--repeats 5] [--seconds 2]

Contenders, interleaved in every round so that they share the machine's load:

- ``VectorEnv`` at N = 1, 64 and 1,024 tables: every step draws a uniformly
  random legal action per table with numpy (float32 uniforms in [1, 2) times
  the mask, argmax) and gets obs, mask and seat back; steps/s counts table-steps. At
  1,024 tables it runs twice: on one core (the default) and on numba's
  threads (``parallel=True``); and once with factored calls (``calls="factored"``: random legal factored
  choices, so a call is up to three steps);
- the same games in both action spaces, at 1,024 tables: a uniformly random legal flat action per decision
  (the same uniforms per table, in order), made in one step on the flat ``VectorEnv`` and as its factored
  choices on the factored one; counted in flat actions/s, so the factored figure pays for its extra steps;
- the wrapped AEC env (``belote_env.env``), the loop of ``bench_env.py``:
  ``agent_iter()``, ``last()``, a random legal action from the mask, ``step()``;
- ``belote_env.fast.rollout``: whole random deals (bidding, play, scoring) in
  the kernels, one core, with each of its generators (``rng="cpython"``, the
  default, and ``rng="counter"``); and, when colver is installed (``pip install colver``,
  a Rust engine, not a dependency of this project), its native
  ``Env.rollout(n)`` in the same rounds: n random playouts (bidding, play,
  scoring) from one dealt position, which deals no cards, with the ratio per
  round.

Each figure is the median of ``--repeats`` rounds with min and max; the
ratios divide medians and, in brackets, the min and max of the per-round
ratios. Compilation is done (or loaded from numba's cache) before timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numba  # noqa: E402
import numpy as np  # noqa: E402
from bench_env import run_loop  # noqa: E402
from common import fmt  # noqa: E402

import belote_env  # noqa: E402
from belote_env.fast import rollout  # noqa: E402
from belote_env.vector import VectorEnv  # noqa: E402


def vector_rate(venv: VectorEnv, seconds: float, seed: int) -> float:
    """Table-steps per second of masked random play for about ``seconds``."""
    rng = np.random.default_rng(seed)
    obs, mask, seat = venv.reset(seed=seed)
    steps = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(20):
            u = rng.random(mask.shape, dtype=np.float32)
            u += 1.0  # in [1, 2): a legal action always beats the zeros of the illegal ones
            u *= mask
            obs, mask, seat, rewards, done, info = venv.step(u.argmax(axis=1))
        steps += 20
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return steps * venv.num_tables / dt


def same_games_rate(venv: VectorEnv, seconds: float, seed: int) -> tuple[float, float]:
    """Flat actions and table-steps per second of random play, in either action space: table ``i``'s ``k``-th action is the
    legal flat action at uniform ``U[i, k]`` of its flat mask, made in one step (``calls="flat"``) or as its
    factored choices (``calls="factored"``); only ``step`` is timed."""
    from belote_env.factored import CALL, EN_FACE, LEVEL, LEVEL_OF, STRAIN, STRAIN_OF, WHAT
    from belote_env.rules.actions import EN_FACE as FLAT_EN_FACE

    n = venv.num_tables
    uniforms = np.random.default_rng(seed).random((n, 4096))
    taken = np.zeros(n, dtype=np.int64)  # flat actions drawn at each table
    target = np.zeros(n, dtype=np.int64)
    venv.reset(seed=seed)
    dt, steps = 0.0, 0
    while (dt == 0.0 or dt < seconds) and taken.max() < uniforms.shape[1] - 1:
        flat = venv.flat_masks()
        stage = venv.decisions()[0] if venv.factored else np.full(n, WHAT)
        new = np.flatnonzero(stage == WHAT)
        cum = flat[new].cumsum(axis=1)
        u = uniforms[new, taken[new]] * cum[:, -1]
        target[new] = (cum <= u[:, None]).sum(axis=1)
        taken[new] += 1
        choice = target.copy()
        if venv.factored:
            call = (stage == WHAT) & (target >= CALL)
            choice[call] = np.where(target[call] == FLAT_EN_FACE, EN_FACE, CALL)
            choice[stage == 1] = STRAIN + STRAIN_OF[target[stage == 1]]
            choice[stage == 2] = LEVEL + LEVEL_OF[target[stage == 2]]
        t = time.perf_counter()
        venv.step(choice)
        dt += time.perf_counter() - t
        steps += n
    done = taken - (venv.decisions()[0] != WHAT) if venv.factored else taken  # a call under way is not done
    return int(done.sum()) / dt, steps / dt


def aec_rate(e, seconds: float, seed: int) -> float:
    steps, dt, deals = 0, 0.0, 0
    while dt < seconds:
        s, t = run_loop(e, 50, seed * 1000 + deals)
        steps, dt, deals = steps + s, dt + t, deals + 50
    return steps / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--repeats", type=int, default=5, help="rounds")
    ap.add_argument("--seconds", type=float, default=2.0, help="time per contender per round")
    ap.add_argument("--deals", type=int, default=200_000, help="rollout deals per round")
    args = ap.parse_args()
    contenders = {
        "VectorEnv N=1": VectorEnv(args.variant, num_tables=1),
        "VectorEnv N=64": VectorEnv(args.variant, num_tables=64),
        "VectorEnv N=1024": VectorEnv(args.variant, num_tables=1024),
        "VectorEnv N=1024 parallel": VectorEnv(args.variant, num_tables=1024, parallel=True),
        "VectorEnv N=1024 factored": VectorEnv(args.variant, num_tables=1024, calls="factored"),
    }
    same = {"flat": VectorEnv(args.variant, num_tables=1024), "factored": VectorEnv(args.variant, num_tables=1024,
                                                                                 calls="factored")}
    for venv in contenders.values():  # compile or load the kernels before timing
        vector_rate(venv, 0.0, 0)
    for venv in same.values():
        same_games_rate(venv, 0.0, 0)
    rollout(args.variant, 10)
    rollout(args.variant, 10, rng="counter")
    aec = belote_env.env(args.variant)
    rates = {name: [] for name in [*contenders, "AEC env"]}
    same_rates, same_steps = {name: [] for name in same}, {name: [] for name in same}
    deals, counter, peer = [], [], []
    try:
        import colver

        colver_env = colver.Env()
    except ImportError:
        colver_env = None
        print("colver not installed: pip install colver adds its rollout as the peer of ours", flush=True)
    for r in range(args.repeats):
        for name, venv in contenders.items():
            rates[name].append(vector_rate(venv, args.seconds, r))
        for name, venv in same.items():
            actions, steps = same_games_rate(venv, args.seconds, r)
            same_rates[name].append(actions)
            same_steps[name].append(steps)
        rates["AEC env"].append(aec_rate(aec, args.seconds, r))
        t = time.perf_counter()
        rollout(args.variant, args.deals, seed=r)
        deals.append(args.deals / (time.perf_counter() - t))
        t = time.perf_counter()
        rollout(args.variant, args.deals, seed=r, rng="counter")
        counter.append(args.deals / (time.perf_counter() - t))
        if colver_env is not None:
            colver_env.reset()
            t = time.perf_counter()
            colver_env.rollout(args.deals)
            peer.append(args.deals / (time.perf_counter() - t))
    threads = numba.get_num_threads()
    print(f"variant {args.variant}, {args.repeats} rounds, numba threads {threads}", flush=True)
    for name, runs in rates.items():
        label = name
        if name.startswith("VectorEnv") and contenders[name].parallel:
            label += f" ({threads} threads)"
        print(fmt(f"{label} steps/s", runs, "steps/s"))
    aec_runs = rates["AEC env"]
    for name in contenders:
        per_round = [a / b for a, b in zip(rates[name], aec_runs)]
        print(f"ratio {name} / AEC env: {statistics.median(rates[name]) / statistics.median(aec_runs):.1f}x "
              f"(per round {min(per_round):.1f}x to {max(per_round):.1f}x)")
    flat_runs, factored_runs = rates["VectorEnv N=1024"], rates["VectorEnv N=1024 factored"]
    per_round = [a / b for a, b in zip(factored_runs, flat_runs)]
    print(f"ratio factored / flat, N=1024, each on random choices of its own mask: "
          f"{statistics.median(factored_runs) / statistics.median(flat_runs):.3f} "
          f"(per round {min(per_round):.3f} to {max(per_round):.3f})")
    for what, table in (("flat actions/s", same_rates), ("table-steps/s", same_steps)):
        for name, runs in table.items():
            print(fmt(f"same games, N=1024, {name} calls: {what}", runs, what.split("/")[0]))
        per_round = [a / b for a, b in zip(table["factored"], table["flat"])]
        print(f"ratio factored / flat, same games, {what}: "
              f"{statistics.median(table['factored']) / statistics.median(table['flat']):.3f} "
              f"(per round {min(per_round):.3f} to {max(per_round):.3f})")
    print(fmt(f"rollout {args.variant} random full deals/s (one core), rng='cpython'", deals, "deals/s"))
    print(fmt(f"rollout {args.variant} random full deals/s (one core), rng='counter'", counter, "deals/s"))
    if peer:
        print(fmt("colver Env.rollout random playouts/s from a dealt position (one core)", peer, "deals/s"))
        for name, ours in (("cpython", deals), ("counter", counter)):
            per_round = sorted(a / b for a, b in zip(ours, peer))
            print(f"ratio rollout rng={name!r} / colver rollout: median {per_round[len(per_round) // 2]:.2f}x "
                  f"(per round {per_round[0]:.2f}x to {per_round[-1]:.2f}x)")


if __name__ == "__main__":
    main()
