"""The tables of ``train.py``'s collection, and who sits at them.

:class:`Collector` holds ``num_envs`` tables of the batched engine
(:class:`~belote_env.vector.VectorEnv`) and, per table, which opponent plays
one of its teams: a fixed agent of ``opponent_mix``, a past snapshot of the
policy from the opponent pool (``agents.training.pool``), or nobody (pure self-play).
Opponents act through the play loop (``agents.loop.Runner``); the network's
seats are the runner's ``-1`` seats, played by ``agents.training.ppo.collect``.

Seeds: when the tables are (re-)dealt (:meth:`Collector.reset_all`, at the start
and after every checkpoint) one key is drawn from the run's collection RNG;
every later draw of a table (its cards, which opponent, which team, which
snapshot, the network's and the opponents' sampling) is a number of that key,
the table's number in the run and the step (``agents.counter_rng``). So a run and
its ``--resume`` replay the same tables, and a table plays the same game
whatever other tables are collected with it: ``table_ids`` lets a Ray rollout
actor hold tables ``a .. b - 1`` of the run and play them exactly as a local
run does (``agents.training.ray_rollouts``).
"""

from __future__ import annotations

import numba
import numpy as np

from agents import counter_rng
from agents.loop import MAX_REDEALS, Runner
from agents.neural.sparse import append_csr, place_csr
from belote_env.numba_cache import heal_damaged_files
from belote_env.observation import SEGMENTS

heal_damaged_files()  # a damaged cache file of the kernels below is compiled again, not fatal

BIDDING = SEGMENTS["phase"][0]  # the observation's cell that is 1 while the deal is bid
POOL = "pool"  # the label of the pool's tables in the training statistics (charts/return_vs_pool)


class Collector:
    """``num_envs`` tables on the batched engine and the opponent (if any) of each; see the module docstring.

    ``pool``: an :class:`agents.training.pool.OpponentPool` whose snapshots play one team at a ``pool_fraction`` of the
    tables (self-play there while the pool is empty). ``table_ids``: the tables' numbers in the run (default
    ``0 .. num_envs - 1``); ``key``: the first deal's key (default: drawn from ``rng``). ``factored``: the network's
    seats make factored calls (``VectorEnv(calls="factored")``); the opponents play the flat space. ``call_agent``:
    an agent spec that makes the calls of the network's seats while :attr:`card_play` is on (the card-play stage,
    ``train.py --card-play-steps``: the network plays only the cards)."""

    def __init__(self, variant, num_envs: int, opponent_mix: dict, rng: np.random.Generator, end_on_redeal: bool = True,
                 pool=None, pool_fraction: float = 0.0, table_ids=None, key: int | None = None,
                 factored: bool = False, call_agent: str = ""):
        from agents.registry import make_agent
        from belote_env.vector import VectorEnv

        self.variant = variant
        self.n = num_envs
        self.specs = list(opponent_mix)
        self.pool = pool if pool_fraction > 0 else None
        self.labels = self.specs + ([POOL] if self.pool is not None else [])  # opponent kinds, for the statistics
        self.opponents = [make_agent(spec) for spec in self.specs] + (self.pool.agents if self.pool is not None else [])
        self.call_index = len(self.opponents)  # the call agent's index among the runner's agents, when there is one
        self.opponents += [make_agent(call_agent)] if call_agent else []
        self.card_play = bool(call_agent)  # the trainer turns it off when the card-play stage ends
        self.cum = np.cumsum([opponent_mix[s] for s in self.specs] + ([pool_fraction] if self.pool is not None else []))
        self.rng = rng
        self.ids = np.arange(num_envs, dtype=np.int64) if table_ids is None else np.asarray(table_ids, dtype=np.int64)
        if self.ids.shape != (num_envs,):
            raise ValueError(f"table_ids must hold {num_envs} table numbers, got shape {self.ids.shape}")
        self.key = 0  # of the current deals (reset_all)
        self.t = 0  # steps played since reset_all: the counter of the tables' random numbers
        # end_on_redeal: an all-pass deal ends the episode (truncated, reward 0)
        self.venv = VectorEnv(variant, num_tables=num_envs, seed=0, episode=variant.episode,
                              max_redeals=1 if end_on_redeal else MAX_REDEALS, calls="factored" if factored else "flat")
        self.runner = Runner(self.venv, self.opponents)  # seating -1: the network's seats
        self.opponent = np.full(num_envs, -1, dtype=np.int64)  # index in labels, -1 = self-play
        self.opponent_team = np.full(num_envs, -1, dtype=np.int64)  # team of the opponent, -1 = none
        # index in the rollout buffer of each seat's latest decision in the current episode, -1 if none
        self.last = np.full((num_envs, 4), -1, dtype=np.int64)
        self.length = np.zeros(num_envs, dtype=np.int64)  # actions so far in each table's episode
        self.reset_all(key)

    def acting(self, obs: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """The agent to act at every table (an index into the runner's agents; -1: the network): the seating's,
        and during the card-play stage (:attr:`card_play`) the call agent at the network's seats while bidding."""
        who = self.runner.acting(seat)
        if self.card_play:
            who = np.where((who < 0) & (obs[:, BIDDING] == 1.0), self.call_index, who)
        return who

    def numbers(self, idx: np.ndarray, stream: int) -> np.ndarray:
        """Uniform floats in [0, 1) of tables ``idx`` (positions in this object) for ``stream`` at this step:
        ``counter_rng.uniforms(key, table_ids[idx], t, stream)``."""
        return counter_rng.uniforms_at(self._bases[stream], self.t, idx)

    def agent_seeds(self) -> np.ndarray:
        """One uint64 per table for the opponents' sampling at this step (``Runner.actions(seeds=...)``)."""
        return counter_rng.at_step(self._bases[counter_rng.AGENT], self.t)

    def draw_opponents(self, idx: np.ndarray) -> None:
        """A new opponent (or self-play) and its team at tables ``idx``, from the tables' own numbers."""
        u = self.numbers(idx, counter_rng.OPPONENT)
        team = (self.numbers(idx, counter_rng.TEAM) < 0.5).astype(np.int64)
        k = np.searchsorted(self.cum, u, side="right") if self.labels else np.zeros(len(idx), dtype=np.int64)
        agent = k.copy()  # index into self.opponents
        if self.pool is not None:  # a snapshot per table, drawn uniformly (only when the pool is on)
            slot = (self.numbers(idx, counter_rng.SNAPSHOT) * max(len(self.pool), 1)).astype(np.int64)
            at_pool = k == len(self.specs)
            agent[at_pool] += slot[at_pool]
            if not len(self.pool):
                k[at_pool] = len(self.labels)  # no snapshot yet: self-play
        seated = k < len(self.labels)
        self.opponent[idx] = np.where(seated, k, -1)
        self.opponent_team[idx] = np.where(seated, team, -1)
        on_team = (np.arange(4)[None, :] & 1) == team[:, None]
        self.runner.seating[idx] = np.where(on_team & seated[:, None], agent[:, None], -1)

    def reset_all(self, key: int | None = None) -> None:
        """New episodes at every table from a new key (drawn from the collection RNG unless given): tables
        re-dealt (table ``i`` of the run from ``table_seed(key, i)``), opponents drawn and reseeded."""
        from belote_env.vector import table_seed

        self.key = int(self.rng.integers(2**31)) if key is None else int(key)
        self.t = 0
        self._bases = {s: counter_rng.bases(self.key, self.ids, s)
                       for s in (counter_rng.OPPONENT, counter_rng.TEAM, counter_rng.SNAPSHOT, counter_rng.NETWORK, counter_rng.AGENT)}
        self.obs, self.mask, self.seat = self.venv.reset(table_seeds=[table_seed(self.key, int(i)) for i in self.ids])
        self.draw_opponents(np.arange(self.n))
        self.reseed_opponents()
        self.last[:] = -1
        self.length[:] = 0

    def reseed_opponents(self) -> None:
        """Reseed the opponents (fixed agents and pool snapshots) from the key, the same in every process (agents
        that take seeds draw from the tables' numbers instead; this seeds the others, e.g. ``pimc``)."""
        seeds = counter_rng.keys(self.key, np.arange(len(self.opponents)), 0, counter_rng.RESEED)
        for agent, seed in zip(self.opponents, seeds.tolist()):
            agent.reset(seed % 2**63)

    def end_episodes(self, buf, fin: np.ndarray, rewards: np.ndarray, info: dict, stats: dict) -> None:
        """Tables ``fin`` finished an episode this step: close their trajectories in the rollout ``buf``, add the
        results to ``stats`` (per team at self-play tables, per opponent kind elsewhere), draw new opponents."""
        prev = self.last[fin]
        buf.dones[prev[prev >= 0]] = True
        truncated = info["truncated"][fin]
        stats["all_pass"] = stats.get("all_pass", 0) + int(truncated.sum())
        for t in fin[~truncated].tolist():
            stats.setdefault("episode_length", []).append(int(self.length[t]))
            if self.opponent[t] < 0:
                stats["return_team0"].append(float(rewards[t, 0]))
                stats["return_team1"].append(float(rewards[t, 1]))
            else:
                mine = 1 - self.opponent_team[t]
                stats.setdefault(self.labels[self.opponent[t]], []).append(float(rewards[t, mine]))
        self.last[fin] = -1
        self.length[fin] = 0
        self.draw_opponents(fin)


ENTRIES_PER_ROW = 64  # the rollout buffer's first room for an observation's non-zero entries (about 40; it grows)


class Rollout:
    """The network's decisions of one rollout, in the order they were made (``agents.training.ppo.collect`` fills it).

    Observations are kept as their non-zero entries (about 40 of an observation's 853 floats), row after row:
    row ``i``'s columns and values are ``obs_idx`` and ``obs_val`` at ``obs_ptr[i]:obs_ptr[i + 1]``. Collection
    scans the engine's rows straight into them (:meth:`add_observations`) and runs its forward pass on them; the
    PPO update reads them as a :class:`~agents.neural.sparse.SparseObs` (:meth:`sparse_observations`); Ray
    actors send them as they are (:meth:`csr_observations`); :meth:`observations` gives dense rows (a learner
    on another device, the central critic): kept sparse, coinche.yaml's rollout takes about 4 MB instead of
    28. The other fields are arrays of ``capacity`` rows; the masks have the padding of the
    forward pass past them (:func:`agents.neural.network.padded_rows`)."""

    def __init__(self, capacity: int, hidden_size: int = 0, sizes: tuple[int, int] | None = None):
        from agents.neural.network import MIN_ROWS
        from belote_env.observation import OBS_SIZE
        from belote_env.rules.actions import NUM_ACTIONS

        obs_size, num_actions = sizes or (OBS_SIZE, NUM_ACTIONS)  # the run's (factored calls: 862, 56)
        self.capacity, self.obs_size = capacity, obs_size
        self.obs_ptr = np.zeros(capacity + 1, dtype=np.int64)
        self.obs_idx = np.zeros(capacity * ENTRIES_PER_ROW, dtype=np.int64)
        self.obs_val = np.zeros(capacity * ENTRIES_PER_ROW, dtype=np.float32)
        self.hidden = np.zeros((capacity, hidden_size), dtype=np.float32)  # the central critic's hidden hands
        self.mask = np.zeros((capacity + MIN_ROWS, num_actions), dtype=np.bool_)  # padding rows: forward_nonzeros
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.logprobs = np.zeros(capacity, dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=bool)
        self.bidding = np.zeros(capacity, dtype=bool)  # a call (the deal was being bid), for call_ent_coef
        self.next_value = np.zeros(capacity, dtype=np.float32)  # value of the seat's next decision (or bootstrap)
        self.next_index = np.full(capacity, -1, dtype=np.int64)  # the seat's next decision in this rollout
        self.per_step: list[int] = []  # decisions made at each step (Ray actors' rollouts merge step by step)
        self.size = 0

    def clear(self) -> None:
        self.rewards[:self.size] = 0.0
        self.dones[:self.size] = False
        self.next_value[:self.size] = 0.0
        self.next_index[:self.size] = -1
        self.per_step = []
        self.size = 0

    def _check_rows(self, start: int, n: int) -> None:
        if start < 0 or n < 0 or start + n > self.capacity:
            raise ValueError(f"rows {start}..{start + n - 1} past the rollout buffer's {self.capacity}")

    def _room(self, entries: int) -> None:
        if entries > len(self.obs_idx):
            size = max(entries, 2 * len(self.obs_idx))
            for name in ("obs_idx", "obs_val"):
                old = getattr(self, name)
                new = np.zeros(size, dtype=old.dtype)
                new[:len(old)] = old
                setattr(self, name, new)

    def add_observations(self, start: int, x: np.ndarray, rows: np.ndarray):
        """Rows ``rows`` of ``x`` (the engine's observations: float32, C-contiguous) become the buffer's rows
        ``start, start + 1, ...`` (the rows before ``start`` are kept, those after the new ones dropped). Returns
        their non-zero entries (:meth:`nonzeros`), for ``PolicyValueNet.forward_nonzeros``."""
        rows = np.asarray(rows, dtype=np.int64)
        self._check_rows(start, len(rows))
        if x.dtype != np.float32 or x.ndim != 2 or x.shape[1] != self.obs_size or not x.flags.c_contiguous:
            raise ValueError(f"add_observations: C-contiguous float32 rows of {self.obs_size} columns expected, "
                             f"got {x.dtype} {x.shape}")
        if len(rows) and (rows.min() < 0 or rows.max() >= x.shape[0]):
            raise IndexError(f"add_observations: rows must lie in 0..{x.shape[0] - 1}")
        self._room(int(self.obs_ptr[start]) + len(rows) * x.shape[1])
        append_csr(x, rows, self.obs_ptr, start, self.obs_idx, self.obs_val)
        return self.nonzeros(start, start + len(rows))

    def write_observations(self, start: int, indptr, idx, val, order=None) -> None:
        """The rows of the CSR ``(indptr, idx, val)`` (as :func:`~agents.neural.sparse.to_csr` gives them) become the
        buffer's rows ``start .. start + n - 1``, row ``i`` at ``start + order[i]`` when ``order`` (a permutation of
        ``0 .. n - 1``) is given; the rows before ``start`` are kept, those after dropped."""
        indptr = np.asarray(indptr, dtype=np.int64)
        n = len(indptr) - 1
        self._check_rows(start, n)
        counts = np.diff(indptr)
        order = np.arange(n) if order is None else np.asarray(order, dtype=np.int64)
        if n and (counts.min() < 0 or indptr[0] != 0 or indptr[n] != len(idx) or len(val) != len(idx)
                  or order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n))):
            raise ValueError("write_observations: a CSR (offsets from 0 to its entries) and a permutation of its "
                             "rows expected")
        placed = np.empty(n, dtype=np.int64)
        placed[order] = counts
        c0 = int(self.obs_ptr[start])
        self._room(c0 + int(indptr[n]) if n else c0)
        self.obs_ptr[start + 1:start + n + 1] = c0 + np.cumsum(placed)
        place_csr(indptr, np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=np.float32), order, self.obs_ptr,
                   start, self.obs_idx, self.obs_val)

    def nonzeros(self, start: int = 0, stop: int | None = None):
        """The non-zero entries of rows ``start .. stop - 1`` (default: up to ``size``): ``(indptr from 0, columns,
        values)``, views of the buffer but for ``indptr``."""
        stop = self.size if stop is None else stop
        self._check_rows(start, stop - start)
        a, b = int(self.obs_ptr[start]), int(self.obs_ptr[stop])
        return self.obs_ptr[start:stop + 1] - a, self.obs_idx[a:b], self.obs_val[a:b]

    def observations(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Rows ``start .. stop - 1`` (default: up to ``size``) as dense float32 observations (a new array)."""
        from agents.neural.sparse import from_csr

        indptr, idx, val = self.nonzeros(start, stop)
        return from_csr(indptr, idx, val, np.zeros((len(indptr) - 1, self.obs_size), dtype=np.float32))

    def rows(self, name: str, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Rows ``start .. stop - 1`` (default: up to ``size``) of the field ``name``, ``"obs"`` as dense rows
        (:meth:`observations`); for code that goes through the fields by name (``ray_rollouts.BUFFER_FIELDS``)."""
        stop = self.size if stop is None else stop
        return self.observations(start, stop) if name == "obs" else getattr(self, name)[start:stop]

    def sparse_observations(self, n: int | None = None):
        """The first ``n`` rows (default: ``size``) as the PPO update reads them: the
        :class:`~agents.neural.sparse.SparseObs` that ``SparseObs.from_dense`` gives for their dense rows."""
        from agents.neural.sparse import SparseObs

        return SparseObs.from_csr(*self.nonzeros(0, n))

    def csr_observations(self, n: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first ``n`` rows (default: ``size``) in :func:`~agents.neural.sparse.to_csr`'s compact form (int32
        offsets, int16 columns: what Ray actors send)."""
        indptr, idx, val = self.nonzeros(0, n)
        return indptr.astype(np.int32), idx.astype(np.int16), val.copy()


@numba.njit(cache=True, nogil=True)
def link_decisions(tables, seat, last, start, values, next_index, next_value):
    """The network decided at ``tables`` (rows ``start, start + 1, ...`` of a rollout buffer): link each seat's
    previous decision of the episode (``last[table, seat]``, -1 if none) to the new one (``next_index``) and its
    value (``next_value``, from ``values``), and make the new one the seat's last."""
    for i in range(len(tables)):
        t = tables[i]
        s = seat[t]
        j = start + i
        prev = last[t, s]
        if prev >= 0:
            next_index[prev] = j
            next_value[prev] = values[j]
        last[t, s] = j


@numba.njit(cache=True, nogil=True)
def credit_rewards(rewards, last, buffer_rewards):
    """Add each seat's reward of this step (``rewards[table, seat]``) to the seat's last decision in the buffer."""
    for t in range(rewards.shape[0]):
        for s in range(rewards.shape[1]):
            r = rewards[t, s]
            if r != 0 and last[t, s] >= 0:
                buffer_rewards[last[t, s]] += r
