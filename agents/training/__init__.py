"""What only ``train.py`` (and its tests and benchmarks) use: options, run folders and resume, collection and the
rollout buffer, the learner, the central critic, the opponent pool, the behaviour-cloning warm start, evaluation
during training, training curves, Ray rollouts and export. Players are in :mod:`agents`, the arena in
:mod:`agents.arena`."""
