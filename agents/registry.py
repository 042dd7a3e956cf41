"""The agent registry: a team member from its name (``make_agent``) and a team from
``--team``'s text (``parse_team``), for every command (eval, play, analyze, benchmark) and
the web server.

A member is ``baseline`` (the game's own, ``baseline:<option>=<value>[;...]``), ``random``,
``trained`` (the game's shipped checkpoint), ``search[:<option>=<value>[;...]]`` (search on
top of a blueprint, ``agents.search``), another shipped policy the game's record names
(``Game.members``), a checkpoint path (a policy for the game; a relative path not found in
the current folder is read in the project, where the shipped checkpoints are) or
``FILE.py:Class`` (``agents.user``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from commoncause import ROOT
from commoncause.envs.registry import DEFAULT_GAME, get_game

from .base import Agent, RandomAgent
from .search import SearchAgent, SearchOptions, require_search
from .trained import PolicyAgent, shipped_checkpoint, trained_spec
from .user import is_user_spec, load_user_agent

AGENT_NAMES = (
    "baseline",
    "baseline:<option>=<value>[;...]",
    "random",
    "trained",
    "search[:<option>=<value>[;...]]",
    "a shipped policy the game names (commoncause games)",
    "a checkpoint path (.pt)",
    "FILE.py:Class (your own agent class)",
)
"""What a team member may be, in words (``--team`` help and error messages)."""
AGENT_CHOICES = f"{', '.join(AGENT_NAMES[:-1])} or {AGENT_NAMES[-1]}"


def make_agent(spec: str, game: str = DEFAULT_GAME) -> Agent:
    """An agent from its name: ``baseline`` (the game's own baseline), ``baseline:jokers=hold``,
    ``random``, ``trained`` (the game's shipped checkpoint for its default config),
    ``search:rollouts=16`` (search on top of a blueprint, ``agents.search``), a policy of
    the game's ``members``, a checkpoint path (a policy for this game) or ``FILE.py:Class``
    (``agents.user``). Anything else is a ValueError that lists the choices."""
    if is_user_spec(spec):
        return load_user_agent(spec)
    name, _, options = spec.partition(":")
    if name == "baseline":
        return get_game(game).baseline(options)
    if name == "random" and not options:
        return RandomAgent()
    if name == "search":
        parsed = SearchOptions.parse(options)
        return SearchAgent(parsed, game, *search_members(parsed, game))
    if spec == "trained":
        return PolicyAgent(shipped_checkpoint(game), game=game)
    members = get_game(game).members
    if spec in members:
        return PolicyAgent(ROOT / members[spec], game=game)
    if spec.endswith(".pt") or "/" in spec:
        path = Path(spec)
        if not path.is_absolute() and not path.exists() and (ROOT / path).exists():
            path = ROOT / path
        return PolicyAgent(path, game=game)
    raise ValueError(f"unknown team member {spec!r}: choose {AGENT_CHOICES}")


def search_members(
    options: SearchOptions, game: str
) -> tuple[Agent, Agent | None, Agent | None]:
    """The members a search agent's options name, as ``SearchAgent`` takes them: the
    blueprint, the rollout player (None: the blueprint) and the others' model (None: none);
    a ValueError first where the search cannot play ``game``."""
    require_search(get_game(game))
    blueprint = make_agent(options.blueprint, game)
    rollout = None if options.rollout == "blueprint" else make_agent(options.rollout, game)
    others = None if options.others == "rollout" else make_agent(options.others, game)
    return blueprint, rollout, others


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def parse_team(
    text: str, seats: int = 2, game: str = DEFAULT_GAME, config: Any = None
) -> tuple[str, ...]:
    """``"baseline,random"`` -> ("baseline", "random"): one member per seat, each checked;
    a single member fills every seat. With ``config``, ``trained`` names the game's shipped
    policy for that config (its path, where it is not the default config's), as a member
    and as a search member's blueprint or rollout policy."""
    members = [m.strip() for m in text.split(",")]
    if len(members) == 1 and members[0]:
        members = members * seats
    if config is not None:
        members = [for_config(m, game, config) for m in members]
    if len(members) != seats or not all(members):
        count = _WORDS[seats] if seats < len(_WORDS) else str(seats)
        raise ValueError(
            f"a team is {count} members separated by commas (one per seat), got {text!r}"
        )
    for m in members:
        make_agent(m, game)
    return tuple(members)


def for_config(member: str, game: str, config: Any) -> str:
    """``member`` with ``trained`` (itself, or a search member's policy) naming the shipped
    policy of ``config`` (``trained_spec``); a ValueError where the game ships none."""
    if member == "trained":
        return trained_spec(game, config)
    name, _, text = member.partition(":")
    if name != "search":
        return member
    options = SearchOptions.parse(text)
    fixed = {
        policy: trained_spec(game, config)
        for policy in ("blueprint", "rollout", "others")
        if getattr(options, policy) == "trained"
    }
    if all(spec == "trained" for spec in fixed.values()):
        return member  # the default config's policy: the member as written
    return f"search:{replace(options, **fixed).text()}"
