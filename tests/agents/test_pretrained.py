"""Shipped trained agents (agents/pretrained): the export to half-precision weights-only files, and every
shipped agent loads by name, plays legal moves and beats random."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.neural.checkpoint import load_checkpoint  # noqa: E402
from agents.arena.match import duplicate_match  # noqa: E402
from agents.neural.agent import load_agent  # noqa: E402
from agents.pretrained import MAX_BYTES, available, export_pretrained, main  # noqa: E402
from belote_env.variants import load_variant  # noqa: E402


@pytest.fixture
def tiny_checkpoint(tmp_path):
    """A checkpoint as train.py writes it (a small network, counters and options)."""
    from agents.neural.checkpoint import atomic_save, checkpoint_dict
    from agents.neural.network import PolicyValueNet

    torch.manual_seed(0)
    path = tmp_path / "ckpt.pt"
    atomic_save(checkpoint_dict(PolicyValueNet(hidden_sizes=[64, 32]), update=3, global_step=1536, elapsed_s=2.0,
                                args={"variant": "coinche"}), path)
    return path


def test_export_writes_half_precision_weights_that_play_like_the_checkpoint(tiny_checkpoint, tmp_path):
    path = export_pretrained(tiny_checkpoint, "tiny", out_dir=tmp_path)
    assert path.stat().st_size < MAX_BYTES
    ckpt = load_checkpoint(path)
    assert all(t.dtype == torch.float16 for t in ckpt["model"].values())
    assert "optimizer" not in ckpt and "rng" not in ckpt and ckpt["trained"]["global_step"] > 0
    full, half = load_agent(tiny_checkpoint), load_agent(path)
    rng = np.random.default_rng(0)
    obs = (rng.random((64, full.net.obs_size)) < 0.05).astype(np.float32)
    mask = torch.ones(64, full.net.num_actions, dtype=torch.bool)
    with torch.no_grad():
        a, _ = full.net(torch.from_numpy(obs), mask)
        b, _ = half.net(torch.from_numpy(obs), mask)
    assert torch.allclose(a, b, atol=1e-2)


def test_the_command_lists_the_shipped_agents(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in available())
    assert main(["export"]) == 2


def test_the_command_refuses_bad_input_in_one_line(tiny_checkpoint, tmp_path, capsys):
    shipped = set(available())
    for argv in (["export"], ["export", str(tmp_path / "missing.pt"), "x"], ["export", str(tiny_checkpoint), "a b"],
                 ["export", str(tiny_checkpoint), "pimc:worlds=2"], ["export", str(tiny_checkpoint), "../x"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error:" in err and "Traceback" not in err, (argv, err)
    assert set(available()) == shipped  # nothing was written


@pytest.mark.parametrize("name", available())
def test_shipped_agents_load_by_name_and_beat_random(name):
    agent = make_agent(name)
    assert agent.name == name
    variant = name.split("_", 1)[1]
    r = duplicate_match(agent, make_agent("random"), load_variant(variant), 64, seed=5)
    assert r.ci_low > 0, r.row()


def test_each_shipped_agent_names_its_variant_in_its_weights_and_its_card(monkeypatch):
    from agents.pretrained import pretrained_variant

    from_weights = {name: pretrained_variant(name) for name in available()}
    assert from_weights == {name: name.split("_", 1)[1] for name in available()}
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # no torch: the model card says it
    assert {name: pretrained_variant(name) for name in available()} == from_weights
