"""Train a Belote agent by self-play PPO: the command over the trainer, ``agents.training.ppo``.

    python train.py --config configs/train/quick.yaml            # 2.5 minutes on 2 CPU cores
    python train.py --config configs/train/coinche.yaml --resume  # continue the latest checkpoint
    python train.py --evaluate runs/coinche_s1/checkpoints/latest.pt --final-eval-pairs 1000
    python train.py --plot runs/coinche_s1                        # runs/coinche_s1/training_curves.png
    python train.py --help                                        # every option, documented
    tensorboard --logdir runs

The options are ``agents.training.options.Args`` (a YAML file in ``configs/train/``, then the command line); the
loop, collect -> GAE -> PPO update, is ``agents.training.ppo.train``, the one place that reads them.
``docs/training.md`` explains each part. Scripts and tests import the library, not this file.
"""

import sys

from agents.training.ppo import main
from agents.training.runs import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))  # errors, signals and Ctrl-C as one line and an exit status (agents.training.runs)
