"""Train OpenSpiel's policy-gradient agents (A2C, PyTorch) by self-play on python_belote, then rank one of them
in our duplicate matches.

    pip install -e ".[openspiel,train]"
    python examples/openspiel_policy_gradient.py [--variant coinche] [--minutes 3] [--pairs 200] [--snapshots DIR]

OpenSpiel's own loop trains one ``open_spiel.python.pytorch.policy_gradient.PolicyGradient`` agent per seat on
``rl_environment.Environment`` on ``python_belote(variant=...,utility=score_diff)`` (its observation is the
information-state tensor, which is the project's 853-float observation; rewards are the AEC env's
``score_diff``). Seat 0's agent then plays duplicate pairs at our tables as an ``agents.base.Agent`` (the legal
action of highest probability, from the observation our tables hand it) against ``random`` and ``heuristic``.
``--snapshots DIR`` writes seat 0's policy network as ``.pt2`` agent specs on the way (``agents.exported``; the
baselines page runs it so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
import torch  # noqa: E402
from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.pytorch.policy_gradient import PolicyGradient  # noqa: E402

import belote_env.integrations.openspiel  # noqa: E402,F401  (registers python_belote)
from agents import make_agent  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.base import Agent  # noqa: E402
from agents.exported import Snapshots, add_budget_options, snapshots_from_args  # noqa: E402
from belote_env.observation import OBS_SIZE  # noqa: E402
from belote_env.rules.actions import NUM_ACTIONS  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


class OpenSpielPolicyAgent(Agent):
    """An OpenSpiel ``rl_agent`` (trained on python_belote's information-state tensor, our observation) at our
    tables: the legal action it gives the highest probability."""

    needs_info = False

    def __init__(self, rl_agent, name: str):
        self.rl_agent = rl_agent
        self.name = name

    def act(self, observation, action_mask, info) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        me = self.rl_agent.player_id
        step = rl_environment.TimeStep(
            observations={"info_state": {me: observation}, "legal_actions": {me: legal}, "current_player": me},
            rewards=None, discounts=None, step_type=rl_environment.StepType.MID)
        probs = self.rl_agent.step(step, is_evaluation=True).probs
        return max(legal, key=lambda a: probs[a])


def train(variant: str, clock: Snapshots, episodes: int, seed: int) -> tuple[list, int, int]:
    """Self-play until ``clock``'s budget or ``episodes`` run out, writing seat 0's snapshots; returns the four
    agents, the episodes and the decisions played."""
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # one-row forward passes: threads cost more than they give
    game = pyspiel.load_game("python_belote", {"variant": variant, "utility": "score_diff"})
    env = rl_environment.Environment(game, seed=seed)
    agents = [PolicyGradient(p, OBS_SIZE, NUM_ACTIONS, loss_str="a2c", hidden_layers_sizes=(128,), batch_size=16,
                             critic_learning_rate=0.01, pi_learning_rate=0.001, entropy_cost=0.01)
              for p in range(4)]
    done = decisions = 0
    while done < episodes and not clock.over():
        if clock.due():
            clock.save(agents[0].policy_logits_network, decisions)
        step = env.reset()
        while not step.last():
            out = agents[step.observations["current_player"]].step(step)
            step = env.step([out.action])
            decisions += 1
        for agent in agents:
            agent.step(step)
        done += 1
    clock.finish(agents[0].policy_logits_network, decisions)
    return agents, done, decisions


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="coinche")
    ap.add_argument("--episodes", type=int, default=10**9, help="at most this many training deals")
    ap.add_argument("--pairs", type=int, default=200, help="duplicate pairs per evaluation match")
    ap.add_argument("--seed", type=int, default=0)
    add_budget_options(ap)
    ap.set_defaults(minutes=3.0)
    args = ap.parse_args(argv)
    clock = snapshots_from_args(args, "openspiel_a2c", f"open_spiel {pyspiel.__version__}")
    agents, episodes, decisions = train(args.variant, clock, args.episodes, args.seed)
    seconds = clock.seconds()
    print(f"trained {episodes} deals of self-play ({decisions:,} decisions) in {seconds / 60:.1f} min "
          f"({episodes / seconds:.0f} deals/s)", flush=True)
    me = OpenSpielPolicyAgent(agents[0], "openspiel_a2c")
    for opponent in ("random", "heuristic") if args.pairs else ():
        r = duplicate_match(me, make_agent(opponent), load_variant(args.variant), args.pairs, seed=args.seed).to_dict()
        print(f"openspiel_a2c vs {opponent} on {args.variant}, {args.pairs} duplicate pairs: "
              f"{r['mean_diff']:+.1f} points per deal [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}], "
              f"{100 * r['win_rate']:.1f}% of deals won", flush=True)


if __name__ == "__main__":
    main()
