"""The one play loop: agents at the seats of the tables of a :class:`~belote_env.vector.VectorEnv`.

Every caller that plays agents against each other goes through here:
duplicate matches and tournaments (:func:`play_episodes`), training
evaluation (through the matches), behaviour-cloning recording and training
collection (:class:`Runner` stepped by the caller).

A :class:`Runner` knows which agent sits at each seat of each table
(``seating[table, seat]``, an index into ``agents``; ``-1`` marks a seat the
caller decides itself, such as the learner in training). At every step of the
tables, :meth:`Runner.actions` asks each agent once for all the tables waiting
on it: ``act_batch(observations, masks, infos)`` with the rows of those
tables. Observations and masks come from the batched engine (equal to the
AEC env's, bit for bit); ``infos`` holds the seat's
:class:`~belote_env.rules.info.InfoState` for agents with ``needs_info``
(rule-based and search agents), ``None`` entries for the others (neural
agents), so a neural agent decides for all its tables in one forward pass.

Every answer is read by one rule, :func:`belote_env.vector.action_array`
(that of ``belote_env.rules.actions.action_id``: ints and numpy integers; a
float, bool, NaN, string or array is not an action). An answer that is not an
action, or one outside the mask, raises :class:`AgentActionError` naming the
agent, table, seat and legal set, before anything is applied.

Redeals after everyone passed are dealt by the engine. So that agents that
never bid cannot loop forever, an episode that redeals ``max_redeals`` times
in a row is cut (``truncated``; it scores what redeals score: nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numba
import numpy as np

from agents.errors import AgentActionError
from belote_env.errors import BeloteError
from agents.base import Agent
from belote_env.numba_cache import heal_damaged_files
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import action_id, action_name
from belote_env.rules.scoring import Outcome
from belote_env.rules.variant import short_repr
from belote_env.vector import action_array

heal_damaged_files()  # a damaged cache file of the kernels below is compiled again, not fatal

MAX_REDEALS = 64
_MADE = tuple(Outcome).index(Outcome.MADE)
_REDEAL = tuple(Outcome).index(Outcome.REDEAL)



class Runner:
    """Agents seated at the tables of ``venv``; see the module docstring.

    ``seating``: int array ``[num_tables, 4]`` of indices into ``agents``
    (``-1``: the caller's seat). It may be changed between steps (training
    draws a new opponent when a table's episode ends).
    """

    def __init__(self, venv, agents: Sequence[Agent], seating=None):
        self.venv = venv
        self.agents = list(agents)
        for a in self.agents:
            if not isinstance(a, Agent):
                raise TypeError(f"a Runner seats Agent objects (see agents.make_agent), got {type(a).__name__}")
        n = venv.num_tables
        self.seating = np.full((n, 4), -1, dtype=np.int64) if seating is None else np.array(seating, dtype=np.int64)
        if self.seating.shape != (n, 4):
            raise ValueError(f"seating must have shape ({n}, 4), got {self.seating.shape}")
        if self.seating.size and (self.seating.min() < -1 or self.seating.max() >= len(self.agents)):
            raise ValueError(f"seating holds indices outside -1..{len(self.agents) - 1}")
        self._rows = np.arange(n)
        self._params = getattr(venv, "params", None)  # the variant's switches, for agents' kernel copies
        self.extras: dict | None = None  # a dict to collect Agent.decision_extras by table (deal records); None: off

    def acting(self, seat: np.ndarray) -> np.ndarray:
        """The index of the agent to act at every table (``-1``: the caller's seat)."""
        return self.seating[self._rows, seat]

    def actions(self, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray, out: np.ndarray | None = None,
                active: np.ndarray | None = None, seeds: np.ndarray | None = None,
                who: np.ndarray | None = None) -> np.ndarray:
        """Fill ``out`` (int64[N]) with the seated agents' decisions at every table where one is to act
        (and ``active``, when given); the caller's rows are left as they are. Returns ``out``. At the tables of a
        ``VectorEnv(calls="factored")`` the agents still see flat observations and masks and give flat actions
        (step them with ``flat=runner.acting(seat) >= 0``): only the caller's seats make factored choices.
        ``seeds``: uint64[N], one per table, handed to the agents that take seeds (``Agent.takes_seeds``).
        ``who``: the agent to ask at every table (an index, -1: the caller), instead of the seating's."""
        if out is None:
            out = np.zeros(len(seat), dtype=np.int64)
        who = self.acting(seat) if who is None else who
        if active is not None:
            who = np.where(active, who, -1)
        for k, agent in enumerate(self.agents):
            idx = np.flatnonzero(who == k)
            if len(idx):
                out[idx] = self._ask(agent, idx, obs, mask, seat, seeds)
        return out

    def _ask(self, agent: Agent, idx: np.ndarray, obs, mask, seat, seeds=None) -> np.ndarray:
        venv = self.venv
        if getattr(venv, "factored", False):  # agents play the flat space: its observations, masks and actions
            m = venv.flat_masks(idx).view(np.int8)
            obs = obs[:, :OBS_SIZE]  # obs[idx] below is a contiguous copy of the rows
        else:
            m = mask[idx].view(np.int8)
        got = infos = None
        try:
            if agent.needs_info and type(agent).act_rows is not Agent.act_rows:  # a kernel copy of the agent
                got = agent.act_rows(self._params, venv.info_rows(idx))
            if got is None:
                infos = [venv.info_state(int(i)) for i in idx] if agent.needs_info else [None] * len(idx)
                if seeds is not None and agent.takes_seeds:
                    got = agent.act_batch(obs[idx], m, infos, seeds=seeds[idx])
                else:
                    got = agent.act_batch(obs[idx], m, infos)
        except BeloteError:
            raise
        except Exception as e:  # a user's agent that fails: a line naming it (the traceback stays in __cause__)
            raise AgentActionError(f"agent {agent!r} raised {type(e).__name__} when asked to act at "
                                   f"{len(idx)} table(s): {short_repr(str(e))}") from e
        try:
            acts, bad = action_array(got)
        except ValueError as e:
            raise AgentActionError(f"agent {agent!r} returned {short_repr(got)}, not one action id per decision "
                                   f"({e})") from None
        if len(acts) != len(idx):
            raise AgentActionError(f"agent {agent!r}.act_batch returned {len(acts)} actions for {len(idx)} decisions")
        j = bad if bad >= 0 else _first_illegal(m, acts)
        if j >= 0:
            t = int(idx[j])
            legal = ", ".join(action_name(a) for a in np.flatnonzero(m[j]).tolist())
            given = got[j]
            a = action_id(given)
            what = (f"{type(given).__name__} {short_repr(given)}, not an action id (an int)" if a is None
                    else f"{a}, which is not legal there")
            raise AgentActionError(
                f"agent {agent!r} at seat {int(seat[t])} of table {t} returned {what}; legal actions: {legal}")
        if self.extras is not None:
            extra = agent.decision_extras(obs[idx], m, infos if infos is not None else [None] * len(idx), acts)
            for j, t in enumerate(idx.tolist()):
                self.extras[t] = None if extra is None else extra[j]
        return acts


@numba.njit(cache=True, nogil=True)
def _first_illegal(masks, actions):
    """The first row whose action is outside its mask (int8 rows), or -1."""
    for i in range(len(actions)):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            return i
    return -1


@dataclass
class Episodes:
    """One finished episode per table (arrays indexed by table; teams 0 = seats 0/2, 1 = seats 1/3)."""

    scores: np.ndarray      # int64[N, 2] episode scores
    winner: np.ndarray      # int64[N] 0, 1, or -1 (a drawn single deal, or a truncated episode)
    truncated: np.ndarray   # bool[N] cut after max_redeals all-pass deals in a row
    taken: np.ndarray       # int64[N, 2] contracts taken by each team
    made: np.ndarray        # int64[N, 2] of which made
    deals: np.ndarray       # int64[N] deals dealt, all-pass ones included
    decisions: np.ndarray   # int64[N] actions played
    records: list | None = None  # with record=True: per table, the deal records of its episode (rules.record)


def play_episodes(venv, agents: Sequence[Agent], seating, record: bool = False) -> Episodes:
    """Play one episode at every table of ``venv`` (from ``venv.reset()``, seeds as the venv has them)
    with ``agents[seating[t, s]]`` at seat ``s`` of table ``t``; returns the finished episodes. ``record``:
    also keep every deal of every episode as a deal record (:mod:`belote_env.rules.record`, replayed on the rules
    core from the table's seed and its actions) in ``Episodes.records``.

    Agents are asked in a fixed order (step by step, agent by agent, tables ascending), so the result is
    deterministic given the tables' seeds and the agents' own seeds. A table whose episode is over waits,
    with its next episode's first legal action, for the others."""
    seating = np.asarray(seating, dtype=np.int64)
    if (seating < 0).any():
        raise ValueError("play_episodes needs an agent at every seat (seating holds -1)")
    runner = Runner(venv, agents, seating)
    n = venv.num_tables
    out = Episodes(np.zeros((n, 2), np.int64), np.full(n, -1, np.int64), np.zeros(n, bool),
                   np.zeros((n, 2), np.int64), np.zeros((n, 2), np.int64), np.zeros(n, np.int64),
                   np.zeros(n, np.int64))
    playing = np.ones(n, dtype=bool)
    obs, mask, seat = venv.reset()
    actions = np.zeros(n, dtype=np.int64)
    starts = [venv.state(t) for t in range(n)] if record else None  # each episode's start, as a rules-core game
    log = np.zeros((n, 256), dtype=np.int64) if record else None
    extras: list[list] = [[] for _ in range(n)] if record else []  # what the agents attached to each decision
    if record:
        runner.extras = {}
    while playing.any():
        actions[:] = mask.argmax(axis=1)  # finished tables: any legal action, no agent asked
        runner.actions(obs, mask, seat, actions, active=playing)
        if record:
            if out.decisions.max() >= log.shape[1]:
                log = np.concatenate([log, np.zeros_like(log)], axis=1)
            live = np.flatnonzero(playing)
            log[live, out.decisions[live]] = actions[live]
            for t in live.tolist():
                extras[t].append(runner.extras.pop(t, None))
        out.decisions += playing
        obs, mask, seat, _, done, info = venv.step(actions)
        ended = playing & (info["outcome"] >= 0) & (info["taker"] >= 0)
        if ended.any():
            t = np.flatnonzero(ended)
            team = info["taker"][t] & 1
            np.add.at(out.taken, (t, team), 1)
            np.add.at(out.made, (t, team), info["outcome"][t] == _MADE)
        fin = playing & done
        if fin.any():
            out.scores[fin] = info["scores"][fin]
            out.winner[fin] = info["winner"][fin]
            out.truncated[fin] = info["truncated"][fin]
            out.deals[fin] = info["deals"][fin]
            playing &= ~done
    if record:
        out.records = [_deal_records(starts[t], log[t, :out.decisions[t]], extras[t]) for t in range(n)]
    return out


def _deal_records(game, actions, extras) -> list[dict]:
    """The deal records of the episode that ``actions`` play from ``game`` (a rules-core GameState at its start),
    with what the agents attached to each decision (``extras``, one entry or None per action)."""
    from belote_env.rules.record import deal_record

    records, deal, attached = [], game.deal, []
    for a, extra in zip(actions.tolist(), extras):
        attached.append(extra)
        if game.apply(a) is not None:  # a deal ended (an all-pass one too)
            records.append(deal_record(deal, attached if any(x is not None for x in attached) else None))
            deal, attached = game.deal, []
    return records


def play_game(variant, agents: Sequence[Agent], seed: int = 0, max_redeals: int = MAX_REDEALS) -> Episodes:
    """Play one episode of ``variant`` (its ``episode`` setting) with ``agents[seat]`` at each seat, on the
    table seeded ``seed`` (the cards of ``GameState(variant, seed=seed)``); returns it as a one-table
    :class:`Episodes`."""
    from belote_env.vector import VectorEnv

    if len(agents) != 4:
        raise ValueError(f"play_game needs 4 agents (one per seat 0..3), got {len(agents)}")
    venv = VectorEnv(variant, num_tables=1, table_seeds=[seed], max_redeals=max_redeals,
                     episode=getattr(variant, "episode", "deal"))
    return play_episodes(venv, list(agents), [[0, 1, 2, 3]])  # one table: one seat acts per step anyway


__all__ = ["AgentActionError", "Episodes", "MAX_REDEALS", "Runner", "play_episodes", "play_game"]
