"""torch.export, TorchScript and ONNX exports give the same logits and value as the network, on real observations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.neural.checkpoint import checkpoint_dict
from agents.training.export import export_onnx, export_program, export_torchscript, main
from agents.neural.network import PolicyValueNet
from belote_env.observation import action_mask, encode
from belote_env.rules import GameState
from belote_env.variants import load_variant


def _batch():
    game = GameState(load_variant("coinche"), seed=3)
    obs, masks = [], []
    rng = np.random.default_rng(0)
    for _ in range(20):
        seat = game.current_seat
        obs.append(encode(game, seat))
        masks.append(action_mask(game, seat).astype(bool))
        game.apply(int(rng.choice(game.legal_actions())))
    return torch.from_numpy(np.stack(obs)), torch.from_numpy(np.stack(masks))


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch.manual_seed(1)
    net = PolicyValueNet(hidden_sizes=[32, 16])
    path = tmp_path_factory.mktemp("export") / "net.pt"
    torch.save(checkpoint_dict(net), path)
    return path, net.eval()


def test_torchscript_matches_the_network(checkpoint, tmp_path):
    path, net = checkpoint
    out = export_torchscript(path, tmp_path / "policy.ts")
    model = torch.jit.load(str(out))
    obs, mask = _batch()
    with torch.no_grad():
        logits, value = model(obs, mask)
        want_logits, want_value = net(obs, mask)
    torch.testing.assert_close(logits, want_logits)
    torch.testing.assert_close(value, want_value)
    assert bool(mask[torch.arange(len(mask)), logits.argmax(1)].all())


def test_program_matches_the_network(checkpoint, tmp_path):
    path, net = checkpoint
    out = export_program(path, tmp_path / "policy.pt2")
    model = torch.export.load(str(out)).module()
    obs, mask = _batch()
    for rows in (slice(None), slice(0, 1), slice(3, 10)):  # the batch size is dynamic, a single row included
        with torch.no_grad():
            logits, value = model(obs[rows], mask[rows])
            want_logits, want_value = net(obs[rows], mask[rows])
        torch.testing.assert_close(logits, want_logits)
        torch.testing.assert_close(value, want_value)


def test_the_program_is_an_agent_spec_playing_as_the_checkpoint(checkpoint, tmp_path):
    from agents.exported import read_meta
    from agents.registry import make_agent

    path, _ = checkpoint
    out = export_program(path, tmp_path / "policy.pt2")
    assert read_meta(out)["inputs"] == ["observation", "action_mask"] and read_meta(out)["name"] == "net"
    obs, mask = _batch()
    program, network = make_agent(str(out)), make_agent(str(path))
    assert program.act_batch(obs.numpy(), mask.numpy(), None).tolist() == [
        network.act(o, m) for o, m in zip(obs.numpy(), mask.numpy())]


def test_onnx_matches_the_network(checkpoint, tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    path, net = checkpoint
    out = export_onnx(path, tmp_path / "policy.onnx")
    obs, mask = _batch()
    session = ort.InferenceSession(str(out))
    logits, value = session.run(None, {"observation": obs.numpy(), "action_mask": mask.numpy()})
    with torch.no_grad():
        want_logits, want_value = net(obs, mask)
    np.testing.assert_allclose(logits, want_logits.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(value, want_value.numpy(), rtol=1e-5, atol=1e-5)


def test_command_line(checkpoint, tmp_path, capsys):
    path, _ = checkpoint
    assert main([str(path), "--torchscript", str(tmp_path / "p.ts")]) == 0
    assert main([str(tmp_path / "missing.pt"), "--torchscript", str(tmp_path / "q.ts")]) == 2
    assert "does not exist" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main([str(path), "--torchscript", str(blocker / "sub" / "r.ts")]) == 2  # its folder cannot be made
    assert "--torchscript" in capsys.readouterr().err and not (tmp_path / "r.ts").exists()
    assert main([str(path), "--torchscript", str(tmp_path / "new" / "s.ts")]) == 0  # a missing folder is made
    assert main([str(path), "--program", str(tmp_path / "p.pt2")]) == 0 and (tmp_path / "p.pt2").exists()
    with pytest.raises(SystemExit):
        main([str(path)])  # nothing to write
    assert "--program PATH" in capsys.readouterr().err


FLAGS = ("--program", "--torchscript", "--onnx")


@pytest.mark.parametrize("flag", FLAGS)
def test_a_folder_destination_is_refused_with_one_line_before_any_export(checkpoint, tmp_path, capsys, flag):
    path, _ = checkpoint
    folder = tmp_path / "dir"
    folder.mkdir()
    first = tmp_path / "first.pt2"
    argv = [str(path), flag, str(folder)] if flag == "--program" else [str(path), "--program", str(first), flag,
                                                                       str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {flag} '{folder}' is a folder; give a file path, such as '{folder}/policy.")
    assert err.count("\n") == 1
    assert not first.exists() and list(folder.iterdir()) == []  # refused before anything was written
    export = {"--program": export_program, "--torchscript": export_torchscript, "--onnx": export_onnx}[flag]
    with pytest.raises(ValueError, match="is a folder"):
        export(path, folder)


@pytest.mark.parametrize("flag", FLAGS)
def test_a_write_that_fails_leaves_no_partial_file_and_the_old_one_whole(checkpoint, tmp_path, flag):
    from tests.faults import run_with_fault

    path, _ = checkpoint
    out = tmp_path / "policy.out"
    out.write_text("the previous export")
    proc = run_with_fault(["full", "20000"], "agents.training.export", path, flag, out)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == f"error: cannot write '{out}': File too large\n"
    assert out.read_text() == "the previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.out"]  # no temporary file left
