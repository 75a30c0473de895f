"""Train RLlib's PPO (new API stack, action masking) on all four seats of coinche, then rank it.

    pip install -e ".[rllib]"
    python examples/rllib_ppo.py [--iterations 5] [--policies shared|team] [--pairs 200] [--save DIR]

The env is ``belote_env.integrations.rllib.BeloteMultiAgentEnv`` (observations
``{"observations", "action_mask"}``); ``--policies shared`` trains one module
for the four seats (self-play), ``team`` one per team. The trained module
(``shared``, or ``team_0``) then plays duplicate pairs against ``random``
through ``agents.policy.rllib_agent``. ``--save DIR`` writes an algorithm
checkpoint that ``rllib_agent(DIR, module_id=...)`` loads without Ray running,
e.g. in a ``module:factory`` agent spec for ``belote-tournament``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ray  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.policy import rllib_agent  # noqa: E402
from belote_env.integrations.rllib import POLICY_MODES, policy_ids, ppo_config  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--policies", choices=POLICY_MODES, default="shared")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    ap.add_argument("--env-runners", type=int, default=0, help="RLlib EnvRunner actors (0: sample on the driver)")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", type=Path, default=None, help="write an algorithm checkpoint there")
    args = ap.parse_args(argv)

    ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=False)
    config = (
        ppo_config(PPOConfig(), variant=args.variant, policies=args.policies)
        .env_runners(num_env_runners=args.env_runners)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(256, args.batch), num_epochs=2,
                  lr=3e-4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    for i in range(args.iterations):
        result = algo.train()
        runners = result["env_runners"]
        team0 = runners.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))
        print(f"iteration {i + 1}: {runners.get('num_episodes', 0)} episodes of "
              f"{runners.get('episode_len_mean', float('nan')):.1f} steps, team 0's mean return {team0:+.3f}")
    if args.save is not None:
        print(f"checkpoint: {algo.save(str(args.save.resolve())).checkpoint.path}")

    module_id = policy_ids(args.policies)[0]
    agent = rllib_agent(algo, module_id=module_id, name=f"rllib_{module_id}")
    algo.stop()
    ray.shutdown()
    result = duplicate_match(agent, make_agent("random"), load_variant(args.variant), args.pairs, seed=args.seed)
    r = result.to_dict()
    print(f"rllib_ppo ({module_id}) vs random on {args.variant}, {args.pairs} duplicate pairs: "
          f"{r['mean_diff']:+.1f} points per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
          f"{100 * r['win_rate']:.1f}% of deals won")


if __name__ == "__main__":
    main()
