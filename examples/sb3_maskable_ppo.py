"""Train sb3-contrib's MaskablePPO on one seat of coinche, then rank it in a duplicate tournament.

    pip install -e ".[sb3]"
    python examples/sb3_maskable_ppo.py [--timesteps 20000] [--pairs 200] [--variant coinche] [--envs 1]
                                        [--opponents random] [--minutes M --snapshots DIR]

The learner sits at seat 0 of ``belote_env.single_agent.SingleAgentEnv`` (``--envs`` copies in SB3's
``DummyVecEnv``) with the heuristic as partner and ``--opponents`` (random by default); the trained model then
plays duplicate pairs against ``random`` through ``agents.policy.sb3_agent`` (one batched ``predict`` per step
of the tables, the mask passed along). ``--minutes`` stops training on a wall-clock budget and
``--snapshots DIR`` writes the policy's logits network as ``.pt2`` agent specs on the way (``agents.exported``;
the baselines page runs it so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sb3_contrib  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402
from torch import nn  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.exported import add_budget_options, snapshots_from_args  # noqa: E402
from agents.policy import sb3_agent  # noqa: E402
from belote_env.single_agent import SingleAgentEnv  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def logits_network(model) -> nn.Module:
    """The policy's path from an observation to the action logits (features, the policy MLP, the action head)."""
    policy = model.policy
    return nn.Sequential(policy.pi_features_extractor, policy.mlp_extractor.policy_net, policy.action_net)


class Clock(BaseCallback):
    """Stops ``learn`` when the budget is spent and writes the snapshots that are due."""

    def __init__(self, clock):
        super().__init__()
        self.clock = clock

    def _on_training_start(self) -> None:  # the untrained policy, at step 0
        if self.clock.due():
            self.clock.save(logits_network(self.model), self.num_timesteps)

    def _on_step(self) -> bool:
        if self.clock.due():
            self.clock.save(logits_network(self.model), self.num_timesteps)
        return not self.clock.over()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--timesteps", type=int, default=20_000)
    ap.add_argument("--envs", type=int, default=1, help="SingleAgentEnv copies in a DummyVecEnv")
    ap.add_argument("--n-steps", type=int, default=256, help="rollout steps per env between updates")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--opponents", default="random", help="the two opponents' agent spec (default random)")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    add_budget_options(ap)
    args = ap.parse_args(argv)
    env = DummyVecEnv([lambda: SingleAgentEnv(args.variant, seat=0, partner="heuristic", opponents=args.opponents)
                       for _ in range(args.envs)])
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size, seed=args.seed,
                        verbose=0)
    clock = snapshots_from_args(args, "sb3_maskable_ppo", f"sb3-contrib {sb3_contrib.__version__}")
    model.learn(total_timesteps=args.timesteps, callback=Clock(clock))
    clock.finish(logits_network(model), model.num_timesteps)
    print(f"trained {model.num_timesteps:,} steps in {clock.seconds() / 60:.1f} min", flush=True)
    if args.pairs:
        agent = sb3_agent(model, name="maskable_ppo")
        result = duplicate_match(agent, make_agent("random"), load_variant(args.variant), args.pairs, seed=args.seed)
        r = result.to_dict()
        print(f"maskable_ppo vs random on {args.variant}, {args.pairs} duplicate pairs: "
              f"{r['mean_diff']:+.1f} points per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
              f"{100 * r['win_rate']:.1f}% of deals won")


if __name__ == "__main__":
    main()
