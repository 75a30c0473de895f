"""OpenSpiel's bots and ours, both ways (``pip install -e ".[openspiel]"``); the game itself, ``python_belote``, is
:mod:`belote_env.integrations.openspiel`.

- :mod:`agents.openspiel.agent`: :class:`~agents.openspiel.agent.OpenSpielAgent`, an OpenSpiel bot at our
  tables, tournaments and ladder, by the agent spec ``openspiel:ismcts`` (or ``openspiel:random``).
- :mod:`agents.openspiel.bot`: :class:`~agents.openspiel.bot.AgentBot`, any agent of this project as a
  ``pyspiel.Bot`` of ``python_belote``, for OpenSpiel's own code (``evaluate_bots``...).

Two modules, because the agent registry builds ``openspiel:`` specs from the first and the second builds its
agents through the registry. This package imports neither, nor OpenSpiel, until asked.
"""
