"""Learner steps/s of the single-seat envs: ``SingleAgentEnv`` (one table, the other seats on the rules core one
decision at a time) against ``SingleSeatVectorEnv`` (``gymnasium.make_vec``: tables on the batched engine, the
other seats through the play loop), interleaved in one run. The learner plays its first legal action; partner
and opponents are ``--agents`` (default heuristic, which has a kernel copy).

    python benchmarks/bench_single_seat.py [--variant coinche] [--num-envs 256] [--seconds 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import fmt  # noqa: E402


def single(variant: str, agent: str, seconds: float) -> float:
    from belote_env.single_agent import SingleAgentEnv

    env = SingleAgentEnv(variant, partner=agent, opponents=agent)
    obs, info = env.reset(seed=0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, r, term, trunc, info = env.step(int(info["action_mask"].argmax()))
        steps += 1
        if term or trunc:
            obs, info = env.reset()
    return steps / (time.perf_counter() - t0)


def vector(variant: str, agent: str, n: int, seconds: float, envs=None) -> float:
    obs, infos = envs.reset(seed=0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, r, term, trunc, infos = envs.step(infos["action_mask"].argmax(axis=1))
        steps += n
    return steps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="coinche")
    p.add_argument("--agents", default="heuristic", help="partner and opponents (an agent spec)")
    p.add_argument("--num-envs", type=int, default=256)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    from agents.arena.single_seat import SingleSeatVectorEnv

    envs = SingleSeatVectorEnv(args.num_envs, args.variant, partner=args.agents, opponents=args.agents)
    vector(args.variant, args.agents, args.num_envs, 1.0, envs)  # compile and warm up
    single(args.variant, args.agents, 1.0)
    one, many = [], []
    for _ in range(args.rounds):
        one.append(single(args.variant, args.agents, args.seconds))
        many.append(vector(args.variant, args.agents, args.num_envs, args.seconds, envs))
    print(f"{args.variant}, partner and opponents {args.agents}, learner plays its first legal action")
    print(fmt("SingleAgentEnv", one, "learner steps/s"))
    print(fmt(f"SingleSeatVectorEnv, {args.num_envs} sub-envs", many, "learner steps/s"))
    print(f"ratio (medians): {statistics.median(many) / statistics.median(one):.1f}x")


if __name__ == "__main__":
    main()
