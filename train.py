"""Train a Belote agent by self-play with PPO, in one readable file.

In the manner of CleanRL's ``ppo.py``: a dataclass of arguments (each field
documented), options from a YAML file in ``configs/train/`` that the command
line overrides, then one loop of collect -> GAE -> PPO update, with
TensorBoard logs, evaluation and checkpoints.

    python train.py --config configs/train/quick.yaml            # a few minutes on 2 CPU cores
    python train.py --config configs/train/coinche.yaml --resume  # continue the latest checkpoint
    python train.py --evaluate runs/coinche_s1/checkpoints/latest.pt --final-eval-pairs 1000
    python train.py --plot runs/coinche_s1                        # docs/results/training_coinche_s1.png
    tensorboard --logdir runs

How it learns
-------------
- **Collection.** ``num_envs`` tables (``belote_env.rules.GameState``, one
  deal per episode) are played at once. At each step every table's seat to
  act is encoded exactly as the environment shows it to a player
  (``observation.encode`` and ``observation.action_mask``); one batched
  forward pass of the network gives all the actions. Illegal logits are set
  to -1e9 before sampling, so an illegal action is never drawn.
- **One network, four seats.** The same network bids and plays for every
  seat. Each seat's decisions in a deal form its own trajectory; the deal's
  reward (``rewards.deal_reward``: score difference over the scoring's
  scale) is given to each seat of the team at its last decision, and GAE
  runs along each seat trajectory. A trajectory cut by the end of a rollout
  is bootstrapped with the value of that seat's current observation.
- **Opponents.** ``opponent_mix`` gives, per agent spec (``random``,
  ``heuristic``, a checkpoint), the fraction of tables where one team (drawn
  at random) is that fixed agent; only the network's decisions are trained
  on. The other tables are pure self-play.
- **Behaviour-cloning warm start** (``bc_agent``, off by default). Before
  PPO, a fresh run plays ``bc_decisions`` decisions with ``bc_agent`` (e.g.
  ``heuristic``) at all four seats, records (observation, mask, action, the
  team's deal reward) for each, and fits the network to them: masked
  cross-entropy on the policy head, squared error on the value head. PPO
  then fine-tunes those weights. Self-play PPO from scratch settles on
  never taking a contract (see ``docs/training.md``); the warm start begins
  from an agent that bids.
- **Evaluation** every ``eval_every`` updates: a duplicate match
  (``agents.tournament.duplicate_match``) of the greedy network against each
  of ``eval_opponents``, logged under ``eval/<opponent>/``.

Checkpoints and ``--resume``
----------------------------
The run directory is ``runs/<run_name>``; without ``--run-name`` (nor
``run_name:`` in the config) it is ``<exp_name>_s<seed>``, and when that run
already has checkpoints a fresh start goes to the first free
``<exp_name>_s<seed>_2``, ``_3``, ... (printed). An explicit run name that
has checkpoints is refused unless ``--resume`` is given.

Every ``checkpoint_every`` updates (and at the end) the model, optimizer,
arguments, step counters and every RNG state (Python, NumPy, torch and the
collection generator) go to ``runs/<run_name>/checkpoints/ckpt_<update>.pt``,
written to a temporary file then renamed, so a crash never leaves a half
file. ``--resume`` loads the latest one and continues the same TensorBoard
log (events after the checkpoint's step are purged).

"Exactly where it left off" means: right after writing a checkpoint, every
run re-deals all its tables from the collection RNG, so a resumed run draws
the same deals and the same actions as the uninterrupted run would, and
ends with the same weights (on the same machine and torch build, same
``torch_threads``). A warm-started run writes checkpoint 0 right after the
behaviour cloning; resuming from it (or any later one) continues with PPO and
never clones again. Tables in flight at checkpoint time are abandoned in
both; their unfinished decisions were already bootstrapped. Only
``max_minutes`` (a wall-clock cap) can make two runs differ.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import yaml
from torch import nn
from torch.distributions import Categorical
from tqdm import tqdm

from agents.neural import NeuralAgent, PolicyValueNet, build_net, checkpoint_dict, load_agent, load_checkpoint
from belote_env.observation import OBS_SIZE, action_mask, encode
from belote_env.rewards import deal_reward
from belote_env.rules.actions import NUM_ACTIONS
from belote_env.rules.game import GameState
from belote_env.rules.scoring import REDEAL
from belote_env.variants import load_variant

REPO = Path(__file__).resolve().parent
CONFIG_DIR = REPO / "configs" / "train"


RESUME_ENTRIES = ("args", "optimizer", "update", "global_step", "rng")


class ConfigError(ValueError):
    """A bad training option: unknown key, wrong type or value, or a run-directory clash."""


@dataclass
class Args:
    """Every option of a training run; YAML keys and ``--dashed-names`` on the command line."""

    # ---- run --------------------------------------------------------------
    exp_name: str = field(default="train", metadata={"help": "experiment name (the config file's stem when --config is given)"})
    run_name: str = field(default="", metadata={"help": "directory name under runs_dir; default '<exp_name>_s<seed>'"})
    runs_dir: str = field(default="runs", metadata={"help": "where run directories (TensorBoard logs, checkpoints) go"})
    seed: int = field(default=1, metadata={"help": "seed of every RNG of the run"})
    torch_threads: int = field(default=1, metadata={"help": "torch.set_num_threads; keep 1-2 on a small machine"})
    variant: str = field(default="coinche", metadata={"help": "variant name in configs/variants/ or path of a variant YAML"})
    max_minutes: float = field(default=0.0, metadata={"help": "stop (with a checkpoint) after this many minutes; 0 = no cap"})
    # ---- collection -------------------------------------------------------
    total_timesteps: int = field(default=2_000_000, metadata={"help": "decisions played at all tables (all seats) over the run"})
    num_envs: int = field(default=128, metadata={"help": "tables played at once (one batched forward pass per step)"})
    num_steps: int = field(default=64, metadata={"help": "steps of every table per rollout (one update per rollout)"})
    opponent_mix: dict = field(default_factory=lambda: {"random": 0.2, "heuristic": 0.3}, metadata={
        "help": "fraction of tables where one team (drawn at random) is a fixed agent, per agent spec "
                "(agents.make_agent: random, heuristic, a checkpoint path); the other tables are self-play. "
                "Command line: --opponent-mix random=0.2 heuristic=0.3"})
    end_on_redeal: bool = field(default=True, metadata={
        "help": "an all-pass deal ends the training episode with reward 0 instead of redealing "
                "(stops tables where every seat passes from looping without a reward)"})
    # ---- network ----------------------------------------------------------
    hidden_sizes: list = field(default_factory=lambda: [256, 256], metadata={"help": "MLP hidden layer sizes"})
    activation: str = field(default="relu", metadata={"help": "relu or tanh"})
    # ---- PPO --------------------------------------------------------------
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate"})
    anneal_lr: bool = field(default=True, metadata={"help": "anneal the learning rate linearly to 0"})
    gamma: float = field(default=1.0, metadata={"help": "discount along a seat's decisions (deals are short: 1.0)"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    num_minibatches: int = field(default=4, metadata={"help": "minibatches per epoch"})
    update_epochs: int = field(default=4, metadata={"help": "epochs over each rollout"})
    norm_adv: bool = field(default=False, metadata={
        "help": "normalise advantages per minibatch (off: deal rewards are already about [-1, 1], and normalising "
                "near-zero advantages of all-pass deals drove the policy to a deterministic all-pass)"})
    clip_coef: float = field(default=0.2, metadata={"help": "PPO clipping coefficient"})
    clip_vloss: bool = field(default=True, metadata={"help": "clip the value loss as in PPO's reference code"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus coefficient"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss coefficient"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "gradient norm clip"})
    target_kl: float = field(default=0.0, metadata={"help": "stop the epochs of an update above this approx KL; 0 = off"})
    # ---- behaviour-cloning warm start ------------------------------------
    bc_agent: str = field(default="", metadata={
        "help": "agent spec (heuristic, a checkpoint path) to imitate before PPO starts: its decisions at all four "
                "seats train the policy head (masked cross-entropy) and its deal rewards the value head; "
                "empty = no warm start. Fresh runs only: --resume continues PPO from the checkpoint"})
    bc_decisions: int = field(default=200_000, metadata={"help": "decisions of bc_agent recorded for the warm start"})
    bc_epochs: int = field(default=4, metadata={"help": "epochs over the recorded decisions"})
    bc_batch_size: int = field(default=512, metadata={"help": "minibatch size of the warm start"})
    bc_learning_rate: float = field(default=1e-3, metadata={"help": "Adam learning rate of the warm start"})
    bc_value_coef: float = field(default=0.5, metadata={
        "help": "weight of the value loss (deal reward of the recorded trajectories) in the warm start; 0 = policy only"})
    # ---- evaluation and checkpoints --------------------------------------
    eval_every: int = field(default=10, metadata={"help": "evaluate every N updates; 0 = only at the end"})
    eval_pairs: int = field(default=200, metadata={"help": "duplicate pairs per opponent at each evaluation"})
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"], metadata={"help": "agent specs for agents.make_agent"})
    eval_seed: int = field(default=12345, metadata={"help": "seed of the evaluation deals (the same at every evaluation)"})
    final_eval_pairs: int = field(default=500, metadata={"help": "duplicate pairs per opponent in the final table; 0 = none"})
    checkpoint_every: int = field(default=10, metadata={"help": "write a checkpoint every N updates (and at the end)"})
    keep_checkpoints: int = field(default=3, metadata={"help": "how many ckpt_*.pt files to keep (latest.pt is always kept)"})
    progress: bool = field(default=True, metadata={"help": "show a tqdm progress bar"})


FIELDS = {f.name: f for f in dataclasses.fields(Args)}
LIST_FIELDS = {"hidden_sizes": int, "eval_opponents": str}


def _opponent_mix(value) -> dict:
    """``{spec: fraction}`` from a mapping or from ``spec=fraction`` strings; fractions sum to at most 1."""
    bad = ConfigError(f"option 'opponent_mix' takes a mapping of agent spec to fraction (YAML) or spec=fraction "
                      f"items (command line), fractions in [0, 1] summing to at most 1; got {value!r}")
    if isinstance(value, (list, tuple)):
        items = {}
        for item in value:
            if not isinstance(item, str) or item.count("=") != 1:
                raise bad
            k, v = item.split("=")
            items[k] = v
        value = items
    if not isinstance(value, dict):
        raise bad
    try:
        mix = {str(k): float(v) for k, v in value.items()}
    except (TypeError, ValueError):
        raise bad from None
    if any(not 0.0 <= v <= 1.0 for v in mix.values()) or sum(mix.values()) > 1.0 + 1e-9:
        raise bad
    return {k: v for k, v in mix.items() if v > 0}


def _coerce(name: str, value):
    """``value`` checked and converted to the type of field ``name``."""
    f = FIELDS[name]
    if name == "opponent_mix":
        return _opponent_mix(value)
    if name in LIST_FIELDS:
        if isinstance(value, (str, int)):
            value = [value]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"option {name!r} takes a list of {LIST_FIELDS[name].__name__}, got {value!r}")
        try:
            return [LIST_FIELDS[name](v) for v in value]
        except (TypeError, ValueError):
            raise ConfigError(f"option {name!r} takes a list of {LIST_FIELDS[name].__name__}, got {value!r}") from None
    kind = type(f.default)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"option {name!r} takes true or false, got {value!r}")
    if kind is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is int and isinstance(value, str):
        try:
            value = int(float(value)) if float(value).is_integer() else value
        except ValueError:
            pass
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise ConfigError(f"option {name!r} takes a {kind.__name__}, got {value!r}")
    return value


def validate(args: Args) -> Args:
    """Range checks that would otherwise fail deep inside the loop."""
    positive = ("total_timesteps", "num_envs", "num_steps", "num_minibatches", "update_epochs", "checkpoint_every",
                "keep_checkpoints", "torch_threads")
    for name in positive:
        if getattr(args, name) < 1:
            raise ConfigError(f"option {name!r} must be >= 1, got {getattr(args, name)}")
    if args.bc_agent:
        for name in ("bc_decisions", "bc_epochs", "bc_batch_size"):
            if getattr(args, name) < 1:
                raise ConfigError(f"option {name!r} must be >= 1 when bc_agent is set, got {getattr(args, name)}")
        if not args.bc_learning_rate > 0 or args.bc_value_coef < 0:
            raise ConfigError(f"options bc_learning_rate must be > 0 and bc_value_coef >= 0, got "
                              f"{args.bc_learning_rate} and {args.bc_value_coef}")
    for name in ("eval_every", "eval_pairs", "final_eval_pairs"):
        if getattr(args, name) < 0:
            raise ConfigError(f"option {name!r} must be >= 0, got {getattr(args, name)}")
    args.opponent_mix = _opponent_mix(args.opponent_mix)
    if args.activation not in ("relu", "tanh"):
        raise ConfigError(f"option 'activation' must be relu or tanh, got {args.activation!r}")
    if args.num_envs * args.num_steps > args.total_timesteps:
        raise ConfigError(f"total_timesteps ({args.total_timesteps}) is below one rollout "
                          f"(num_envs * num_steps = {args.num_envs * args.num_steps})")
    return args


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Train a Belote agent by self-play PPO. Options: dataclass defaults < --config YAML < command line.")
    p.add_argument("--config", help="YAML file of options (keys are the option names with underscores), "
                   "e.g. configs/train/quick.yaml; a bare name looks in configs/train/")
    p.add_argument("--resume", action="store_true", help="continue the latest checkpoint of the run")
    p.add_argument("--evaluate", metavar="CHECKPOINT", help="only evaluate a checkpoint: final_eval_pairs duplicate "
                   "pairs against each of eval_opponents; print the table and write <checkpoint>.eval.json")
    p.add_argument("--plot", metavar="RUN_DIR", help="only export the training curves of a run directory as PNG")
    p.add_argument("--plot-out", metavar="PNG", help="where --plot writes (default docs/results/training_<run>.png)")
    for name, f in FIELDS.items():
        flag = "--" + name.replace("_", "-")
        help_text = f.metadata["help"]
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if name in LIST_FIELDS:
            p.add_argument(flag, nargs="+", type=LIST_FIELDS[name], default=None, help=f"{help_text} (default {default})")
        elif name == "opponent_mix":
            p.add_argument(flag, nargs="*", metavar="SPEC=FRACTION", default=None, help=f"{help_text} (default {default})")
        elif isinstance(default, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=f"{help_text} (default {default})")
        else:
            p.add_argument(flag, type=type(default), default=None, help=f"{help_text} (default {default!r})")
    return p


def config_path(name: str) -> Path:
    path = Path(name)
    if path.is_file():
        return path
    named = CONFIG_DIR / f"{name}.yaml"
    if named.is_file():
        return named
    shipped = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
    raise ConfigError(f"config {name!r} not found; give a YAML path or one of: {shipped}")


def load_config(name: str) -> dict:
    """The options of a YAML config file, checked against :class:`Args`."""
    path = config_path(name)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a training config is a mapping of option names to values")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ConfigError(f"{path}: unknown option(s) {', '.join(unknown)}; accepted: {', '.join(FIELDS)}")
    out = {k: _coerce(k, v) for k, v in data.items()}
    out.setdefault("exp_name", path.stem)
    return out


def parse_args(argv=None) -> tuple[Args, argparse.Namespace, dict]:
    """(args, the namespace with the mode flags, the options given explicitly on the command line)."""
    ns = build_parser().parse_args(argv)
    values = {}
    if ns.config:
        values.update(load_config(ns.config))
    cli = {k: _coerce(k, getattr(ns, k)) for k in FIELDS if getattr(ns, k) is not None}
    values.update(cli)
    args = Args(**values)
    ns.run_name_given = bool(args.run_name)
    if not args.run_name:
        args.run_name = f"{args.exp_name}_s{args.seed}"
    return validate(args), ns, cli


# ---------------------------------------------------------------------------
# Collection
# ---------------------------------------------------------------------------

class Tables:
    """``num_envs`` games in flight, and which fixed opponent (if any) plays which team at each."""

    def __init__(self, variant, num_envs: int, opponent_mix: dict, rng: np.random.Generator):
        from agents import make_agent

        self.variant = variant
        self.n = num_envs
        self.specs = list(opponent_mix)
        self.opponents = [make_agent(spec) for spec in self.specs]
        self.cum = np.cumsum([opponent_mix[s] for s in self.specs])
        self.rng = rng
        self.games: list[GameState] = [None] * num_envs  # type: ignore[list-item]
        self.opponent = np.full(num_envs, -1, dtype=np.int64)  # index in specs, -1 = self-play
        self.opponent_team = np.full(num_envs, -1, dtype=np.int64)  # team of the fixed opponent, -1 = none
        # index in the rollout buffer of each seat's latest decision in the current episode, -1 if none
        self.last = np.full((num_envs, 4), -1, dtype=np.int64)
        self.reset_all()

    def reset(self, i: int) -> None:
        """A new game at table ``i``: seed, dealer, opponent and its team from the run's collection RNG."""
        seed = int(self.rng.integers(2**63))
        dealer = int(self.rng.integers(4))
        u = self.rng.random()
        team = int(self.rng.integers(2))
        k = int(np.searchsorted(self.cum, u, side="right")) if len(self.specs) else 0
        self.opponent[i] = k if k < len(self.specs) else -1
        self.opponent_team[i] = team if k < len(self.specs) else -1
        self.games[i] = GameState(self.variant, seed=seed, dealer=dealer)
        self.last[i] = -1

    def reset_all(self) -> None:
        for i in range(self.n):
            self.reset(i)

    def reseed_opponents(self) -> None:
        """Reseed the fixed opponents from the collection RNG (so a resumed run replays them)."""
        for agent in self.opponents:
            agent.reset(int(self.rng.integers(2**63)))


class Rollout:
    """The network's decisions of one rollout, in the order they were made."""

    def __init__(self, capacity: int):
        self.obs = np.zeros((capacity, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((capacity, NUM_ACTIONS), dtype=np.int8)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.logprobs = np.zeros(capacity, dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=bool)
        self.next_value = np.zeros(capacity, dtype=np.float32)  # value of the seat's next decision (or bootstrap)
        self.next_index = np.full(capacity, -1, dtype=np.int64)  # the seat's next decision in this rollout
        self.size = 0

    def clear(self) -> None:
        self.rewards[:self.size] = 0.0
        self.dones[:self.size] = False
        self.next_value[:self.size] = 0.0
        self.next_index[:self.size] = -1
        self.size = 0


@torch.no_grad()
def collect(net: PolicyValueNet, tables: Tables, buf: Rollout, num_steps: int, stats: dict,
            end_on_redeal: bool = True) -> None:
    """Play ``num_steps`` decisions at every table; fill ``buf`` with the network's decisions."""
    buf.clear()
    tables.reseed_opponents()
    variant, games = tables.variant, tables.games
    n = tables.n
    rows = np.zeros(n, dtype=np.int64)
    actions = [0] * n
    opp_obs = np.zeros(OBS_SIZE, dtype=np.float32)
    opp_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for _ in range(num_steps):
        start = buf.size
        k = 0
        for i, g in enumerate(games):
            seat = g.current_seat
            if tables.opponent_team[i] == (seat & 1):
                agent = tables.opponents[tables.opponent[i]]
                action_mask(g, seat, opp_mask)
                obs = encode(g, seat, opp_obs) if agent.needs_observation else None
                actions[i] = int(agent.act(obs, opp_mask, g.info_state(seat) if agent.needs_info else None))
                rows[i] = -1
            else:
                j = start + k
                encode(g, seat, buf.obs[j])
                action_mask(g, seat, buf.mask[j])
                rows[i] = j
                k += 1
        if k:
            obs = torch.from_numpy(buf.obs[start:start + k])
            mask = torch.from_numpy(buf.mask[start:start + k]).bool()
            logits, value = net(obs, mask)
            dist = Categorical(logits=logits)
            action = dist.sample()
            buf.actions[start:start + k] = action.numpy()
            buf.logprobs[start:start + k] = dist.log_prob(action).numpy()
            buf.values[start:start + k] = value.numpy()
            buf.size = start + k
            chosen = action.tolist()
        for i, g in enumerate(games):
            seat = g.current_seat
            j = int(rows[i])
            if j >= 0:
                actions[i] = chosen[j - start]
                prev = tables.last[i, seat]
                if prev >= 0:
                    buf.next_index[prev] = j
                    buf.next_value[prev] = buf.values[j]
                tables.last[i, seat] = j
            result = g.apply(actions[i])
            if result is not None:
                reward = deal_reward(variant, result)
                for s in range(4):
                    prev = tables.last[i, s]
                    if prev >= 0:
                        buf.rewards[prev] += reward[s & 1]
                if g.over or (end_on_redeal and result.outcome == REDEAL):
                    if result.outcome == REDEAL:
                        stats["all_pass"] = stats.get("all_pass", 0) + 1
                    elif tables.opponent[i] < 0:
                        stats["return_team0"].append(reward[0])
                        stats["return_team1"].append(reward[1])
                    else:
                        key = tables.specs[tables.opponent[i]]
                        stats.setdefault(key, []).append(reward[1 - tables.opponent_team[i]])
                    for s in range(4):
                        prev = tables.last[i, s]
                        if prev >= 0:
                            buf.dones[prev] = True
                    tables.reset(i)
    # trajectories cut by the end of the rollout: bootstrap from the seat's current observation
    pending = [(i, s, int(tables.last[i, s])) for i in range(n) for s in range(4) if tables.last[i, s] >= 0]
    if pending:
        obs = np.zeros((len(pending), OBS_SIZE), dtype=np.float32)
        for r, (i, s, _) in enumerate(pending):
            encode(games[i], s, obs[r])
        h = net.trunk(torch.from_numpy(obs))
        values = net.value(h).squeeze(-1).numpy()
        for r, (i, s, prev) in enumerate(pending):
            buf.next_value[prev] = values[r]
    # the next rollout starts new trajectories (the buffer indices do not carry over)
    tables.last[:] = -1


def compute_gae(buf: Rollout, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns along each seat trajectory (successor links in ``buf.next_index``)."""
    n = buf.size
    nonterminal = 1.0 - buf.dones[:n].astype(np.float32)
    delta = buf.rewards[:n] + gamma * buf.next_value[:n] * nonterminal - buf.values[:n]
    adv = np.zeros(n, dtype=np.float32)
    nxt = buf.next_index[:n].tolist()
    d = delta.tolist()
    gl = gamma * gae_lambda
    a = [0.0] * n
    for t in range(n - 1, -1, -1):  # a successor always comes later, so one backward pass suffices
        j = nxt[t]
        a[t] = d[t] + (gl * a[j] if j >= 0 else 0.0)
    adv[:] = a
    return adv, adv + buf.values[:n]


def ppo_update(net: PolicyValueNet, optimizer: torch.optim.Optimizer, buf: Rollout, adv: np.ndarray,
               returns: np.ndarray, args: Args) -> dict:
    """CleanRL's PPO update on the rollout; returns the loss figures (means over minibatches) for logging."""
    n = buf.size
    b_obs = torch.from_numpy(buf.obs[:n])
    b_mask = torch.from_numpy(buf.mask[:n]).bool()
    b_actions = torch.from_numpy(buf.actions[:n])
    b_logprobs = torch.from_numpy(buf.logprobs[:n])
    b_values = torch.from_numpy(buf.values[:n])
    b_adv = torch.from_numpy(adv)
    b_returns = torch.from_numpy(returns)
    # minibatch bounds split the rollout evenly (its size varies with the random-opponent tables)
    bounds = np.linspace(0, n, min(args.num_minibatches, n) + 1).round().astype(int).tolist()
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "old_approx_kl": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
    count = 0
    for _ in range(args.update_epochs):
        perm = torch.randperm(n)
        epoch_kl = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            mb = perm[lo:hi]
            logits, newvalue = net(b_obs[mb], b_mask[mb])
            dist = Categorical(logits=logits)
            newlogprob = dist.log_prob(b_actions[mb])
            entropy = dist.entropy()
            logratio = newlogprob - b_logprobs[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean().item()
                approx_kl = ((ratio - 1) - logratio).mean().item()
                clipfrac = ((ratio - 1.0).abs() > args.clip_coef).float().mean().item()
                epoch_kl.append(approx_kl)
            mb_adv = b_adv[mb]
            if args.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            if args.clip_vloss:
                v_unclipped = (newvalue - b_returns[mb]) ** 2
                v_clipped = b_values[mb] + (newvalue - b_values[mb]).clamp(-args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_returns[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - args.ent_coef * entropy_loss + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            optimizer.step()
            for k, v in (("policy_loss", pg_loss.item()), ("value_loss", v_loss.item()), ("entropy", entropy_loss.item()),
                         ("old_approx_kl", old_approx_kl), ("approx_kl", approx_kl), ("clipfrac", clipfrac)):
                sums[k] += v
            count += 1
        if args.target_kl and np.mean(epoch_kl) > args.target_kl:
            break
    y_pred, y_true = buf.values[:n], returns
    var_y = np.var(y_true)
    explained_var = float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)
    out = {k: v / max(count, 1) for k, v in sums.items()}  # means over every minibatch of the update
    out["explained_variance"] = explained_var
    return out


# ---------------------------------------------------------------------------
# Behaviour-cloning warm start
# ---------------------------------------------------------------------------

@dataclass
class Demonstrations:
    """Decisions of a demonstrator: what each seat saw, could do and did, and its team's deal reward."""

    obs: np.ndarray      # float32 (n, OBS_SIZE): float16 is not exact for the encoding's fractions (1/81, ...)
    mask: np.ndarray     # int8 (n, NUM_ACTIONS)
    actions: np.ndarray  # int64 (n,)
    returns: np.ndarray  # float32 (n,): deal_reward of the seat's team for the deal of the decision


def record_demonstrations(variant, spec: str, decisions: int, seed: int, progress: bool = False) -> Demonstrations:
    """Play deals with the agent ``spec`` at all four seats and record its first ``decisions`` decisions.

    Every decision gets, as its return, the reward (``rewards.deal_reward``) of the seat's team for the deal
    it belongs to (``gamma = 1``); a deal that ends in a redeal (everyone passed) gives 0, as in training
    with ``end_on_redeal``. A game abandoned after ``agents.table.MAX_REDEALS`` redeals in a row is replaced.
    """
    from agents import make_agent
    from agents.table import MAX_REDEALS

    agent = make_agent(spec)
    rng = np.random.default_rng(seed)
    agent.reset(int(rng.integers(2**63)))
    demo = Demonstrations(np.zeros((decisions, OBS_SIZE), dtype=np.float32),
                          np.zeros((decisions, NUM_ACTIONS), dtype=np.int8),
                          np.zeros(decisions, dtype=np.int64), np.zeros(decisions, dtype=np.float32))
    seats = np.zeros(decisions, dtype=np.int8)
    n = 0
    bar = tqdm(total=decisions, unit="decision", unit_scale=True, dynamic_ncols=True, disable=not progress,
               mininterval=2.0, desc=f"bc: recording {spec}")
    while n < decisions:
        game = GameState(variant, seed=int(rng.integers(2**63)), dealer=int(rng.integers(4)))
        deal_start, redeals = n, 0
        while not game.over and n < decisions and redeals < MAX_REDEALS:
            seat = game.current_seat
            encode(game, seat, demo.obs[n])
            action_mask(game, seat, demo.mask[n])
            obs = demo.obs[n] if agent.needs_observation else None
            action = int(agent.act(obs, demo.mask[n], game.info_state(seat) if agent.needs_info else None))
            demo.actions[n], seats[n] = action, seat
            n += 1
            result = game.apply(action)
            if result is not None:
                reward = deal_reward(variant, result)
                team = seats[deal_start:n] & 1
                demo.returns[deal_start:n] = np.where(team == 0, reward[0], reward[1])
                redeals = redeals + 1 if result.outcome == REDEAL else 0
                deal_start = n
        bar.update(n - bar.n)
    bar.close()
    if not np.all(demo.mask[np.arange(decisions), demo.actions]):
        raise ConfigError(f"bc_agent {spec!r} played actions outside the action mask; it cannot be imitated")
    # decisions of a deal cut by the end of the recording keep return 0: a handful out of bc_decisions
    return demo


def behaviour_clone(net: PolicyValueNet, demo: Demonstrations, args: Args, writer=None) -> dict:
    """Fit ``net`` to the demonstrations: masked cross-entropy on the policy head, plus ``bc_value_coef`` times
    the squared error of the value head against the deal rewards. 5 % of the decisions (at most 10,000) are
    held out to measure accuracy. Logs ``bc/*`` to ``writer`` per epoch; returns the last epoch's figures."""
    n = len(demo.actions)
    perm = torch.randperm(n)
    n_val = min(10_000, n // 20)
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    obs, mask = torch.from_numpy(demo.obs), torch.from_numpy(demo.mask)
    actions, returns = torch.from_numpy(demo.actions), torch.from_numpy(demo.returns)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.bc_learning_rate)
    steps_per_epoch = max(1, -(-len(train_idx) // args.bc_batch_size))
    total = steps_per_epoch * args.bc_epochs
    bar = tqdm(total=total, unit="batch", dynamic_ncols=True, disable=not args.progress, mininterval=2.0,
               desc="bc: training")
    figures: dict = {}
    step = 0
    for epoch in range(1, args.bc_epochs + 1):
        net.train()
        order = train_idx[torch.randperm(len(train_idx))]
        sums = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        seen = 0
        for lo in range(0, len(order), args.bc_batch_size):
            # the learning rate falls linearly to a tenth over the warm start
            optimizer.param_groups[0]["lr"] = args.bc_learning_rate * (1.0 - 0.9 * step / total)
            mb = order[lo:lo + args.bc_batch_size]
            logits, value = net(obs[mb], mask[mb].bool())
            policy_loss = nn.functional.cross_entropy(logits, actions[mb])
            value_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
            loss = policy_loss + args.bc_value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm * 10)
            optimizer.step()
            k = len(mb)
            sums["loss"] += loss.item() * k
            sums["policy_loss"] += policy_loss.item() * k
            sums["value_loss"] += value_loss.item() * k
            sums["accuracy"] += (logits.argmax(1) == actions[mb]).float().sum().item()
            seen += k
            step += 1
            bar.update(1)
        figures = {k: v / seen for k, v in sums.items()}
        figures.update(_bc_validation(net, obs[val_idx], mask[val_idx], actions[val_idx], returns[val_idx]))
        if writer is not None:
            for k, v in figures.items():
                writer.add_scalar(f"bc/{k}", v, epoch)
        bar.set_postfix({"loss": f"{figures['loss']:.3f}", "val_acc": f"{figures.get('val_accuracy', 0):.3f}"},
                        refresh=False)
    bar.close()
    net.eval()
    return figures


@torch.no_grad()
def _bc_validation(net, obs, mask, actions, returns) -> dict:
    """Held-out accuracy, overall and for the auction (actions >= 32) and the card play; value loss."""
    if len(actions) == 0:
        return {}
    net.eval()
    logits, value = net(obs, mask.bool())
    hit = logits.argmax(1) == actions
    bidding = actions >= 32
    out = {"val_accuracy": hit.float().mean().item(),
           "val_value_loss": 0.5 * ((value - returns) ** 2).mean().item()}
    if bidding.any():
        out["val_accuracy_bidding"] = hit[bidding].float().mean().item()
    if (~bidding).any():
        out["val_accuracy_play"] = hit[~bidding].float().mean().item()
    return out


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------

def evaluate(agent, variant, opponents: list[str], pairs: int, seed: int, progress: bool = False) -> dict:
    """Duplicate matches of ``agent`` against each opponent spec: {spec: MatchResult.to_dict()}."""
    from agents import make_agent
    from agents.tournament import duplicate_match

    out = {}
    for spec in opponents:
        res = duplicate_match(agent, make_agent(spec), variant, pairs, seed=seed, progress=progress)
        out[spec] = res.to_dict()
    return out


def _made(r: dict, side: str) -> str:
    rate, taken = r.get(f"made_rate_{side}"), r.get(f"taken_{side}", 0)
    return "never took" if not taken or rate is None or rate != rate else f"{100 * rate:.1f}%"


def format_table(results: dict, title: str) -> str:
    """A plain-text table of duplicate results, one opponent per line."""
    lines = [title, f"{'opponent':<12} {'pairs':>6} {'points/deal':>12} {'95% CI':>20} {'deals won':>10} "
                    f"{'took (agent)':>13} {'made (agent)':>13} {'made (opp)':>11}"]
    for spec, r in results.items():
        ci = f"[{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]"
        took = f"{100 * r.get('taken_a', 0) / max(2 * r['pairs'], 1):.1f}%"  # share of the 2 x pairs deals
        lines.append(f"{spec:<12} {r['pairs']:>6} {r['mean_diff']:>+12.1f} {ci:>20} {100 * r['win_rate']:>9.1f}% "
                     f"{took:>13} {_made(r, 'a'):>13} {_made(r, 'b'):>11}")
    return "\n".join(lines)


def _tag(spec: str) -> str:
    """An agent spec as a TensorBoard tag component (a checkpoint path becomes its file stem)."""
    return Path(spec).stem if spec.endswith(".pt") else spec.replace(":", "_").replace("/", "_")


def log_eval(writer, results: dict, global_step: int) -> None:
    for spec, r in results.items():
        tag = _tag(spec)
        writer.add_scalar(f"eval/{tag}/points_per_deal", r["mean_diff"], global_step)
        writer.add_scalar(f"eval/{tag}/points_ci_low", r["ci_low"], global_step)
        writer.add_scalar(f"eval/{tag}/points_ci_high", r["ci_high"], global_step)
        writer.add_scalar(f"eval/{tag}/deals_won", r["win_rate"], global_step)


# ---------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------

def checkpoint_dir(args: Args) -> Path:
    return Path(args.runs_dir) / args.run_name / "checkpoints"


def atomic_save(obj, path: Path) -> None:
    """torch.save to ``<path>.tmp``, flushed to disk, then renamed over ``path``."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        torch.save(obj, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def save_checkpoint(args: Args, net, optimizer, tables: Tables, update: int, global_step: int, elapsed: float) -> Path:
    ckpt = checkpoint_dict(
        net,
        optimizer=optimizer.state_dict(),
        args=dataclasses.asdict(args),
        update=update,
        global_step=global_step,
        elapsed_s=elapsed,
        rng={"python": random.getstate(), "numpy": _np_global_state(), "torch": torch.get_rng_state(),
             "collect": tables.rng.bit_generator.state},
    )
    d = checkpoint_dir(args)
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"ckpt_{update:07d}.pt"
    atomic_save(ckpt, path)
    atomic_save(ckpt, d / "latest.pt")
    for old in sorted(d.glob("ckpt_*.pt"))[:-args.keep_checkpoints]:
        old.unlink()
    return path


def _np_global_state() -> dict:
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    return {"kind": kind, "keys": torch.from_numpy(keys.astype(np.int64)), "pos": int(pos),
            "has_gauss": int(has_gauss), "gauss": float(gauss)}


def _np_set_global_state(s: dict) -> None:
    np.random.set_state((s["kind"], s["keys"].numpy().astype(np.uint32), s["pos"], s["has_gauss"], s["gauss"]))


def latest_checkpoint(args: Args) -> Path | None:
    found = sorted(checkpoint_dir(args).glob("ckpt_*.pt"))
    return found[-1] if found else None


# ---------------------------------------------------------------------------
# Plot
# ---------------------------------------------------------------------------

def read_scalars(run_dir: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every scalar series of a run's TensorBoard logs: {tag: (steps, values)}."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        by_step = {e.step: e.value for e in acc.Scalars(tag)}  # a resumed run rewrites steps; keep the last
        steps = np.array(sorted(by_step))
        out[tag] = (steps, np.array([by_step[s] for s in steps]))
    return out


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Training curves of a run as a PNG: evaluations (periodic, and the final table as stars), the
    network's reward against fixed opponents, entropy, explained variance and all-pass rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ConfigError(f"run directory {str(run_dir)!r} does not exist")
    s = read_scalars(run_dir)
    if not s:
        raise ConfigError(f"{run_dir}: no TensorBoard scalars found (is it a run directory of train.py?)")
    out = Path(out) if out else REPO / "docs" / "results" / f"training_{run_dir.name}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    opponents = sorted({t.split("/")[1] for t in s if t.startswith("eval/") and not t.startswith("eval/final_")})
    colors = {opp: f"C{i}" for i, opp in enumerate(opponents)}

    def final_point(ax, opp, key, scale=1.0):
        """The end-of-run table's figure, as a star at its step."""
        if f"eval/final_{opp}/{key}" in s:
            x, y = s[f"eval/final_{opp}/{key}"]
            ax.plot(x, scale * y, marker="*", ms=12, ls="", color=colors[opp], label=f"vs {opp}, final table")

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax = axes[0, 0]
    for opp in opponents:
        if f"eval/{opp}/deals_won" in s:
            x, y = s[f"eval/{opp}/deals_won"]
            ax.plot(x, 100 * y, marker="o", ms=3, color=colors[opp], label=f"vs {opp}")
        final_point(ax, opp, "deals_won", 100.0)
    ax.axhline(50, color="grey", lw=0.8, ls=":")
    ax.set(title="Duplicate deals won (%)", xlabel="global step", ylabel="%")
    ax = axes[0, 1]
    for opp in opponents:
        if f"eval/{opp}/points_per_deal" in s:
            x, y = s[f"eval/{opp}/points_per_deal"]
            ax.plot(x, y, marker="o", ms=3, color=colors[opp], label=f"vs {opp}")
            if f"eval/{opp}/points_ci_low" in s:
                ax.fill_between(x, s[f"eval/{opp}/points_ci_low"][1], s[f"eval/{opp}/points_ci_high"][1],
                                color=colors[opp], alpha=0.2)
        final_point(ax, opp, "points_per_deal")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set(title="Duplicate points per deal (95% CI)", xlabel="global step", ylabel="points")
    ax = axes[1, 0]
    for tag in sorted(t for t in s if t.startswith("charts/return_vs_")):
        ax.plot(*s[tag], lw=0.8, label=tag.split("return_")[1].replace("_", " ") + " (training tables)")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set(title="Network's mean deal reward against fixed opponents", xlabel="global step")
    ax = axes[1, 1]
    if "losses/entropy" in s:
        ax.plot(*s["losses/entropy"], label="entropy")
    if "losses/explained_variance" in s:
        ax.plot(*s["losses/explained_variance"], label="explained variance")
    if "charts/all_pass_rate" in s:
        ax.plot(*s["charts/all_pass_rate"], lw=0.8, label="all-pass deals (share of episodes)")
    ax.set(title="Entropy, explained variance, all-pass rate", xlabel="global step")
    for a in axes.flat:
        a.grid(alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=8)
    fig.suptitle(f"train.py run {run_dir.name}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


# ---------------------------------------------------------------------------
# Main loop
# ---------------------------------------------------------------------------

def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def train(args: Args, resume: bool = False, cli_overrides: dict | None = None, auto_run_name: bool = False) -> dict:
    """Run (or resume) a training run; returns the final evaluation results.

    ``auto_run_name``: the run name is the default one (not chosen by the user); a fresh run whose directory
    already has checkpoints then goes to the next free ``<run_name>_<k>`` instead of being refused.
    """
    from torch.utils.tensorboard import SummaryWriter

    if auto_run_name and not resume:
        name = free_run_name(args)
        if name != args.run_name:
            print(f"run {args.run_name!r} already has checkpoints (pass --resume to continue it); "
                  f"this run is {name!r}: {Path(args.runs_dir) / name}")
            args.run_name = name
    run_dir = Path(args.runs_dir) / args.run_name
    ckpt = None
    if resume:
        path = latest_checkpoint(args)
        if path is None:
            raise ConfigError(f"--resume: no checkpoint in {checkpoint_dir(args)}; start the run without --resume")
        ckpt = load_checkpoint(path)
        missing = [k for k in RESUME_ENTRIES if k not in ckpt]
        if missing:
            raise ConfigError(
                f"--resume: {path} holds the network's weights only (no {', '.join(missing)}); it can be "
                "evaluated (--evaluate PATH) or played as an agent, but a run resumes only from a checkpoint "
                "train.py wrote during training"
            )
        saved = dict(ckpt["args"])
        saved.update(cli_overrides or {})  # only options given on the command line may change on resume
        args = validate(Args(**{k: v for k, v in saved.items() if k in FIELDS}))
    elif latest_checkpoint(args) is not None:
        raise ConfigError(f"run {args.run_name!r} already has checkpoints in {checkpoint_dir(args)}; "
                          "pass --resume to continue it, choose another --run-name, or leave --run-name out "
                          "to get the next free name")

    torch.set_num_threads(args.torch_threads)
    seed_everything(args.seed)
    variant = load_variant(args.variant)
    net = PolicyValueNet(OBS_SIZE, args.hidden_sizes, NUM_ACTIONS, args.activation)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    collect_rng = np.random.default_rng(args.seed)
    update, global_step, elapsed_before = 0, 0, 0.0
    if ckpt is not None:
        net = build_net(ckpt, path)
        optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
        optimizer.load_state_dict(ckpt["optimizer"])
        update, global_step, elapsed_before = ckpt["update"], ckpt["global_step"], ckpt.get("elapsed_s", 0.0)
        rng = ckpt["rng"]
        random.setstate(rng["python"])
        _np_set_global_state(rng["numpy"])
        torch.set_rng_state(rng["torch"])
        collect_rng.bit_generator.state = rng["collect"]

    batch = args.num_envs * args.num_steps
    num_updates = args.total_timesteps // batch
    eval_on = bool(args.eval_opponents) and args.eval_pairs > 0 and args.eval_every > 0
    if eval_on or (args.final_eval_pairs > 0 and args.eval_opponents):
        try:
            from agents import make_agent  # noqa: F401
            from agents.tournament import duplicate_match  # noqa: F401
        except ImportError as e:
            raise ConfigError(f"evaluation needs agents.make_agent and agents.tournament ({e}); "
                              "set eval_every: 0 and final_eval_pairs: 0 to train without it") from None

    # the checkpoint's own step was logged before it was written; later ones (from a killed run) are purged
    writer = SummaryWriter(str(run_dir), purge_step=global_step + 1 if ckpt is not None else None)
    if ckpt is None:
        table = "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
        writer.add_text("command", " ".join(sys.argv))
    tables = Tables(variant, args.num_envs, args.opponent_mix, collect_rng)
    buf = Rollout(batch)
    agent = NeuralAgent(net, name=f"neural:{args.run_name}")
    last_eval: dict = {}
    bar = tqdm(total=num_updates * batch, initial=update * batch, unit="step", unit_scale=True, dynamic_ncols=True,
               disable=not args.progress, mininterval=2.0, desc=args.run_name)
    start = time.time()
    step_at_start = global_step
    stopped_early = False
    if ckpt is None and args.bc_agent:
        warm_start(args, variant, net, agent, tables, writer, optimizer, eval_on)
    try:
        while update < num_updates:
            update += 1
            if args.anneal_lr:
                optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
            stats = {"return_team0": [], "return_team1": []}
            t0 = time.time()
            net.eval()
            collect(net, tables, buf, args.num_steps, stats, args.end_on_redeal)
            t_collect = time.time() - t0
            global_step += batch
            adv, returns = compute_gae(buf, args.gamma, args.gae_lambda)
            net.train()
            losses = ppo_update(net, optimizer, buf, adv, returns, args)
            net.eval()
            sps = (global_step - step_at_start) / max(time.time() - start, 1e-9)
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("charts/collect_SPS", batch / max(t_collect, 1e-9), global_step)
            writer.add_scalar("charts/decisions_trained", buf.size, global_step)
            all_pass = stats.pop("all_pass", 0)
            finished = sum(len(v) for k, v in stats.items() if k != "return_team1")
            writer.add_scalar("charts/all_pass_rate", all_pass / max(all_pass + finished, 1), global_step)
            for key, values in stats.items():
                if values:
                    tag = key if key.startswith("return_team") else "return_vs_" + _tag(key)
                    tag = tag.replace("return_team", "episodic_return_team")
                    writer.add_scalar(f"charts/{tag}", float(np.mean(values)), global_step)
            writer.add_scalar("charts/deals_finished", finished, global_step)
            for k, v in losses.items():
                writer.add_scalar(f"losses/{k}", v, global_step)
            if eval_on and update % args.eval_every == 0:
                last_eval = evaluate(agent, variant, args.eval_opponents, args.eval_pairs, args.eval_seed)
                log_eval(writer, last_eval, global_step)
                bar.write(f"update {update}/{num_updates} step {global_step}: " + ", ".join(
                    f"vs {k} {100 * r['win_rate']:.1f}% won, {r['mean_diff']:+.1f} pts" for k, r in last_eval.items()))
            post = {"sps": f"{sps:.0f}"}
            for k, r in last_eval.items():
                post[f"{k[:5]}"] = f"{100 * r['win_rate']:.0f}%/{r['mean_diff']:+.0f}"
            bar.set_postfix(post, refresh=False)
            bar.update(batch)
            out_of_time = args.max_minutes > 0 and (time.time() - start) / 60 >= args.max_minutes
            if update % args.checkpoint_every == 0 or update == num_updates or out_of_time:
                save_checkpoint(args, net, optimizer, tables, update, global_step, elapsed_before + time.time() - start)
                tables.reset_all()  # what a resumed run does, so that resuming is exact
                writer.flush()
            if out_of_time:
                stopped_early = True
                bar.write(f"max_minutes={args.max_minutes} reached at update {update}/{num_updates}; stopping")
                break
    finally:
        bar.close()
    wall = elapsed_before + time.time() - start
    final = {}
    if args.final_eval_pairs > 0 and args.eval_opponents:
        final = evaluate(agent, variant, args.eval_opponents, args.final_eval_pairs, args.eval_seed + 1,
                         progress=args.progress)
        log_eval(writer, {f"final_{k}": v for k, v in final.items()}, global_step)
        print(format_table(final, f"Final duplicate evaluation of {args.run_name} ({args.variant}, "
                                  f"{args.final_eval_pairs} pairs per opponent, update {update}, step {global_step}):"))
    summary = {"run_name": args.run_name, "variant": args.variant, "update": update, "global_step": global_step,
               "wall_s": wall, "stopped_early": stopped_early, "checkpoint": str(checkpoint_dir(args) / "latest.pt"),
               "eval_seed": args.eval_seed + 1, "results": final}
    (run_dir / "final_eval.json").write_text(json.dumps(summary, indent=2))
    writer.close()
    print(f"run {args.run_name}: {update} updates, {global_step} steps, {wall / 60:.1f} min; "
          f"checkpoint {checkpoint_dir(args) / 'latest.pt'}")
    return summary


def warm_start(args: Args, variant, net, agent, tables: Tables, writer, optimizer, eval_on: bool) -> None:
    """The behaviour-cloning phase of a fresh run: record ``bc_agent``, fit ``net`` to it, evaluate the clone
    (logged at step 0) and write checkpoint 0, so that ``--resume`` after it continues with PPO."""
    t0 = time.time()
    demo = record_demonstrations(variant, args.bc_agent, args.bc_decisions, seed=args.seed * 1_000_003 + 17,
                                 progress=args.progress)
    t_record = time.time() - t0
    figures = behaviour_clone(net, demo, args, writer)
    del demo
    writer.add_scalar("bc/seconds", time.time() - t0, 0)
    print(f"bc warm start: {args.bc_decisions} decisions of {args.bc_agent} recorded in {t_record:.0f} s, "
          f"{args.bc_epochs} epochs in {time.time() - t0 - t_record:.0f} s; held-out accuracy "
          f"{100 * figures.get('val_accuracy', float('nan')):.1f}% (auction "
          f"{100 * figures.get('val_accuracy_bidding', float('nan')):.1f}%, card play "
          f"{100 * figures.get('val_accuracy_play', float('nan')):.1f}%)")
    if eval_on:
        results = evaluate(agent, variant, args.eval_opponents, args.eval_pairs, args.eval_seed)
        log_eval(writer, results, 0)
        print("after the warm start: " + ", ".join(
            f"vs {k} {100 * r['win_rate']:.1f}% won, {r['mean_diff']:+.1f} pts, took {r['taken_a']}" for k, r in results.items()))
    save_checkpoint(args, net, optimizer, tables, 0, 0, time.time() - t0)
    tables.reset_all()  # what a resumed run does, so that resuming is exact
    writer.flush()


def free_run_name(args: Args) -> str:
    """``args.run_name`` if that run has no checkpoint, else the first ``<run_name>_<k>`` (k = 2, 3, ...) whose
    directory does not exist."""
    if latest_checkpoint(args) is None:
        return args.run_name
    k = 2
    while (Path(args.runs_dir) / f"{args.run_name}_{k}").exists():
        k += 1
    return f"{args.run_name}_{k}"


def evaluate_checkpoint(path: str, args: Args, cli: dict) -> dict:
    """``--evaluate``: a duplicate table of a saved agent against the opponents."""
    ckpt = load_checkpoint(path)
    saved = ckpt.get("args", {})
    variant_name = cli.get("variant", saved.get("variant", args.variant))
    torch.set_num_threads(args.torch_threads)
    agent = load_agent(path)
    pairs = args.final_eval_pairs or args.eval_pairs
    t0 = time.time()
    results = evaluate(agent, load_variant(variant_name), args.eval_opponents, pairs, args.eval_seed + 1,
                       progress=args.progress)
    print(format_table(results, f"Duplicate evaluation of {path} ({variant_name}, {pairs} pairs per opponent, "
                                f"seed {args.eval_seed + 1}, {time.time() - t0:.0f} s):"))
    summary = {"checkpoint": str(path), "variant": variant_name, "pairs": pairs, "seed": args.eval_seed + 1,
               "update": ckpt.get("update"), "global_step": ckpt.get("global_step"), "results": results}
    Path(str(path) + ".eval.json").write_text(json.dumps(summary, indent=2))
    return summary


def main(argv=None) -> None:
    args, ns, cli = parse_args(argv)
    if ns.plot:
        print(plot_run(ns.plot, ns.plot_out))
    elif ns.evaluate:
        evaluate_checkpoint(ns.evaluate, args, cli)
    else:
        train(args, resume=ns.resume, cli_overrides=cli, auto_run_name=not ns.run_name_given)


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:  # ConfigError, CheckpointError, VariantError: a clear message, no traceback
        if not isinstance(e, (ConfigError,)) and type(e).__name__ not in ("CheckpointError", "VariantError"):
            raise
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
