"""A network of the user's own code (tests/train/outside_net.py, outside the package) trains for a few updates,
resumes bit for bit, evaluates, enters a tournament by checkpoint path and exports, with no project file changed:
``train.py --network tests.train.outside_net:TwoTowers --network-kwargs width=16``."""

import numpy as np
import pytest
import torch

from .helpers import kill_after_first_checkpoint, run_train_here, train_command

SPEC = "tests.train.outside_net:TwoTowers"
OPTIONS = ["--config", "configs/train/tiny.yaml", "--network", SPEC, "--network-kwargs", "width=16",
           "--total-timesteps", str(8 * 512), "--eval-every", "0", "--final-eval-pairs", "4",
           "--checkpoint-every", "1", "--keep-checkpoints", "20"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """An uninterrupted run, and one killed after its first checkpoint and resumed."""
    runs = tmp_path_factory.mktemp("own")
    run_train_here(*OPTIONS, "--runs-dir", str(runs), "--run-name", "whole")
    killed = kill_after_first_checkpoint(OPTIONS, runs, "cut")
    assert killed["update"] < 8
    run_train_here(*OPTIONS, "--runs-dir", str(runs), "--run-name", "cut", "--resume")
    return runs


def test_it_trains_and_resumes_bit_for_bit(runs):
    whole = torch.load(runs / "whole" / "checkpoints" / "latest.pt", weights_only=True)
    cut = torch.load(runs / "cut" / "checkpoints" / "latest.pt", weights_only=True)
    assert whole["network"] == SPEC and whole["model_config"] == {"width": 16, "obs_size": 853, "num_actions": 112}
    assert whole["update"] == cut["update"] == 8
    first = torch.load(sorted((runs / "whole" / "checkpoints").glob("ckpt_*.pt"))[0], weights_only=True)
    assert any(not torch.equal(first["model"][k], whole["model"][k]) for k in whole["model"]), "nothing was trained"
    for name, tensor in whole["model"].items():
        assert torch.equal(tensor, cut["model"][name]), f"{name} differs after resume"


def test_it_evaluates_and_plays_a_tournament_by_path(runs, capsys):
    from agents.arena.tournament import main as tournament_main
    from agents.registry import make_agent

    ckpt = runs / "whole" / "checkpoints" / "latest.pt"
    assert "random" in run_train_here("--evaluate", ckpt, "--final-eval-pairs", "4", "--eval-opponents", "random")
    agent = make_agent(str(ckpt))
    obs, mask = np.zeros(853, dtype=np.float32), np.zeros(112, dtype=np.int8)
    mask[[32, 41]] = 1
    assert agent.act(obs, mask, None) in (32, 41)  # the trainer's masking keeps it legal
    assert tournament_main([str(ckpt), "random", "-v", "coinche", "-n", "4", "--no-progress"]) == 0
    assert "points/deal" in capsys.readouterr().out


def test_it_exports(runs, tmp_path):
    from agents.neural.checkpoint import load_checkpoint
    from agents.neural.protocol import build_net, mask_logits
    from agents.training.export import export_program, export_torchscript

    ckpt = runs / "whole" / "checkpoints" / "latest.pt"
    net = build_net(load_checkpoint(ckpt), ckpt).eval()
    obs = torch.rand(5, 853)
    mask = torch.rand(5, 112) < 0.3
    mask[:, 32] = True
    with torch.no_grad():
        want = mask_logits(net(obs, mask)[0], mask)
        program = torch.export.load(str(export_program(ckpt, tmp_path / "p.pt2"))).module()
        script = torch.jit.load(str(export_torchscript(ckpt, tmp_path / "p.ts")))
        for model in (program, script):
            torch.testing.assert_close(model(obs, mask)[0], want)


def test_the_pool_and_the_central_critic_take_it(tmp_path):
    run_train_here(*OPTIONS, "--total-timesteps", str(3 * 512), "--pool-fraction", "0.25", "--pool-every", "1",
                   "--central-critic", "--final-eval-pairs", "0", "--runs-dir", str(tmp_path), "--run-name", "options")
    ckpt = torch.load(tmp_path / "options" / "checkpoints" / "latest.pt", weights_only=True)
    assert ckpt["network"] == SPEC and len(ckpt["pool"]["weights"]) == 3 and "critic" in ckpt
    assert set(ckpt["pool"]["weights"][0]) == set(ckpt["model"])  # the snapshots are the user's network


def test_a_spec_that_cannot_be_imported_is_one_error_line(tmp_path, capsys):
    for spec, said in (("tests.train.no_such_module:Net", "cannot import module"),
                       ("tests.train.outside_net:Missing", "no torch.nn.Module class 'Missing'"),
                       ("nocolon", "unknown network 'nocolon'")):
        status, _, err = train_command("--config", "configs/train/tiny.yaml", "--network", spec, "--runs-dir",
                                       tmp_path, capsys=capsys)
        assert status == 2 and said in err and err.count("\n") == 1, err
    assert not any(tmp_path.iterdir())
    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--network", SPEC, "--network-kwargs",
                                   "depth=3", "--runs-dir", tmp_path, capsys=capsys)
    assert status == 2 and "cannot be built" in err and "depth" in err
