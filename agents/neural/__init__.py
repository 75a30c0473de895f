"""Neural agents and the network behind them.

- :mod:`agents.neural.network`: :class:`PolicyValueNet` (an MLP trunk, a policy head of 112 logits and a value
  head) and :func:`build_net` (the network of a checkpoint);
- :mod:`agents.neural.agent`: :class:`NeuralAgent` (plays a network, greedy or sampling) and :func:`load_agent`;
- :mod:`agents.neural.checkpoint`: the checkpoint file format (written atomically, verified on load);
- :mod:`agents.neural.sampling`: masked log-probabilities and the one-number-per-row draw;
- the network's training path: :mod:`agents.neural.sparse` (the first layer on the observations' non-zero
  entries) and :mod:`agents.neural.onednn` (oneDNN's matrix products).

::

    from agents.neural import load_agent
    agent = load_agent("runs/coinche/checkpoints/latest.pt")
"""

from __future__ import annotations

from agents.neural.agent import NeuralAgent, load_agent
from agents.neural.checkpoint import CHECKPOINT_FORMAT, checkpoint_dict, load_checkpoint
from agents.neural.network import MASKED_LOGIT, PolicyValueNet
from agents.neural.protocol import build_net
from agents.neural.sampling import policy_terms, sample_actions

__all__ = ["NeuralAgent", "load_agent", "PolicyValueNet", "build_net", "MASKED_LOGIT", "CHECKPOINT_FORMAT",
           "checkpoint_dict", "load_checkpoint", "policy_terms", "sample_actions"]
