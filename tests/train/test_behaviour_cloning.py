"""The behaviour-cloning warm start (bc_* options) and the automatic run name."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

from agents.neural.network import PolicyValueNet
from agents.training import behaviour_cloning as bc
from agents.training.curves import read_scalars
from belote_env.observation import OBS_SIZE

from .helpers import REPO, run_train_here

BC_OPTIONS = ["--config", "configs/train/tiny.yaml", "--bc-agent", "heuristic", "--bc-decisions", "3000",
              "--bc-epochs", "2", "--bc-batch-size", "256", "--keep-checkpoints", "20", "--final-eval-pairs", "0"]


def test_demonstrations_are_legal_and_carry_the_team_rewards():
    from agents.training import ppo
    from belote_env.variants import load_variant

    demo = bc.record_demonstrations(load_variant("coinche"), "heuristic", 2000, seed=5)
    assert demo.obs.shape == (2000, OBS_SIZE) and demo.obs.dtype == np.float32
    assert np.all(demo.mask[np.arange(2000), demo.actions] == 1)
    assert (demo.actions >= 32).any() and (demo.actions < 32).any()  # auction and card play both recorded
    assert np.abs(demo.returns).max() > 0 and np.abs(demo.returns).max() <= 2.0
    # both teams' decisions of a deal: the rewards are opposite, so they sum to ~0 over full deals
    values = np.unique(np.round(demo.returns, 6))
    assert all(-v in values for v in values if v != demo.returns[-1] and v != -demo.returns[-1])
    again = bc.record_demonstrations(load_variant("coinche"), "heuristic", 2000, seed=5)
    assert np.array_equal(again.actions, demo.actions) and np.array_equal(again.obs, demo.obs)
    same = bc.record_demonstrations(load_variant("coinche"), "heuristic", 2000, seed=5, searched_only=True)
    assert np.array_equal(same.actions, demo.actions)  # an agent that never says what it searches: every decision


def test_searched_only_records_the_decisions_search_makes():
    """pimc searches the cards of the last tricks (tricks=2 here): its calls and earlier cards are its base's."""
    from belote_env.observation import SEGMENTS
    from belote_env.variants import load_variant

    demo = bc.record_demonstrations(load_variant("coinche"), "pimc:worlds=2,tricks=2", 300, seed=5, searched_only=True)
    assert (demo.actions < 32).all() and np.all(demo.mask[np.arange(300), demo.actions] == 1)
    start, width = SEGMENTS["trick_number"]
    assert (demo.obs[:, start:start + width].argmax(1) >= 6).all()  # the 7th and 8th tricks



def test_search_values_are_recorded_and_become_soft_targets():
    """values=True: where pimc searched, every legal card's mean score difference over its worlds (reward units),
    its chosen card the best; NaN elsewhere. soft_targets: the softmax of those values at each searched decision
    (one-hot at a low temperature), the action itself elsewhere; the best value as the value's target."""
    from belote_env.variants import load_variant

    demo = bc.record_demonstrations(load_variant("coinche"), "pimc:worlds=2,tricks=2", 600, seed=5, values=True)
    searched = ~np.isnan(demo.values).all(1)
    assert 0 < searched.sum() < 600 and (demo.actions[searched] < 32).all()
    v = demo.values[searched]
    assert np.array_equal(~np.isnan(v), demo.mask[searched] == 1)  # every legal card, nothing else
    assert np.allclose(v[np.arange(len(v)), demo.actions[searched]], np.nanmax(v, 1))
    assert np.nanmax(np.abs(v)) <= 4.0  # deal score differences over coinche's scale of 400
    actions, returns = torch.from_numpy(demo.actions), torch.from_numpy(demo.returns)
    targets, values_out = bc.soft_targets(actions, returns, demo.values, 0.05)
    assert torch.allclose(targets.sum(1), torch.ones(600)) and (targets[torch.from_numpy(demo.mask) == 0] == 0).all()
    rows = torch.from_numpy(searched)
    assert torch.equal(targets[~rows], torch.nn.functional.one_hot(actions[~rows], 112).float())
    assert torch.equal(values_out[~rows], returns[~rows])
    assert torch.allclose(values_out[rows], torch.from_numpy(np.nanmax(v, 1)))
    sharp, _ = bc.soft_targets(actions, returns, demo.values, 1e-6)
    best = sharp[rows].argmax(1).numpy()
    assert np.allclose(v[np.arange(len(v)), best], np.nanmax(v, 1)) and (sharp[rows].max(1).values > 0.3).all()
    net = PolicyValueNet(hidden_sizes=[16])
    figures = bc.behaviour_clone(net, demo, bc.Fitting(epochs=1, batch_size=64, temperature=0.05))
    assert np.isfinite(figures["loss"])


def test_cloning_fits_the_demonstrator():
    from agents.neural.network import PolicyValueNet
    from belote_env.variants import load_variant

    torch.manual_seed(0)
    demo = bc.record_demonstrations(load_variant("coinche"), "heuristic", 4000, seed=1)
    net = PolicyValueNet(hidden_sizes=[64])
    fit = bc.Fitting(epochs=4, batch_size=128)
    before = bc.clone_validation(net, torch.from_numpy(demo.obs), torch.from_numpy(demo.mask),
                                  torch.from_numpy(demo.actions), torch.from_numpy(demo.returns))
    figures = bc.behaviour_clone(net, demo, fit)
    # an untrained net agrees with the heuristic on forced moves only (~5 % of its bids)
    assert before["val_accuracy_bidding"] < 0.2 and before["val_accuracy"] < 0.55
    assert figures["val_accuracy_bidding"] > 0.5 and figures["val_accuracy"] > before["val_accuracy"] + 0.1
    assert figures["value_loss"] < before["val_value_loss"]


def test_bc_option_errors():
    from agents.training import ppo

    with pytest.raises(ppo.ConfigError, match="bc_decisions"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--bc-agent", "heuristic", "--bc-decisions", "0"])
    with pytest.raises(ppo.ConfigError, match="bc_learning_rate"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--bc-agent", "heuristic", "--bc-learning-rate", "0"])


def test_warm_started_run_logs_bc_and_resumes_exactly_after_it(tmp_path):

    runs = tmp_path / "runs"
    out = run_train_here(*BC_OPTIONS, "--runs-dir", str(runs), "--run-name", "bc")
    assert "bc warm start: 3000 decisions of heuristic" in out and "after the warm start" in out
    scalars = read_scalars(runs / "bc")
    for tag in ("bc/loss", "bc/accuracy", "bc/val_accuracy", "bc/val_accuracy_bidding", "bc/value_loss"):
        assert tag in scalars, f"{tag} missing"
    assert scalars["bc/accuracy"][0].tolist() == [1, 2]  # one point per epoch
    assert scalars["eval/heuristic/deals_won"][0].tolist()[0] == 0  # the clone, evaluated before PPO
    ckpts = sorted(p.name for p in (runs / "bc" / "checkpoints").glob("ckpt_*.pt"))
    assert ckpts[0] == "ckpt_0000000.pt" and len(ckpts) == 5
    assert torch.load(runs / "bc" / "checkpoints" / "ckpt_0000000.pt", weights_only=True)["update"] == 0

    # a run stopped right after the warm start resumes with PPO and ends with the same weights
    cut = runs / "cut" / "checkpoints"
    cut.mkdir(parents=True)
    shutil.copy(runs / "bc" / "checkpoints" / "ckpt_0000000.pt", cut)
    out = run_train_here(*BC_OPTIONS, "--runs-dir", str(runs), "--run-name", "cut", "--resume")
    assert "bc warm start" not in out
    whole = torch.load(runs / "bc" / "checkpoints" / "latest.pt", weights_only=True)["model"]
    resumed = torch.load(cut / "latest.pt", weights_only=True)["model"]
    for name, tensor in whole.items():
        assert torch.equal(tensor, resumed[name]), f"{name} differs after resuming from the warm start"


def test_default_run_name_moves_to_the_next_free_one(tmp_path, capsys):
    from agents.training import ppo

    opts = ["--config", "configs/train/tiny.yaml", "--total-timesteps", "512", "--eval-every", "0",
            "--final-eval-pairs", "0", "--runs-dir", str(tmp_path)]
    args, ns, cli = ppo.parse_args(opts)
    assert not ns.run_name_given and args.run_name == "tiny_s3"
    ppo.train(args, cli_overrides=cli, auto_run_name=True)
    (tmp_path / "tiny_s3_2").mkdir()  # an existing directory is never reused
    args, ns, cli = ppo.parse_args(opts)
    summary = ppo.train(args, cli_overrides=cli, auto_run_name=True)
    assert summary["run_name"] == "tiny_s3_3" and list((tmp_path / "tiny_s3_3" / "checkpoints").glob("ckpt_*.pt"))
    assert "this run is 'tiny_s3_3'" in capsys.readouterr().out
    # --resume without --run-name continues the default name
    args, ns, cli = ppo.parse_args([*opts, "--total-timesteps", "1024"])
    summary = ppo.train(args, resume=True, cli_overrides=cli, auto_run_name=True)
    assert summary["run_name"] == "tiny_s3" and summary["update"] == 2
    # an explicit run name keeps the refusal
    args, ns, cli = ppo.parse_args([*opts, "--run-name", "tiny_s3"])
    assert ns.run_name_given
    with pytest.raises(ppo.ConfigError, match="already has checkpoints"):
        ppo.train(args, cli_overrides=cli, auto_run_name=not ns.run_name_given)
    assert json.loads((tmp_path / "tiny_s3" / "final_eval.json").read_text())["update"] == 2


def test_init_from_starts_from_a_trained_network_instead_of_the_warm_start(tmp_path, tiny_run):
    from agents.training import ppo

    runs = tmp_path / "runs"
    first = tmp_path / "init.pt"
    shutil.copy(tiny_run[0] / "checkpoints" / "latest.pt", first)  # a network trained on tiny.yaml, shared
    out = run_train_here(*BC_OPTIONS, "--runs-dir", str(runs), "--run-name", "b", "--init-from", str(first))
    assert "no behaviour-cloning warm start" in out and "bc warm start" not in out
    assert "after init_from" in out
    start = torch.load(runs / "b" / "checkpoints" / "ckpt_0000000.pt", weights_only=True)
    trained = torch.load(first, weights_only=True)
    assert start["args"]["init_from"] == str(first) and start["args"]["bc_agent"] == ""
    for name, tensor in trained["model"].items():  # checkpoint 0 is the loaded network, before any update
        assert torch.equal(tensor, start["model"][name]), name
    first.unlink()  # resuming continues from the run's own checkpoint: the init file is no longer needed
    run_train_here(*BC_OPTIONS, "--runs-dir", str(runs), "--run-name", "b", "--resume", "--total-timesteps", "2560")
    assert torch.load(runs / "b" / "checkpoints" / "latest.pt", weights_only=True)["update"] == 5
    # a shipped agent by name; sizes that do not match, and missing files, are refused before anything is written
    args, _, _ = ppo.parse_args(["--config", "configs/train/tiny.yaml", "--hidden-sizes", "256", "256",
                                   "--init-from", "ppo_coinche"])
    assert args.init_from == "ppo_coinche"
    with pytest.raises(ppo.ConfigError, match=r"'hidden_sizes': \[256, 256\].*this run's is mlp .*'hidden_sizes': \[32\]"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--init-from", "ppo_coinche"])
    with pytest.raises(ppo.ConfigError, match="neither a checkpoint file nor a shipped agent"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--init-from", str(tmp_path / "no.pt")])


def test_expert_agent_fits_the_init_network_to_the_experts_decisions(tmp_path, tiny_run):
    # one step of expert iteration on the tiny run's network, with the heuristic as the expert (search's recording
    # is the same play loop, slower): checkpoint 0 is the fitted network, logged under expert/
    from agents.training.curves import read_scalars

    runs = tmp_path / "runs"
    first = tiny_run[0] / "checkpoints" / "latest.pt"
    out = run_train_here("--config", "configs/train/tiny.yaml", "--runs-dir", str(runs), "--run-name", "x",
                         "--init-from", str(first), "--expert-agent", "heuristic", "--expert-decisions", "3000",
                         "--bc-epochs", "2", "--bc-batch-size", "256", "--final-eval-pairs", "0",
                         "--keep-checkpoints", "20")
    assert "expert: 3000 decisions of heuristic recorded" in out and "after fitting heuristic" in out
    start = torch.load(runs / "x" / "checkpoints" / "ckpt_0000000.pt", weights_only=True)
    trained = torch.load(first, weights_only=True)["model"]
    assert start["args"]["expert_agent"] == "heuristic"
    assert any(not torch.equal(t, start["model"][k]) for k, t in trained.items())  # fitted, not just loaded
    assert {"expert/val_accuracy", "expert/policy_loss", "expert/seconds"} <= set(read_scalars(runs / "x"))
    with pytest.raises(Exception, match="expert_decisions"):
        from agents.training import ppo

        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--expert-agent", "heuristic",
                        "--expert-decisions", "0"])
    with pytest.raises(Exception, match="expert_agent"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--expert-agent", "nobody"])


def test_recording_in_parts_joins_the_parts_each_from_its_own_seed():
    """workers=2: two processes, part i recorded as record_demonstrations(seed=[seed, i]) alone, joined in order."""
    from belote_env.variants import load_variant

    v = load_variant("coinche")
    both = bc.record_demonstrations(v, "pimc:worlds=2,tricks=2", 500, seed=5, values=True, workers=2)
    first = bc.record_demonstrations(v, "pimc:worlds=2,tricks=2", 250, seed=[5, 0], values=True)
    second = bc.record_demonstrations(v, "pimc:worlds=2,tricks=2", 250, seed=[5, 1], values=True)
    for name in ("obs", "mask", "actions", "returns", "values"):
        joined = np.concatenate([getattr(first, name), getattr(second, name)])
        assert np.array_equal(getattr(both, name), joined, equal_nan=True), name
    assert both.hidden is None


def test_expert_every_fits_mid_run_on_the_network_itself_and_resumes_exactly(tmp_path):
    """Expert iteration inside one run: ``search:policy={net}`` searches on the network being trained (written to
    <run>/expert_net.pt), every ``expert_every`` updates before that update's checkpoint, so a run resumed from
    any checkpoint ends with the uninterrupted run's weights."""
    import shutil

    runs = tmp_path / "runs"
    options = ["--config", "configs/train/tiny.yaml", "--total-timesteps", str(6 * 512), "--eval-every", "0",
               "--final-eval-pairs", "0", "--checkpoint-every", "1", "--keep-checkpoints", "20",
               "--expert-agent", "search:policy={net},worlds=2", "--expert-decisions", "400", "--expert-every", "2",
               "--expert-temperature", "20",
               "--bc-epochs", "1", "--bc-batch-size", "128", "--runs-dir", str(runs)]
    out = run_train_here(*options, "--run-name", "whole")
    assert out.count("expert at update") == 2  # updates 2 and 4; none after the last update (6)
    scalars = read_scalars(runs / "whole")
    assert scalars["expert/seconds"][0].tolist() == [0, 1024, 2048]  # at the start too: no bc_agent, no init_from
    assert "its first step fits the untrained network" in out
    assert (runs / "whole" / "expert_net.pt").is_file()
    ckpts = runs / "whole" / "checkpoints"
    before, after = (torch.load(ckpts / f"ckpt_000000{u}.pt", weights_only=True)["model"] for u in (1, 2))
    assert any(not torch.equal(before[k], after[k]) for k in before)
    # resume from the checkpoint of update 2 (the fit of update 2 in it) and from update 3
    for u in (2, 3):
        cut = runs / f"cut{u}" / "checkpoints"
        cut.mkdir(parents=True)
        shutil.copyfile(ckpts / f"ckpt_000000{u}.pt", cut / f"ckpt_000000{u}.pt")
        shutil.copyfile(ckpts / f"ckpt_000000{u}.pt", cut / "latest.pt")
        run_train_here(*options, "--run-name", f"cut{u}", "--resume")
        final = torch.load(cut / "latest.pt", weights_only=True)["model"]
        whole = torch.load(ckpts / "latest.pt", weights_only=True)["model"]
        assert all(torch.equal(whole[k], final[k]) for k in whole), f"resumed from update {u}: weights differ"
    with pytest.raises(Exception, match="expert_every"):
        from agents.training import ppo

        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--expert-agent", "heuristic", "--expert-every", "3",
                        "--checkpoint-every", "2"])
    with pytest.raises(Exception, match="expert_every"):
        ppo.parse_args(["--config", "configs/train/tiny.yaml", "--expert-every", "2"])


def test_bench_clone_fits_each_network_for_the_same_seconds():
    """benchmarks/bench_clone.py: one line per network, each given by its spec with kwargs; a spec it cannot build
    (the block design's kwargs for the factored network) is one error line, before anything is recorded."""
    bench = [sys.executable, "benchmarks/bench_clone.py"]
    proc = subprocess.run([*bench, "mlp@hidden_sizes=[32]", "cardset@hidden=8,width=8", "--seconds", "0.5",
                           "--decisions", "20000", "--threads", "1"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line.split()}
    assert "20,000 decisions of heuristic (coinche) recorded" in proc.stdout
    for name in ("mlp@hidden_sizes=[32]", "cardset@hidden=8,width=8"):
        params, rows, epochs, held_out, auction, play, value = lines[name][1:]
        assert int(params.replace(",", "")) > 0 and float(rows.replace(",", "")) > 0 and float(epochs) > 0
        assert all(0 <= float(x.rstrip("%")) <= 100 for x in (held_out, auction, play)) and float(value) >= 0
    proc = subprocess.run([*bench, "cardset@depth=2"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("error: network 'cardset' cannot be built from")
    assert "recorded" not in proc.stdout
