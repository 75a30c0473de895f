"""Train RLlib's PPO (new API stack, action masking) on all four seats of coinche, then rank it.

    pip install -e ".[rllib]"
    python examples/rllib_ppo.py [--iterations 5] [--policies shared|team] [--pairs 200] [--save DIR]
                                 [--minutes M --snapshots DIR]

The env is ``belote_env.integrations.rllib.BeloteMultiAgentEnv`` (observations
``{"observations", "action_mask"}``); ``--policies shared`` trains one module
for the four seats (self-play), ``team`` one per team. The trained module
(``shared``, or ``team_0``) then plays duplicate pairs against ``random``
through ``agents.policy.rllib_agent``. ``--save DIR`` writes an algorithm
checkpoint that ``rllib_agent(DIR, module_id=...)`` loads without Ray running,
e.g. in a ``module:factory`` agent spec for ``belote-tournament``. ``--minutes``
stops training on a wall-clock budget (checked between iterations) and
``--snapshots DIR`` writes the module's logits as ``.pt2`` agent specs on the
way, which play without Ray (``agents.exported``; the baselines page runs it so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ray  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.exported import add_budget_options, snapshots_from_args  # noqa: E402
from agents.policy import rllib_agent, rllib_module  # noqa: E402
from belote_env.integrations.rllib import POLICY_MODES, policy_ids, ppo_config  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


class Logits(torch.nn.Module):
    """An RLModule's action logits for a batch of bare observations (every action left legal), for export."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, obs):
        mask = torch.ones(obs.shape[0], self.module.action_space.n, dtype=obs.dtype)
        return self.module.forward_inference({Columns.OBS: {"observations": obs, "action_mask": mask}})[
            Columns.ACTION_DIST_INPUTS]


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
    add_budget_options(ap)
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
    module_id = policy_ids(args.policies)[0]
    logits = Logits(rllib_module(algo, module_id))
    clock, trained = snapshots_from_args(args, f"rllib_ppo_{module_id}", f"ray {ray.__version__}"), 0
    for i in range(args.iterations):
        if clock.over():
            break
        if clock.due():
            clock.save(logits, trained)
        result = algo.train()
        runners = result["env_runners"]
        trained = int(runners.get("num_env_steps_sampled_lifetime", trained + args.batch))
        team0 = runners.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))
        print(f"iteration {i + 1}: {runners.get('num_episodes', 0)} episodes of "
              f"{runners.get('episode_len_mean', float('nan')):.1f} steps, team 0's mean return {team0:+.3f}",
              flush=True)
    clock.finish(logits, trained)
    if args.save is not None:
        print(f"checkpoint: {algo.save(str(args.save.resolve())).checkpoint.path}")

    agent = rllib_agent(algo, module_id=module_id, name=f"rllib_{module_id}")
    algo.stop()
    ray.shutdown()
    if not args.pairs:
        return
    result = duplicate_match(agent, make_agent("random"), load_variant(args.variant), args.pairs, seed=args.seed)
    r = result.to_dict()
    print(f"rllib_ppo ({module_id}) vs random on {args.variant}, {args.pairs} duplicate pairs: "
          f"{r['mean_diff']:+.1f} points per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
          f"{100 * r['win_rate']:.1f}% of deals won")


if __name__ == "__main__":
    main()
