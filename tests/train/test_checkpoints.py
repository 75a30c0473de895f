"""Damaged checkpoints: flipped bits, NaN weights, legacy files, weights-only files
given to --resume. A checkpoint either loads with exactly its weights or raises
CheckpointError naming the file."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.errors import CheckpointError
from agents.neural.agent import load_agent
from agents.neural.checkpoint import checkpoint_dict, load_checkpoint, weights_digest
from agents.neural.network import PolicyValueNet
from agents.training import ppo


def _save(obj, path: Path) -> Path:
    torch.save(obj, path)
    return path


@pytest.fixture(scope="module")
def good_file(tmp_path_factory):
    torch.manual_seed(0)
    net = PolicyValueNet(hidden_sizes=[16, 8])
    path = _save(checkpoint_dict(net, update=3), tmp_path_factory.mktemp("ckpt") / "good.pt")
    return path, weights_digest(net.state_dict())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=3))
def test_flipped_bits_are_caught_or_harmless(good_file, tmp_path_factory, flips):
    path, digest = good_file
    data = bytearray(path.read_bytes())
    for where, bit in flips:
        data[int(where * len(data))] ^= 1 << bit
    bad = tmp_path_factory.mktemp("flip") / "flipped.pt"
    bad.write_bytes(bytes(data))
    try:
        agent = load_agent(bad)
    except CheckpointError as e:
        assert "flipped.pt" in str(e)
        return
    # Loaded: the flips hit bytes that do not change the weights (zip padding, names torch ignores...).
    assert weights_digest(agent.net.state_dict()) == digest


def test_flipped_weight_bits_fail_the_digest(good_file, tmp_path):
    path, _ = good_file
    ckpt = torch.load(path, weights_only=True)
    w = ckpt["model"]["trunk.0.weight"]
    w.view(torch.int32)[0, 0] ^= 1 << 3  # a low mantissa bit: the value stays finite and plausible
    with pytest.raises(CheckpointError, match="digest"):
        load_agent(_save(ckpt, tmp_path / "bitflip.pt"))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_weights_are_rejected(value, tmp_path):
    net = PolicyValueNet(hidden_sizes=[8])
    with torch.no_grad():
        net.state_dict()["trunk.0.bias"][0] = value
    with pytest.raises(CheckpointError, match="NaN or infinite"):
        load_agent(_save(checkpoint_dict(net), tmp_path / "nan.pt"))


def test_legacy_format_loads_with_a_warning(tmp_path):
    net = PolicyValueNet(hidden_sizes=[8])
    path = _save({"format": "belote_env.neural/1", "model_config": net.config(), "model": net.state_dict()},
                 tmp_path / "v1.pt")
    with pytest.warns(UserWarning, match="cannot be verified"):
        load_agent(path)


def test_the_earlier_name_of_the_current_format_loads_and_is_verified(tmp_path):
    """The shipped weights carry the tag ``belote_env.neural/2``, the current format under its old name."""
    ckpt = checkpoint_dict(PolicyValueNet(hidden_sizes=[8]))
    assert ckpt["format"] == "belote_env-checkpoint/2"
    ckpt["format"] = "belote_env.neural/2"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_agent(_save(ckpt, tmp_path / "old_name.pt"))
    ckpt["model"]["trunk.0.bias"][0] += 1.0
    with pytest.raises(CheckpointError, match="do not match the digest"):
        load_checkpoint(_save(ckpt, tmp_path / "old_name_tampered.pt"))


def test_missing_digest_in_the_current_format(tmp_path):
    ckpt = checkpoint_dict(PolicyValueNet(hidden_sizes=[8]))
    del ckpt["model_digest"]
    with pytest.raises(CheckpointError, match="model_digest"):
        load_checkpoint(_save(ckpt, tmp_path / "nodigest.pt"))


def test_resume_from_a_weights_only_checkpoint_says_so(tmp_path):
    args = ppo.Args(run_name="weights_only", runs_dir=str(tmp_path))
    d = ppo.checkpoint_dir(ppo.run_dir_of(args))
    d.mkdir(parents=True)
    _save(checkpoint_dict(PolicyValueNet(hidden_sizes=[8])), d / "ckpt_0000001.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ppo.ConfigError, match="weights only .*--evaluate"):
            ppo.train(args, resume=True)


def test_the_digest_reads_a_tensor_of_any_strides():
    """A corrupt file can hold a size-1 tensor with stride 0 (hypothesis found one by flipping a bit): the
    digest reads its value as it reads the plain tensor's."""
    from agents.neural.checkpoint import weights_digest

    odd = torch.tensor([3.0]).as_strided((1,), (0,))
    assert weights_digest({"w": odd}) == weights_digest({"w": torch.tensor([3.0])})
