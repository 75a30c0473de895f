"""OpenSpiel's bots as agents of this project (``pip install -e ".[openspiel]"``).

:class:`OpenSpielAgent`: an OpenSpiel bot at our tables, tournaments and ladder, by the agent spec
``openspiel:ismcts`` (OpenSpiel's information-set MCTS with random rollouts; options after a comma:
``openspiel:ismcts,sims=200,uct=2,rollouts=1,seed=0``) or ``openspiel:random``. At each decision it builds
the ``python_belote`` state of a deal drawn consistent with the seat's information
(:func:`belote_env.rules.sampling.sample_deal`; ISMCTS redraws the hidden cards itself at every simulation)
and asks the bot. It plays each deal for that deal's score (in game episodes too). The other way round, our
agents as OpenSpiel bots, is :mod:`agents.openspiel.bot`.
"""

from __future__ import annotations

import random
import zlib

import numpy as np

from agents.base import Agent
from agents.cli import key_values
from agents.errors import AgentSpecError
from belote_env.rules.info import InfoState
from belote_env.rules.sampling import sample_deal

try:
    from open_spiel.python.algorithms import ismcts, mcts

    from belote_env.integrations.openspiel import game_for, state_from_deal
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"agents.openspiel.agent needs OpenSpiel: pip install -e \".[openspiel]\" ({e})") from None


BOTS = ("ismcts", "random")
OPTIONS = {"sims": int, "uct": float, "rollouts": int, "seed": int, "worlds": int}


class OpenSpielAgent(Agent):
    """An OpenSpiel bot at this project's tables (see the module docstring). ``bot``: ``ismcts`` or ``random``;
    ``sims`` ISMCTS simulations per decision (100), ``uct`` its exploration constant (2.0), ``rollouts`` random
    rollouts per leaf (1), ``worlds`` the most distinct deals it samples per decision (-1: a new one every
    simulation, OpenSpiel's default), ``seed`` added to :meth:`reset`'s. Each decision's random numbers come
    from the seed, the seat and the public history, so a decision does not depend on the order tables play."""

    needs_observation = False

    def __init__(self, bot: str = "ismcts", sims: int = 100, uct: float = 2.0, rollouts: int = 1, seed: int = 0,
                 worlds: int = -1, name: str | None = None):
        if bot not in BOTS:
            raise ValueError(f"unknown OpenSpiel bot {bot!r}; available: {', '.join(BOTS)}")
        if sims < 1 or rollouts < 1:
            raise ValueError(f"sims and rollouts must be >= 1, got sims={sims}, rollouts={rollouts}")
        self.bot, self.sims, self.uct, self.rollouts, self.worlds = bot, sims, uct, rollouts, worlds
        self.base_seed = seed
        self.seed = seed
        self.name = name or f"openspiel:{bot}"
        self._games: dict = {}

    def reset(self, seed: int | None = None) -> None:
        self.seed = self.base_seed + (seed or 0)

    def act(self, observation, action_mask, info: InfoState) -> int:
        legal = list(info.legal)
        if len(legal) == 1:
            return legal[0]
        key = zlib.crc32(bytes(info.history) + bytes([info.seat, info.dealer])) ^ (self.seed * 0x9E3779B1)
        rng = np.random.RandomState(key % 2**32)
        if self.bot == "random":
            return int(rng.choice(legal))
        game = self._games.get((info.variant, info.dealer))
        if game is None:
            game = self._games[(info.variant, info.dealer)] = game_for(info.variant.with_overrides(episode="deal"),
                                                                      info.dealer)
        deal = sample_deal(info._replace(variant=game.variant), random.Random(key))
        state = state_from_deal(game, deal)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rng),
                               uct_c=self.uct, max_simulations=self.sims, max_world_samples=self.worlds,
                               random_state=rng)
        # its worlds from this decision's generator too (OpenSpiel's default sampler has a generator of its own)
        bot.set_resampler(lambda st, player: st.resample_from_infostate(player, rng.uniform))
        return int(bot.step(state))


def make_openspiel_agent(options: str = "") -> OpenSpielAgent:
    """``openspiel:ismcts,sims=200,uct=2`` (the bot first, then ``key=value`` options); ValueError naming the
    bad item."""
    bot, *items = [t.strip() for t in options.split(",")] if options else ["ismcts"]
    kwargs = key_values(items, OPTIONS, "openspiel")
    name = "openspiel:" + (options or "ismcts")
    try:
        return OpenSpielAgent(bot or "ismcts", **kwargs, name=name)
    except ValueError as e:
        raise AgentSpecError(str(e)) from None


__all__ = ["OpenSpielAgent", "make_openspiel_agent"]
