"""Behaviour-cloning warm start for ``train.py``: record a demonstrator, fit the network to it.

:func:`record_demonstrations` plays deals with one agent at the four seats
and records what each seat saw (observation, mask), did (action) and earned
(its team's deal reward); :func:`behaviour_clone` fits the policy head by
masked cross-entropy and the value head by squared error, logging ``bc/*``, as
a :class:`Fitting` says; :func:`record_and_fit` does both. The trainer
(``agents.training.ppo.warm_start``) runs them at the start of a fresh run.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from agents.neural.protocol import mask_logits, training_path
from agents.training.critic import HIDDEN_SIZE, hidden_features
from agents.training.learner import adam
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import ACTION_NAMES, NUM_ACTIONS


@dataclass
class Demonstrations:
    """Decisions of a demonstrator: what each seat saw, could do and did, and its team's deal reward."""

    obs: np.ndarray      # float32 (n, OBS_SIZE): float16 is not exact for the encoding's fractions (1/81, ...)
    mask: np.ndarray     # int8 (n, NUM_ACTIONS)
    actions: np.ndarray  # int64 (n,)
    returns: np.ndarray  # float32 (n,): deal_reward of the seat's team for the deal of the decision
    hidden: np.ndarray | None = None  # uint8 (n, 96): the other seats' hands (agents.training.critic), when recorded
    # float32 (n, NUM_ACTIONS), when recorded: a searching expert's value of each legal card (its mean deal score
    # difference over its worlds, in reward units: / the variant's reward scale); NaN elsewhere and where it did not
    # search
    values: np.ndarray | None = None


@dataclass(frozen=True)
class Fitting:
    """How :func:`behaviour_clone` fits a network to recorded decisions (train.py's ``bc_*`` options)."""

    epochs: int = 4
    batch_size: int = 512
    learning_rate: float = 1e-3  # Adam's, falling linearly to a tenth over the fit
    value_coef: float = 0.5  # weight of the value loss; 0 = policy only
    max_grad_norm: float = 5.0  # gradient norm clip, each network on its own
    progress: bool = False  # tqdm bars of the recording and of the fit
    temperature: float = 0.0  # > 0, with an expert's values (Demonstrations.values): soft targets, see behaviour_clone


ACTION_IDS = {name: a for a, name in enumerate(ACTION_NAMES)}
RECORD_TABLES = 256  # tables played at once while recording (one act_batch per step)


def record_demonstrations(variant, spec: str, decisions: int, seed, progress: bool = False,
                          hidden: bool = False, searched_only: bool = False, values: bool = False,
                          workers: int = 1, ray_address: str | None = None, stop=None) -> Demonstrations:
    """Play deals with the agent ``spec`` at all four seats and record its first ``decisions`` decisions.

    Deals are played ``RECORD_TABLES`` at a time by the play loop (:class:`agents.loop.Runner` on a
    :class:`~belote_env.vector.VectorEnv`), each table dealing deal after deal. Every decision gets, as its
    return, the reward (``rewards.deal_reward``) of the seat's team for the deal it belongs to (``gamma = 1``);
    a deal that ends in a redeal (everyone passed) gives 0, as in training with ``end_on_redeal``.
    Decisions of deals still in progress when the recording is full keep return 0 (at most one deal per table).
    ``hidden``: also record the other seats' hands at each decision (for a central critic, ``agents.training.critic``).
    ``searched_only``: for an agent that says which decisions it searches (``searches(info)``: ``pimc``,
    ``search``), record only those (the others are its base policy's); every decision for other agents.
    ``values``: also record what a searching agent says of each card where it searched (``Demonstrations.values``,
    from its ``decision_extras``' ``search_values``).
    ``workers`` > 1: ``workers`` processes (or, with ``ray_address``, Ray tasks on that cluster, ``"local"`` for a
    Ray started here) record about ``decisions / workers`` each, part ``i`` from the seed ``[seed, i]``, joined
    in that order: the recording depends on ``workers``, not on where the parts ran (a searching agent's
    recording is where expert iteration spends its time).
    ``stop``: a function asked at every step (or, with workers, twice a second); when it answers true, the recording
    ends with :class:`agents.workers.Stopped` (``train.py`` asks it whether Ctrl-C was pressed).
    """
    if workers > 1:
        return _record_in_parts(variant, spec, decisions, seed, hidden, searched_only, values, workers, ray_address,
                                stop)
    from agents.loop import MAX_REDEALS, Runner
    from agents.registry import make_agent
    from belote_env.vector import VectorEnv

    agent = make_agent(spec)
    rng = np.random.default_rng(seed)
    agent.reset(int(rng.integers(2**63)))
    demo = Demonstrations(np.zeros((decisions, OBS_SIZE), dtype=np.float32),
                          np.zeros((decisions, NUM_ACTIONS), dtype=np.int8),
                          np.zeros(decisions, dtype=np.int64), np.zeros(decisions, dtype=np.float32),
                          np.zeros((decisions, HIDDEN_SIZE), dtype=np.uint8) if hidden else None)
    n_tables = max(1, min(RECORD_TABLES, decisions // 64))
    venv = VectorEnv(variant, num_tables=n_tables, seed=int(rng.integers(2**31)), episode="deal",
                     max_redeals=MAX_REDEALS)
    runner = Runner(venv, [agent], np.zeros((n_tables, 4), dtype=np.int64))
    if values:
        from belote_env.rewards import REWARD_SCALE

        runner.extras = {}  # Agent.decision_extras by table, at every step
        demo.values = np.full((decisions, NUM_ACTIONS), np.nan, dtype=np.float32)
        scale = REWARD_SCALE[venv.variant.scoring]
    seats = np.zeros(decisions, dtype=np.int64)
    deal_rows: list[list[int]] = [[] for _ in range(n_tables)]
    actions = np.zeros(n_tables, dtype=np.int64)
    searches = getattr(agent, "searches", None) if searched_only else None
    obs, mask, seat = venv.reset()
    n, idle = 0, 0
    bar = tqdm(total=decisions, unit="decision", unit_scale=True, dynamic_ncols=True, disable=not progress,
               mininterval=2.0, desc=f"bc: recording {spec}")
    while n < decisions:
        if stop is not None and stop():
            from agents.workers import Stopped

            bar.close()
            raise Stopped()
        runner.actions(obs, mask, seat, actions)
        if searches is None:
            tables = np.arange(min(n_tables, decisions - n))  # the last step records the first tables only
        else:
            tables = np.array([t for t in range(n_tables) if searches(venv.info_state(t))], dtype=np.int64)
            tables = tables[:decisions - n]
            idle = 0 if len(tables) else idle + 1
            if idle > 10_000:
                raise ValueError(f"{spec} searched no decision in 10,000 steps of {n_tables} tables; record it "
                                 "without searched_only")
        k = len(tables)
        rows = slice(n, n + k)
        demo.obs[rows], demo.mask[rows], demo.actions[rows], seats[rows] = (obs[tables], mask[tables],
                                                                            actions[tables], seat[tables])
        if hidden:
            demo.hidden[rows] = hidden_features(venv, tables, seat[tables])
        for j, t in enumerate(tables.tolist()):
            deal_rows[t].append(n + j)
            if values:
                said = (runner.extras.get(t) or {}).get("search_values")
                if said:
                    demo.values[n + j, [ACTION_IDS[c] for c in said]] = np.asarray(list(said.values())) / scale
        if values:
            runner.extras.clear()
        n += k
        obs, mask, seat, rewards, _, info = venv.step(actions)
        for t in np.flatnonzero(info["outcome"] >= 0).tolist():  # deals that ended (0 reward after all-pass)
            if deal_rows[t]:
                r = np.asarray(deal_rows[t])
                demo.returns[r] = rewards[t, seats[r]]
                deal_rows[t] = []
        bar.update(k)
    bar.close()
    return demo


def _record_part(task) -> tuple[int, Demonstrations]:
    """One part of :func:`record_demonstrations` in a worker: ``(index, its demonstrations)``."""
    i, variant, spec, decisions, seed, hidden, searched_only, values = task
    return i, record_demonstrations(variant, spec, decisions, [seed, i], hidden=hidden, searched_only=searched_only,
                                    values=values)


def _record_in_parts(variant, spec, decisions, seed, hidden, searched_only, values, workers, ray_address, stop):
    sizes = [decisions // workers + (i < decisions % workers) for i in range(workers)]
    tasks = [(i, variant, spec, size, seed, hidden, searched_only, values) for i, size in enumerate(sizes) if size]
    if ray_address:
        from agents.arena.ray_tasks import run_chunks

        parts = dict(run_chunks(_record_part, tasks, None if ray_address == "local" else ray_address,
                                workers if ray_address == "local" else None))
    else:
        from agents.workers import results, worker_pool

        with worker_pool(min(workers, len(tasks))) as pool:
            parts = dict(results(pool.imap_unordered(_record_part, tasks), stop))
    ordered = [parts[i] for i in sorted(parts)]

    def join(name):
        arrays = [getattr(d, name) for d in ordered]
        return None if arrays[0] is None else np.concatenate(arrays)

    return Demonstrations(*(join(f.name) for f in dataclasses.fields(Demonstrations)))


def clone_losses(net: nn.Module, obs, mask, actions, returns, targets=None):
    """The warm start's losses on one minibatch: (masked logits, cross-entropy against the demonstrator's
    ``actions`` or, given, against the probability rows ``targets``, half the squared error of the value against
    ``returns``)."""
    mask = mask.bool()
    logits, value = net(obs, mask)
    logits = mask_logits(logits, mask)
    return (logits, nn.functional.cross_entropy(logits, actions if targets is None else targets),
            0.5 * ((value - returns) ** 2).mean())


def soft_targets(actions: torch.Tensor, returns: torch.Tensor, values: np.ndarray, temperature: float):
    """Targets from a searching expert's card values: at each decision it searched, the softmax of its values over
    the legal cards at ``temperature`` (reward units) and, as the value's target, its best card's value; elsewhere
    the action itself (one-hot) and the deal's reward. Returns (targets float32 (n, NUM_ACTIONS), returns)."""
    v = torch.from_numpy(values)
    searched = ~torch.isnan(v).all(1)
    targets = nn.functional.one_hot(actions, NUM_ACTIONS).float()
    rows = torch.nan_to_num(v[searched].double(), nan=-torch.inf)
    # relative to each row's best value, in float64: a tiny temperature gives the best cards, never 0/0
    scaled = (rows - rows.max(1, keepdim=True).values) / temperature
    targets[searched] = torch.softmax(scaled, 1).float()
    returns = returns.clone()
    returns[searched] = torch.nan_to_num(v[searched], nan=-torch.inf).max(1).values
    return targets, returns


def behaviour_clone(net: nn.Module, demo: Demonstrations, fit: Fitting, writer=None, critic=None,
                    tag: str = "bc", step0: int = 0) -> dict:
    """Fit ``net`` to the demonstrations: masked cross-entropy on the policy head, plus ``fit.value_coef`` times
    the squared error of the value head against the deal rewards; with an expert's card values
    (``demo.values``) and ``fit.temperature`` > 0, the searched decisions' targets are :func:`soft_targets`. 5 % of the decisions (at most 10,000) are
    held out to measure accuracy. Logs ``<tag>/*`` to ``writer`` per epoch (at step ``step0 + epoch``); returns
    the last epoch's figures.
    ``critic``: a central critic (``agents.training.critic``) fitted to the same rewards with ``demo.hidden``."""
    n = len(demo.actions)
    perm = torch.randperm(n)
    n_val = min(10_000, n // 20)
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    obs, mask = training_path(net).dense_batch(demo.obs), torch.from_numpy(demo.mask)  # the mlp: non-zero entries
    actions, returns = torch.from_numpy(demo.actions), torch.from_numpy(demo.returns)
    targets = None
    if demo.values is not None and fit.temperature > 0:
        targets, returns = soft_targets(actions, returns, demo.values, fit.temperature)
    hidden = torch.from_numpy(demo.hidden) if critic is not None else None
    optimizer = adam([*net.parameters(), *(critic.parameters() if critic is not None else ())], fit.learning_rate)
    steps_per_epoch = max(1, -(-len(train_idx) // fit.batch_size))
    total = steps_per_epoch * fit.epochs
    bar = tqdm(total=total, unit="batch", dynamic_ncols=True, disable=not fit.progress, mininterval=2.0,
               desc="bc: training")
    figures: dict = {}
    step = 0
    for epoch in range(1, fit.epochs + 1):
        net.train()
        order = train_idx[torch.randperm(len(train_idx))]
        sums = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        seen = 0
        for lo in range(0, len(order), fit.batch_size):
            # the learning rate falls linearly to a tenth over the warm start
            optimizer.param_groups[0]["lr"] = fit.learning_rate * (1.0 - 0.9 * step / total)
            mb = order[lo:lo + fit.batch_size]
            logits, policy_loss, value_loss = clone_losses(net, obs.index_select(0, mb), mask[mb], actions[mb],
                                                           returns[mb], None if targets is None else targets[mb])
            loss = policy_loss + fit.value_coef * value_loss
            if critic is not None:
                critic_loss = 0.5 * ((critic(obs.index_select(0, mb), hidden[mb].float()) - returns[mb]) ** 2).mean()
                loss = loss + fit.value_coef * critic_loss
                sums["critic_loss"] = sums.get("critic_loss", 0.0) + critic_loss.item() * len(mb)
            optimizer.zero_grad()
            loss.backward()
            for module in (net, critic) if critic is not None else (net,):  # clipped apart: the critic leaves the
                nn.utils.clip_grad_norm_(module.parameters(), fit.max_grad_norm)  # policy's fit as it is
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
        figures.update(clone_validation(net, obs.index_select(0, val_idx), mask[val_idx], actions[val_idx],
                                        returns[val_idx]))
        if writer is not None:
            for k, v in figures.items():
                writer.add_scalar(f"{tag}/{k}", v, step0 + epoch)
        bar.set_postfix({"loss": f"{figures['loss']:.3f}", "val_acc": f"{figures.get('val_accuracy', 0):.3f}"},
                        refresh=False)
    bar.close()
    net.eval()
    return figures


@torch.no_grad()
def clone_validation(net, obs, mask, actions, returns) -> dict:
    """Held-out accuracy, overall and for the auction (actions >= 32) and the card play; value loss."""
    if len(actions) == 0:
        return {}
    net.eval()
    logits, value = net(obs, mask.bool())
    logits = mask_logits(logits, mask.bool())
    hit = logits.argmax(1) == actions
    bidding = actions >= 32
    out = {"val_accuracy": hit.float().mean().item(),
           "val_value_loss": 0.5 * ((value - returns) ** 2).mean().item()}
    if bidding.any():
        out["val_accuracy_bidding"] = hit[bidding].float().mean().item()
    if (~bidding).any():
        out["val_accuracy_play"] = hit[~bidding].float().mean().item()
    return out


def record_and_fit(variant, net, spec: str, decisions: int, seed: int, sample_seed: int, fit: Fitting, writer,
                   critic=None, tag: str = "bc", step0: int = 0, searched_only: bool = False, workers: int = 1,
                   ray_address: str | None = None, stop=None):
    """Record ``decisions`` decisions of ``spec`` at the four seats (deals from ``seed``; ``searched_only``: only
    those it searches; ``workers``, ``ray_address``: in parts; ``stop``: :func:`record_demonstrations`) and fit ``net`` (and
    ``critic``) to them
    (:func:`behaviour_clone`, logged under ``<tag>/`` from step ``step0``, with ``<tag>/seconds`` and
    ``<tag>/agreement_before`` at ``step0``). Returns the fit's figures, plus ``agreement_before`` (how often
    ``net`` chose ``spec``'s action, on up to 10,000 decisions drawn from ``sample_seed``, before the fit), and
    the seconds of recording and of fitting."""
    t0 = time.time()
    demo = record_demonstrations(variant, spec, decisions, seed=seed, progress=fit.progress, hidden=critic is not None,
                                 searched_only=searched_only, values=fit.temperature > 0, workers=workers,
                                 ray_address=ray_address, stop=stop)
    sample = np.sort(np.random.default_rng(sample_seed).choice(len(demo.actions), min(10_000, len(demo.actions)),
                                                               replace=False))
    before = clone_validation(net, training_path(net).dense_batch(demo.obs[sample]),
                              *(torch.from_numpy(x[sample]) for x in (demo.mask, demo.actions, demo.returns)))
    t_record = time.time() - t0
    figures = {**behaviour_clone(net, demo, fit, writer, critic, tag=tag, step0=step0),
               "agreement_before": before["val_accuracy"]}
    del demo
    writer.add_scalar(f"{tag}/seconds", time.time() - t0, step0)
    writer.add_scalar(f"{tag}/agreement_before", figures["agreement_before"], step0)
    return figures, t_record, time.time() - t0 - t_record
