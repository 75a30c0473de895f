"""Exported policies (.pt2 agent specs), the training clock of the examples, and the baselines page."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.errors import AgentSpecError
from agents.exported import ExportedAgent, Snapshots, export_policy, read_meta, read_snapshots
from agents.registry import make_agent
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS

REPO = Path(__file__).resolve().parents[2]


def _net(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(OBS_SIZE, 32), torch.nn.Tanh(), torch.nn.Linear(32, NUM_ACTIONS))


def test_an_exported_policy_plays_its_networks_most_likely_legal_action(tmp_path):
    net = _net()
    path = export_policy(net, tmp_path / "p.pt2", name="tiny", library="torch test")
    assert net.training  # export leaves the module's mode as it found it
    agent = make_agent(str(path))
    assert isinstance(agent, ExportedAgent) and agent.name == "tiny" and not agent.needs_info
    assert read_meta(path) == {"format": "belote_env.policy/1", "name": "tiny", "library": "torch test",
                               "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS, "inputs": ["observation"],
                               "outputs": ["logits"]}
    rng = np.random.default_rng(0)
    obs = rng.random((5, OBS_SIZE), dtype=np.float32)
    masks = rng.random((5, NUM_ACTIONS)) < 0.2
    masks[:, 3] = True
    with torch.no_grad():
        logits = net(torch.from_numpy(obs)).numpy()
    expected = np.where(masks, logits, -np.inf).argmax(axis=1)
    assert agent.act_batch(obs, masks, None).tolist() == expected.tolist()
    assert [agent.act(o, m) for o, m in zip(obs, masks)] == expected.tolist()  # any batch size, one included


def test_exported_policies_play_matches_and_are_cached_by_their_digest(tmp_path):
    from agents.arena.ladder.cache import agent_digest
    from agents.arena.match import duplicate_match
    from belote_env.variants import load_variant

    path = export_policy(_net(), tmp_path / "p.pt2")
    r = duplicate_match(make_agent(str(path)), make_agent("random"), load_variant("coinche"), 4, seed=3)
    assert r.to_dict()["pairs"] == 4
    assert agent_digest(str(path)) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_bad_policies_and_files_are_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="ends in .pt2"):
        export_policy(_net(), tmp_path / "p.pt")
    with pytest.raises(ValueError, match=r"logits of shape \(2, 7\)"):
        export_policy(torch.nn.Linear(OBS_SIZE, 7), tmp_path / "p.pt2")
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(str(tmp_path / "absent.pt2"))
    (tmp_path / "junk.pt2").write_bytes(b"not a zip")
    with pytest.raises(AgentSpecError, match="is not a policy written by export_policy"):
        make_agent(str(tmp_path / "junk.pt2"))
    program = torch.export.export(_net(), (torch.zeros(2, OBS_SIZE),))
    torch.export.save(program, tmp_path / "bare.pt2")  # a torch.export file without our metadata
    with pytest.raises(AgentSpecError, match="was not written by agents.exported.export_policy"):
        make_agent(str(tmp_path / "bare.pt2"))


def test_the_clock_leaves_snapshot_writing_out_of_training_time(tmp_path):
    (tmp_path / "snapshot_007.pt2").write_bytes(b"an earlier run's")
    clock = Snapshots(tmp_path, minutes=0.01, every_minutes=0.004, name="n", library="l")
    assert not (tmp_path / "snapshot_007.pt2").exists()  # a new run clears the folder's snapshots
    assert clock.due() and not clock.over()
    net = _net()
    clock.save(net, 0)
    assert not clock.due()
    before = clock.seconds()
    clock.save(net, 0)  # writing takes time, none of it training
    assert clock.seconds() - before < 0.05
    while not clock.over():
        if clock.due():
            clock.save(net, 10)
        time.sleep(0.02)
    clock.finish(net, 20)
    assert clock.finish(net, 20) == tmp_path / f"snapshot_{clock.count - 1:03d}.pt2"  # nothing new to write
    log = read_snapshots(tmp_path)
    assert [s["snapshot"] for s in log] == [f"snapshot_{k:03d}.pt2" for k in range(len(log))]
    assert log[-1]["steps"] == 20 and log[-1]["minutes"] >= 0.01 and len(log) >= 4
    assert Snapshots(None, 1, 1, "n", "l").save(net, 0) is None  # no folder: a budget only
    with pytest.raises(ValueError, match="positive"):
        Snapshots(None, 0, 1, "n", "l")


def _baselines():
    spec = importlib.util.spec_from_file_location("baselines", REPO / "benchmarks" / "baselines.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["baselines"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_baselines_page_from_a_short_run(tmp_path):
    """The whole loop on one recipe at a tiny budget: training with snapshots, the curve, belote-eval, the page;
    a second run reads everything back and trains nothing."""
    baselines = _baselines()
    argv = ["--recipes", "cleanrl", "--minutes", "0.05", "--snapshot-minutes", "0.02", "--curve-pairs", "4",
            "--eval-pairs", "2", "--runs", str(tmp_path)]
    assert baselines.main(argv) == 0
    done = json.loads((tmp_path / "cleanrl" / "done.json").read_text())
    assert done["command"].startswith("python examples/cleanrl_ppo_vector.py --opponents heuristic")
    assert done["versions"]["torch"] == torch.__version__
    result = json.loads((tmp_path / "page" / "cleanrl.json").read_text())
    assert result["curve"][0]["minutes"] == 0 and result["curve"][-1]["steps"] > 0
    assert result["rating"]["spec"] == result["curve"][-1]["path"]
    assert {p["agent"] for p in result["rating"]["pool"]} >= {"random", "heuristic"}
    page = (tmp_path / "baselines.md").read_text()
    assert "| [CleanRL-style PPO on `make_vec`](#recipe-cleanrl) |" in page and "## Recipe `cleanrl`" in page
    assert "Not measured yet: `train_py`, `sb3`, `rllib`, `tianshou`, `openspiel`" in page
    assert (tmp_path / "page" / "cleanrl.png").is_file() and (tmp_path / "page" / "coinche.png").is_file()
    stamp = (tmp_path / "cleanrl" / "done.json").stat().st_mtime_ns
    assert baselines.main(argv) == 0
    assert (tmp_path / "cleanrl" / "done.json").stat().st_mtime_ns == stamp  # not trained again


def test_train_py_checkpoints_are_thinned_to_the_curves_spacing(tmp_path):
    baselines = _baselines()
    folder = tmp_path / "train_py" / "run" / "checkpoints"
    folder.mkdir(parents=True)
    for k, minutes in enumerate([1.0, 1.2, 1.9, 2.6, 2.98, 3.1, 4.0, 4.1]):
        torch.save({"elapsed_s": 60 * minutes, "global_step": 1000 * k}, folder / f"ckpt_{k:07d}.pt")
    got = baselines.snapshots(baselines.RECIPES["train_py"], tmp_path / "train_py", every=1.5)
    assert [p["minutes"] for p in got] == [1.0, 1.9, 2.98, 4.1]  # the first at or after 0, 1.5, 3.0 (less 5%), the last
