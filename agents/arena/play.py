"""Play against the agents in a terminal: ``python -m agents.arena.play``.

    python -m agents.arena.play --variant coinche --partner heuristic --opponents heuristic
    python -m agents.arena.play -v belote_classique --opponents runs/quick_s1/checkpoints/latest.pt --seed 7 --reveal

You sit at seat 0 (``--seat``), your partner at seat 2 and the opponents at
1 and 3 are agents (any spec: ``random``, ``heuristic``, a checkpoint path,
``module:factory``). The screen shows the table as you see it (your hand
sorted by suit with unicode suits, red hearts and diamonds on a colour
terminal), the calls, the contract, the trick and the scores, then your legal
moves, numbered. Answer with a number or a move's name (``JH``, ``10S``,
``pass``, ``100 H``, ``capot S``); a bad answer says why and asks again.
``--seed`` replays the same deals; ``--reveal`` shows every hand as dealt at
the end of each deal; ``--record FILE`` appends every finished deal to FILE as
a deal record (``belote_env.rules.record``, one JSON line each, written as the
deal ends); ``q`` or end of input quits, Ctrl-C too (exit status 130), and a
closed output (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agents.cli import CommandParser, nonnegative_int
from agents.pretrained import variant_notes
from belote_env.render import card_text, move_text, render_table
from belote_env.rules.actions import parse_action
from belote_env.rules.errors import BeloteError, NotationError
from belote_env.rules.scoring import REDEAL
from belote_env.single_agent import SingleAgentEnv

RED, RESET = "\x1b[31m", "\x1b[0m"
NAMES = ("you", "left", "partner", "right")


def colour(text: str, on: bool) -> str:
    """Hearts and diamonds in red on a colour terminal."""
    if not on:
        return text
    for sym in "\u2665\u2666":
        text = text.replace(sym, f"{RED}{sym}{RESET}")
    return text


def seat_names(seat: int) -> tuple[str, ...]:
    """Names of seats 0..3 as the player at ``seat`` sees them."""
    return tuple(NAMES[(s - seat) & 3] for s in range(4))


def read_line(stream) -> str | None:
    """One line of ``stream`` (a binary file: ``sys.stdin.buffer``) as text, None at its end. Bytes that are not
    UTF-8 become U+FFFD, which :func:`ask` refuses with its reason."""
    raw = stream.readline()
    return raw.decode("utf-8", errors="replace") if raw else None


def ask(legal: list[int], read, write) -> int | None:
    """The human's move: a number of the list or a move's name; None to quit. Any other answer (unknown words,
    numbers out of the list however long, digits of other scripts, text that is not UTF-8) says why and asks
    again."""
    while True:
        write("your move (number or name, q to quit): ")
        line = read()
        if line is None:
            return None
        text = line.strip()
        if text.lower() in ("q", "quit", "exit"):
            return None
        if "\ufffd" in text:
            write("that answer is not UTF-8 text: give a move's number or name\n")
            continue
        if text.isascii() and text.isdigit():
            if len(text) <= 3 and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            shown = text if len(text) <= 12 else f"{text[:12]}... ({len(text)} digits)"
            write(f"there is no move {shown}: choose 1 to {len(legal)}\n")
            continue
        try:
            action = parse_action(text)
        except NotationError:
            shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
            write(f"{shown} is not a move: give its number, or a card like JH / 10S, or a call like pass, 100 H\n")
            continue
        if action in legal:
            return action
        write(f"{move_text(action)} is not legal now; legal: {', '.join(move_text(a) for a in legal)}\n")


def play(args, read=None, write=None) -> int:
    read = read or (lambda: read_line(sys.stdin.buffer))
    write = write or sys.stdout.write
    colour_on = args.color and sys.stdout.isatty() and write is sys.stdout.write
    env = SingleAgentEnv(args.variant, seat=args.seat, partner=args.partner, opponents=args.opponents,
                         illegal="raise", episode=args.episode)
    for note in variant_notes([args.partner, args.opponents], env.aec.variant.name):
        write(note + "\n")
    names = seat_names(args.seat)
    deals = 0
    keep = _recorder(args)
    obs, info = env.reset(seed=args.seed)
    while True:
        game = env.aec.game
        if info.get("info_state") is not None:
            write("\n" + colour(render_table(game, viewer=args.seat, names=names), colour_on) + "\n")
            legal = info["info_state"].legal_actions()
            write("  ".join(f"{k}) {colour(move_text(a), colour_on)}" for k, a in enumerate(legal, 1)) + "\n")
            action = ask(legal, read, write)
            if action is None:
                write("bye\n")
                return 0
            before = game.deal
            obs, reward, terminated, truncated, info = env.step(action)
            if before.phase == "done":  # the deal ended on this move or on the agents' moves after it
                keep(before)
        else:
            terminated, truncated = True, False
        if terminated or truncated:
            deals += 1
            res = [r for r in game.results if r.outcome != REDEAL]
            last = res[-1] if res else None
            write("\n" + colour(render_table(game, viewer=None if args.reveal else args.seat, names=names),
                                colour_on) + "\n")
            if truncated:
                write(f"everyone passed {env.aec.max_redeals} deals in a row: episode cut\n")
            elif last is not None:
                mine = args.seat & 1
                write(f"deal over: {last.outcome}; your team {last.scores[mine]}, theirs {last.scores[1 - mine]}"
                      f" (game: {game.scores[mine]} to {game.scores[1 - mine]})\n")
            if args.reveal:
                deal = game.deal
                write("hands as dealt: " + "; ".join(
                    f"{names[s]}: " + colour(" ".join(card_text(c) for c in range(32) if deal.initial[s] >> c & 1),
                                             colour_on) for s in range(4)) + "\n")
            if args.deals and deals >= args.deals:
                return 0
            obs, info = env.reset()


def _recorder(args):
    """A function that appends a finished deal to ``args.record`` as one JSON line (nothing without --record)."""
    path = getattr(args, "record", None)
    if path is None:
        return lambda deal: None
    from agents.arena.errors import ReportError
    from belote_env.rules.record import deal_record, record_line

    meta = {"human_seat": args.seat, "partner": args.partner, "opponents": args.opponents, "seed": args.seed}

    def keep(deal) -> None:
        try:
            with open(path, "a") as f:
                f.write(record_line(deal_record(deal, meta=meta)))
        except OSError as e:
            raise ReportError(f"cannot write the deal record to {str(path)!r}: {e.strerror or e}") from None

    return keep


def main(argv=None) -> int:
    p = CommandParser(prog="python -m agents.arena.play", description=__doc__,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", "-v", default="coinche", help="variant name or YAML path (default coinche)")
    p.add_argument("--partner", default="heuristic", help="agent spec of your partner (default heuristic)")
    p.add_argument("--opponents", default="heuristic", help="agent spec of both opponents (default heuristic)")
    p.add_argument("--seat", type=int, choices=range(4), default=0, help="your seat 0..3 (default 0)")
    p.add_argument("--seed", type=nonnegative_int, default=None, help="seed of the deals (same seed, same deals)")
    p.add_argument("--episode", choices=("deal", "game"), default="deal", help="one deal at a time, or whole games")
    p.add_argument("--deals", type=int, default=0, help="stop after this many episodes (default: until you quit)")
    p.add_argument("--reveal", action="store_true", help="show every hand as dealt at the end of each deal")
    p.add_argument("--no-color", dest="color", action="store_false", help="no ANSI colours")
    p.add_argument("--record", type=Path, default=None, metavar="FILE",
                   help="append every finished deal to FILE as a deal record (one JSON line each)")
    args = p.parse_args(argv)
    try:
        return play(args)
    except BeloteError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C at the prompt or while the agents think: one line, no traceback
        print("\ninterrupted: bye", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout closed (| head): end quietly; Python would complain at exit otherwise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["ask", "main", "play", "read_line"]
