"""train.py --device: the PPO update on another device, collection and evaluation on CPU copies (agents.neural.
Learner). No GPU here: the copies are exercised on the CPU (a learner kept apart from its players trains the
weights of a plain run, bit for bit), and devices that are not available are refused before the run."""


import pytest
import torch

from agents.training.errors import ConfigError
from agents.training.learner import Learner
from agents.training.options import learner_device

from .helpers import train_command


def test_devices_are_checked():
    assert learner_device("cpu") == torch.device("cpu")
    assert learner_device("auto") == torch.device("cuda" if torch.cuda.is_available() else "cpu")
    for bad in ("tpu", "gpu0", "", "cuda:99"):
        with pytest.raises(ConfigError, match="option 'device'"):
            learner_device(bad)


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cuda_without_a_gpu_is_refused_before_the_run(tmp_path, capsys):
    status, _, err = train_command("--config", "configs/train/tiny.yaml", "--device", "cuda", "--runs-dir", tmp_path,
                                   capsys=capsys)
    assert status == 2 and "option 'device'" in err and err.count("\n") == 1
    assert not any(tmp_path.iterdir())


def test_a_learner_apart_from_its_players_trains_the_same_weights(tmp_path, monkeypatch):
    from agents.training import ppo

    args = ["--config", "configs/train/tiny.yaml", "--total-timesteps", str(3 * 512), "--eval-every", "2",
            "--final-eval-pairs", "2", "--central-critic", "--runs-dir", str(tmp_path)]
    threads = torch.get_num_threads()
    try:
        plain, _, _ = ppo.parse_args([*args, "--run-name", "plain"])
        ppo.train(plain)

        class Apart(Learner):  # what --device cuda does, with the "device" on the CPU
            def __init__(self, *a, **k):
                super().__init__(*a, **k)
                self.apart = True

        monkeypatch.setattr(ppo, "Learner", Apart)
        apart, _, _ = ppo.parse_args([*args, "--run-name", "apart"])
        ppo.train(apart)
    finally:
        torch.set_num_threads(threads)
    a = torch.load(tmp_path / "plain" / "checkpoints" / "latest.pt", weights_only=True)
    b = torch.load(tmp_path / "apart" / "checkpoints" / "latest.pt", weights_only=True)
    for part in ("model", "critic"):
        state_a = a[part]["model"] if part == "critic" else a[part]
        state_b = b[part]["model"] if part == "critic" else b[part]
        for name, tensor in state_a.items():
            assert torch.equal(tensor, state_b[name]), (part, name)
