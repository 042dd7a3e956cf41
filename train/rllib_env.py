"""Any registered game as an RLlib multi-agent env: the game's PettingZoo AEC env
(``envs/aec.py``) in RLlib's ``PettingZooEnv``, through one small AEC wrapper.

The wrapper (``RLlibSeats``) renames the observation keys to RLlib's (``observations``,
``action_mask``), plays moves with a single legal choice itself (they teach nothing; the
self-play env of the other trainers skips them too, so steps count the same decisions), and
pays each seat, times ``reward_scale``, everything it earned since its own last decision
(other seats' moves and the skipped ones included) when it next decides or the game ends.
So rewards are per seat: Common Cause pays both seats +1 / -1, a competitive game each
seat its own points (with ``reward_margin``, minus the other seats' mean, as the self-play
env pays them: ``train/selfplay.py``).
"""

from __future__ import annotations

import importlib

import gymnasium
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from commoncause.envs.registry import get_game
from commoncause.train.selfplay import margins


class RLlibSeats(BaseWrapper):
    """A game's AEC env as RLlib's ``PettingZooEnv`` wants it (see the module docstring)."""

    def __init__(self, env, reward_scale: float = 1.0, reward_margin: bool = False) -> None:
        super().__init__(env)
        self.reward_scale = reward_scale
        self.reward_margin = reward_margin
        space = env.observation_space(env.possible_agents[0])
        self._space = gymnasium.spaces.Dict(
            {"observations": space["observation"], "action_mask": space["action_mask"]}
        )
        self._owed: dict[str, float] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._space

    def observe(self, agent: str) -> dict:
        obs = self.env.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"]}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._owed = {a: 0.0 for a in self.env.possible_agents}
        self._collect()
        self._play_forced()

    def step(self, action: int | None) -> None:
        agent = self.env.agent_selection
        self._owed[agent] = 0.0  # paid by last()
        self.env.step(action)
        if action is not None:  # (None: a finished seat leaving; nothing is earned)
            self._collect()
            self._play_forced()

    def last(self, observe: bool = True):
        agent = self.env.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._owed[agent],
            self.env.terminations[agent],
            self.env.truncations[agent],
            self.env.infos[agent],
        )

    def _collect(self) -> None:
        rewards = self.env.rewards
        if self.reward_margin:
            rewards = dict(zip(rewards, margins(list(rewards.values())), strict=True))
        for agent, reward in rewards.items():
            self._owed[agent] += reward * self.reward_scale

    def _play_forced(self) -> None:
        env = self.env
        while env.agents and not (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            legal = env.game_state.legal_actions()
            if len(legal) != 1:
                return
            env.step(legal[0])
            self._collect()


def make_seats(
    game: str, options: dict, reward_scale: float = 1.0, reward_margin: bool = False
) -> RLlibSeats:
    """The wrapped AEC env of a registered game with these rules options."""
    record = get_game(game)
    raw = importlib.import_module(record.env_module).raw_env(**options)
    return RLlibSeats(raw, reward_scale, reward_margin)


class RLlibGameEnv(PettingZooEnv):
    """RLlib's env of a game: ``env_config`` is ``{"game", "options", "reward_scale",
    "reward_margin"}``."""

    def __init__(self, env_config: dict) -> None:
        super().__init__(
            make_seats(
                env_config["game"],
                env_config["options"],
                env_config["reward_scale"],
                env_config["reward_margin"],
            )
        )
