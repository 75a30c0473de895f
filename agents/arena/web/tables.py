"""Live tables of the web app: a human and three agents (*play*) or four agents (*watch*), on the AEC env.

A :class:`Table` plays on :class:`belote_env.aec.raw_env` (the rules core, the same observations, masks and
``InfoState`` the agents see everywhere else). Every action gives a *frame*: the table as its viewer sees it
(:func:`belote_env.render.table_view`; the human's seat in *play*, every hand in *watch*) with the action that led
to it and what the agent attached to its decision (a policy's probabilities and value). When a deal ends the
table pauses on it (its hands as dealt revealed) until :meth:`Table.next` deals the next one, or starts the next
episode from the table's next seed. Finished deals are kept as deal records (:mod:`belote_env.rules.record`).

:class:`TableStore` keeps the tables of every browser session, bounded: at most ``max_tables`` in all and
``per_session`` per session (the least recently used goes first), and tables idle for ``idle_s`` expire.
"""

from __future__ import annotations

import secrets
import threading
import time

from agents.base import Agent
from agents.errors import AgentSpecError
from agents.registry import make_agent
from belote_env.aec import AGENTS, raw_env
from belote_env.render import move_text, table_view
from belote_env.rules.actions import ACTION_NAMES, NUM_ACTIONS, action_id
from belote_env.rules.errors import BeloteError
from belote_env.rules.record import deal_record
from belote_env.rules.variant import short_repr

MAX_STEPS = 512  # actions one request may advance (a whole game of agents' moves goes by pages of this many)
# Agents' thinking one step request may cost: the moves stop once this much time has gone (after at least one), so
# that no request (n=512 moves of a search agent) holds a server thread for long; the page asks for more.
MAX_STEP_SECONDS = 1.0
MAX_RECORDS = 200  # finished deals a table keeps as records (the oldest go first)


class TableError(BeloteError):
    """A request a table refuses (an illegal move, a move out of turn, a bad argument): the table is unchanged."""


class Table:
    """One table. ``agents[s]`` plays seat ``s`` (an :class:`Agent`), None at the human's seat (at most one)."""

    def __init__(self, variant: str, agents: list[Agent | None], specs: list[str | None], seed: int,
                 episode: str = "deal", max_redeals: int = 100):
        humans = [s for s, a in enumerate(agents) if a is None]
        if len(agents) != 4 or len(humans) > 1:
            raise TableError("a table has four seats and at most one human")
        self.human = humans[0] if humans else None
        self.agents, self.specs = agents, specs
        self.seed = seed
        self.episodes = 0
        self.env = raw_env(variant, max_redeals=max_redeals, episode=episode)
        self.lock = threading.Lock()
        self.records: list[dict] = []
        self.touched = time.monotonic()
        self._start()

    # --- what the page reads ------------------------------------------------

    def frame(self, event: dict | None = None) -> dict:
        """The table now, as the viewer sees it; ``event``: the action that led here."""
        view = table_view(self.deal, self.human, self.env.game)
        if self.deal.phase == "done" and self.env.truncations[AGENTS[0]]:
            view["truncated"] = True
        view["paused"] = self.paused
        view["over"] = self.paused and self._episode_over()
        view["event"] = event
        return view

    def summary(self) -> dict:
        return {"human": self.human, "seats": self.specs, "seed": self.seed, "episodes": self.episodes + 1,
                "variant": self.env.variant.name, "episode": self.env.variant.episode,
                "deals_recorded": len(self.records)}

    # --- moves ----------------------------------------------------------------

    def open(self) -> list[dict]:
        """The first frames of a new table: the deal, then the agents' moves up to the human's turn."""
        frames = [self.frame()]
        if self.human is not None:
            frames += self.advance(MAX_STEPS)
        return frames

    def act(self, action) -> list[dict]:
        """The human's move (an action id or name), then the agents' moves until the human is to act again or the
        deal ends; one frame per action. An illegal move or a move out of turn raises TableError, nothing
        changed."""
        if self.human is None:
            raise TableError("nobody plays at this table: it is watched (use step)")
        if self.paused:
            raise TableError("the deal is over: ask for the next deal")
        if self.deal.seat != self.human:
            raise TableError(f"it is seat {self.deal.seat}'s turn, not yours")
        a = parse_move(action)
        legal = self.deal.legal_actions()
        if a not in legal:
            raise TableError(f"{ACTION_NAMES[a]} is not legal now; legal: {', '.join(ACTION_NAMES[x] for x in legal)}")
        frames = [self._apply(a, None)]
        frames += self.advance(MAX_STEPS)
        return frames

    def advance(self, limit: int, seconds: float | None = None) -> list[dict]:
        """Agents' moves, at most ``limit`` of them, until the human is to act or the deal ends; with ``seconds``,
        no move starts once that much time has gone (the first always does)."""
        frames = []
        stop = None if seconds is None else time.monotonic() + seconds
        while len(frames) < limit and not self.paused and self.deal.seat != self.human:
            if frames and stop is not None and time.monotonic() >= stop:
                break
            frames.append(self._agent_move())
        return frames

    def step(self, n: int) -> list[dict]:
        """Up to ``n`` agents' moves at a watched table (the deal's end stops it), and fewer when they take more
        than MAX_STEP_SECONDS (search agents): the caller asks again for the rest."""
        if self.human is not None:
            raise TableError("this table is played: its agents move after your moves (use act)")
        if self.paused:
            raise TableError("the deal is over: ask for the next deal")
        return self.advance(n, MAX_STEP_SECONDS)

    def next(self) -> list[dict]:
        """After a deal's end: the next deal of the episode, or the next episode (the table's next seed); then the
        agents' moves up to the human's turn."""
        if not self.paused:
            raise TableError("the deal is still being played")
        if self._episode_over():
            self.episodes += 1
            self._start()
        else:
            self.deal = self.env.game.deal
            self.paused = False
        return self.open()

    # --- internals --------------------------------------------------------------

    def _start(self) -> None:
        seed = self.seed + self.episodes
        for k, agent in enumerate(self.agents):
            if agent is not None:
                agent.reset(seed * 5 + k + 1)
        self.env.reset(seed=seed)
        self.deal = self.env.game.deal
        self.paused = False
        self._extras: list = []

    def _episode_over(self) -> bool:
        env = self.env
        return env.terminations[AGENTS[0]] or env.truncations[AGENTS[0]]

    def _agent_move(self) -> dict:
        env = self.env
        seat = self.deal.seat
        name = AGENTS[seat]
        agent = self.agents[seat]
        obs = env.observe(name)
        info = env.infos[name].get("info_state")
        given = agent.act(obs["observation"], obs["action_mask"], info)
        a = action_id(given)  # the rules core's reading of any agent's answer
        if a is None or not (0 <= a < NUM_ACTIONS and obs["action_mask"][a]):
            what = "not an action id (an int)" if a is None else "which is not legal there"
            raise TableError(f"agent {self.specs[seat]!r} at seat {seat} returned {short_repr(given)}, {what}; "
                             "nothing was applied")
        got = agent.decision_extras(obs["observation"][None], obs["action_mask"][None], [info], [a])
        return self._apply(a, got[0] if got else None)

    def _apply(self, a: int, extra: dict | None) -> dict:
        seat = self.deal.seat
        deal = self.deal
        self.env.step(a)
        self._extras.append(extra)
        if deal.phase == "done":  # the deal ended on this action (the game may have dealt the next one)
            self.paused = True
            attached = self._extras if any(x is not None for x in self._extras) else None
            self.records.append(deal_record(deal, attached, meta={"seats": self.specs, "seed": self.seed,
                                                                  "episode": self.episodes}))
            del self.records[:-MAX_RECORDS]
            self._extras = []
        event = {"seat": seat, "action": ACTION_NAMES[a], "text": move_text(a), "extras": extra}
        return self.frame(event)


def parse_move(action) -> int:
    """An action id (an int, not a bool) or an action's name (``"JH"``, ``"100 H"``, ``"pass"``)."""
    from belote_env.rules.actions import parse_action
    from belote_env.rules.errors import NotationError

    if isinstance(action, bool) or not isinstance(action, (int, str)):
        raise TableError(f"a move is an action id or an action's name, got {type(action).__name__}")
    if isinstance(action, int):
        if not 0 <= action < NUM_ACTIONS:
            raise TableError(f"action id {action} is out of range 0..{NUM_ACTIONS - 1}")
        return action
    if len(action) > 32:
        raise TableError("a move's name is at most 32 characters")
    try:
        return parse_action(action)
    except NotationError as e:
        raise TableError(str(e)) from None


class TableStore:
    """The tables of every session, bounded in number and expiring when idle."""

    def __init__(self, max_tables: int = 64, per_session: int = 4, idle_s: float = 1800.0, clock=time.monotonic):
        self.max_tables, self.per_session, self.idle_s, self.clock = max_tables, per_session, idle_s, clock
        self.sessions: dict[str, dict[str, Table]] = {}  # session -> table id -> table
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return sum(len(tables) for tables in self.sessions.values())

    def add(self, session: str, table: Table) -> str:
        """Keep ``table`` for ``session``; returns its id. The session's least recently used table goes when it
        has ``per_session``, the store's when it has ``max_tables``."""
        with self.lock:
            self.expire()
            mine = self.sessions.setdefault(session, {})
            if len(mine) >= self.per_session:
                self._drop(session, min(mine, key=lambda k: mine[k].touched))
            while len(self) >= self.max_tables:
                owner, key = min(((s, k) for s, tables in self.sessions.items() for k in tables),
                                 key=lambda sk: self.sessions[sk[0]][sk[1]].touched)
                self._drop(owner, key)
            key = secrets.token_hex(8)
            table.touched = self.clock()
            mine[key] = table
            return key

    def get(self, session: str, key: str) -> Table | None:
        """The table ``key`` of ``session`` (None if it is not this session's, or expired)."""
        with self.lock:
            self.expire()
            table = self.sessions.get(session, {}).get(key)
            if table is not None:
                table.touched = self.clock()
            return table

    def remove(self, session: str, key: str) -> bool:
        with self.lock:
            if key not in self.sessions.get(session, {}):
                return False
            self._drop(session, key)
            return True

    def expire(self) -> None:
        now = self.clock()
        for session, tables in list(self.sessions.items()):
            for key, table in list(tables.items()):
                if now - table.touched > self.idle_s:
                    self._drop(session, key)

    def _drop(self, session: str, key: str) -> None:
        tables = self.sessions[session]
        del tables[key]
        if not tables:
            del self.sessions[session]


def build_agents(specs: list[str | None], allowed: set[str]) -> list[Agent | None]:
    """Agents for the seats (None: the human's seat); a spec must be one of ``allowed`` (the registered names and
    the specs given on the server's command line: the page never names a file or a module)."""
    out = []
    for s, spec in enumerate(specs):
        if spec is None:
            out.append(None)
            continue
        if spec not in allowed:
            raise TableError(f"unknown agent {spec[:40]!r} at seat {s}; available: {', '.join(sorted(allowed))}")
        try:
            out.append(make_agent(spec))
        except (AgentSpecError, ImportError, ValueError) as e:
            raise TableError(f"agent {spec!r} cannot be built here: {str(e).splitlines()[0]}") from None
    return out


__all__ = ["MAX_STEP_SECONDS", "MAX_STEPS", "Table", "TableError", "TableStore", "build_agents", "parse_move"]
