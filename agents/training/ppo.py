"""The PPO trainer behind ``train.py``: self-play PPO in CleanRL's ``ppo.py`` manner, as a library.

The options are :class:`~agents.training.options.Args` (a YAML file of ``configs/train/`` and the command line);
:func:`train` is the one loop: collect -> GAE -> PPO update, with TensorBoard logs (``charts/``, ``losses/``,
``eval/``), duplicate evaluations (``agents.training.evaluation``), exact checkpoints (``agents.training.runs``)
and an optional behaviour-cloning warm start (:func:`warm_start`, ``agents.training.behaviour_cloning``). This
module is the only reader of an ``Args``: every part it calls gets the values it needs, named at the call, so an
option is followed from its field to its use in this file. ``docs/training.md`` explains each part.

    python train.py --config configs/train/quick.yaml            # the command: train.py calls main()
    from agents.training import ppo; ppo.train(ppo.parse_args([...])[0])

Collection plays ``num_envs`` tables on the batched engine (``belote_env.vector``) through the one play loop
(``agents.loop``), here or on Ray actors (``--ray-workers``): one forward pass for every table where a network
seat is to act (illegal logits at -1e9, never sampled); fixed ``opponent_mix`` agents, or past snapshots of the
network (``--pool-fraction``, ``agents.training.pool``), at one team of some tables
(``agents.training.collection``). Each seat's decisions form its own trajectory, rewarded with its team's deal
reward at its last decision of the deal, for GAE; ``--central-critic`` takes the values from a critic that also sees
the other hands (``agents.training.critic``), the policy never does.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agents import counter_rng
from agents.neural.agent import NeuralAgent
from agents.neural.checkpoint import atomic_save, checkpoint_dict
from agents.neural.network import one_thread
from agents.neural.protocol import build_net, build_network, mask_logits, training_path
from agents.neural.sampling import policy_terms, sample_rows
from agents.training import options
from agents.training.behaviour_cloning import Fitting, record_and_fit
from agents.training.collection import BIDDING, Collector, Rollout, credit_rewards, link_decisions
from agents.training.critic import HIDDEN_SIZE, CentralCritic, critic_state, hidden_features, load_critic
from agents.training.curves import plot_run
from agents.training.errors import ConfigError
from agents.training.evaluation import (
    evaluate,
    evaluate_checkpoint,
    final_evaluation,
    log_eval,
    log_hyperparameters,
    log_update,
    periodic_evaluation,
    progress_figures,
)
from agents.training.learner import Learner, adam
from agents.training.options import Args, fields_of, network_config
from agents.training.pool import OpponentPool
from agents.training.runs import (RunInterrupted, Stops, check_finite, checkpoint_dir, claim_run, free_run_name,
                                  init_checkpoint, latest_checkpoint, prepare_checkpoints, restore_rngs,
                                  resume_checkpoint, save_checkpoint, stop_on_signals)
from agents.workers import Stopped
from belote_env.rewards import REWARD_SCALE
from belote_env.variants import load_variant


@one_thread  # row-invariant forward passes (a run equals its Ray twin) whatever torch_threads gives the update
@torch.no_grad()
def collect(net: nn.Module, tables: Collector, buf: Rollout, num_steps: int, stats: dict,
            timing: dict | None = None, critic: CentralCritic | None = None) -> None:
    """Play ``num_steps`` steps at every table; fill ``buf`` with the network's decisions.
    ``timing``: seconds spent in the engine (env), the network (forward), the fixed opponents and the
    trajectory bookkeeping (the rows' scan into ``buf`` included) are added to it. ``critic``: values from it
    (with the hidden hands), not from ``net``."""
    buf.clear()
    venv, runner, last = tables.venv, tables.runner, tables.last
    obs, mask, seat = tables.obs, tables.mask, tables.seat
    actions, clock = np.zeros(tables.n, dtype=np.int64), time.perf_counter
    path = training_path(net)  # the network's fast path (the mlp's) or dense rows, row-invariant either way
    path.begin()
    t_env = t_net = t_opp = t_book = 0.0
    for _ in range(num_steps):
        t0 = clock()
        who = tables.acting(obs, seat)  # -1: the network
        mine = np.flatnonzero(who < 0)
        k, start = len(mine), buf.size
        if k:
            nonzeros = buf.add_observations(start, obs, mine)  # the rows' non-zero entries, as the buffer keeps them
            np.take(mask, mine, axis=0, out=buf.mask[start:start + k])
            buf.bidding[start:start + k] = obs[mine, BIDDING] == 1.0
            t1 = clock()
            # row-invariant forward and the tables' own numbers: a table's actions do not depend on the others
            logits, value = path.buffer_rows(buf, start, k, nonzeros)
            if critic is not None:  # the policy above never sees the hidden hands
                buf.hidden[start:start + k] = hidden_features(venv, mine, seat[mine])
                value = critic(torch.from_numpy(buf.observations(start, start + k)),
                               torch.from_numpy(buf.hidden[start:start + k]))
            logp, probs = policy_terms(logits)
            a = buf.actions[start:start + k]
            sample_rows(probs.numpy(), logp.numpy(), tables.numbers(mine, counter_rng.NETWORK), a, buf.logprobs[start:start + k])
            buf.values[start:start + k] = value.numpy()
            t2 = clock()
            actions[mine] = a
            link_decisions(mine, seat, last, start, buf.values, buf.next_index, buf.next_value)
            buf.size = start + k
            t_net += t2 - t1
            t_book += (t1 - t0) + (clock() - t2)
        t3 = clock()
        runner.actions(obs, mask, seat, actions, seeds=tables.agent_seeds(), who=who)  # the fixed opponents' seats
        t4 = clock()
        # with factored calls the opponents' actions are flat ones (their tables are at a first decision)
        obs, mask, seat, rewards, done, info = venv.step(actions, flat=who >= 0 if venv.factored else None)
        t5 = clock()
        tables.length += 1
        tables.t += 1
        buf.per_step.append(k)
        credit_rewards(rewards, last, buf.rewards)
        fin = np.flatnonzero(done)
        if len(fin):
            tables.end_episodes(buf, fin, rewards, info, stats)
        t_opp += t4 - t3
        t_env += t5 - t4
        t_book += clock() - t5
    tables.obs, tables.mask, tables.seat = obs, mask, seat
    # trajectories cut by the end of the rollout: bootstrap from the seat's current observation
    t0 = clock()
    ti, si = np.nonzero(last >= 0)
    if len(ti):
        o = torch.from_numpy(venv.observations(ti, si))
        v = path.values(o) if critic is None else critic(o, torch.from_numpy(hidden_features(venv, ti, si)))
        buf.next_value[last[ti, si]] = v.numpy()
    # the next rollout starts new trajectories (the buffer indices do not carry over)
    last[:] = -1
    t_net += clock() - t0
    if timing is not None:
        for key, v in (("env", t_env), ("forward", t_net), ("opponents", t_opp), ("bookkeeping", t_book)):
            timing[key] = timing.get(key, 0.0) + v


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


def ppo_update(net: nn.Module, optimizer: torch.optim.Optimizer, buf: Rollout, adv: np.ndarray,
               returns: np.ndarray, args: Args, critic: CentralCritic | None = None) -> dict:
    """CleanRL's PPO update on the rollout; returns the loss figures (means over minibatches) for logging.
    ``critic``: the value loss is the central critic's, plus the policy network's own value head's (unclipped)."""
    n = buf.size
    dev = next(net.parameters()).device  # the learner's (train.py --device)
    b_obs = training_path(net).batch(buf, n, dev)  # the mlp's: non-zero entries on the CPU; else dense rows
    b_hidden, b_mask, b_actions, b_logprobs, b_values, b_adv, b_returns, b_bidding = (
        torch.from_numpy(a).to(dev) for a in (buf.hidden[:n], buf.mask[:n], buf.actions[:n], buf.logprobs[:n],
                                              buf.values[:n], adv, returns, buf.bidding[:n]))
    # minibatch bounds split the rollout evenly (its size varies with the random-opponent tables)
    bounds = np.linspace(0, n, min(args.num_minibatches, n) + 1).round().astype(int).tolist()
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "old_approx_kl": 0.0, "approx_kl": 0.0, "clipfrac": 0.0}
    sums.update({"value_loss_obs": 0.0} if critic is not None else {})
    count = 0
    for _ in range(args.update_epochs):
        perm = torch.randperm(n).to(dev)
        epoch_kl = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            mb = perm[lo:hi]
            mb_obs = b_obs.index_select(0, mb)  # faster than [mb]
            mb_mask = b_mask.index_select(0, mb)
            logits, newvalue = net(mb_obs, mb_mask)
            logits = mask_logits(logits, mb_mask)
            if critic is not None:
                obs_value, newvalue = newvalue, critic(mb_obs, b_hidden.index_select(0, mb))
            logp, probs = policy_terms(logits)
            newlogprob = logp.gather(1, b_actions[mb][:, None]).squeeze(1)
            entropy = -(probs * logp).sum(-1)
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
            entropy_loss = entropy.mean()  # the calls' own bonus (call_ent_coef) on top of every decision's
            bonus = args.ent_coef * entropy_loss + args.call_ent_coef * (entropy * b_bidding[mb]).mean()
            loss = pg_loss - bonus + args.vf_coef * v_loss
            if critic is not None:
                v_obs = 0.5 * ((obs_value - b_returns[mb]) ** 2).mean()
                loss = loss + args.vf_coef * v_obs
                sums["value_loss_obs"] += v_obs.item()
            optimizer.zero_grad()
            loss.backward()
            for module in (net, critic) if critic is not None else (net,):  # each network clipped on its own
                nn.utils.clip_grad_norm_(module.parameters(), args.max_grad_norm)
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


# --- main loop ---------------------------------------------------------------

def parse_args(argv=None) -> tuple[Args, argparse.Namespace, dict]:
    """(options, the namespace with the mode flags --resume/--evaluate/--plot, the options given on the command line)."""
    args, ns, cli = options.parse_args(Args, options.train_parser(Args), argv)
    return options.validate_train(args), ns, cli


def checkpoint_extra(critic: CentralCritic | None, pool: OpponentPool | None) -> dict:
    """The checkpoint entries of the optional training state: the central critic and the opponent pool."""
    return {**({"critic": critic_state(critic)} if critic is not None else {}),
            **({"pool": pool.state()} if pool is not None else {})}


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def run_dir_of(args: Args) -> Path:
    """The run's folder: ``<runs_dir>/<run_name>`` (TensorBoard logs, checkpoints, final_eval.json)."""
    return Path(args.runs_dir) / args.run_name


def save(args: Args, net, optimizer, tables, update: int, global_step: int, elapsed: float, extra: dict) -> Path:
    """The run's checkpoint after ``update`` (``agents.training.runs.save_checkpoint``): the options, the
    network, the optimizer, every RNG, ``extra`` (the central critic, the opponent pool)."""
    return save_checkpoint(run_dir_of(args), dataclasses.asdict(args), args.keep_checkpoints, net, optimizer,
                           tables.rng, update, global_step, elapsed, **extra)


def fitting(args: Args, temperature: float = 0.0) -> Fitting:
    """How the warm start and the expert steps fit the network: the ``bc_*`` options, gradients clipped at ten
    times PPO's norm."""
    return Fitting(args.bc_epochs, args.bc_batch_size, args.bc_learning_rate, args.bc_value_coef,
                   args.max_grad_norm * 10, args.progress, temperature)


def warm_start(args: Args, variant, net, agent, tables, writer, optimizer, eval_on: bool, critic=None,
               extra=dict) -> None:
    """The start of a fresh run: ``init_from``'s weights loaded into ``net``, or else the behaviour-cloning phase
    (record ``bc_agent``, fit ``net`` and ``critic``, a central critic, to the same rewards), then, with
    ``expert_agent``, the same fit to that agent's decisions (the untrained network's without either); then the
    start is evaluated (logged at step 0) and checkpoint 0 written (with the entries of ``extra()``), so that
    ``--resume`` after it continues with PPO."""
    t0 = time.time()
    if args.init_from:
        ckpt, path = init_checkpoint(args.init_from, args.network, network_config(args))
        net.load_state_dict({k: t.float() for k, t in ckpt["model"].items()})  # shipped weights are half precision
        trained = (ckpt.get("trained") or ckpt).get("global_step", "?")
        print(f"init_from: the network of {path} (global_step {trained} in the run that wrote it; a shipped "
              f"agent's card gives all its stages)"
              + ("; the central critic starts untrained" if critic is not None else ""))
        label = "after init_from"
    elif args.bc_agent:
        figures, t_record, t_fit = record_and_fit(variant, net, args.bc_agent, args.bc_decisions,
                                                  args.seed * 1_000_003 + 17, args.seed, fitting(args), writer,
                                                  critic, "bc")
        print(f"bc warm start: {args.bc_decisions} decisions of {args.bc_agent} recorded in {t_record:.0f} s, "
              f"{args.bc_epochs} epochs in {t_fit:.0f} s; held-out accuracy "
              f"{100 * figures.get('val_accuracy', float('nan')):.1f}% (auction "
              f"{100 * figures.get('val_accuracy_bidding', float('nan')):.1f}%, card play "
              f"{100 * figures.get('val_accuracy_play', float('nan')):.1f}%)")
        check_finite("the behaviour-cloning warm start", options.divergence_hint(args, "fit"), net, critic)
        label = "after the warm start"
    else:
        print("expert_agent without init_from or bc_agent: its first step fits the untrained network")
    if args.expert_agent:  # one step of expert iteration: the network fitted to a (search) agent's decisions
        print(fit_to_expert(args, variant, net, critic, writer, 0, 0))
        label = f"after fitting {args.expert_agent}"
    if eval_on:
        results = evaluate(agent, variant, args.eval_opponents, args.eval_pairs, args.eval_seed)
        log_eval(writer, results, 0)
        print(f"{label}: " + ", ".join(
            f"vs {k} {100 * r['win_rate']:.1f}% won, {r['mean_diff']:+.1f} pts, took {r['taken_a']}" for k, r in results.items()))
    save(args, net, optimizer, tables, 0, 0, time.time() - t0, extra())
    tables.reset_all()  # what a resumed run does, so that resuming is exact
    writer.flush()


def fit_to_expert(args: Args, variant, net, critic, writer, update: int, global_step: int, stops=None) -> str:
    """One step of expert iteration: ``expert_decisions`` decisions of ``expert_agent`` recorded at the four
    seats and ``net`` (and ``critic``) fitted to them as the warm start fits (the ``bc_*`` options), logged under
    ``expert/`` from ``global_step``. ``{net}`` in the spec is ``net`` itself, written first to
    ``<run>/expert_net.pt`` (so ``search:policy={net}`` searches on the network being trained). The deals come
    from the run's seed and ``update``. ``stops`` (the run's signals, ``stop_on_signals``): a signal during the
    recording stops the run at once (:class:`RunInterrupted`), from the last checkpoint. Returns the line that
    reports it."""
    spec = args.expert_agent
    if "{net}" in spec:
        path = run_dir_of(args) / "expert_net.pt"
        atomic_save(checkpoint_dict(net, global_step=global_step), path)
        spec = spec.replace("{net}", str(path))
    fit = fitting(args, args.expert_temperature / REWARD_SCALE[variant.scoring])  # points -> reward units
    stops = Stops() if stops is None else stops
    stops.quiet = True  # the recording may take minutes: a signal ends it at once, and its own line says so
    try:
        figures, t_record, t_fit = record_and_fit(
            variant, net, spec, args.expert_decisions, args.seed * 1_000_003 + 29 + update, args.seed, fit, writer,
            critic, "expert", step0=global_step, searched_only=args.expert_searched_only, workers=args.expert_workers,
            ray_address=(args.ray_address or "local") if args.ray_workers else None, stop=lambda: bool(stops))
    except Stopped:
        raise RunInterrupted(stops[0], f"update {update} (its expert recording was cut); the last checkpoint, "
                             f"{latest_checkpoint(run_dir_of(args))}, is kept", run_dir_of(args)) from None
    finally:
        stops.quiet = False
    check_finite(f"the expert fit{f' at update {update}' if update else ''}", options.divergence_hint(args, "fit"),
                 net, critic)
    return (f"expert{f' at update {update}' if update else ''}: {args.expert_decisions} decisions of "
            f"{args.expert_agent} recorded in {t_record:.0f} s (the network chose the same action in "
            f"{100 * figures['agreement_before']:.1f}% of them), {args.bc_epochs} epochs in {t_fit:.0f} s; held-out "
            f"accuracy {100 * figures.get('val_accuracy', float('nan')):.1f}%")


def train(args: Args, resume: bool = False, cli_overrides: dict | None = None, auto_run_name: bool = False) -> dict:
    """Run (or resume) a training run; returns the final evaluation results.

    ``auto_run_name``: the run name is the default one (not chosen by the user); a fresh run whose directory
    already has checkpoints then goes to the next free ``<run_name>_<k>`` instead of being refused.
    """
    if auto_run_name and not resume:
        args.run_name = free_run_name(args.runs_dir, args.run_name, announce=True)
    with claim_run(run_dir_of(args)):  # one process per run folder; refused before writing
        return _train(args, resume, cli_overrides)


def _train(args: Args, resume: bool, cli_overrides: dict | None) -> dict:
    """:func:`train` in the run folder it holds."""
    from torch.utils.tensorboard import SummaryWriter

    run_dir = run_dir_of(args)
    ckpt, path = None, None
    if resume:
        ckpt, path, saved = resume_checkpoint(run_dir, cli_overrides)
        args = options.validate_train(Args(**{k: v for k, v in saved.items() if k in fields_of(Args)}), resuming=True)
    elif latest_checkpoint(run_dir) is not None:
        raise ConfigError(f"run {args.run_name!r} already has checkpoints in {checkpoint_dir(run_dir)}; "
                          "pass --resume to continue it, choose another --run-name, or leave --run-name out "
                          "to get the next free name")
    prepare_checkpoints(run_dir, path if resume else None)  # writable; on resume a killed write tidied

    torch.set_num_threads(args.torch_threads)
    seed_everything(args.seed)
    variant = load_variant(args.variant)
    net = build_network(args.network, network_config(args))
    with torch.random.fork_rng():  # the options leave the run's torch RNG (and so its warm start) as it was
        torch.manual_seed(args.seed + 1)
        critic = CentralCritic(options.action_sizes(args)[0], args.hidden_sizes, args.activation) \
            if args.central_critic else None
        pool = OpponentPool(args.pool_size, args.network, net.config()) if args.pool_fraction > 0 else None
    collect_rng = np.random.default_rng(args.seed)
    update, global_step, elapsed_before = 0, 0, 0.0
    if ckpt is not None:
        if args.central_critic != ("critic" in ckpt):
            raise ConfigError(f"--resume: {path} was trained with central_critic={'critic' in ckpt}; it cannot change")
        net = build_net(ckpt, path)
        critic = load_critic(ckpt["critic"]) if args.central_critic else None
        if pool is not None and "pool" in ckpt:
            pool.load_state(ckpt["pool"])
    optimizer = adam([*net.parameters(), *(critic.parameters() if critic else ())], args.learning_rate, eps=1e-5)
    if ckpt is not None:
        optimizer.load_state_dict(ckpt["optimizer"])
        update, global_step, elapsed_before = ckpt["update"], ckpt["global_step"], ckpt.get("elapsed_s", 0.0)
        restore_rngs(ckpt, collect_rng)

    batch = args.num_envs * args.num_steps
    num_updates = args.total_timesteps // batch
    eval_on = bool(args.eval_opponents) and args.eval_pairs > 0 and args.eval_every > 0
    # the checkpoint's own step was logged before it was written; later ones (from a killed run) are purged
    writer = SummaryWriter(str(run_dir), purge_step=global_step + 1 if ckpt is not None else None)
    if ckpt is None:
        log_hyperparameters(writer, dataclasses.asdict(args), " ".join(sys.argv))
    if args.ray_workers:  # the same collection, on Ray actors (docs/distributed.md)
        from agents.training.ray_rollouts import RayCollector
        tables = RayCollector(collect, variant, args.num_envs, args.opponent_mix, collect_rng, args.end_on_redeal,
                              args.network, network_config(args), args.num_steps, args.ray_workers, args.ray_address)
    else:
        tables = Collector(variant, args.num_envs, args.opponent_mix, collect_rng, args.end_on_redeal, pool, args.pool_fraction,
                           factored=args.factored_calls, call_agent=args.call_agent if args.card_play_steps else "")
    buf = Rollout(batch, HIDDEN_SIZE if critic is not None else 0, options.action_sizes(args))
    agent = NeuralAgent(net, name=f"neural:{args.run_name}")
    last_eval: dict = {}
    bar = tqdm(total=num_updates * batch, initial=update * batch, unit="step", unit_scale=True, dynamic_ncols=True,
               disable=not args.progress, mininterval=2.0, desc=args.run_name)
    start = time.time()
    step_at_start = global_step
    stopped_early = False
    if ckpt is None and (args.bc_agent or args.init_from or args.expert_agent):
        warm_start(args, variant, net, agent, tables, writer, optimizer, eval_on, critic,
                   lambda: checkpoint_extra(critic, pool))
    learner = Learner(options.learner_device(args.device), net, critic)  # the update there, play on CPU copies
    learner.move(optimizer)
    agent.net = learner.play_net
    with contextlib.ExitStack() as stack:
        # a signal stops the run at its next regular checkpoint (another would re-deal the tables: resume inexact)
        stops = stack.enter_context(stop_on_signals(bar.write, f"the next checkpoint (every {args.checkpoint_every} updates)"))
        stack.callback(bar.close)
        while update < num_updates:
            update += 1
            if args.anneal_lr:
                optimizer.param_groups[0]["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate
            stats = {"return_team0": [], "return_team1": []}
            t0 = time.time()
            net.eval()
            if args.ray_workers:
                tables.collect(learner.play_net, buf, args.num_steps, stats, writer, global_step + batch)
            else:
                tables.card_play = global_step < args.card_play_steps  # the card-play stage, then the whole game
                collect(learner.play_net, tables, buf, args.num_steps, stats, critic=learner.play_critic)
            t_collect = time.time() - t0
            global_step += batch
            adv, returns = compute_gae(buf, args.gamma, args.gae_lambda)
            net.train()
            losses = ppo_update(net, optimizer, buf, adv, returns, args, critic)
            check_finite(f"PPO update {update}", options.divergence_hint(args, "update"), net, critic)
            net.eval()
            learner.sync()
            if pool is not None:  # a snapshot joins the pool every pool_every updates
                if update % args.pool_every == 0:
                    pool.add(net, update)
                writer.add_scalar("charts/pool_size", len(pool), global_step)
            sps = (global_step - step_at_start) / max(time.time() - start, 1e-9)
            log_update(writer, global_step, optimizer.param_groups[0]["lr"], sps, batch / max(t_collect, 1e-9),
                       buf.size, stats, losses)
            if eval_on and update % args.eval_every == 0:
                last_eval = periodic_evaluation(agent, variant, args.eval_opponents, args.eval_pairs, args.eval_seed,
                                                writer, global_step, bar.write,
                                                f"update {update}/{num_updates} step {global_step}")
            bar.set_postfix(progress_figures(sps, last_eval), refresh=False)
            bar.update(batch)
            if args.expert_every and update % args.expert_every == 0 and update < num_updates:
                bar.write(fit_to_expert(args, variant, learner.play_net, learner.play_critic, writer, update,
                                        global_step, stops))
                learner.from_players()  # the fitted weights into the learning copies (nothing on the CPU)
            out_of_time = args.max_minutes > 0 and (time.time() - start) / 60 >= args.max_minutes
            if update % args.checkpoint_every == 0 or update == num_updates or out_of_time:
                saved = save(args, net, optimizer, tables, update, global_step, elapsed_before + time.time() - start,
                             checkpoint_extra(critic, pool))
                tables.reset_all()  # what a resumed run does, so that resuming is exact
                writer.flush()
            if stops and (update % args.checkpoint_every == 0 or update == num_updates or out_of_time):
                writer.close()
                raise RunInterrupted(stops[0], f"update {update}/{num_updates}, checkpoint {saved}", run_dir)
            if out_of_time:
                stopped_early = True
                bar.write(f"max_minutes={args.max_minutes} reached at update {update}/{num_updates}; stopping")
                break
    wall = elapsed_before + time.time() - start
    summary = final_evaluation(agent, variant, args.variant, args.eval_opponents, args.final_eval_pairs,
                               args.eval_seed + 1, run_dir, writer, update, global_step, wall, stopped_early,
                               checkpoint_dir(run_dir) / "latest.pt", progress=args.progress, plot=args.plot_curves)
    writer.close()
    return summary


def main(argv=None) -> None:
    """``train.py``'s command: train (or ``--resume``), ``--evaluate`` a saved agent, or ``--plot`` a run."""
    args, ns, cli = parse_args(argv)
    if ns.plot:
        print(plot_run(ns.plot, ns.plot_out))
    elif ns.evaluate:
        torch.set_num_threads(args.torch_threads)
        evaluate_checkpoint(ns.evaluate, cli.get("variant"), args.variant, args.eval_opponents,
                            args.final_eval_pairs or args.eval_pairs, args.eval_seed + 1, args.runs_dir,
                            progress=args.progress)
    else:
        train(args, resume=ns.resume, cli_overrides=cli, auto_run_name=not ns.run_name_given)
