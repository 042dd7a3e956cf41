"""The self-play training view: any registered game as one Gymnasium env for a shared policy.

Each ``step`` is one decision of the seat whose turn it is, seen from that seat's own
observation (the same encoding as the PettingZoo env's ``observation``). Every seat is the
learner (one policy for all seats, parameter sharing), and each seat is paid its own return.

Two views of the rewards, for two kinds of trainer:

* The Gymnasium reward (one stream): the reward on a transition is the return of the seat
  that made it, on the transition that ends the game, times ``reward_scale``. Right for a
  team game such as Common Cause (every seat has the same return, so it does not matter
  which seat ended the game), and what ``trainer: sb3`` and the torch trainer use for team
  games.
* Per seat (competitive games, ``game.team`` False): every step's ``info["rewards"]`` holds
  what each seat earned over the moves of that step (the learner's move, then the forced
  and baseline moves up to the next decision: the sum of ``state.rewards()``, times
  ``reward_scale``; ``reset``'s info holds those of the moves before the first decision),
  and ``info["seat"]`` names the seat of the next decision. A trainer
  that keeps one trajectory per seat (train/ppo.py) pays each seat's transition what that
  seat earned until its own next decision, intermediate rewards (Dummy rummy's points of
  each hand) included. With ``reward_margin`` each seat is paid instead what it earned
  minus the mean of what the other seats earned (``margins``): zero-sum, the quantity a
  competitive game's goals compare (a seat's points against its opponents'), so that ending
  a round before the others score counts as well as scoring oneself.

A finished game's info carries ``return`` (the deciding seat's) and ``returns`` (every
seat's), unscaled. Moves with a single legal choice are played automatically (they teach
nothing). With ``baseline_partner_prob`` > 0 a game may seat the game's baseline
(``game.baseline("")``) in ``baseline_seats`` chairs (Common Cause: the partner; a
competitive game: opponents); its moves are played inside the env and the learner only sees
the other seats. ``baseline_options`` lists the baselines' option texts (default ``[""]``):
with several, each such game draws one (a population of hand-written partners, e.g. the
benchmark's train split). ``partners`` adds team members as ``eval --team`` names them for
the env's config (a checkpoint, a shipped policy such as ``trained``, ``FILE.py:Class``;
``agents.registry``) to that population: a game with a baseline seat draws one entry of the
baseline options and the partners together (uniformly), so trained partners sit beside the
learner too (Fictitious Co-Play's population; a policy partner plays its most likely move).
With partners, ``baseline_options`` may be empty. ``action_masks()`` is a method of the env
itself, so ``SubprocVecEnv`` works, and returns a fresh array each call.

Speed: where the game has a compiled engine (its record's ``compiled_state``: Common
Cause's, envs/common_cause/engine/) and every baseline seat is the default baseline (or
none is drawn), the games are played in it, with the same observations, masks, moves and
rewards as the Python engine's (the same games from the same seed:
tests/core/test_compiled.py).

Episode options: ``episode_options`` maps rules options to lists of values, and each game
draws one value of each afresh (from the env's own RNG, so seeded runs repeat) over the
fixed ``options``: Dummy rummy's ``{"first_contract": [1, ..., 12]}`` trains one-hand
episodes on every contract. Every drawn config must seat as many players as the first.

Truncation: the env counts the moves of a game and stops it after the game's PettingZoo
``max_moves`` (Dummy rummy: 5,000; a hand nobody can finish) with ``truncated`` True,
result "truncated" and nothing more paid (the PettingZoo env pays nothing for a cut hand
either); trainers treat it as the end of the game.

An illegal action (SB3's ``check_env`` samples unmasked actions) does not crash: it ends
the game for the learner as a loss (reward -1, ``info["illegal_action"]``, ``result``
"illegal action") without touching the engine's own result; the mask is then all False.
A ``step`` after the game ended (won, lost, truncated or illegal) is a RuntimeError: call
``reset``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from commoncause.envs.core.game import action_id
from commoncause.envs.registry import DEFAULT_GAME, get_game

ILLEGAL_RESULT = "illegal action"
TRUNCATED_RESULT = "truncated"


def margins(values) -> tuple[float, ...]:
    """Each seat's value minus the mean of the other seats' values (two seats or more)."""
    others = len(values) - 1
    total = sum(values)
    return tuple(v - (total - v) / others for v in values)


class SelfPlayEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(
        self,
        baseline_partner_prob: float = 0.0,
        game: str = DEFAULT_GAME,
        *,
        baseline_seats: int = 1,
        baseline_options: tuple[str, ...] | list[str] = ("",),
        partners: tuple[str, ...] | list[str] = (),
        reward_scale: float = 1.0,
        reward_margin: bool = False,
        episode_options: dict | None = None,
        **options,
    ) -> None:
        super().__init__()
        if not 0.0 <= baseline_partner_prob <= 1.0:
            raise ValueError(
                f"baseline_partner_prob must be in [0, 1], got {baseline_partner_prob}"
            )
        if not reward_scale > 0:
            raise ValueError(f"reward_scale must be positive, got {reward_scale}")
        self.game = get_game(game)
        max_moves = options.pop("max_moves", self.game.max_moves)
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
            raise ValueError(f"max_moves must be a positive int, got {max_moves!r}")
        self._options = options
        self._episode_options = {k: list(v) for k, v in (episode_options or {}).items()}
        for name, values in self._episode_options.items():
            if not values:
                raise ValueError(f"episode_options {name} lists no values")
            if name in options:
                raise ValueError(f"option {name} is given both fixed and in episode_options")
        # the rules config of each combination of episode options drawn so far
        self._configs: dict[tuple, object] = {}
        self.config = self._config(tuple(values[0] for values in self._episode_options.values()))
        self.num_seats = self.game.num_seats(self.config)
        if not 1 <= baseline_seats < self.num_seats:
            raise ValueError(
                f"baseline_seats must be 1 to {self.num_seats - 1} (the learner keeps a seat) "
                f"for {self.num_seats} seats, got {baseline_seats}"
            )
        if reward_margin and self.game.team:
            raise ValueError(
                f"reward_margin is for competitive games: the seats of {game} share one return"
            )
        size, n_actions = self.game.observation_size, self.game.num_actions
        self.hidden_size = self.game.hidden_size  # hidden_cards() size (0: the game has none)
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(n_actions)
        self.baseline_partner_prob = baseline_partner_prob
        self.baseline_count = baseline_seats
        self.reward_scale = float(reward_scale)
        self.reward_margin = bool(reward_margin)
        self.per_seat = not self.game.team  # report every seat's rewards each step
        self.max_moves = max_moves
        if not baseline_options and not partners:
            raise ValueError("baseline_options lists no baseline (write [''] for the default)")
        # one set of baseline seats per option text or partner; a partnered game draws one set
        self._baseline_pool = [
            [self.game.baseline(text) for _ in range(baseline_seats)] for text in baseline_options
        ]
        if partners:
            from commoncause.agents.registry import for_config, make_agent

            for spec in partners:
                member = for_config(spec, game, self.config)
                seats = [make_agent(member, game) for _ in range(baseline_seats)]
                self._baseline_pool.append(seats)
        self._baselines = self._baseline_pool[0]
        # the compiled engine plays the default baseline itself, and no other
        self._default_baselines = list(baseline_options) == [""] and not partners
        self._in_c = False  # this game is played by the compiled engine
        self.baseline_seats: dict[int, object] = {}  # seat -> its baseline agent, this game
        self._observers: list = []
        self._mask = np.zeros(n_actions, dtype=bool)
        self._over = True  # no game until reset
        self._illegal: int | None = None
        self._truncated = False
        self._moves = 0
        self._earned = [0.0] * self.num_seats  # per seat, over the moves of this step
        self._state = None  # the game in progress, in whichever engine plays it
        self._mirror = None  # a compiled game in the Python engine, once ``state`` was read

    @property
    def state(self):
        """The game in progress, as the game's own engine has it (None until ``reset``). A
        game the compiled engine plays is replayed into the Python engine the first time it
        is read, and that copy then follows the env's moves (changing it changes nothing)."""
        if self._in_c and self._state is not None:
            if self._mirror is None:
                self._mirror = self._state.python_state()
            return self._mirror
        return self._state

    def _follow(self) -> None:
        """Play the compiled game's new moves on its Python copy (if ``state`` was read)."""
        mirror = self._mirror
        for _, action in self._state.history[len(mirror.history) :]:
            mirror.apply(action)

    @property
    def baseline_seat(self) -> int:
        """The first seat the baseline plays this game, or -1."""
        return min(self.baseline_seats, default=-1)

    def _config(self, drawn: tuple):
        """The rules config of the fixed options and these episode options' values."""
        if drawn not in self._configs:
            chosen = dict(zip(self._episode_options, drawn, strict=True))
            config = self.game.make_config(**self._options, **chosen)
            if self._configs and self.game.num_seats(config) != self.num_seats:
                raise ValueError(f"episode_options {chosen} change the number of seats")
            self._configs[drawn] = config
        return self._configs[drawn]

    def _deal(self, options: dict | None):
        """A new game through the game's record (``new_state``): from ``options["deck"]``
        (card codes or ids, top first), or a deck shuffled by a generator seeded from this
        env's own (the PettingZoo env's shuffle, from another seed: a seed deals here other
        games than there)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict such as {{'deck': [...]}} or None, "
                             f"got {type(options).__name__}")  # fmt: skip
        if unknown := sorted(set(options or {}) - {"deck"}):
            raise ValueError(f"unknown reset option(s) {unknown}: only 'deck'")
        spec = self.game.deck(self.config)
        rng, _ = seeding.np_random(int(self.np_random.integers(2**31)))
        if options and "deck" in options:
            deck = spec.parse(options["deck"])
        else:
            deck = [int(c) for c in rng.permutation(spec.size)]
        compiled = self.game.compiled_state is not None and (
            self.baseline_partner_prob == 0 or self._default_baselines
        )
        state = self.game.compiled_state(self.config, deck) if compiled else None
        self._in_c = state is not None
        return self.game.new_state(self.config, deck) if state is None else state

    # ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self._episode_options:
            drawn = tuple(
                values[int(self.np_random.integers(len(values)))]
                for values in self._episode_options.values()
            )
            self.config = self._config(drawn)
        self._state = state = self._deal(options)
        self._mirror = None
        if not self._in_c:
            self._observers = [self.game.observer(seat) for seat in range(self.num_seats)]
        self._illegal = None
        self._truncated = False
        self._moves = 0
        self.baseline_seats = {}
        if self.np_random.random() < self.baseline_partner_prob:
            pool = self._baseline_pool
            if len(pool) > 1:  # (one option text draws nothing: seeded runs repeat)
                self._baselines = pool[int(self.np_random.integers(len(pool)))]
            if self.baseline_count == 1:
                seats = [int(self.np_random.integers(self.num_seats))]
            else:
                chosen = self.np_random.choice(self.num_seats, self.baseline_count, replace=False)
                seats = sorted(int(s) for s in chosen)
            for seat, agent in zip(seats, self._baselines, strict=True):
                agent.reset(int(self.np_random.integers(2**31)))
                self.baseline_seats[seat] = agent
        if self.per_seat:
            self._earned = [0.0] * self.num_seats
        self._advance()
        if state.is_terminal or self._truncated:  # a deal that ends before the learner moved
            if options and "deck" in options:
                raise ValueError("this deck is lost before the learner's first decision")
            return self.reset()  # deal again
        self._over = False
        if self.per_seat:  # what the moves before the first decision earned
            return self._observe(), {"seat": state.current, "rewards": tuple(self._earned)}
        return self._observe(), {"seat": state.current}

    def step(self, action: int):
        if self._over:
            raise RuntimeError(
                "this game is over (step() after the end of a game): call reset() first"
            )
        state = self._state
        seat = state.current
        action = action_id(action, state)  # (a float or a string is no move: an error)
        if action not in state.legal_actions():
            self._over = True
            self._illegal = action
            self._mask = np.zeros_like(self._mask)
            info = {"illegal_action": action, **self._stats(seat)}
            if self.per_seat:
                info["rewards"] = tuple(-1.0 if s == seat else 0.0 for s in range(self.num_seats))
            return self._observe(seat), -1.0, True, False, info
        if self.per_seat:
            self._earned = [0.0] * self.num_seats
        state.apply(action)
        self._moves += 1
        if self.per_seat:
            self._collect(state)
        self._advance()
        if state.is_terminal or self._truncated:
            self._over = True
            info = self._stats(seat)
            if self.per_seat:
                info["rewards"] = tuple(self._earned)
            if self._truncated:
                return self._observe(seat), 0.0, False, True, info
            returns = state.returns()
            paid = margins(returns)[seat] if self.reward_margin else returns[seat]
            return self._observe(seat), paid * self.reward_scale, True, False, info
        if self.per_seat:
            return self._observe(), 0.0, False, False, {
                "seat": state.current, "rewards": tuple(self._earned)
            }  # fmt: skip
        return self._observe(), 0.0, False, False, {"seat": state.current}

    def hidden_cards(self) -> np.ndarray:
        """What the deciding seat does not see (the game's ``encode_hidden``): a centralised
        critic's input beside that seat's observation, in training only, never the
        policy's."""
        state = self._state
        if self._in_c:
            return state.encode_hidden(state.current)
        return self.game.encode_hidden(state, state.current)

    def action_masks(self) -> np.ndarray:
        """The legal moves of the decision at hand (all False once the game is over); a
        new array each call."""
        return self._mask.copy()

    # ------------------------------------------------------------------------------
    def _collect(self, state) -> None:
        """Add the last move's per-seat rewards to this step's."""
        earned = state.rewards()
        if any(earned):
            if self.reward_margin:
                earned = margins(earned)
            scale = self.reward_scale
            for s, r in enumerate(earned):
                self._earned[s] += r * scale

    def _advance(self) -> None:
        """Play forced moves and the baseline's moves until the learner decides (or the game
        ends, or reaches ``max_moves``)."""
        state = self._state
        baselines = self.baseline_seats
        per_seat = self.per_seat
        while not state.is_terminal:
            if self._moves >= self.max_moves:
                self._truncated = True
                break
            legal = state.legal_actions()
            agent = baselines.get(state.current) if baselines else None
            if agent is not None:
                if self._in_c:  # (the default baseline, played by the engine)
                    state.apply(state.baseline_action())
                else:
                    state.apply(agent.act(self.game.seat_view(state, state.current)))
            elif len(legal) == 1:
                state.apply(legal[0])
            else:
                break
            self._moves += 1
            if per_seat:
                self._collect(state)
        if self._mirror is not None:
            self._follow()
        self._mask = np.zeros(self._mask.shape, dtype=bool)  # (zeros_like: ~5x slower)
        if not state.is_terminal and not self._truncated:
            if self._in_c:
                state.write_mask(self._mask)
            else:
                self._mask[state.legal_actions()] = True

    def _observe(self, seat: int | None = None) -> np.ndarray:
        state = self._state
        seat = state.current if seat is None else seat
        if self._in_c:
            return state.encode(seat)
        return self._observers[seat].encode(state)

    def _stats(self, seat: int) -> dict:
        """The info of a finished game, from the view of ``seat`` (who made the last
        decision)."""
        state = self._state
        returns = state.returns() if self._illegal is None else None
        if returns is None:  # the engine's game is unfinished: the learner's side lost
            lost = range(self.num_seats) if self.game.team else (seat,)
            returns = tuple(-1.0 if s in lost else 0.0 for s in range(self.num_seats))
        if self._illegal is not None:
            result = ILLEGAL_RESULT
        elif self._truncated:
            result = TRUNCATED_RESULT
        else:
            result = state.result
        if self.game.team:
            learner_won = returns[seat] > 0
        else:  # a learner seat has the best return of a finished game
            best = max(returns)
            learner_won = (
                state.is_terminal
                and self._illegal is None
                and any(
                    returns[s] == best
                    for s in range(self.num_seats)
                    if s not in self.baseline_seats
                )
            )
        return {
            "seat": seat,
            "result": result,
            "return": returns[seat],
            "returns": returns,
            "learner_won": learner_won,
            "turns": state.turns,
            "pickups": state.seat_stats(seat).get("pickups", 0),
            "baseline_partner": bool(self.baseline_seats),
        }
