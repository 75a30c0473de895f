"""Train sb3-contrib's MaskablePPO on one seat of coinche, then rank it in a duplicate tournament.

    pip install -e ".[sb3]"
    python examples/sb3_maskable_ppo.py [--timesteps 20000] [--pairs 200] [--variant coinche]

The learner sits at seat 0 of ``belote_env.single_agent.SingleAgentEnv`` with
the heuristic as partner and random opponents; the trained model then plays
duplicate pairs against ``random`` through ``agents.policy.sb3_agent`` (one
batched ``predict`` per step of the tables, the mask passed along).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sb3_contrib import MaskablePPO  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.policy import sb3_agent  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402
from belote_env.single_agent import SingleAgentEnv  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--timesteps", type=int, default=20_000)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    env = SingleAgentEnv(args.variant, seat=0, partner="heuristic", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    agent = sb3_agent(model, name="maskable_ppo")
    result = duplicate_match(agent, make_agent("random"), load_variant(args.variant), args.pairs, seed=args.seed)
    r = result.to_dict()
    print(f"maskable_ppo vs random on {args.variant}, {args.pairs} duplicate pairs: "
          f"{r['mean_diff']:+.1f} points per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
          f"{100 * r['win_rate']:.1f}% of deals won")


if __name__ == "__main__":
    main()
