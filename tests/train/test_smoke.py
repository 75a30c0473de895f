"""train.py end to end on a tiny config, in a subprocess."""

import json

import numpy as np

from agents.training.curves import read_scalars

from .helpers import run_train_here, train_command


def test_tiny_run_writes_logs_checkpoints_and_final_table(tiny_run):
    run_dir, stdout = tiny_run
    summary = json.loads((run_dir / "final_eval.json").read_text())
    assert summary["update"] == 4 and summary["global_step"] == 4 * 8 * 64
    assert set(summary["results"]) == {"random", "heuristic"}
    assert summary["results"]["random"]["pairs"] == 4
    assert "Final duplicate evaluation" in stdout and "heuristic" in stdout
    ckpts = sorted(p.name for p in (run_dir / "checkpoints").glob("ckpt_*.pt"))
    assert ckpts == ["ckpt_0000002.pt", "ckpt_0000003.pt", "ckpt_0000004.pt"]  # keep_checkpoints = 3
    assert not list((run_dir / "checkpoints").glob("*.tmp"))


def test_tensorboard_has_the_documented_series(tiny_run):

    run_dir, _ = tiny_run
    scalars = read_scalars(run_dir)
    for tag in ("charts/SPS", "charts/episodic_return_team0", "charts/episodic_return_team1",
                "losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl",
                "losses/clipfrac", "losses/explained_variance",
                "eval/random/points_per_deal", "eval/random/deals_won", "eval/heuristic/deals_won"):
        assert tag in scalars, f"{tag} missing; logged: {sorted(scalars)}"
    steps, _ = scalars["losses/entropy"]
    assert steps.tolist() == [512, 1024, 1536, 2048]
    assert scalars["eval/random/deals_won"][0].tolist() == [1024, 2048]  # eval_every = 2
    assert np.all(np.isfinite(scalars["losses/policy_loss"][1]))


def test_checkpoint_loads_as_an_agent_and_in_the_registry(tiny_run):
    from agents import make_agent
    from agents.neural.agent import NeuralAgent, load_agent
    from belote_env.observation import action_mask, encode
    from belote_env.rules.game import GameState
    from belote_env.variants import load_variant

    run_dir, _ = tiny_run
    path = run_dir / "checkpoints" / "latest.pt"
    for agent in (load_agent(path), make_agent(str(path))):
        assert isinstance(agent, NeuralAgent)
        game = GameState(load_variant("coinche"), seed=7)
        while not game.over:  # the greedy agent plays a whole deal at all four seats, legally
            seat = game.current_seat
            a = agent.act(encode(game, seat), action_mask(game, seat), None)
            assert a in game.legal_actions()
            game.apply(a)


def test_plot_exports_a_png(tiny_run, tmp_path):
    run_dir, _ = tiny_run
    out = tmp_path / "curve.png"
    run_train_here("--plot", run_dir, "--plot-out", out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_curves_draws_them_at_the_end_and_prints_the_path(tmp_path):
    stdout = run_train_here("--config", "configs/train/tiny.yaml", "--total-timesteps", "512", "--eval-every", "0",
                            "--final-eval-pairs", "0", "--plot-curves", "--runs-dir", tmp_path, "--run-name", "drawn")
    png = tmp_path / "drawn" / "training_curves.png"
    assert f"training curves: {png}" in stdout and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_option_is_a_clear_error_without_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("variant: coinche\nlearning_rat: 0.1\n")
    status, _, err = train_command("--config", bad, capsys=capsys)
    assert status == 2
    assert "unknown option(s) learning_rat" in err and "learning_rate" in err
    assert "Traceback" not in err
