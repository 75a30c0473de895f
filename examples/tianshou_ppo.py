"""Train Tianshou's PPO on one seat of coinche, then rank it in a duplicate tournament.

    pip install -e ".[tianshou]"
    python examples/tianshou_ppo.py [--steps 20000] [--pairs 200] [--variant coinche] [--opponents random]
                                    [--minutes M --snapshots DIR]

The learner sits at seat 0 of ``belote_env.integrations.tianshou.make_env``
(``SingleAgentEnv`` with Tianshou's ``{"obs", "mask"}`` observation) with the
heuristic as partner and ``--opponents`` (random by default); ``MaskedActor``
puts the illegal actions' logits at -inf. The trained policy then plays
duplicate pairs against ``random`` through ``agents.policy.tianshou_agent``
(one batched forward pass per step of the tables). ``--minutes`` stops
training on a wall-clock budget (checked between rounds of
``--round-steps`` steps) and ``--snapshots DIR`` writes the actor's network as
``.pt2`` agent specs on the way (``agents.exported``; the baselines page runs
it so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tianshou  # noqa: E402
import torch  # noqa: E402
from tianshou.algorithm import PPO  # noqa: E402
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.trainer import OnPolicyTrainerParams  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.exported import add_budget_options, snapshots_from_args  # noqa: E402
from agents.policy import tianshou_agent  # noqa: E402
from belote_env.integrations.tianshou import Critic, MaskedActor, make_env  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--steps", type=int, default=20_000, help="environment steps (learner decisions)")
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--round-steps", type=int, default=8192,
                    help="steps per call of Tianshou's trainer; the budget and snapshots are checked between calls")
    ap.add_argument("--opponents", default="random", help="the two opponents' agent spec (default random)")
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    add_budget_options(ap)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)

    def env_fn():
        return make_env(args.variant, seat=0, partner="heuristic", opponents=args.opponents)

    envs = DummyVectorEnv([env_fn for _ in range(args.envs)])
    envs.seed(args.seed)
    space = env_fn()
    policy = DiscreteActorPolicy(actor=MaskedActor(), action_space=space.action_space,
                                 observation_space=space.observation_space)
    algorithm = PPO(policy=policy, critic=Critic(), optim=AdamOptimizerFactory(lr=3e-4))
    collection = min(1024, args.steps)
    collector = Collector(algorithm, envs, VectorReplayBuffer(collection, args.envs))
    clock, trained = snapshots_from_args(args, "tianshou_ppo", f"tianshou {tianshou.__version__}"), 0
    while trained < args.steps and not clock.over():
        if clock.due():
            clock.save(policy.actor.net, trained)
        chunk = min(max(args.round_steps, collection), args.steps - trained)
        algorithm.run_training(OnPolicyTrainerParams(
            training_collector=collector, max_epochs=1, epoch_num_steps=chunk,
            collection_step_num_env_steps=collection, batch_size=128, update_step_num_repetitions=2,
            test_collector=None, verbose=False, show_progress=False))
        trained += chunk
    clock.finish(policy.actor.net, trained)
    print(f"trained {trained:,} steps in {clock.seconds() / 60:.1f} min", flush=True)
    if not args.pairs:
        return

    agent = tianshou_agent(algorithm, name="tianshou_ppo")
    result = duplicate_match(agent, make_agent("random"), load_variant(args.variant), args.pairs, seed=args.seed)
    r = result.to_dict()
    print(f"tianshou_ppo vs random on {args.variant}, {args.pairs} duplicate pairs: "
          f"{r['mean_diff']:+.1f} points per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
          f"{100 * r['win_rate']:.1f}% of deals won")


if __name__ == "__main__":
    main()
