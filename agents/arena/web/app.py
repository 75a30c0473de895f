"""The web app's HTTP interface: a Starlette application (:func:`create_app`), served by uvicorn.

Endpoints (JSON in, JSON out; an error is a 4xx with ``{"error": "one line"}`` of at most ``MAX_ERROR``
characters, never a traceback; a fault of the server a 500 with one line, the connection kept):

=======  ==================================  ===============================================================
GET      ``/``                               the page (``static/index.html``); ``/static/...`` its assets
GET      ``/api/options``                    variants, agent specs the page may seat, whether records are served
POST     ``/api/tables``                     a new table: ``{"mode": "play", "variant", "seat", "partner",
                                             "opponents", "seed", "episode"}`` or ``{"mode": "watch", "variant",
                                             "seats": [4 specs], "seed", "episode"}``; returns its id and frames
GET      ``/api/tables/{id}``                the table now (one frame)
POST     ``/api/tables/{id}/act``            the human's move ``{"action": id or name}``, then the agents' moves
POST     ``/api/tables/{id}/step``           ``{"n": 1..512}`` agents' moves at a watched table (fewer once
                                             ``MAX_STEP_SECONDS`` of agents' time have gone)
POST     ``/api/tables/{id}/next``           the next deal (or episode) after a deal's end
GET      ``/api/tables/{id}/records``        the table's finished deals as deal records (JSON lines)
DELETE   ``/api/tables/{id}``                close the table
GET      ``/api/records``                    the record files the server was given
GET      ``/api/records/deals?file=KEY``     one line per deal of a file
GET      ``/api/records/deal?file=KEY&index=K``  a deal replayed: one frame per action, and its duplicate twin
=======  ==================================  ===============================================================

Tables belong to the browser session that opened them (a cookie); another session's table id is a 404.
"""

from __future__ import annotations

import json
import logging
import secrets
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.arena.web.records import RecordError, RecordLibrary
from agents.arena.web.tables import MAX_STEPS, Table, TableError, TableStore, build_agents
from agents.registry import agent_names
from belote_env.rules.record import record_line
from belote_env.variants import variant_names

COOKIE = "belote_session"
MAX_BODY = 16 << 10  # bytes of a request body
MAX_SEED = 2**63 - 1
log = logging.getLogger("belote_env.web")


class BadRequest(ValueError):
    """A request refused with a 4xx and its one-line reason."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def static_dir() -> Path:
    return Path(str(resources.files("agents.arena.web") / "static"))


def create_app(records: list[str | Path] | None = None, agents: list[str] | None = None,
               store: TableStore | None = None) -> Starlette:
    """The app. ``records``: folders (or files) of deal records it may show; ``agents``: agent specs the page may
    seat besides the registered names (checkpoint paths, ``module:factory``: only the command line names
    those); ``store``: where tables live (bounds and expiry)."""
    library = RecordLibrary(records) if records else None
    store = store if store is not None else TableStore()
    allowed = [n for n in agent_names() if n not in ("openspiel",)] + [a for a in (agents or [])]
    allowed_set = set(allowed)

    def session_of(request: Request) -> str:
        return request.state.session

    def table_of(request: Request) -> tuple[str, Table]:
        key = request.path_params["key"]
        table = store.get(session_of(request), key)
        if table is None:
            raise BadRequest(f"no table {key[:40]!r} in this session (tables expire when idle: open a new one)", 404)
        return key, table

    async def locked(table: Table, fn, *args):
        def run():
            with table.lock:
                return fn(*args)
        return await run_in_threadpool(run)

    def reply(key: str, table: Table, frames: list[dict]) -> dict:
        return {"table": key, **table.summary(), "frames": frames}

    async def index(request: Request) -> Response:
        return FileResponse(static_dir() / "index.html", media_type="text/html")

    async def options(request: Request) -> dict:
        return {"variants": variant_names(), "agents": allowed, "records": library is not None,
                "max_steps": MAX_STEPS}

    async def new_table(request: Request) -> dict:
        body = await read_json(request)
        mode = choice(body, "mode", ("play", "watch"), "play")
        variant = choice(body, "variant", tuple(variant_names()), "coinche")
        episode = choice(body, "episode", ("deal", "game"), "deal")
        seed = integer(body, "seed", 0, MAX_SEED, None)
        if seed is None:
            seed = secrets.randbelow(10**9)
        if mode == "play":
            known(body, {"mode", "variant", "episode", "seed", "seat", "partner", "opponents"})
            seat = integer(body, "seat", 0, 3, 0)
            partner = choice(body, "partner", allowed, "heuristic" if "heuristic" in allowed_set else allowed[0])
            opponents = choice(body, "opponents", allowed, partner)
            specs = [None if s == seat else partner if (s ^ seat) == 2 else opponents for s in range(4)]
        else:
            known(body, {"mode", "variant", "episode", "seed", "seats"})
            specs = body.get("seats", ["heuristic"] * 4)
            if not isinstance(specs, list) or len(specs) != 4 or not all(isinstance(s, str) for s in specs):
                raise BadRequest("'seats' must be a list of 4 agent specs")

        def build():
            table = Table(variant, build_agents(specs, allowed_set), specs, seed=seed, episode=episode)
            return table, table.open()
        table, frames = await run_in_threadpool(build)
        key = store.add(session_of(request), table)
        return reply(key, table, frames)

    async def get_table(request: Request) -> dict:
        key, table = table_of(request)
        return reply(key, table, [await locked(table, table.frame)])

    async def act(request: Request) -> dict:
        key, table = table_of(request)
        body = await read_json(request)
        known(body, {"action"})
        if "action" not in body:
            raise BadRequest("the request has no 'action' (an action id or name)")
        return reply(key, table, await locked(table, table.act, body["action"]))

    async def step(request: Request) -> dict:
        key, table = table_of(request)
        body = await read_json(request)
        known(body, {"n"})
        n = integer(body, "n", 1, MAX_STEPS, 1)
        return reply(key, table, await locked(table, table.step, n))

    async def next_deal(request: Request) -> dict:
        key, table = table_of(request)
        await read_json(request)
        return reply(key, table, await locked(table, table.next))

    async def table_records(request: Request) -> Response:
        key, table = table_of(request)
        text = "".join(record_line(r) for r in table.records)
        return Response(text, media_type="application/x-ndjson",
                        headers={"content-disposition": f'attachment; filename="table-{key}.jsonl"'})

    async def close_table(request: Request) -> dict:
        key = request.path_params["key"]
        if not store.remove(session_of(request), key):
            raise BadRequest(f"no table {key[:40]!r} in this session", 404)
        return {"closed": key}

    def need_library() -> RecordLibrary:
        if library is None:
            raise BadRequest("this server shows no records: start it with --records DIR", 404)
        return library

    async def record_files(request: Request) -> dict:
        return {"files": library.listing() if library is not None else []}

    async def record_deals(request: Request) -> dict:
        lib = need_library()
        key = query(request, "file")
        return {"file": key, "deals": await run_in_threadpool(lib.summaries, key)}

    async def record_deal(request: Request) -> dict:
        lib = need_library()
        key = query(request, "file")
        index = query(request, "index")
        if not (index.isascii() and index.isdigit() and len(index) <= 9):
            raise BadRequest(f"'index' must be a deal number, got {index[:20]!r}")
        return await run_in_threadpool(lib.deal, key, int(index))

    routes = [
        Route("/", index),
        Route("/api/options", api(options)),
        Route("/api/tables", api(new_table), methods=["POST"]),
        Route("/api/tables/{key}", api(get_table), methods=["GET"]),
        Route("/api/tables/{key}", api(close_table), methods=["DELETE"]),
        Route("/api/tables/{key}/act", api(act), methods=["POST"]),
        Route("/api/tables/{key}/step", api(step), methods=["POST"]),
        Route("/api/tables/{key}/next", api(next_deal), methods=["POST"]),
        Route("/api/tables/{key}/records", api(table_records)),
        Route("/api/records", api(record_files)),
        Route("/api/records/deals", api(record_deals)),
        Route("/api/records/deal", api(record_deal)),
        Mount("/static", StaticFiles(directory=static_dir()), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(Sessions)],
                    exception_handlers={HTTPException: http_error, Exception: server_error})
    app.state.store = store
    app.state.library = library
    return app


class Sessions:
    """Each browser gets a random session token in a cookie; tables belong to the session that opened them.
    (A plain ASGI middleware: Starlette's BaseHTTPMiddleware costs a millisecond a request.)"""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = Request(scope).cookies.get(COOKIE, "")
        fresh = not (16 <= len(token) <= 64 and token.isascii() and token.isalnum())
        session = secrets.token_hex(16) if fresh else token
        scope.setdefault("state", {})["session"] = session

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if fresh:
                    headers.append("set-cookie", f"{COOKIE}={session}; HttpOnly; Path=/; SameSite=strict")
                headers.setdefault("cache-control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class JSON(JSONResponse):
    """JSON in ASCII: any string a record holds (a lone surrogate included) goes out as an escape, never as an
    encoding error."""

    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def api(handler):
    """A JSON endpoint: the handler's dict as JSON; BadRequest, TableError and RecordError as a 4xx with one line.
    Anything else is a 500 with one line, logged with its traceback, answered here (not re-raised to the server,
    which would close the connection)."""
    async def endpoint(request: Request) -> Response:
        try:
            out = await handler(request)
            return out if isinstance(out, Response) else JSON(out)
        except BadRequest as e:
            return error(str(e), e.status)
        except (TableError, RecordError) as e:
            return error(str(e), 400)
        except ClientDisconnect:  # the client went away mid-request: no one to answer, nothing wrong here
            return Response(status_code=400)
        except Exception as e:  # a bug: the client gets one line, the log the traceback
            log.exception("error serving %s %s", request.method, request.url.path)
            return error(f"internal error ({type(e).__name__}); the server's log has the details", 500)
    return endpoint


MAX_ERROR = 300  # characters of an error line (a 50 MB bad value must not make a 50 MB answer)


def error(message: str, status: int) -> JSONResponse:
    """One line of text, at most MAX_ERROR characters."""
    line = " ".join((message or "bad request").split())
    if len(line) > MAX_ERROR:
        line = line[:MAX_ERROR - 3] + "..."
    return JSON({"error": line}, status_code=status)


async def http_error(request: Request, exc: HTTPException) -> Response:
    return error(exc.detail or "bad request", exc.status_code)


async def server_error(request: Request, exc: Exception) -> Response:
    log.exception("error serving %s %s", request.method, request.url.path)
    return error(f"internal error ({type(exc).__name__}); the server's log has the details", 500)


async def read_json(request: Request) -> dict:
    """The request's JSON object (an empty body is ``{}``), at most MAX_BODY bytes."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise BadRequest(f"the request body is larger than {MAX_BODY} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BadRequest(f"the request body is larger than {MAX_BODY} bytes", 413)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise BadRequest(f"the request body is not JSON ({getattr(e, 'msg', type(e).__name__)})") from None
    if not isinstance(data, dict):
        raise BadRequest(f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def known(body: dict, fields: set[str]) -> None:
    extra = sorted(k for k in body if k not in fields)
    if extra:
        raise BadRequest(f"unknown field {extra[0][:40]!r}; accepted: {', '.join(sorted(fields))}")


def choice(body: dict, name: str, accepted, default):
    value = body.get(name, default)
    if value is None:
        value = default
    if not isinstance(value, str) or value not in accepted:
        shown = repr(value)[:40] if isinstance(value, str) else type(value).__name__
        raise BadRequest(f"{name!r} must be one of {', '.join(accepted)}; got {shown}")
    return value


def integer(body: dict, name: str, low: int, high: int, default):
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{name!r} must be an integer {low}..{high}, got {repr(value)[:40]}")
    return value


def query(request: Request, name: str) -> str:
    value = request.query_params.get(name)
    if value is None:
        raise BadRequest(f"the query has no {name!r}")
    return value


__all__ = ["BadRequest", "create_app", "static_dir"]
