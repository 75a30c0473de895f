"""Adapters for RL libraries that are not dependencies of the project.

- :mod:`belote_env.integrations.rllib`: the AEC env as an RLlib ``MultiAgentEnv``
  (observation dict ``{"observations", "action_mask"}``), policy mapping for one
  shared policy or one per team, and an RLlib PPO config with action masking;
- :mod:`belote_env.integrations.tianshou`: the single-agent env with Tianshou's
  observation dict ``{"obs", "mask"}`` and a masked actor / critic.

Each module imports its library at import time and fails with an install hint
when it is absent. Trained models play in tables and tournaments through
:func:`agents.policy.rllib_agent` and :func:`agents.policy.tianshou_agent`.
"""
