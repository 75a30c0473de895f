"""Who plays in the ladder: the families and each family's line-up (the agents of its round-robin)."""

from __future__ import annotations

from agents.arena.errors import LadderError

FAMILIES = ("belote_classique", "coinche", "contree", "cobrecaf_81")
BASE_AGENTS = ("random", "heuristic", "pimc")
PRETRAINED = "pretrained"  # in --agents: the family's shipped trained agents
SEARCH_AGENTS = ("search",)  # after the trained agents: pimc on the family's shipped policy


def family_agents(family: str, agents: list[str] | None = None) -> list[str]:
    """The agents of ``family``'s round-robin: ``random``, ``heuristic``, ``pimc``, the shipped agents trained on
    it and ``search`` (pimc on the first of them, when there is one); or ``agents``, where the word
    ``pretrained`` stands for those shipped agents."""
    from agents.pretrained import trained_on

    trained = trained_on(family)
    specs = list(BASE_AGENTS) + [PRETRAINED] + list(SEARCH_AGENTS) * bool(trained) if agents is None else list(agents)
    out: list[str] = []
    for spec in specs:
        out.extend(trained if spec == PRETRAINED else [spec])
    if len(set(out)) != len(out):
        raise LadderError(f"{family}: an agent is listed twice in {out}")
    if len(out) < 2:
        raise LadderError(f"{family}: a round-robin needs at least two agents, got {out}")
    return out


def check_agent(spec: str) -> None:
    """Fail early, with an AgentSpecError, on a spec ``make_agent`` cannot build (registered names are not
    built here: pimc and the trained agents load numba or torch; ``pimc:OPTIONS`` is built, which compiles
    nothing yet)."""
    from agents.registry import agent_names, make_agent

    if spec not in agent_names():
        make_agent(spec)


def anchor_of(agents: list[str]) -> str:
    """The agent rated 0: random when it plays, else the first of the line-up."""
    return "random" if "random" in agents else agents[0]
