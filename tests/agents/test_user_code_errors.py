"""A researcher's own factory or agent that fails: one line naming it (its traceback kept as the cause)."""

from __future__ import annotations

import pytest

from agents.arena.match import duplicate_match
from agents.arena.tournament import main as tournament
from agents.base import Agent
from agents.errors import AgentActionError, AgentSpecError
from agents.registry import make_agent
from belote_env.variants import load_variant


class Broken(Agent):
    name = "broken"
    needs_info = False

    def act(self, observation, action_mask, info=None):
        raise RuntimeError("my network is not loaded")


def raising():
    raise RuntimeError("no weights at /my/path")


def a_class():
    return Broken


def broken():
    return Broken()


HERE = "tests.agents.test_user_code_errors"


def test_a_factory_that_raises_or_returns_a_class_is_an_agent_spec_error():
    with pytest.raises(AgentSpecError, match=r"raising\(\) raised RuntimeError: no weights at /my/path") as e:
        make_agent(f"{HERE}:raising")
    assert isinstance(e.value.__cause__, RuntimeError)
    with pytest.raises(AgentSpecError, match=r"returned the class Broken"):
        make_agent(f"{HERE}:a_class")


def test_a_module_that_fails_at_import_is_an_agent_spec_error(tmp_path, monkeypatch):
    (tmp_path / "my_broken_bot.py").write_text("def bot(:\n")
    (tmp_path / "my_raising_bot.py").write_text("raise RuntimeError('no GPU here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentSpecError, match="importing module 'my_broken_bot' raised SyntaxError"):
        make_agent("my_broken_bot:bot")
    with pytest.raises(AgentSpecError, match="importing module 'my_raising_bot' raised RuntimeError: no GPU here"):
        make_agent("my_raising_bot:bot")


def test_an_agent_that_raises_is_named_in_one_line(capsys):
    with pytest.raises(AgentActionError, match="agent .*broken.* raised RuntimeError .*my network is not loaded") as e:
        duplicate_match(make_agent(f"{HERE}:broken"), make_agent("random"), load_variant("coinche"), 2)
    assert isinstance(e.value.__cause__, RuntimeError)
    assert tournament([f"{HERE}:broken", "random", "-n", "2", "-j", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("belote-tournament: error: agent") and err.count("\n") == 1
