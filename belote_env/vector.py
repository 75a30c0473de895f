"""N tables stepped together on the batched engine (``belote_env.fast``).

```python
from belote_env.vector import VectorEnv

venv = VectorEnv(variant="coinche", num_tables=1024, seed=0, reward="score_diff", episode="deal")
obs, mask, seat = venv.reset()                                  # float32[N,853], bool[N,112], int8[N]
obs, mask, seat, rewards, done, info = venv.step(actions)       # actions int[N]
venv.state(i)                                                   # table i as a rules-core GameState
```

Every table has exactly one seat to act at every step, so ``step`` takes one
action per table: the action of seat ``seat[i]`` at table ``i``, legal under
``mask[i]``. ``obs[i]`` is that seat's observation, exactly
``belote_env.observation.encode(game, seat)``, and ``mask[i]`` its legal
actions, exactly the AEC env's ``action_mask`` (as bool).

Rewards are ``float32[N, 4]``, one column per seat: what the AEC env puts in
``rewards`` for each agent after the same action (``score_diff``: the team's
deal score difference / scale at each scored deal; ``win``: +-1 at the end of
the episode). Zero-sum between the teams.

A table whose episode ends this step (``done[i]``) is reset at once: the
returned ``obs[i]``, ``mask[i]``, ``seat[i]`` are the first of its next
episode. ``info`` holds, one entry per table, the result of the deal that
ended at that table this step (deal fields; -1 where no deal ended) and of
the episode that ended there (episode fields; -1 where none did). In deal
episodes both come together; in game episodes the deal fields report every
deal as it ends (an all-pass one too: outcome ``redeal``, no contract):

| key | shape | meaning |
|---|---|---|
| ``scores`` | int64[N, 2] | episode: scores of teams 0 and 1 (the deal's scores in deal episodes) |
| ``winner`` | int64[N] | episode: 0, 1, or -1 for a drawn single deal |
| ``deals`` | int64[N] | episode: deals dealt in it, all-pass redeals included |
| ``truncated`` | bool[N] | episode: cut after ``max_redeals`` all-pass deals in a row (no reward, winner -1) |
| ``deal_scores`` | int64[N, 2] | deal: its scores |
| ``outcome`` | int64[N] | deal: index into ``OUTCOMES`` (made, failed, litige, redeal) |
| ``taker``, ``strain``, ``value``, ``kind``, ``level``, ``caller`` | int64[N] | deal: its contract (-1 after an all-pass); ``kind`` indexes ``CONTRACT_KINDS`` |
| ``card_points`` | int64[N, 2] | deal: card points won by each team |

Seeds: table ``i`` deals exactly what ``GameState(variant, seed=seed * 2**32 + i)``
deals, episode after episode from the same generator, as the AEC env does
after ``reset(seed=s_i)`` and then plain ``reset()`` calls: every episode
starts a ``GameState(variant, rng=that generator)`` (dealer 0). So any table
can be replayed on the rules core; :meth:`VectorEnv.state` does it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np
from gymnasium import spaces

from .aec import DEFAULT_MAX_REDEALS, checked_max_redeals
from .errors import VectorEnvError, VectorIllegalActionError
from .factored import CALLS, FACTORED_NAMES, FACTORED_OBS_SIZE, NUM_FACTORED_ACTIONS, WHAT, decide, stage_cells
from .observation import CONTRACT_KINDS, OBS_SIZE
from .rewards import REWARD_KINDS
from .rules.actions import ACTION_NAMES, BID_VALUES, NUM_ACTIONS, action_id
from .rules.declarations import hand_declarations
from .rules.game import GameState
from .rules.info import InfoState
from .rules.scoring import Contract, Outcome
from .rules.state import BeloteEvent, Phase, Trick
from .rules.variant import Variant, short_repr
from .variants import load_variant

SEED_STRIDE = 2**32
MAX_TABLES = 2**20  # tables of one VectorEnv: about 12 GB; more would exhaust memory (a crash, not an error)
OUTCOMES = tuple(Outcome)  # made, failed, litige, redeal: the order of info["outcome"] (= belote_env.fast.OUTCOMES)
_PHASES = tuple(Phase)  # the kernels' PH_BIDDING, PH_PLAY, PH_DONE
# info key -> its columns in the kernels' info array (belote_env.fast.layout.I_*), as slices so that the arrays are views.
_INFO_KEYS = (
    ("scores", slice(0, 2)), ("winner", 2), ("deal_scores", slice(3, 5)), ("outcome", 5), ("taker", 6),
    ("strain", 7), ("value", 8), ("kind", 9), ("level", 10), ("caller", 11), ("card_points", slice(12, 14)),
    ("deals", 14), ("truncated", 15),
)


_INT64_MAX = int(np.iinfo(np.int64).max)


def action_array(actions) -> tuple[np.ndarray, int]:
    """Many actions (one per table or decision) as one contiguous int64 array, each entry read by the rule of
    :func:`~belote_env.rules.actions.action_id` (ints and numpy integers; not bools, floats, strings, arrays).

    Returns ``(ids, bad)``: ``bad`` is the index of the first entry that is not an action id, or an integer
    too large for int64 (its id in ``ids`` is then meaningless), -1 when every entry is one. Raises
    ``ValueError`` when ``actions`` is not one-dimensional (a scalar, a string, a 2-d array). An integer array
    of any layout (strided, uint8, uint64...) is converted, so the kernels see one dtype and never compile
    again for it."""
    if isinstance(actions, np.ndarray):
        if actions.ndim != 1:
            raise ValueError(f"expected a one-dimensional array of action ids, got shape {actions.shape}")
        kind = actions.dtype.kind
        if kind == "u" and actions.dtype.itemsize == 8:
            over = np.flatnonzero(actions > np.uint64(_INT64_MAX))
            if len(over):
                return np.zeros(len(actions), dtype=np.int64), int(over[0])
        if kind in "iu":
            ids = np.ascontiguousarray(actions, dtype=np.int64)
            # a read-only array (np.broadcast_to, a buffer) is its own numba type: a copy spares a compilation
            return (ids if ids.flags.writeable else ids.copy()), -1
        if kind != "O":
            return np.zeros(len(actions), dtype=np.int64), 0 if len(actions) else -1
    elif isinstance(actions, (str, bytes, Mapping)) or not (hasattr(actions, "__len__") and hasattr(actions, "__getitem__")):
        raise ValueError(f"expected a sequence of action ids, got {type(actions).__name__} {short_repr(actions)}")
    else:  # a list of ints (an agent's tolist()): one conversion when every entry is an int (bool is its own type)
        types = set(map(type, actions))
        if all(t is int or issubclass(t, np.integer) for t in types):
            try:
                return np.array(actions, dtype=np.int64).reshape(len(actions)), -1
            except OverflowError:
                pass  # an int beyond int64: found below
    ids = np.zeros(len(actions), dtype=np.int64)
    for j, x in enumerate(actions):
        a = action_id(x)
        if a is None or not -_INT64_MAX - 1 <= a <= _INT64_MAX:
            return ids, j
        ids[j] = a
    return ids, -1


def _index(name: str, value, size: int) -> int:
    """``value`` as an index 0..size-1 (an int or a numpy integer), or a VectorEnvError naming ``name``."""
    i = action_id(value)  # the same reading: integers of any library, not bools, floats or strings
    if i is None:
        raise VectorEnvError(f"{name} must be an int, got {type(value).__name__} {short_repr(value)}")
    if not 0 <= i < size:
        raise VectorEnvError(f"{name} {i} is out of range 0..{size - 1}")
    return i


def _indices(name: str, values, size: int) -> np.ndarray:
    """``values`` (a sequence or an array of ints) as a contiguous int64 array of indices 0..size-1."""
    if isinstance(values, (str, bytes)):
        raise VectorEnvError(f"{name} must be a sequence of ints, got {short_repr(values)}")
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as e:  # ragged nesting, objects numpy cannot read
        raise VectorEnvError(f"{name} must be a sequence of ints, got {short_repr(values)} ({e})") from None
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise VectorEnvError(f"{name} must be ints, got {short_repr(values)} (dtype {arr.dtype})")
    arr = arr.reshape(-1)
    if arr.min() < 0 or arr.max() >= size:
        raise VectorEnvError(f"{name} must be in 0..{size - 1}, got {short_repr(values)}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def table_seed(seed: int, i: int) -> int:
    """The rules-core seed of table ``i``: ``GameState(variant, seed=table_seed(seed, i))``."""
    return seed * SEED_STRIDE + i


_layout = None


def _row_layout():
    """``belote_env.fast.layout``, imported on first use (it loads the engine's kernels)."""
    global _layout
    if _layout is None:
        from .fast import layout

        _layout = layout
    return _layout


# Cells of an engine row that info_row leaves at 0: the engine's bookkeeping (the episode's deal count, its
# action log, the all-pass count, the scratch deck and declaration list), what the bidding counts for its own
# legality (the legal actions come from the InfoState), the belote and declaration cells, and the result.
NOT_FROM_INFO = ("NDEALS", "LOGLEN", "REDEALS", "DECK", "STOCK", "PASSES", "CALLBITS", "SEAT_PASSES",
                 "BELOTE_CARDS", "BELOTE_EVENTS", "BELOTE_POINTS", "DECL_TEAM", "DECL_POINTS", "DECL_CARDS",
                 "DECL_LIST", "LAST_TRICK_SEAT", "R_SCORE", "R_OUTCOME", "R_GARDE_OUT", "DEAL_LOG_START")
_PHASE_CODES = {phase: code for code, phase in enumerate(_PHASES)}


def info_row(info: InfoState) -> np.ndarray:
    """The seat to act's knowledge in the engine's layout, from its rules-core :class:`InfoState`: the row
    :meth:`VectorEnv.info_rows` gives at the same position (int64[NUM_COLUMNS]), every cell but those of
    :data:`NOT_FROM_INFO`, which stay 0 (tested, every variant). The inverse of :meth:`VectorEnv.info_state`;
    it lets an agent's kernel (``Agent.act_rows``) decide on an ``InfoState`` too, as the heuristic's ``act``
    does. Raises ValueError for the information of a seat that is not to act."""
    if info.current_seat != info.seat:
        raise ValueError(f"info_row needs the InfoState of the seat to act; seat {info.seat} is not to act "
                         f"(current seat {info.current_seat})")
    L = _row_layout()
    r = [0] * L.NUM_COLUMNS
    seat = info.seat
    r[L.DEALER] = info.dealer
    r[L.GARDE] = info.garde
    r[L.SCORE], r[L.SCORE + 1] = info.scores
    r[L.PHASE] = _PHASE_CODES[info.phase]
    r[L.SEAT] = seat
    r[L.HAND + seat] = info.hand
    r[L.INITIAL + seat] = info.initial_hand
    r[L.TURNUP] = info.turnup
    r[L.NCALLS] = len(info.calls)
    r[L.HIGH] = info.high
    r[L.HIGH_SEAT] = info.high_seat
    r[L.LEVEL] = info.level
    c = info.contract
    if c is None:
        r[L.C_TAKER] = r[L.C_VINDEX] = -1
    else:
        r[L.C_TAKER], r[L.C_STRAIN], r[L.C_VALUE] = c.taker, c.strain, c.value
        r[L.C_VINDEX] = BID_VALUES.index(c.value) if c.value in BID_VALUES else 11 if c.value == 81 else -1
        r[L.C_KIND] = CONTRACT_KINDS.index(c.kind)
        r[L.C_LEVEL], r[L.C_CALLER] = c.level, c.caller
    r[L.LEADER], r[L.LED], r[L.WIN_CARD], r[L.WIN_SEAT] = info.leader, info.led, info.win_card, info.win_seat
    trick = info.trick
    r[L.TRICK:L.TRICK + len(trick)] = trick
    r[L.TRICK_LEN] = len(trick)
    r[L.NTRICKS] = len(info.tricks)
    for j, t in enumerate(info.tricks):
        b = L.TRICK_LOG + 7 * j
        r[b] = t.leader
        r[b + 1:b + 5] = t.cards
        r[b + 5] = t.winner
        r[b + 6] = t.points
    r[L.POINTS_WON:L.POINTS_WON + 2] = info.points
    r[L.TRICKS_WON:L.TRICKS_WON + 4] = info.tricks_won
    r[L.PLAYED:L.PLAYED + 4] = info.played
    words = 0
    for a in info.legal:
        words |= 1 << a
    lo = words & (2**64 - 1)
    r[L.LEGAL_LO] = lo - 2**64 if lo >> 63 else lo
    r[L.LEGAL_HI] = words >> 64
    return np.array(r, dtype=np.int64)


class VectorEnv:
    """N Belote tables on the numba kernels; see the module docstring.

    ``VectorEnv(variant="coinche", num_tables=1024, seed=0, reward="score_diff",
    episode="deal", *, parallel=False, **overrides)``: ``variant`` a shipped
    name, a YAML path or a :class:`Variant`; ``overrides`` any rule switch.
    ``seed`` is a non-negative int, or None for a seed drawn from the OS (kept
    in ``seed``). ``parallel=True`` shares the tables of each step among
    numba's threads (``numba.set_num_threads`` or ``NUMBA_NUM_THREADS`` set
    how many): faster on cores of its own, much slower when other processes
    compete for them (a step waits for its slowest thread), so it is off by
    default. The results do not depend on it: every table is stepped on its own.
    ``max_redeals`` (default 100, None: no limit): after that many all-pass
    deals in a row the episode ends, truncated, as in the AEC env.
    ``table_seeds``: one seed per table instead of ``seed * 2**32 + i`` (for
    duplicate pairs, two tables with the same seed deal the same cards);
    ``reset(seed)`` goes back to the derived seeds.
    """

    OUTCOMES = OUTCOMES
    CONTRACT_KINDS = CONTRACT_KINDS

    def __init__(
        self,
        variant: str | Variant = "coinche",
        num_tables: int = 1024,
        seed: int | None = 0,
        reward: str = "score_diff",
        episode: str = "deal",
        *,
        parallel: bool = False,
        table_seeds=None,
        max_redeals: int | None = DEFAULT_MAX_REDEALS,
        calls: str = "flat",
        **overrides,
    ):
        from .fast import kernels, layout
        from .fast.mt import STATE_SIZE
        from .fast.tables import reward_scale, variant_params

        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or not (
                1 <= num_tables <= MAX_TABLES):
            raise VectorEnvError(f"num_tables must be an int 1..{MAX_TABLES:,} (about 12 KB of memory a table), got "
                                 f"{short_repr(num_tables)}")
        if reward not in REWARD_KINDS:
            raise VectorEnvError(f"unknown reward {reward!r}; accepted: {', '.join(REWARD_KINDS)}")
        if calls not in CALLS:
            raise VectorEnvError(f"unknown calls {short_repr(calls)}; accepted: {', '.join(CALLS)}")
        self.variant: Variant = load_variant(variant, episode=episode, **overrides)
        self.num_tables = n = int(num_tables)
        self.reward_kind = reward
        self.parallel = bool(parallel)
        self._k = kernels
        self._L = layout  # the engine's row layout (belote_env.fast.layout)
        self.max_redeals = checked_max_redeals(max_redeals, VectorEnvError)
        self._params = variant_params(self.variant, reward, max_redeals)
        self._scale = float(reward_scale(self.variant))
        self._S = np.zeros((n, layout.NUM_COLUMNS), dtype=np.int64)
        self._MT = np.zeros((n, STATE_SIZE), dtype=np.uint32)
        self._MT0 = np.zeros_like(self._MT)
        self._log = np.zeros((n, 512), dtype=np.int8)
        self._no_final = np.full(n, -1, dtype=np.int64)  # step's final_seat: no final observations
        self._no_final_obs = np.zeros((1, OBS_SIZE), dtype=np.float32)
        self._ready = False
        self._log_full = False
        self.calls = calls
        self.factored = calls == "factored"
        if self.factored:  # each table's decision (belote_env.factored), and scratch space for the kernels
            self._stage = np.zeros(n, dtype=np.int64)
            self._strain = np.full(n, -1, dtype=np.int64)
            self._flat = np.zeros(NUM_ACTIONS, dtype=np.bool_)
            self._no_flat = np.zeros(n, dtype=np.bool_)
            self._every = np.arange(n, dtype=np.int64)
        self.obs_size = FACTORED_OBS_SIZE if self.factored else OBS_SIZE
        self.num_actions = NUM_FACTORED_ACTIONS if self.factored else NUM_ACTIONS
        self.single_observation_space = spaces.Box(0.0, np.inf, shape=(self.obs_size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.seed = None
        self._table_seeds = None if table_seeds is None else self._checked_seeds(table_seeds)
        self._seed_tables(seed)

    # --- seeding ---------------------------------------------------------------

    def _checked_seeds(self, table_seeds) -> list[int]:
        seeds = list(table_seeds)
        if len(seeds) != self.num_tables or any(
                isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0 for x in seeds):
            raise VectorEnvError(f"table_seeds must be {self.num_tables} non-negative ints, one per table")
        return [int(x) for x in seeds]

    @staticmethod
    def _checked_seed(seed) -> int:
        if seed is None:
            return random.SystemRandom().getrandbits(63)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise VectorEnvError(f"seed must be a non-negative int or None, got {short_repr(seed)}")
        return int(seed)

    def _seed_tables(self, seed) -> None:
        seed = self._checked_seed(seed)
        from .fast.mt import seeded_state

        self.seed = int(seed)
        for i in range(self.num_tables):
            self._MT[i] = seeded_state(self.table_seed(i))

    def table_seed(self, i: int) -> int:
        """The seed of table ``i``: its deals are those of ``GameState(variant, seed=table_seed(i))``."""
        if self._table_seeds is not None:
            return self._table_seeds[i]
        return table_seed(self.seed, i)

    # --- the API ---------------------------------------------------------------

    def reset(self, seed: int | None = None, table_seeds=None):
        """Start a new episode at every table. With ``seed``, every table is reseeded
        (table i from ``seed * 2**32 + i``); with ``table_seeds``, table i from
        ``table_seeds[i]``; without either, each continues its generator.
        Returns ``obs, mask, seat``."""
        if seed is not None and table_seeds is not None:
            raise VectorEnvError("reset takes seed or table_seeds, not both")
        if table_seeds is not None:
            self._table_seeds = self._checked_seeds(table_seeds)
            self._seed_tables(0)
        elif seed is not None:
            seed = self._checked_seed(seed)  # a refused seed changes nothing
            self._table_seeds = None
            self._seed_tables(seed)
        k = self._k
        k.reset_tables(self._params, self._S, self._MT, self._MT0)
        n = self.num_tables
        obs = np.empty((n, self.obs_size), dtype=np.float32)
        mask = np.empty((n, self.num_actions), dtype=np.bool_)
        seat = np.empty(n, dtype=np.int8)
        if self.factored:
            self._stage[:], self._strain[:] = WHAT, -1
            k.factored_observe(self._params, self._S, self._stage, self._strain, self._flat, obs, mask, seat)
        else:
            k.observe(self._params, self._S, obs, mask, seat)
        self._ready = True
        return obs, mask, seat

    def step(self, actions, flat=None):
        """One action per table; returns ``obs, mask, seat, rewards, done, info``. With ``calls="factored"``,
        ``flat`` (bool[N], optional) marks the tables whose action is a flat action (of a seat played by an agent
        of the flat space: the heuristic, a checkpoint), taken in one step at a table at its first decision."""
        if not self._ready:
            raise VectorEnvError("call reset() before step()")
        n = self.num_tables
        if self.factored:
            return self._factored_step(self._every, actions, None, flat, whole=True)[:6]
        if flat is not None:
            raise VectorEnvError('flat= is for calls="factored"; this VectorEnv takes flat actions only')
        a = self._checked_actions(actions, None)
        k = self._k
        if self._log_full:
            self._grow_log()
        obs, mask, seat, rewards, done, info = self._outputs(n)
        kernel = k.step_parallel if self.parallel else k.step
        longest = kernel(self._params, self._scale, self._S, self._MT, self._MT0, self._log, a,
                         obs, mask, seat, rewards, done, info, self._no_final, self._no_final_obs)
        self._log_full = longest >= self._log.shape[1]
        return obs, mask, seat, rewards, done, _info_dict(info)

    def step_tables(self, tables, actions, final_seats=None, flat=None):
        """Step only the tables ``tables`` (distinct; ``actions[j]`` at table ``tables[j]``): the others wait, as
        they are. Returns ``obs, mask, seat, rewards, done, info, final_obs`` of those tables, in the order given
        (``info`` as :meth:`step`'s). ``final_seats`` (one seat 0..3 per table, or -1): where an episode ends now,
        that seat's last observation of it (the AEC env's at the episode's end, which the engine replaces at once
        by the next episode's first) is put in ``final_obs`` (zeros elsewhere). Single-seat envs use this to keep
        a table waiting for its learner while the other tables' agents play."""
        if not self._ready:
            raise VectorEnvError("call reset() before step_tables()")
        t = _indices("tables", tables, self.num_tables)
        seen = np.zeros(self.num_tables, dtype=np.bool_)
        seen[t] = True
        if np.count_nonzero(seen) != len(t):
            raise VectorEnvError(f"tables must be distinct, got {short_repr(tables)}")
        a = None if self.factored else self._checked_actions(actions, t)
        m = len(t)
        if final_seats is None:
            seats = np.full(m, -1, dtype=np.int64)
        else:
            seats = np.asarray(final_seats)
            if seats.shape != (m,) or (m and (seats.dtype.kind not in "iu" or seats.min() < -1 or seats.max() > 3)):
                raise VectorEnvError(f"final_seats must be {m} seats 0..3 (or -1), one per table, got "
                                     f"{short_repr(final_seats)}")
            seats = np.ascontiguousarray(seats, dtype=np.int64)
        if self.factored:
            return self._factored_step(t, actions, seats if final_seats is not None else None, flat)
        if flat is not None:
            raise VectorEnvError('flat= is for calls="factored"; this VectorEnv takes flat actions only')
        if self._log_full:
            self._grow_log()
        obs, mask, seat, rewards, done, info = self._outputs(m)
        final_obs = np.zeros((m, OBS_SIZE), dtype=np.float32) if final_seats is not None else self._no_final_obs
        longest = self._k.step_tables(self._params, self._scale, self._S, self._MT, self._MT0, self._log, t, a,
                                      obs, mask, seat, rewards, done, info, seats, final_obs)
        self._log_full = longest >= self._log.shape[1]
        if final_seats is None:
            final_obs = np.zeros((m, OBS_SIZE), dtype=np.float32)
        return obs, mask, seat, rewards, done, _info_dict(info), final_obs

    def _factored_step(self, t: np.ndarray, choices, seats, flat=None, whole: bool = False):
        """:meth:`step_tables` in the factored action space (``choices[j]`` at table ``t[j]``, a flat action where
        ``flat[j]``); ``whole``: for :meth:`step` (every table, no final observations: ``final_obs`` is not
        made)."""
        m = len(t)
        if flat is None:
            flat_rows = self._no_flat if m == self.num_tables else np.zeros(m, dtype=np.bool_)
        else:
            flat_rows = np.asarray(flat)
            if flat_rows.shape != (m,) or flat_rows.dtype != np.bool_:
                raise VectorEnvError(f"flat must be {m} bools, one per table, got {short_repr(flat)}")
        c, bad = self._action_ids(choices, m)
        if bad >= 0:
            raise VectorEnvError(f"actions[{bad}] is {type(choices[bad]).__name__} {short_repr(choices[bad])}, not a "
                                 f"factored choice (an int 0..{NUM_FACTORED_ACTIONS - 1}); no table was changed")
        k = self._k
        obs, mask, seat, rewards, done, info = self._outputs(m)
        resolved = np.empty((m, 3), dtype=np.int64)
        bad = k.factored_resolve(self._S, t, self._stage, self._strain, c, flat_rows, self._flat, mask, resolved)
        if bad >= 0 and flat_rows[bad]:
            if self._stage[t[bad]] != WHAT:
                raise VectorEnvError(f"a flat action at table {int(t[bad])}, whose seat is deciding a factored call "
                                     "(flat actions are for tables at their first decision); no table was changed")
            self._illegal(int(t[bad]), int(c[bad]))
        if bad >= 0:
            self._illegal_choice(int(t[bad]), int(c[bad]))
        if self._log_full:
            self._grow_log()
        final_seats = self._no_final if seats is None else seats
        final_obs = self._no_final_obs if seats is None else np.zeros((m, self.obs_size), dtype=np.float32)
        longest = k.factored_step_tables(self._params, self._scale, self._S, self._MT, self._MT0, self._log, t,
                                         self._stage, self._strain, resolved, self._flat, obs, mask, seat, rewards,
                                         done, info, final_seats, final_obs)
        self._log_full = longest >= self._log.shape[1]
        if seats is not None:  # an episode's last observation: its seat was at the first decision
            final_obs[done & (seats >= 0), OBS_SIZE + WHAT] = 1.0
        elif not whole:
            final_obs = np.zeros((m, self.obs_size), dtype=np.float32)
        return obs, mask, seat, rewards, done, _info_dict(info), final_obs

    def _illegal_choice(self, t: int, choice: int) -> None:
        seat = int(self._S[t, self._L.SEAT])
        phase = _PHASES[int(self._S[t, self._L.PHASE])]
        options = np.zeros(NUM_FACTORED_ACTIONS, dtype=bool)
        decide(self.flat_masks([t])[0], int(self._stage[t]), int(self._strain[t]), -1, options)
        legal = np.flatnonzero(options).tolist()
        shown = (f"{FACTORED_NAMES[choice]!r} (id {choice})" if 0 <= choice < NUM_FACTORED_ACTIONS
                 else f"{choice} (out of range 0..{NUM_FACTORED_ACTIONS - 1})")
        stage = ("what", "strain", "level")[int(self._stage[t])]
        raise VectorIllegalActionError(
            f"illegal factored choice {shown} at table {t} by seat {seat} in phase {phase}, deciding the {stage}; "
            f"legal: {', '.join(FACTORED_NAMES[x] for x in legal)}. No table was changed.",
            t, choice, seat, phase, legal,
        )

    def flat_masks(self, tables=None) -> np.ndarray:
        """bool[k, 112]: the legal flat actions of the seat to act at tables ``tables`` (default: all), the mask
        :meth:`step` returns with ``calls="flat"``. With ``calls="factored"``: what a flat policy (a teacher, a
        rule-based agent) chooses from; ``belote_env.factored.factor`` turns its choice into factored ones."""
        if not self._ready:
            raise VectorEnvError("call reset() before flat_masks()")
        L = self._L
        rows = self._S if tables is None else self._S[_indices("tables", tables, self.num_tables)]
        words = np.ascontiguousarray(rows[:, [L.LEGAL_LO, L.LEGAL_HI]]).view(np.uint8)  # little-endian bytes
        return np.unpackbits(words, axis=1, bitorder="little")[:, :NUM_ACTIONS].astype(bool)

    def decisions(self) -> tuple[np.ndarray, np.ndarray]:
        """With ``calls="factored"``: ``(stage, strain)``, int64[N] copies: the decision each table's seat to act
        is at (``belote_env.factored.WHAT``, ``CHOOSE_STRAIN``, ``CHOOSE_LEVEL``) and the strain it chose
        (-1 before); the observation's last cells say the same."""
        if not self.factored:
            raise VectorEnvError('decisions() is for calls="factored"; this VectorEnv takes flat actions')
        return self._stage.copy(), self._strain.copy()

    def engine_arrays(self) -> tuple:
        """``(params, scale, S, MT, MT0, LOG)``: the engine's own arrays (not copies), for kernels of agents
        that play tables themselves without a Python step per action (``agents.heuristic.kernels.play_to_learner``
        through ``belote_env.fast.kernels.apply_step``, which keeps the engine's invariants). Call
        :meth:`reserve_log` first: it may replace ``LOG``."""
        if not self._ready:
            raise VectorEnvError("call reset() before engine_arrays()")
        return self._params, self._scale, self._S, self._MT, self._MT0, self._log

    def reserve_log(self, actions: int) -> None:
        """Make room in the action log for ``actions`` more actions at every table."""
        longest = int(self._S[:, self._L.LOGLEN].max()) if self.num_tables else 0
        while longest + actions >= self._log.shape[1]:
            self._grow_log()
        self._log_full = False

    def _outputs(self, n: int):
        L = self._L
        return (np.empty((n, self.obs_size), dtype=np.float32), np.empty((n, self.num_actions), dtype=np.bool_),
                np.empty(n, dtype=np.int8), np.zeros((n, 4), dtype=np.float32), np.zeros(n, dtype=np.bool_),
                np.full((n, L.NUM_INFO), -1, dtype=np.int64))

    def checked_actions(self, actions) -> np.ndarray:
        """``actions`` (one per table) as a contiguous int64 array, each legal at its table, or the error
        :meth:`step` raises (nothing changed): for kernels that apply actions themselves
        (:meth:`engine_arrays`)."""
        if not self._ready:
            raise VectorEnvError("call reset() before checked_actions()")
        return self._checked_actions(actions, None)

    @staticmethod
    def _action_ids(actions, m: int) -> tuple[np.ndarray, int]:
        """:func:`action_array` of ``actions``, one per table of ``m``, or the VectorEnvError of what is not."""
        try:
            a, bad = action_array(actions)
        except ValueError as e:
            raise VectorEnvError(f"actions must be one int per table ({m}): {e}") from None
        if a.shape != (m,):
            raise VectorEnvError(f"actions must have shape ({m},), one per table; got {len(a)} actions")
        return a, bad

    def _checked_actions(self, actions, tables: np.ndarray | None) -> np.ndarray:
        """``actions`` (one per table of ``tables``; None: every table) as int64, each a legal action there, or
        the error (nothing changed): VectorEnvError for what is not an action id, VectorIllegalActionError
        naming the table."""
        a, bad = self._action_ids(actions, self.num_tables if tables is None else len(tables))
        if bad < 0:
            bad = self._k.check_actions(self._S if tables is None else self._S[tables], a)
            given = int(a[bad]) if bad >= 0 else None
        else:
            given = actions[bad]
            if action_id(given) is None:
                raise VectorEnvError(f"actions[{bad}] is {type(given).__name__} {short_repr(given)}, not an action id "
                                     f"(an int 0..{NUM_ACTIONS - 1}); no table was changed")
        if bad >= 0:  # an illegal action, or an integer beyond int64
            self._illegal(bad if tables is None else int(tables[bad]), int(given))
        return a

    def _grow_log(self) -> None:
        log = np.zeros((self.num_tables, 2 * self._log.shape[1]), dtype=np.int8)
        log[:, :self._log.shape[1]] = self._log
        self._log = log

    def _illegal(self, t: int, action: int) -> None:
        L = self._L
        row = self._S[t]
        seat = int(row[L.SEAT])
        phase = _PHASES[int(row[L.PHASE])]
        legal = self._legal_list(t)
        shown = f"{ACTION_NAMES[action]!r} (id {action})" if 0 <= action < NUM_ACTIONS else f"{action} (out of range 0..{NUM_ACTIONS - 1})"
        names = ", ".join(ACTION_NAMES[x] for x in legal)
        raise VectorIllegalActionError(
            f"illegal action {shown} at table {t} by seat {seat} in phase {phase}; legal: {names}. "
            "No table was changed.",
            t, action, seat, phase, legal,
        )

    def observations(self, tables, seats) -> np.ndarray:
        """float32[k, 853]: the observation of seat ``seats[j]`` at table ``tables[j]``, any seat
        (``encode(state(t), s)``; used to bootstrap the value of a seat that is not to act)."""
        if not self._ready:
            raise VectorEnvError("call reset() before observations()")
        t = _indices("tables", tables, self.num_tables)
        s = _indices("seats", seats, 4)
        if t.shape != s.shape:
            raise VectorEnvError(f"tables and seats must have the same length, got {t.shape[0]} and {s.shape[0]}")
        out = np.empty((len(t), self.obs_size), dtype=np.float32)
        self._k.observe_seats(self._params, self._S, t, s, out)
        if self.factored:  # the seat to act at its decision, the others at the first one
            acting = self._S[t, self._L.SEAT] == s
            out[:, OBS_SIZE:] = stage_cells(np.where(acting, self._stage[t], WHAT),
                                            np.where(acting, self._strain[t], -1))
        return out

    def hands(self, tables=None) -> np.ndarray:
        """int64[k, 4]: the cards each seat holds now at tables ``tables`` (default: all), as card masks
        (bit ``c`` = card id ``c``, as ``state(t).deal.hands``). Hidden information: for training-time
        critics (``train.py --central-critic``), never for an agent's decision."""
        if not self._ready:
            raise VectorEnvError("call reset() before hands()")
        L = self._L
        if tables is None:
            return self._S[:, L.HAND:L.HAND + 4].copy()
        t = _indices("tables", tables, self.num_tables)
        return self._S[t, L.HAND:L.HAND + 4]

    # --- replay on the rules core ----------------------------------------------

    def state(self, i: int) -> GameState:
        """Table ``i`` as a rules-core :class:`GameState`, rebuilt by replaying its episode
        (results of earlier deals included) from the generator state at the episode's start."""
        i = _index("table", i, self.num_tables)
        if not self._ready:
            raise VectorEnvError("call reset() before state()")
        from .fast.mt import random_from

        L = self._L
        game = GameState(self.variant, rng=random_from(self._MT0[i]))
        for a in self._log[i, :self._S[i, L.LOGLEN]]:
            game.apply(int(a))
        if game.current_seat != self._S[i, L.SEAT]:
            raise RuntimeError(f"table {i}: the replay on the rules core disagrees with the kernels; please report it")
        return game

    def info_state(self, i: int, seat: int | None = None) -> InfoState:
        """What ``seat`` (default: the seat to act) knows at table ``i``, as a rules-core
        :class:`~belote_env.rules.info.InfoState`, built from the kernels' state (equal to
        ``state(i).info_state(seat)``, tested, without replaying the episode)."""
        L = self._L
        i = _index("table", i, self.num_tables)
        seat = None if seat is None else _index("seat", seat, 4)
        if not self._ready:
            raise VectorEnvError("call reset() before info_state()")
        row = self._S[i].tolist()
        if seat is None:
            seat = row[L.SEAT]
        phase = _PHASES[row[L.PHASE]]
        current = -1 if phase == "done" else row[L.SEAT]
        start, ncalls, dealer = row[L.DEAL_LOG_START], row[L.NCALLS], row[L.DEALER]
        calls = tuple(((dealer + 1 + j) & 3, int(a)) for j, a in enumerate(self._log[i, start:start + ncalls]))
        contract = None
        if row[L.C_TAKER] >= 0:
            contract = Contract(row[L.C_TAKER], row[L.C_STRAIN], row[L.C_VALUE], CONTRACT_KINDS[row[L.C_KIND]],
                                row[L.C_LEVEL], row[L.C_CALLER])
        tricks = []
        for j in range(row[L.NTRICKS]):
            b = L.TRICK_LOG + 7 * j
            tricks.append(Trick(row[b], tuple(row[b + 1:b + 5]), row[b + 5], row[b + 6]))
        trick = tuple(row[L.TRICK:L.TRICK + row[L.TRICK_LEN]])
        played = tuple(row[L.PLAYED:L.PLAYED + 4])
        # Belote events in play order (DealState._play): a card of a seat's K+Q of trump.
        events = []
        if any(row[L.BELOTE_CARDS:L.BELOTE_CARDS + 4]):
            seen = [0, 0, 0, 0]
            order = [(t.leader, t.cards) for t in tricks] + ([(row[L.LEADER], trick)] if trick else [])
            for leader, cards in order:
                for j, card in enumerate(cards):
                    s = (leader + j) & 3
                    seen[s] |= 1 << card
                    mine = row[L.BELOTE_CARDS + s]
                    if mine >> card & 1:
                        pair = mine & (0xFF << (card & ~7))
                        events.append(BeloteEvent(s, card, "rebelote" if seen[s] & pair == pair else "belote"))
        decls = ()
        team = row[L.DECL_TEAM]
        if team >= 0 and tricks:
            decls = tuple(d for s in range(4) if s & 1 == team
                          for d in hand_declarations(s, row[L.HAND + s] | row[L.PLAYED + s]))
        legal = tuple(self._legal_list(i)) if current == seat else ()
        return InfoState(
            self.variant, seat, row[L.HAND + seat], row[L.INITIAL + seat], dealer, row[L.TURNUP], phase, current,
            calls, row[L.HIGH], row[L.HIGH_SEAT], row[L.LEVEL], contract, tuple(tricks), trick, row[L.LEADER],
            row[L.LED], row[L.WIN_CARD], row[L.WIN_SEAT], played, (row[L.POINTS_WON], row[L.POINTS_WON + 1]),
            tuple(row[L.TRICKS_WON:L.TRICKS_WON + 4]), tuple(events), decls, legal, row[L.GARDE],
            (row[L.SCORE], row[L.SCORE + 1]), self.variant.target,
        )

    def info_rows(self, tables) -> np.ndarray:
        """What the seat to act knows at each of ``tables``, in the engine's own layout: int64
        ``[len(tables), NUM_COLUMNS]`` copies of the tables' rows with every hidden card cleared (other
        seats' hands, the stock, declarations not yet public; ``belote_env.fast.kernels.info_rows``).
        The input of kernel copies of rule-based agents (``Agent.act_rows``), which then cannot read another
        seat's cards either; :meth:`info_state` is the same knowledge as a rules-core record."""
        if not self._ready:
            raise VectorEnvError("call reset() before info_rows()")
        t = _indices("tables", tables, self.num_tables)
        out = np.empty((len(t), self._S.shape[1]), dtype=np.int64)
        self._k.info_rows(self._S, t, out)
        return out

    @property
    def params(self) -> np.ndarray:
        """The variant's switches as the kernels read them (``belote_env.fast.tables.variant_params``; a copy)."""
        return self._params.copy()

    def _legal_list(self, t: int) -> list[int]:
        """The legal actions of table ``t``'s seat to act, ascending, from the kernels' bit words."""
        L = self._L
        words = (int(self._S[t, L.LEGAL_HI]) << 64) | (int(self._S[t, L.LEGAL_LO]) & (2**64 - 1))
        out = []
        while words:  # lowest set bit first
            low = words & -words
            out.append(low.bit_length() - 1)
            words ^= low
        return out


def _info_dict(info: np.ndarray) -> dict:
    out = {key: info[:, cols] for key, cols in _INFO_KEYS}
    out["truncated"] = out["truncated"] == 1
    return out


__all__ = ["MAX_TABLES", "VectorEnv", "VectorEnvError", "VectorIllegalActionError", "table_seed", "SEED_STRIDE"]
