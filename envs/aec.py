"""The one PettingZoo AEC adapter, over any registered game (``envs/core/game.py``).

It only translates: the engine (a game's ``State``) decides legal moves, applies them and
scores; the game's observer builds each seat's observation; the spec module of each game
(``envs/<game>/<game>.py``) subclasses :class:`RummyEnv`, naming its ``GAME`` record and its
PettingZoo metadata, and carries the spec docstring with its version history.

Shared by every game: ``reset(seed=..., options={"deck": [...]})`` (an explicit deal as card
codes, top first), a ``Dict(observation, action_mask)`` observation per agent, per-seat
rewards on the step that earns them (the engine's ``rewards()``; for Common Cause the step
that ends the game), illegal actions refused with an error naming the
legal moves (state unchanged), move notation (``legal_moves``, ``move_to_action``,
``action_to_move``), ``state()`` for centralised critics, a text render, a ``max_moves``
truncation, and copies: ``copy.deepcopy`` and pickle keep a game in progress.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from .core.game import Game, IllegalMoveError, action_id

_INT8 = np.dtype(np.int8)


def _guarded(name: str) -> property:
    """The env's attribute ``name``, refused before reset as PettingZoo's wrapper does, but
    read directly instead of through two layers of ``__getattr__``."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The env's {name} (after reset).")


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-checking agent iterator, reading the env under the wrapper
    directly (``agent_iter`` is refused before reset, so the wrapper's guards always pass)."""

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return env.agent_selection


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _OrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, with the hot paths (``last``, ``step`` and the attributes
    ``agent_iter`` reads every step) going straight to the env rather than through the
    wrapper's attribute forwarding, and ``agent_iter``'s iterator reading the env directly:
    the same behaviour, more steps per second."""

    agents = _guarded("agents")
    agent_selection = _guarded("agent_selection")
    terminations = _guarded("terminations")
    truncations = _guarded("truncations")
    rewards = _guarded("rewards")
    infos = _guarded("infos")

    def agent_iter(self, max_iter: int = 2**63) -> _OrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)


class RummyEnv(AECEnv, EzPickle):
    """A registered game as a PettingZoo AEC env. Subclasses set ``GAME`` and ``metadata``."""

    GAME: ClassVar[Game]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self, render_mode: str | None = None, max_moves: int | None = None, **options
    ) -> None:
        EzPickle.__init__(self, render_mode=render_mode, max_moves=max_moves, **options)
        if max_moves is None:
            max_moves = self.GAME.max_moves
        super().__init__()
        record = self.GAME
        self.config = record.make_config(**options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
            raise ValueError(f"max_moves must be a positive int, got {max_moves!r}")
        self.render_mode = render_mode
        self.max_moves = max_moves
        self.possible_agents = record.seat_names(self.config)
        self.agents = list(self.possible_agents)
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(
                    0.0, 1.0, (record.observation_size,), np.float32
                ),
                "action_mask": gymnasium.spaces.Box(0, 1, (record.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(record.num_actions) for a in self.possible_agents
        }
        self.state_space = gymnasium.spaces.Box(0.0, 1.0, (record.state_size,), np.float32)
        self.game_state = None  # the engine's state, after reset (``state()`` is PettingZoo's)
        self._observers: list = []
        self._seeded = False

    @property
    def level(self) -> str:
        """The config's short name (a level, or a stock size)."""
        return self.config.label()

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new deal: ``options={"deck": [...]}`` (card codes or ints, top first) or
        shuffled by the env's generator. Bad options are refused before anything changes."""
        if options is None:
            options = {}
        elif not isinstance(options, Mapping):
            raise ValueError(
                f"reset options must be a dict such as {{'deck': [...]}} or None, "
                f"got {type(options).__name__} {options!r:.60}"
            )
        unknown = set(options) - {"deck"}
        if unknown:  # PettingZoo's api_test passes arbitrary options: warn, do not fail
            gymnasium.logger.warn(
                f"ignoring unknown reset option(s) {sorted(unknown)}: only 'deck'"
            )
        spec = self.GAME.deck(self.config)
        deck = spec.parse(options["deck"]) if "deck" in options else None
        if seed is not None or not self._seeded:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
            self._seeded = True
        if deck is None:
            deck = [int(c) for c in self.np_random.permutation(spec.size)]
        self.game_state = self.GAME.new_state(self.config, deck)
        agents = self.possible_agents
        self._observers = [self.GAME.observer(seat) for seat in range(len(agents))]
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: {} for a in agents}
        self.moves = 0
        self._paid = False  # the last move paid some reward (the next must clear it)
        self.move_log: list[tuple[int, str]] = []  # (seat, move text), kept when rendering
        self.agent_selection = agents[self.game_state.current]
        if self.game_state.is_terminal:  # a deal that ends before the first move
            self._pay(self.game_state.rewards())

    def _require_state(self, what: str):
        if self.game_state is None:
            raise RuntimeError(f"call reset() before {what}: no game has been dealt yet")
        return self.game_state

    def _pay(self, earned: tuple[float, ...]) -> None:
        """Each seat's reward for the last move (the engine's ``rewards()``), and the end."""
        state = self.game_state
        self._paid = any(earned)
        self.rewards = {a: earned[self._seat[a]] for a in self.agents}
        if state.is_terminal:
            self.terminations = {a: True for a in self.agents}
            returns = state.returns()
            info = {"result": state.result, "outcome": state.outcome(), "turns": state.turns}
            self.infos = {a: {**info, "return": returns[self._seat[a]]} for a in self.agents}
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.game_state
        if state is None:
            self._require_state("observe()")
        seat = self._seat[agent]
        # the mask filled as bytes, then viewed as int8: faster than numpy's list indexing
        mask = bytearray(self.GAME.num_actions)
        if seat == state.current:  # (no legal action once the game is over)
            for a in state.legal_actions():
                mask[a] = 1
        return {
            "observation": self._observers[seat].encode(state),
            "action_mask": np.frombuffer(mask, dtype=_INT8),
        }

    def state(self) -> np.ndarray:
        """Every card, hidden ones included: for centralised critics in training only."""
        return self.GAME.encode_state(self._require_state("state()"))

    def _require_agents(self, what: str) -> None:
        """RuntimeError before the first deal, or once every agent has left a finished
        game (PettingZoo's own raw env raises a bare KeyError there)."""
        self._require_state(what)
        if not self.agents:
            raise RuntimeError(f"the game is over: call reset() before {what}")

    def last(self, observe: bool = True):
        if self.game_state is None or not self.agents:
            self._require_agents("last()")
        return super().last(observe)

    def step(self, action: int | None) -> None:
        if self.game_state is None or not self.agents:
            self._require_agents("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        action = action_id(action, state)
        seat = state.current
        if self.render_mode is not None and action in state.legal_actions():
            self.move_log.append((seat, self.GAME.move_text(state, action)))
        try:
            state.apply(action)
        except IllegalMoveError as e:
            raise IllegalMoveError(action, e.legal, self._illegal_message(action)) from None
        self._cumulative_rewards[agent] = 0.0  # (only now: a refused move keeps it pending)
        self.moves += 1
        earned = state.rewards()
        if self._paid or any(earned) or state.is_terminal:  # else every reward stays zero
            self._pay(earned)
        if self.moves >= self.max_moves and not state.is_terminal:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[state.current]
        if self.render_mode == "human":
            self.render()

    def _illegal_message(self, action: int) -> str:
        try:
            name = repr(self.GAME.move_text(self.game_state, action))
        except ValueError:
            name = "out of range"
        legal = "; ".join(self.legal_moves())
        return f"illegal move {action} ({name}) for {self.agent_selection}; legal moves: {legal}"

    # ------------------------------------------------------------------------------
    # move notation
    def legal_moves(self) -> list[str]:
        """The current seat's legal moves in move notation."""
        state = self._require_state("legal_moves()")
        return [self.GAME.move_text(state, a) for a in state.legal_actions()]

    def move_to_action(self, move: str) -> int:
        return self.GAME.parse_move(self._require_state("move_to_action()"), move)

    def action_to_move(self, action: int) -> str:
        return self.GAME.move_text(self._require_state("action_to_move()"), int(action))

    @property
    def result(self) -> str | None:
        """The game's result code (e.g. "win"), or None while it goes on or before reset."""
        return self.game_state.result if self.game_state is not None else None

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; set render_mode='ansi'")
            return None
        text = self.GAME.render(self._require_state("render()"), self.move_log[-6:])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------------------
    # copies keep the game in progress (EzPickle alone would rebuild a fresh env)
    def __getstate__(self) -> dict:
        attrs = dict(self.__dict__)
        attrs["_observers"] = []
        return attrs

    def __setstate__(self, attrs: dict) -> None:
        self.__dict__.update(attrs)
        if self.game_state is not None:
            self._observers = [self.GAME.observer(s) for s in range(len(self.possible_agents))]


def wrap(raw: RummyEnv) -> OrderEnforcingWrapper:
    """The env with PettingZoo's order checks. (No ``AssertOutOfBoundsWrapper``: ``step``
    itself rejects any action that is not legal, out-of-range ones included, with a message
    naming the legal moves.)"""
    return OrderEnforcingWrapper(raw)
