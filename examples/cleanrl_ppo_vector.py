"""A CleanRL-style PPO loop on ``gymnasium.make_vec`` (``SingleSeatVectorEnv``: 64 tables on the batched engine).

    python examples/cleanrl_ppo_vector.py [--total-timesteps 200000] [--num-envs 64] [--num-steps 64] [--pairs 200]
                                          [--opponents random] [--minutes M --snapshots DIR]

One file, as CleanRL's ``ppo.py``: an ``Agent`` with ``get_value`` / ``get_action_and_value``, rollouts of
``num_steps`` steps on every sub-env, GAE, the clipped objective. Two things are Belote's: illegal actions are
masked out of the logits (``infos["action_mask"]``), and an episode's end resets the sub-env in the same step
(``metadata["autoreset_mode"]`` is ``SAME_STEP``), so the value after a terminated step is 0 and the next
observation already belongs to the next episode. The learner sits at seat 0 with the heuristic as partner and
``--opponents`` (random by default); at the end it plays duplicate pairs against ``random`` as a ``PolicyAgent``
(its most likely legal action). ``--minutes`` stops training on a wall-clock budget and ``--snapshots DIR``
writes the actor as ``.pt2`` agent specs on the way (``agents.exported``; the baselines page runs it so).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gymnasium  # noqa: E402

import belote_env.single_agent  # noqa: E402,F401  (registers the ids)
from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.exported import add_budget_options, snapshots_from_args  # noqa: E402
from agents.policy import PolicyAgent  # noqa: E402


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                    nn.Linear(hidden, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                   nn.Linear(hidden, num_actions))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e9)  # illegal actions are never drawn
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env-id", default="belote_env/Coinche-v0")
    ap.add_argument("--total-timesteps", type=int, default=200_000)
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--num-steps", type=int, default=64)
    ap.add_argument("--learning-rate", type=float, default=3e-4)
    ap.add_argument("--gamma", type=float, default=1.0)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--num-minibatches", type=int, default=4)
    ap.add_argument("--update-epochs", type=int, default=4)
    ap.add_argument("--clip-coef", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--opponents", default="random", help="the two opponents' agent spec (default random)")
    ap.add_argument("--pairs", type=int, default=200, help="duplicate pairs against random at the end")
    ap.add_argument("--seed", type=int, default=0)
    add_budget_options(ap)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    envs = gymnasium.make_vec(args.env_id, num_envs=args.num_envs, partner="heuristic", opponents=args.opponents)
    n, steps = args.num_envs, args.num_steps
    obs_size, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_size, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    obs_buf = torch.zeros((steps, n, obs_size))
    mask_buf = torch.zeros((steps, n, num_actions), dtype=torch.bool)
    actions, logprobs = torch.zeros((steps, n), dtype=torch.long), torch.zeros((steps, n))
    rewards, dones, values = torch.zeros((steps, n)), torch.zeros((steps, n)), torch.zeros((steps, n))
    next_obs, infos = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.from_numpy(next_obs), torch.from_numpy(infos["action_mask"])
    returns_seen, start = [], time.time()
    updates = max(1, args.total_timesteps // (n * steps))
    clock, trained = snapshots_from_args(args, "cleanrl_ppo", f"torch {torch.__version__}"), 0
    for update in range(updates):
        if clock.over():
            break
        if clock.due():
            clock.save(agent.actor, trained)
        for step in range(steps):
            obs_buf[step], mask_buf[step] = next_obs, next_mask
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            next_obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            done = terminated | truncated  # SAME_STEP: the next observation is the next episode's first
            rewards[step], dones[step] = torch.from_numpy(reward).float(), torch.from_numpy(done).float()
            returns_seen.extend(reward[done].tolist())  # score_diff: a deal's reward comes at its end
            next_obs, next_mask = torch.from_numpy(next_obs), torch.from_numpy(infos["action_mask"])
        with torch.no_grad():  # GAE; the value after a finished episode is 0
            next_value = agent.get_value(next_obs).flatten()
            advantages, last = torch.zeros_like(rewards), 0.0
            for t in reversed(range(steps)):
                following = next_value if t == steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * (1.0 - dones[t]) - values[t]
                last = delta + args.gamma * args.gae_lambda * (1.0 - dones[t]) * last
                advantages[t] = last
            returns = advantages + values
        b_obs, b_mask = obs_buf.reshape(-1, obs_size), mask_buf.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        batch = n * steps
        size = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            order = torch.randperm(batch)
            for i in range(0, batch, size):
                mb = order[i:i + size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_mask[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        trained += n * steps
        recent = returns_seen[-200:]
        print(f"update {update + 1}/{updates}: {(update + 1) * batch} steps, {len(returns_seen)} deals, mean deal "
              f"reward (last 200) {np.mean(recent) if recent else float('nan'):+.3f}, "
              f"{(update + 1) * batch / (time.time() - start):,.0f} steps/s", flush=True)
    clock.finish(agent.actor, trained)

    def policy(observations, masks):  # the most likely legal action
        with torch.no_grad():
            logits = agent.actor(torch.from_numpy(observations)).masked_fill(~torch.from_numpy(masks.astype(bool)),
                                                                             -1e9)
        return logits.argmax(dim=1).numpy()

    variant = envs.unwrapped.variant
    if args.pairs:
        r = duplicate_match(PolicyAgent(policy, name="cleanrl_ppo", batched=True), make_agent("random"), variant,
                            args.pairs, seed=args.seed).to_dict()
        print(f"cleanrl_ppo vs random on {variant.name}, {args.pairs} duplicate pairs: {r['mean_diff']:+.1f} points "
              f"per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]")


if __name__ == "__main__":
    main()
