"""``belote-web`` (``python -m agents.arena.web``): the web app on a local server.

    belote-web                                   # http://127.0.0.1:8000: play, watch
    belote-web --records runs/records            # ... and replay the deal records under runs/records
    belote-web --agent runs/quick_s1/checkpoints/latest.pt --port 8080

The page seats the registered agents (``random``, ``heuristic``, ``pimc``, the shipped trained agents) and the
specs given with ``--agent`` (a checkpoint path, ``module:factory``): the browser never names a file or a module.
It shows the records under the ``--records`` folders only. The server listens on 127.0.0.1; another address
needs ``--allow-remote`` and prints a warning (anyone who reaches it can play and read those records).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.cli import CommandParser

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def port_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, got {text!r}")
    return int(text)


def parser() -> CommandParser:
    p = CommandParser(prog="belote-web", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--records", type=Path, action="append", default=[], metavar="DIR",
                   help="a folder (or a file) of deal records the page may replay; repeatable")
    p.add_argument("--agent", action="append", default=[], metavar="SPEC",
                   help="an agent spec the page may seat besides the registered ones; repeatable")
    p.add_argument("--allow-remote", action="store_true",
                   help=f"allow --host other than {', '.join(LOCAL_HOSTS)}")
    p.add_argument("--idle-minutes", type=float, default=30.0, help="a table idle this long expires (default 30)")
    p.add_argument("--max-tables", type=int, default=64, help="tables kept in all (default 64)")
    return p


def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.host not in LOCAL_HOSTS and not args.allow_remote:
        p.error(f"--host {args.host} exposes the server beyond this machine: add --allow-remote to mean it")
    if not args.idle_minutes > 0 or args.max_tables < 1:
        p.error("--idle-minutes must be positive and --max-tables at least 1")
    for folder in args.records:
        if not folder.exists():
            p.error(f"--records {str(folder)!r} does not exist")
    try:
        import uvicorn

        from agents.arena.web.app import create_app
        from agents.arena.web.tables import TableStore
    except ImportError as e:
        p.error(f"the web app needs starlette and uvicorn: pip install 'belote_env[web]' ({e})")
    from agents.errors import AgentSpecError
    from agents.registry import make_agent

    for spec in args.agent:
        try:
            make_agent(spec)
        except (AgentSpecError, ImportError, ValueError) as e:
            p.error(f"--agent {spec!r}: {str(e).splitlines()[0]}")
    if args.host not in LOCAL_HOSTS:
        print(f"warning: listening on {args.host}: anyone who reaches this address can play and read the records "
              "given with --records", file=sys.stderr)
    app = create_app(args.records, args.agent, TableStore(max_tables=args.max_tables, idle_s=60 * args.idle_minutes))
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"belote-web: open http://{shown}:{args.port}/ (Ctrl-C stops)", file=sys.stderr)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except KeyboardInterrupt:
        pass
    return 0


__all__ = ["main", "parser"]
