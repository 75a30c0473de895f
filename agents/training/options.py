"""Options of ``train.py``: the defaults of its dataclass < a YAML file < the command line.

CleanRL keeps its arguments in a dataclass parsed by tyro; here the same kind
of dataclass (``train.Args``, one documented field per option) is filled from
a YAML file in ``configs/train/`` and then from the command line, each value
checked and converted to the field's type, with an error naming the option.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import yaml

from agents.cli import CommandParser
from agents.training.errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs" / "train"
LIST_FIELDS = {"hidden_sizes": int, "eval_opponents": str}


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


def network_config(args) -> dict:
    """The keyword arguments the run's network is built from: for ``mlp`` the observation and action sizes,
    ``hidden_sizes`` and ``activation`` (then ``network_kwargs``); for another network ``network_kwargs``."""
    if args.network == "mlp":
        from belote_env.observation import OBS_SIZE
        from belote_env.rules.actions import NUM_ACTIONS

        return {"obs_size": OBS_SIZE, "hidden_sizes": list(args.hidden_sizes), "num_actions": NUM_ACTIONS,
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
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
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
            check_shapes(build_network(args.network, network_config(args)), f"option 'network' {args.network!r}")
    except NetworkSpecError as e:
        raise ConfigError(f"option 'network': {e}") from None


def validate_train(args, resuming: bool = False):
    """``train.py``'s options checked before anything is written: ranges that would otherwise fail deep inside
    the loop, every agent spec (``opponent_mix``, ``eval_opponents``, ``bc_agent``) is a registered name
    or an existing checkpoint, and ``init_from`` holds a network of the run's sizes (it replaces the warm start;
    ``resuming``: a run that continues from its own checkpoint does not read it again)."""
    positive = ("total_timesteps", "num_envs", "num_steps", "num_minibatches", "update_epochs", "checkpoint_every",
                "keep_checkpoints", "torch_threads", "pool_size", "pool_every")
    for name in positive:
        if getattr(args, name) < 1:
            raise ConfigError(f"option {name!r} must be >= 1, got {getattr(args, name)}")
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
    for name in ("eval_every", "eval_pairs", "final_eval_pairs"):
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
    for name in ("clip_coef", "ent_coef", "vf_coef", "target_kl", "max_minutes"):
        if getattr(args, name) < 0:
            raise ConfigError(f"option {name!r} must be >= 0, got {getattr(args, name)}")
    if not 0 <= args.ray_workers <= args.num_envs:
        raise ConfigError(f"option 'ray_workers' must be between 0 and num_envs ({args.num_envs}), got {args.ray_workers}")
    unsupported = [n for n, on in (("pool_fraction", args.pool_fraction > 0), ("central_critic", args.central_critic)) if on]
    if args.ray_workers and unsupported:
        raise ConfigError(f"option(s) {', '.join(unsupported)} not supported with ray_workers yet (the Ray rollout "
                          "actors play neither pool snapshots nor a central critic); collect locally (ray_workers 0)")
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
    from agents.registry import agent_names, is_checkpoint_spec

    check_network(args)
    if args.init_from and not resuming:
        from agents.training.runs import init_checkpoint

        init_checkpoint(args.init_from, args.network, network_config(args))
        if args.bc_agent:
            print(f"init_from {args.init_from}: no behaviour-cloning warm start (bc_agent {args.bc_agent!r} is unused)")
            args.bc_agent = ""
    specs = [("opponent_mix", s) for s in args.opponent_mix] + [("eval_opponents", s) for s in args.eval_opponents]
    specs += [(name, getattr(args, name)) for name in ("bc_agent", "expert_agent") if getattr(args, name)]
    for option, spec in specs:
        if is_checkpoint_spec(spec):
            if not Path(spec).is_file():
                raise ConfigError(f"option {option!r}: checkpoint {spec!r} does not exist")
        elif ":" in spec:
            from agents.errors import AgentSpecError
            from agents.registry import make_agent

            try:
                make_agent(spec)
            except AgentSpecError as e:
                raise ConfigError(f"option {option!r}: {e}") from None
        elif spec not in agent_names():
            raise ConfigError(f"option {option!r}: unknown agent {spec!r}; registered: {', '.join(agent_names())} "
                              "(or a checkpoint path ending in .pt)")
    return args
