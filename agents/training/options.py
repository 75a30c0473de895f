"""Options of ``train.py``: the defaults of its dataclass < a YAML file < the command line.

CleanRL keeps its arguments in a dataclass parsed by tyro; here the same kind
of dataclass (:class:`Args`, one documented field per option) is filled from
a YAML file in ``configs/train/`` and then from the command line, each value
checked and converted to the field's type, with an error naming the option
(:func:`parse_args`), then checked as a whole (:func:`validate_train`). The
trainer (``agents.training.ppo``) is the one reader of an ``Args``: the parts
it calls take the values they need.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from agents.cli import CommandParser
from agents.training.errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs" / "train"
LIST_FIELDS = {"hidden_sizes": int, "eval_opponents": str}


@dataclass
class Args:
    """Every option of a training run; YAML keys and ``--dashed-names`` on the command line."""

    # ---- run --------------------------------------------------------------
    exp_name: str = field(default="train", metadata={"help": "experiment name (the config file's stem when --config is given)"})
    run_name: str = field(default="", metadata={"help": "directory name under runs_dir; default '<exp_name>_s<seed>'"})
    runs_dir: str = field(default="runs", metadata={"help": "where run directories (TensorBoard logs, checkpoints) go"})
    seed: int = field(default=1, metadata={"help": "seed of every RNG of the run"})
    torch_threads: int = field(default=1, metadata={"help": "torch threads of the update and evaluations (collection "
                                                    "runs on one); keep 1-2 on a small machine"})
    device: str = field(default="cpu", metadata={
        "help": "where the PPO update runs: cpu, cuda, cuda:N, or auto (cuda when there is one); collection and "
                "evaluation always play on a CPU copy"})
    variant: str = field(default="coinche", metadata={"help": "variant name in configs/variants/ or path of a variant YAML"})
    max_minutes: float = field(default=0.0, metadata={"help": "stop (with a checkpoint) after this many minutes; 0 = no cap"})
    ray_workers: int = field(default=0, metadata={"help": "collect on K Ray rollout actors (agents.training.ray_rollouts); 0 = here"})
    ray_address: str = field(default="", metadata={"help": "Ray cluster to join ('auto', host:port); empty = a local Ray"})
    # ---- collection -------------------------------------------------------
    total_timesteps: int = field(default=2_000_000, metadata={"help": "decisions played at all tables (all seats) over the run"})
    num_envs: int = field(default=128, metadata={"help": "tables played at once (one batched forward pass per step)"})
    num_steps: int = field(default=64, metadata={"help": "steps of every table per rollout (one update per rollout)"})
    opponent_mix: dict = field(default_factory=lambda: {"random": 0.2, "heuristic": 0.3}, metadata={
        "help": "fraction of tables where one team (drawn at random) is a fixed agent, per agent spec "
                "(agents.make_agent: random, heuristic, a checkpoint path); the other tables are self-play. "
                "Command line: --opponent-mix random=0.2 heuristic=0.3"})
    pool_fraction: float = field(default=0.0, metadata={
        "help": "fraction of tables where one team (drawn at random) is a past snapshot of the policy, drawn "
                "uniformly from the opponent pool (agents.training.pool); with opponent_mix, fractions sum to at most 1; 0 = off"})
    pool_size: int = field(default=5, metadata={"help": "snapshots kept in the opponent pool (the oldest leaves)"})
    pool_every: int = field(default=10, metadata={"help": "updates between two snapshots joining the opponent pool"})
    factored_calls: bool = field(default=False, metadata={
        "help": "the network makes each call as up to three small decisions, each with its own mask: take/bid or "
                "pass, then the strain, then the level (belote_env.factored; observations of 862 floats, 56 "
                "actions) instead of one of up to 67 calls; the opponents and evaluations play the flat space, the "
                "trained agent too (it makes its decisions in turn). Not with bc_agent, expert_agent or ray_workers"})
    card_play_steps: int = field(default=0, metadata={
        "help": "for the run's first N steps call_agent makes every call of the network's seats, which play only "
                "the cards (the card-play task: learn the cards, then the calls); 0 = off"})
    call_agent: str = field(default="heuristic", metadata={
        "help": "agent spec that makes the network's calls during the card_play_steps (agents.make_agent)"})
    end_on_redeal: bool = field(default=True, metadata={
        "help": "an all-pass deal ends the training episode with reward 0 instead of redealing "
                "(stops tables where every seat passes from looping without a reward)"})
    # ---- network ----------------------------------------------------------
    network: str = field(default="mlp", metadata={
        "help": "the policy-value network: mlp (built in) or module:Class of your own code (docs/training.md, "
                "*Your own network*)"})
    network_kwargs: dict = field(default_factory=dict, metadata={
        "help": "keyword arguments of the network (YAML mapping; command line: --network-kwargs width=64 "
                "layers=2); mlp takes its sizes from hidden_sizes and activation"})
    hidden_sizes: list = field(default_factory=lambda: [256, 256], metadata={
        "help": "hidden layer sizes of the mlp network and of the central critic"})
    activation: str = field(default="relu", metadata={"help": "relu or tanh"})
    central_critic: bool = field(default=False, metadata={
        "help": "advantages from a critic MLP (same sizes) that also sees the other seats' hands (agents.training.critic); "
                "the policy and every agent built from a checkpoint see only the observation"})
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
    call_ent_coef: float = field(default=0.0, metadata={
        "help": "an entropy bonus on the network's calls (its decisions while the deal is bid) on top of ent_coef: "
                "keeps calls explored while taking still loses (docs/training.md, 'Learning from scratch'); 0 = off"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss coefficient"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "gradient norm clip"})
    target_kl: float = field(default=0.0, metadata={"help": "stop the epochs of an update above this approx KL; 0 = off"})
    # ---- behaviour-cloning warm start ------------------------------------
    bc_agent: str = field(default="", metadata={
        "help": "agent spec (heuristic, a checkpoint path) to imitate before PPO starts: its decisions at all four "
                "seats train the policy head (masked cross-entropy) and its deal rewards the value head; "
                "empty = no warm start. Fresh runs only: --resume continues PPO from the checkpoint"})
    init_from: str = field(default="", metadata={
        "help": "start from this checkpoint's or shipped agent's network (ppo_coinche) instead of a warm start, e.g. "
                "to train a trained agent further; its network and config must be the run's; fresh runs only"})
    bc_decisions: int = field(default=200_000, metadata={"help": "decisions of bc_agent recorded for the warm start"})
    expert_agent: str = field(default="", metadata={
        "help": "then fit the net to this agent's decisions as bc_* does (expert iteration); '{net}' in it stands "
                "for the network being trained, e.g. search:policy={net}"})
    expert_decisions: int = field(default=200_000, metadata={"help": "decisions of expert_agent recorded"})
    expert_searched_only: bool = field(default=False, metadata={
        "help": "record only the decisions expert_agent searches (pimc, search: the last tricks' cards; the others "
                "are its base policy's, the network's own with search:policy={net}); off by default: fitted to the "
                "last tricks alone the network lost its bidding (docs/training.md)"})
    expert_temperature: float = field(default=0.0, metadata={
        "help": "0: fit expert_agent's choices; > 0: where it searched (pimc, search), fit its values instead: the "
                "policy to the softmax of its cards' values at this temperature (points of the deal score), the "
                "value head to its best card's value"})
    expert_workers: int = field(default=1, metadata={
        "help": "processes that record expert_agent's decisions, each a share with its own seed (the recording "
                "depends on this number); Ray tasks instead when ray_workers > 0 (on ray_address's cluster, or a "
                "local Ray)"})
    expert_every: int = field(default=0, metadata={
        "help": "also fit the net to expert_agent's decisions every N PPO updates (a multiple of checkpoint_every, "
                "so that --resume is exact); 0 = only at the start"})
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
    plot_curves: bool = field(default=False, metadata={"help": "draw <run>/training_curves.png at the end; print its path"})



def opponent_mix(value) -> dict:
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


def key_values(name: str, value) -> dict:
    """A mapping from a YAML mapping or from ``key=value`` strings (each value read as YAML: numbers, lists,
    true/false, strings)."""
    bad = ConfigError(f"option {name!r} takes a mapping (YAML) or key=value items (command line), got {value!r}")
    if isinstance(value, (list, tuple)):
        items = {}
        for item in value:
            if not isinstance(item, str) or "=" not in item or item.startswith("="):
                raise bad
            k, v = item.split("=", 1)
            try:
                items[k] = yaml.safe_load(v) if v else ""
            except yaml.YAMLError:
                items[k] = v
        value = items
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise bad
    return dict(value)


def action_sizes(args) -> tuple[int, int]:
    """``(observation floats, actions)`` of the run's network: the flat action space's ``(853, 112)``, or
    ``(862, 56)`` with ``factored_calls``."""
    if getattr(args, "factored_calls", False):
        from belote_env.factored import FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS

        return FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS
    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS

    return OBS_SIZE, NUM_ACTIONS


def network_config(args) -> dict:
    """The keyword arguments the run's network is built from: for ``mlp`` the observation and action sizes
    (:func:`action_sizes`), ``hidden_sizes`` and ``activation`` (then ``network_kwargs``); for another network
    ``network_kwargs``."""
    if args.network == "mlp":
        obs_size, num_actions = action_sizes(args)
        return {"obs_size": obs_size, "hidden_sizes": list(args.hidden_sizes), "num_actions": num_actions,
                "activation": args.activation, **args.network_kwargs}
    return dict(args.network_kwargs)


def fields_of(cls) -> dict:
    return {f.name: f for f in dataclasses.fields(cls)}


def coerce(cls, name: str, value):
    """``value`` checked and converted to the type of the field ``name`` of the dataclass ``cls``."""
    f = fields_of(cls)[name]
    if name == "opponent_mix":
        return opponent_mix(value)
    if name == "network_kwargs":
        return key_values(name, value)
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


def build_parser(cls, description: str) -> argparse.ArgumentParser:
    """``--config`` and one flag per field of ``cls`` (``--num-envs``...), each defaulting to None (not given)."""
    p = CommandParser(description=description)
    p.add_argument("--config", help="YAML file of options (keys are the option names with underscores), "
                   "e.g. configs/train/quick.yaml; a bare name looks in configs/train/")
    for name, f in fields_of(cls).items():
        flag = "--" + name.replace("_", "-")
        help_text = f.metadata["help"]
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if name in LIST_FIELDS:
            p.add_argument(flag, nargs="+", type=LIST_FIELDS[name], default=None, help=f"{help_text} (default {default})")
        elif name == "opponent_mix":
            p.add_argument(flag, nargs="*", metavar="SPEC=FRACTION", default=None, help=f"{help_text} (default {default})")
        elif name == "network_kwargs":
            p.add_argument(flag, nargs="*", metavar="KEY=VALUE", default=None, help=f"{help_text} (default {default})")
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


def load_config(cls, name: str) -> dict:
    """The options of a YAML config file, checked against the fields of ``cls``."""
    path = config_path(name)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start}); a training config is YAML text") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        what = " ".join(str(getattr(e, "problem", None) or e).split())
        raise ConfigError(f"{path}: not valid YAML: {what[:200]}{where}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a training config is a mapping of option names to values")
    fields = fields_of(cls)
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{path}: unknown option(s) {', '.join(unknown)}; accepted: {', '.join(fields)}")
    out = {k: coerce(cls, k, v) for k, v in data.items()}
    out.setdefault("exp_name", path.stem)
    return out


def parse_args(cls, parser: argparse.ArgumentParser, argv=None):
    """(options, the namespace with the mode flags, the options given explicitly on the command line):
    ``cls`` defaults < ``--config`` YAML < command line."""
    ns = parser.parse_args(argv)
    values = {}
    if ns.config:
        values.update(load_config(cls, ns.config))
    cli = {k: coerce(cls, k, getattr(ns, k)) for k in fields_of(cls) if getattr(ns, k) is not None}
    values.update(cli)
    args = cls(**values)
    ns.run_name_given = bool(args.run_name)
    if not args.run_name:
        args.run_name = f"{args.exp_name}_s{args.seed}"
    return args, ns, cli


def train_parser(cls) -> argparse.ArgumentParser:
    """``train.py``'s command line: the options of ``cls`` and the mode flags."""
    p = build_parser(cls, "Train a Belote agent by self-play PPO. Options: dataclass defaults < --config YAML < "
                          "command line.")
    p.add_argument("--resume", action="store_true", help="continue the latest checkpoint of the run")
    p.add_argument("--evaluate", metavar="CHECKPOINT", help="only evaluate a checkpoint or a shipped agent "
                   "(ppo_coinche...): final_eval_pairs duplicate pairs against each of eval_opponents, on --variant "
                   "or the variant it was trained on; print the table and write <checkpoint>.eval.json (a shipped "
                   "agent's: <runs_dir>/<name>.eval.json)")
    p.add_argument("--plot", metavar="RUN_DIR", help="only export the training curves of a run directory as PNG")
    p.add_argument("--plot-out", metavar="PNG", help="where --plot writes (default RUN_DIR/training_curves.png; "
                   "never over a file tracked by git)")
    return p


def learner_device(spec: str):
    """The ``torch.device`` of ``train.py --device`` (``auto``: cuda when there is one); ConfigError when it is
    not a device name or not available here."""
    import torch

    if spec == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(spec)
    except (RuntimeError, TypeError) as e:
        raise ConfigError(f"option 'device' must be cpu, cuda, cuda:N or auto, got {spec!r} ({e})") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"option 'device' is {spec!r}, but torch sees no CUDA device here (torch "
                          f"{torch.__version__}); use cpu or auto")
    if device.type not in ("cpu", "cuda"):
        raise ConfigError(f"option 'device' must be cpu, cuda, cuda:N or auto, got {spec!r}")
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise ConfigError(f"option 'device' is {spec!r}, but torch sees {torch.cuda.device_count()} CUDA device(s)")
    return device


def check_network(args) -> None:
    """The run's network can be built from its options and answers the protocol (a forward pass on two rows),
    with the torch RNG left as it was; ConfigError naming the option otherwise."""
    import torch

    from agents.errors import NetworkSpecError
    from agents.neural.protocol import build_network, check_shapes

    try:
        with torch.random.fork_rng():
            check_shapes(build_network(args.network, network_config(args)), f"option 'network' {args.network!r}",
                         action_sizes(args))
    except NetworkSpecError as e:
        raise ConfigError(f"option 'network': {e}") from None


def validate_train(args, resuming: bool = False):
    """``train.py``'s options checked before anything is written: ranges that would otherwise fail deep inside
    the loop, every agent spec (``opponent_mix``, ``eval_opponents``, ``bc_agent``) is a registered name
    or an existing checkpoint, and ``init_from`` holds a network of the run's sizes (it replaces the warm start;
    ``resuming``: a run that continues from its own checkpoint does not read it again)."""
    for name, f in fields_of(type(args)).items():
        if isinstance(f.default, float) and not math.isfinite(getattr(args, name)):
            raise ConfigError(f"option {name!r} must be a finite number, got {getattr(args, name)}")
    if args.card_play_steps < 0:
        raise ConfigError(f"option 'card_play_steps' must be >= 0, got {args.card_play_steps}")
    positive = ("total_timesteps", "num_envs", "num_steps", "num_minibatches", "update_epochs", "checkpoint_every",
                "keep_checkpoints", "torch_threads", "pool_size", "pool_every", "expert_workers")
    for name in positive:
        if getattr(args, name) < 1:
            raise ConfigError(f"option {name!r} must be >= 1, got {getattr(args, name)}")
    from agents.workers import max_workers

    if args.expert_workers > max_workers() and not args.ray_workers:
        raise ConfigError(f"option 'expert_workers' asks for {args.expert_workers} processes; at most "
                          f"{max_workers()} on this machine's {os.cpu_count()} cores")
    for agent, count in (("bc_agent", "bc_decisions"), ("expert_agent", "expert_decisions")):
        if getattr(args, agent):
            check_memory(f"option {count!r}: recording {getattr(args, count):,} decisions", getattr(args, count))
    check_memory(f"options num_envs and num_steps: a rollout of {args.num_envs:,} x {args.num_steps:,} decisions",
                 args.num_envs * args.num_steps)
    if args.torch_threads > max_workers():
        raise ConfigError(f"option 'torch_threads' is {args.torch_threads}; at most {max_workers()} on this "
                          f"machine's {os.cpu_count()} cores")
    from agents.cli import MAX_PAIRS

    for name in ("eval_pairs", "final_eval_pairs"):
        if getattr(args, name) > MAX_PAIRS:
            raise ConfigError(f"option {name!r} must be at most {MAX_PAIRS:,}, got {getattr(args, name):,}")
    for agent, names in (("bc_agent", ("bc_decisions", "bc_epochs", "bc_batch_size")),
                         ("expert_agent", ("expert_decisions", "bc_epochs", "bc_batch_size"))):
        if not getattr(args, agent):
            continue
        for name in names:
            if getattr(args, name) < 1:
                raise ConfigError(f"option {name!r} must be >= 1 when {agent} is set, got {getattr(args, name)}")
        if not args.bc_learning_rate > 0 or args.bc_value_coef < 0:
            raise ConfigError(f"options bc_learning_rate must be > 0 and bc_value_coef >= 0, got "
                              f"{args.bc_learning_rate} and {args.bc_value_coef}")
    if args.expert_every < 0 or (args.expert_every and (not args.expert_agent
                                                        or args.expert_every % args.checkpoint_every)):
        raise ConfigError(f"option 'expert_every' must be 0, or with expert_agent set a multiple of checkpoint_every "
                          f"({args.checkpoint_every}: the fit is followed by a checkpoint, so --resume stays exact); "
                          f"got {args.expert_every}")
    for name in ("eval_every", "eval_pairs", "final_eval_pairs", "expert_temperature"):
        if getattr(args, name) < 0:
            raise ConfigError(f"option {name!r} must be >= 0, got {getattr(args, name)}")
    args.opponent_mix = opponent_mix(args.opponent_mix)
    if not 0.0 <= args.pool_fraction <= 1.0 or sum(args.opponent_mix.values()) + args.pool_fraction > 1.0 + 1e-9:
        raise ConfigError(f"option 'pool_fraction' must be in [0, 1] and, with the fractions of opponent_mix "
                          f"({sum(args.opponent_mix.values()):g}), sum to at most 1; got {args.pool_fraction}")
    learner_device(args.device)
    if args.activation not in ("relu", "tanh"):
        raise ConfigError(f"option 'activation' must be relu or tanh, got {args.activation!r}")
    if not args.hidden_sizes or min(args.hidden_sizes) < 1:
        raise ConfigError(f"option 'hidden_sizes' must be one or more layer widths >= 1, got {args.hidden_sizes}")
    if not args.learning_rate > 0 or not args.max_grad_norm > 0 or not 0 <= args.gamma <= 1 \
            or not 0 <= args.gae_lambda <= 1:
        raise ConfigError(f"options learning_rate and max_grad_norm must be > 0, gamma and gae_lambda in [0, 1]; "
                          f"got {args.learning_rate}, {args.max_grad_norm}, {args.gamma}, {args.gae_lambda}")
    for name in ("clip_coef", "ent_coef", "call_ent_coef", "vf_coef", "target_kl", "max_minutes"):
        if getattr(args, name) < 0:
            raise ConfigError(f"option {name!r} must be >= 0, got {getattr(args, name)}")
    if not 0 <= args.ray_workers <= args.num_envs:
        raise ConfigError(f"option 'ray_workers' must be between 0 and num_envs ({args.num_envs}), got {args.ray_workers}")
    if args.factored_calls:
        given = [n for n in ("bc_agent", "expert_agent", "ray_workers") if getattr(args, n)]
        if given:
            raise ConfigError(f"option(s) {', '.join(given)} not supported with factored_calls yet (the demonstrations "
                              "are recorded, and the Ray actors collect, in the flat action space); factored_calls "
                              "learns from scratch: set bc_agent '' (--bc-agent '')")
    unsupported = [n for n, on in (("pool_fraction", args.pool_fraction > 0), ("central_critic", args.central_critic),
                                   ("card_play_steps", args.card_play_steps > 0)) if on]
    if args.ray_workers and unsupported:
        raise ConfigError(f"option(s) {', '.join(unsupported)} not supported with ray_workers yet (the Ray rollout "
                          "actors play neither pool snapshots, a central critic nor a card-play stage); collect "
                          "locally (ray_workers 0)")
    if args.ray_workers or args.ray_address:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ConfigError("options ray_workers / ray_address need Ray: pip install -e '.[ray]'") from None
        if not args.ray_workers:
            raise ConfigError("option 'ray_address' needs ray_workers >= 1")
    if args.num_envs * args.num_steps > args.total_timesteps:
        raise ConfigError(f"total_timesteps ({args.total_timesteps}) is below one rollout "
                          f"(num_envs * num_steps = {args.num_envs * args.num_steps})")
    check_network(args)
    if args.init_from and not resuming:
        from agents.training.runs import init_checkpoint

        init_checkpoint(args.init_from, args.network, network_config(args))
        if args.bc_agent:
            print(f"init_from {args.init_from}: no behaviour-cloning warm start (bc_agent {args.bc_agent!r} is unused)")
            args.bc_agent = ""
    specs = [("opponent_mix", s) for s in args.opponent_mix] + [("eval_opponents", s) for s in args.eval_opponents]
    specs += [(name, getattr(args, name)) for name in ("bc_agent", "expert_agent") if getattr(args, name)]
    specs += [("call_agent", args.call_agent)] if args.card_play_steps else []
    for option, given in specs:
        if "{net}" in given and option != "expert_agent":
            raise ConfigError(f"option {option!r}: {given!r}: '{{net}}' stands for the network being trained, which "
                              "only expert_agent can name (e.g. search:policy={net})")
    with _net_file(args) if "{net}" in args.expert_agent else contextlib.nullcontext("") as net:
        for option, given in specs:
            _check_spec(option, given, given.replace("{net}", net) if net else given, net)
    return args


def divergence_hint(args, phase: str) -> str:
    """What to lower when a ``phase`` (``fit``: the warm start or an expert fit; ``update``: PPO) left weights that
    are not finite (:func:`agents.training.runs.check_finite`)."""
    if phase == "fit":
        return (f"Lower bc_learning_rate ({args.bc_learning_rate}) or bc_value_coef ({args.bc_value_coef})"
                + (f", or raise expert_temperature ({args.expert_temperature})" if args.expert_temperature else "")
                + ".")
    return (f"Lower learning_rate ({args.learning_rate}) or max_grad_norm ({args.max_grad_norm}); --resume continues "
            "from the last checkpoint.")


def _check_spec(option: str, given: str, spec: str, net: str) -> None:
    """ConfigError naming ``option`` when the agent spec ``given`` (``spec`` once ``{net}`` is the file ``net``) is
    not a registered name, an existing checkpoint or a spec ``make_agent`` builds; said of the spec as given."""
    from agents.errors import AgentSpecError, CheckpointError
    from agents.registry import agent_names, is_checkpoint_spec, make_agent

    def said(text: str) -> str:
        return text.replace(net, "{net}") if net else text

    if is_checkpoint_spec(spec) and not Path(spec).is_file():
        raise ConfigError(f"option {option!r}: checkpoint {given!r} does not exist")
    if is_checkpoint_spec(spec) or ":" in spec:  # built once here: a bad file or spec before the run folder exists
        try:
            make_agent(spec)
        except (AgentSpecError, CheckpointError) as e:
            raise ConfigError(f"option {option!r}: {said(str(e))}") from None
    elif spec not in agent_names():
        raise ConfigError(f"option {option!r}: unknown agent {given!r}; registered: {', '.join(agent_names())} "
                          "(or a checkpoint path ending in .pt)")


def check_memory(what: str, decisions: int) -> None:
    """ConfigError when ``decisions`` rows of a recording or a rollout (a dense observation, the mask, the action,
    its return, the expert's values: about 4 KB each) would not fit in this machine's memory; ``what`` says whose."""
    from belote_env.observation import OBS_SIZE
    from belote_env.rules.actions import NUM_ACTIONS

    per_decision = 4 * OBS_SIZE + NUM_ACTIONS + 8 + 4 + 8 + 4 * NUM_ACTIONS + 96
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not a POSIX system: no bound known
        return
    if decisions * per_decision > memory:
        raise ConfigError(f"{what} needs {decisions * per_decision / 2**30:,.1f} GiB of memory ({per_decision:,} "
                          f"bytes each); this machine has {memory / 2**30:,.1f} GiB")


@contextlib.contextmanager
def _net_file(args):
    """A weights-only checkpoint of a network of the run's spec (untrained) in a temporary folder, removed when
    the block ends: what ``{net}`` in an agent spec stands for while the options are checked. The folder's name
    holds the process id; those of processes that are gone (killed during a check) are removed first."""
    import shutil
    import tempfile

    import torch

    from agents.files import pid_alive
    from agents.neural.checkpoint import atomic_save, checkpoint_dict
    from agents.neural.protocol import build_network

    for old in Path(tempfile.gettempdir()).glob("belote-net-*-*"):
        pid = old.name.split("-")[2]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    folder = tempfile.mkdtemp(prefix=f"belote-net-{os.getpid()}-")
    try:
        path = Path(folder) / "net.pt"
        with torch.random.fork_rng():  # the run's torch RNG stays as it was
            atomic_save(checkpoint_dict(build_network(args.network, network_config(args))), path)
        yield str(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
