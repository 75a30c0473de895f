"""Speed of the PettingZoo AEC environment: one figure per line.

    python benchmarks/bench_env.py [--deals 500] [--repeats 5] [--variants coinche ...]

For every shipped variant: AEC steps per second of the standard loop with the
standard wrappers on (``belote_env.env``): ``agent_iter()``, ``last()``, a
uniformly random legal action drawn from the observation's action mask, and
``step()`` (the dead steps at the end of each deal count as steps, as
PettingZoo's loop makes them), resets included; then full deals per second
of that same loop. Last, for scale, the same loop on ``raw_env`` (no
wrappers) for coinche, then the wrapped env against ``raw_env`` in the same loop, run by run (the
wrapper's cost as a ratio), and, when OpenSpiel is installed, OpenSpiel's game
(``python_belote``, belote_env.integrations.openspiel) in its own standard loop,
run by run between the AEC env's runs: chance outcomes and uniformly random legal
actions, then the same reading each decision's observation tensor. When colver
(``pip install colver``, a Rust Belote engine with Python bindings; not a
dependency of this project) is installed, its own Python loop runs between the
AEC env's runs too: ``Env.reset()`` / ``Env.step(a)`` with a uniformly random
legal action, its observation list turned into a float32 numpy array each step
(what a learner does with it), and the ratio of full deals per second, run by
run. Each figure is the median of ``--repeats`` runs, with the min and max beside
it; the process runs on one core (Python is single threaded), so the figures are
per core.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import belote_env  # noqa: E402
from common import fmt  # noqa: E402
from belote_env.variants import variant_names  # noqa: E402


def run_loop(e, deals: int, seed: int) -> tuple[int, float]:
    """Play ``deals`` episodes with masked random actions; returns (steps, seconds)."""
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t = time.perf_counter()
    for d in range(deals):
        e.reset(seed=seed * 1_000_003 + d)
        for _agent in e.agent_iter():
            observation, reward, termination, truncation, info = e.last()
            if termination or truncation:
                action = None
            else:
                action = choice(observation["action_mask"].nonzero()[0])
            e.step(action)
            steps += 1
    return steps, time.perf_counter() - t


def run_raw_loop(e, deals: int, seed: int) -> tuple[int, float]:
    """The same loop on an unwrapped env (no agent_iter / last helpers)."""
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t = time.perf_counter()
    for d in range(deals):
        e.reset(seed=seed * 1_000_003 + d)
        while e.agents:
            agent = e.agent_selection
            observation = e.observe(agent)
            if e.terminations[agent] or e.truncations[agent]:
                action = None
            else:
                action = choice(observation["action_mask"].nonzero()[0])
            e.step(action)
            steps += 1
    return steps, time.perf_counter() - t


def run_openspiel_loop(game, deals: int, seed: int, observe: str = "") -> tuple[int, float]:
    """Play ``deals`` OpenSpiel episodes: uniform chance outcomes and legal actions; with ``observe``, the acting
    player's observation read before each decision, by ``state.observation_tensor`` ("tensor") or by OpenSpiel's
    observer API (``make_observation(game).set_from``, "observer"); returns (player decisions, seconds)."""
    from open_spiel.python.observation import make_observation

    observer = make_observation(game)
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t = time.perf_counter()
    for _ in range(deals):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                if observe == "tensor":
                    state.observation_tensor(state.current_player())
                elif observe == "observer":
                    observer.set_from(state, state.current_player())
                state.apply_action(choice(state.legal_actions()))
                steps += 1
    return steps, time.perf_counter() - t


def run_colver_loop(deals: int, seed: int) -> tuple[int, float]:
    """colver's Python loop: ``deals`` deals of uniformly random legal actions, each observation as a float32
    array; returns (steps, seconds)."""
    import colver
    import numpy as np

    env = colver.Env()
    rng = random.Random(seed)
    choice = rng.choice
    asarray, f32 = np.asarray, np.float32
    steps = 0
    t = time.perf_counter()
    for _ in range(deals):
        obs, legal = env.reset()
        asarray(obs, f32)
        done = False
        while not done:
            obs, _, done, legal = env.step(choice(legal))
            asarray(obs, f32)
            steps += 1
    return steps, time.perf_counter() - t


def compare_colver(deals: int, repeats: int) -> None:
    """The AEC env (coinche) and colver's loop, run by run, in full deals per second."""
    e = belote_env.env("coinche")
    aec, peer = [], []
    for seed in range(repeats):
        aec.append(deals / run_loop(e, deals, seed)[1])
        peer.append(deals / run_colver_loop(deals, seed)[1])
    print(fmt("deals/s coinche, AEC env (agent_iter + last + masked random)", aec, "deals/s"))
    print(fmt("deals/s colver Env loop (reset/step, random legal, observation as numpy)", peer, "deals/s"))
    ratio = sorted(a / b for a, b in zip(aec, peer))
    print(f"  AEC env / colver, run by run: median {ratio[len(ratio) // 2]:.2f}x (min {ratio[0]:.2f}, "
          f"max {ratio[-1]:.2f})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=500, help="deals per run")
    ap.add_argument("--repeats", type=int, default=5, help="runs per figure")
    ap.add_argument("--variants", nargs="*", default=None, help="variant names (default: all shipped)")
    args = ap.parse_args()
    names = args.variants or variant_names()
    deal_rates = {}
    for name in names:
        e = belote_env.env(name)
        runs = [run_loop(e, args.deals, seed) for seed in range(args.repeats)]
        print(fmt(f"AEC steps/s {name} (env, agent_iter + last + masked random)", [s / t for s, t in runs], "steps/s"),
              flush=True)
        deal_rates[name] = [args.deals / t for _, t in runs]
    for name in names:
        print(fmt(f"AEC deals/s {name} (env, full deals incl. bidding and redeals)", deal_rates[name], "deals/s"),
              flush=True)
    e = belote_env.raw_env("coinche")
    runs = [run_raw_loop(e, args.deals, seed) for seed in range(args.repeats)]
    print(fmt("AEC steps/s coinche (raw_env, no wrappers)", [s / t for s, t in runs], "steps/s"), flush=True)
    wrapped, ratio = belote_env.env("coinche"), []
    for seed in range(args.repeats):  # the same loop (agent_iter + last) on both, run by run: the wrapper's cost
        (s1, t1), (s2, t2) = run_loop(wrapped, args.deals, seed), run_loop(e, args.deals, seed)
        ratio.append((s1 / t1) / (s2 / t2))
    ratio.sort()
    print(f"  env / raw_env, the same agent_iter + last loop, run by run: median {ratio[len(ratio) // 2]:.3f}x "
          f"(min {ratio[0]:.3f}, max {ratio[-1]:.3f}, {len(ratio)} runs)", flush=True)
    try:
        import colver  # noqa: F401
    except ImportError:
        print("colver not installed: pip install colver adds the peer's loop")
    else:
        compare_colver(args.deals, args.repeats)
    try:
        import importlib

        import pyspiel

        importlib.import_module("belote_env.integrations.openspiel")  # registers python_belote
    except ImportError:
        print("OpenSpiel not installed: pip install -e '.[openspiel]' adds its rows")
        return
    game, e = pyspiel.load_game("python_belote(variant=coinche)"), belote_env.env("coinche")
    rates = {"": [], "observer": [], "tensor": []}
    aec = []
    for seed in range(args.repeats):  # interleaved, so that the machine's drift hits every contender alike
        aec.append(args.deals / run_loop(e, args.deals, seed)[1])
        for observe, runs in rates.items():
            runs.append(args.deals / run_openspiel_loop(game, args.deals, seed, observe)[1])
    print(fmt("deals/s coinche, AEC env (agent_iter + last + masked random)", aec, "deals/s"))
    for observe, label in (("", "no observation"), ("observer", "make_observation(game).set_from"),
                           ("tensor", "state.observation_tensor")):
        print(fmt(f"deals/s coinche, OpenSpiel python_belote, {label}", rates[observe], "deals/s"))
        ratio = sorted(b / a for a, b in zip(aec, rates[observe]))
        print(f"  / AEC env, run by run: median {ratio[len(ratio) // 2]:.2f}x (min {ratio[0]:.2f}, "
              f"max {ratio[-1]:.2f})", flush=True)


if __name__ == "__main__":
    main()
