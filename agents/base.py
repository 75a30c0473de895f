"""The agent interface shared by tournaments, training evaluation and the env.

An agent sees what the environment gives a player, and nothing else:

- ``observation``: the float32 vector of ``belote_env.observation.encode``
  (None for agents with ``needs_observation = False``);
- ``action_mask``: the int8 mask over the 112 actions (1 = legal);
- ``info``: the seat's :class:`~belote_env.rules.info.InfoState` (own cards,
  calls, contract, tricks, played cards, belote, public declarations, legal
  actions; scores and garde in game episodes). It holds no reference to the
  game state, so no other seat's cards can be read from it. Search agents
  that need full deals draw them with
  ``belote_env.rules.sampling.sample_deal(info, rng)``.

``act`` returns one legal action id. Agents are built by name or checkpoint
path with :func:`agents.make_agent`.
"""

from __future__ import annotations

import numpy as np

from belote_env.rules.info import InfoState


class Agent:
    """Base class: override :meth:`act`.

    ``reset(seed)`` is called at the start of every batch of deals played
    together (tables play in lockstep so neural decisions can be batched);
    keep no per-deal state in the agent object.
    """

    name = "agent"
    needs_observation = True  # False lets a table skip encoding for rule-based agents
    needs_info = True  # False lets a table skip building the InfoState (neural agents)
    takes_seeds = False  # True: act_batch accepts seeds= (one per decision) and draws its random numbers from them

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, info: InfoState | None) -> int:
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, infos: list, seeds=None) -> list[int]:
        """Many decisions at once; neural agents override this with one forward pass.

        ``seeds`` (only for agents with ``takes_seeds``): one uint64 per decision; the agent then draws the
        random numbers of decision ``i`` from ``seeds[i]`` alone, so that its choice at a table does not depend
        on which other tables are asked with it (training collection, split among Ray actors or not:
        ``agents.counter_rng``). Deterministic agents need not take seeds."""
        return [self.act(o, m, i) for o, m, i in zip(observations, action_masks, infos)]

    def decision_extras(self, observations: np.ndarray, action_masks: np.ndarray, infos: list, actions) -> list | None:
        """Optional: what the agent attaches to its decisions in deal records (:mod:`belote_env.rules.record`), one
        JSON-ready dict per decision (``actions[i]`` is what it chose at row ``i``), or None for nothing (the
        default). Called only when deals are recorded (``belote-tournament --record``); neural agents give the
        policy's probability of each legal action and the value estimate."""
        return None

    def act_rows(self, params: np.ndarray, rows: np.ndarray):
        """Optional: a kernel copy of :meth:`act` for many tables of the batched engine at once.

        ``rows``: int64 info rows (``VectorEnv.info_rows``: each table's row with every card its seat to act
        may not know cleared); ``params``: the variant's switches (``VectorEnv.params``). Returns one action
        per row, exactly what :meth:`act` returns on those tables' ``InfoState`` (which the copy's tests must
        show), or None where there is no copy: the play loop then builds the ``InfoState`` of each table and
        calls :meth:`act_batch`. Only rule-based agents without randomness have one (``heuristic``)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
