"""python -m agents.arena.play: a whole deal played from scripted input, bad answers re-prompted."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.arena.play import main, play
from belote_env.rules.errors import BeloteError


def _args(**kw):
    base = dict(variant="coinche", partner="heuristic", opponents="random", seat=0, seed=3, episode="deal",
                deals=1, reveal=True, color=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _run(args, answers):
    out = []
    feed = iter(answers)
    code = play(args, read=lambda: next(feed, None), write=out.append)
    return code, "".join(out)


def test_a_whole_deal_from_scripted_input():
    answers = ["zz", "99", "AS", "1"] + ["1"] * 60  # a bad word, a bad number, an illegal card, then first moves
    code, text = _run(_args(), answers)
    assert code == 0
    assert "'zz' is not a move" in text
    assert "there is no move 99" in text
    assert "A\u2660 is not legal now" in text  # a card while bidding
    assert "deal over:" in text and "hands as dealt:" in text
    assert "1) pass" in text  # the numbered legal moves


def test_the_same_seed_replays_the_same_deal():
    first = _run(_args(variant="belote_classique"), ["1"] * 60)[1]
    again = _run(_args(variant="belote_classique"), ["1"] * 60)[1]
    assert first == again


def test_quit_and_bad_specs(capsys):
    assert _run(_args(), ["q"])[0] == 0
    assert main(["--opponents", "nobody", "--seed", "1"]) == 2
    assert "error: unknown agent 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:  # argparse's one-line error
        main(["--seed", "-1"])
    assert e.value.code == 2 and "expected an integer >= 0" in capsys.readouterr().err


def test_a_shipped_agent_on_another_variant_is_noted():
    text = _run(_args(variant="belote_classique", partner="ppo_coinche"), ["q"])[1]
    assert text.startswith("note: ppo_coinche was trained on coinche; it plays belote_classique here\n")
    assert "note:" not in _run(_args(variant="coinche", partner="ppo_coinche"), ["q"])[1]


def test_any_answer_is_refused_with_its_reason_or_taken():
    legal = [32, 41, 42]
    out = []
    answers = iter(["9" * 5000, "\u00b2", "\u0663", "\ufffd\ufffd", "00002", "2"])
    from agents.arena.play import ask

    assert ask(legal, lambda: next(answers, None), out.append) == 41
    text = "".join(out)
    assert "there is no move 999999999999... (5000 digits): choose 1 to 3" in text
    assert "'\u00b2' is not a move" in text and "'\u0663' is not a move" in text
    assert "that answer is not UTF-8 text" in text
    assert "there is no move 00002" in text  # numbers are the list's, as shown: 1 to 3


@given(lines=st.lists(st.binary(max_size=60), max_size=8))
@settings(max_examples=200, deadline=None)
def test_random_bytes_never_end_in_a_traceback(lines):
    import io

    from agents.arena.play import ask, read_line

    stream = io.BytesIO(b"".join(line.replace(b"\n", b"") + b"\n" for line in lines) + b"q\n")
    action = ask([32, 41, 42], lambda: read_line(stream), lambda text: None)
    assert action in (None, 32, 41, 42)


def _command(stdin: bytes, *extra: str, stdout=None):
    import subprocess
    import sys
    from pathlib import Path

    return subprocess.run([sys.executable, "-m", "agents.arena.play", "--seed", "1", "--opponents", "random", *extra],
                          input=stdin, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                          cwd=Path(__file__).resolve().parents[3])


def test_the_command_reads_non_utf8_and_ends_at_the_end_of_its_input():
    proc = _command(b"\xff\xfe\n" + b"1\n" * 3)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert b"that answer is not UTF-8 text" in proc.stdout and proc.stderr == b""


def test_ctrl_c_and_a_closed_output_end_without_a_traceback():
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    # a shell's background job starts with SIGINT ignored, and Python then keeps it ignored: restore the default
    proc = subprocess.Popen([sys.executable, "-m", "agents.arena.play", "--seed", "1", "--opponents", "random"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=Path(__file__).resolve().parents[3],
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300  # a fresh checkout compiles the engine's kernels first
    out = b""
    while b"your move" not in out and time.time() < deadline:
        out += os.read(proc.stdout.fileno(), 65536)
    assert b"your move" in out, "no prompt: the command did not start"
    proc.send_signal(signal.SIGINT)  # at the prompt
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == b"\ninterrupted: bye\n"
    # | head -3: the reader goes away after three lines
    head = subprocess.Popen([sys.executable, "-m", "agents.arena.play", "--seed", "1", "--opponents", "random",
                             "--deals", "50"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=Path(__file__).resolve().parents[3])
    head.stdout.readline()
    head.stdout.close()  # the pipe's reader is gone
    _, err = head.communicate(input=b"1\n" * 3000, timeout=120)
    assert b"Traceback" not in err and head.returncode == 0, err.decode()[-2000:]


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_record_keeps_every_finished_deal(tmp_path, episode):
    from belote_env.rules.record import read_records, replay_record

    path = tmp_path / "mine.jsonl"
    code, text = _run(_args(variant="belote_classique", episode=episode, record=path, deals=1), ["1"] * 400)
    assert code == 0
    records = list(read_records(path))
    finished = text.count("deal over:") + text.count("everyone passed")
    assert records and all(replay_record(r).result is not None for r in records)
    assert records[0]["meta"] == {"human_seat": 0, "partner": "heuristic", "opponents": "random", "seed": 3}
    if episode == "deal":
        assert len(records) == finished == 1
    code, _ = _run(_args(variant="belote_classique", record=path, deals=1), ["1"] * 60)
    assert len(list(read_records(path))) == len(records) + 1  # appended
    (tmp_path / "folder").mkdir()
    with pytest.raises(BeloteError, match="cannot write the deal record"):
        _run(_args(variant="belote_classique", record=tmp_path / "folder", deals=1), ["1"] * 60)
