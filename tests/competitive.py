"""Test pieces shared by the games' test files, each parameterised by the game's registry
name (``get_game``) or by what differs between the games.

- Random play and its invariants: ``random_play`` (``SEEDS``, ``EAGERNESS``),
  ``check_random_play``, ``check_meld_reading``, ``check_observation_ignores_hidden_cards``,
  ``check_mask_equals_legal_moves``.
- A fast, caching observer against its plain reference encoder:
  ``check_observer_equals_reference``, ``check_observer_follows_copies``,
  ``check_returned_observation_is_not_a_cache``.
- Golden games: ``replay_golden``; the baseline's games, ``Golden``.
- Rules through the engine and the env: ``check_pile_turns_into_the_stock``,
  ``check_illegal_move_refused``, ``malformed_decks``, ``check_malformed_deck_refused``,
  ``check_bad_config_refused``.
- Self-play training: ``check_per_seat_rewards``, ``smoke_train``.
- A scripted person in a ``PlaySession``: ``typed_line``, ``check_screen``,
  ``play_person``, ``check_record_replays``, ``check_resume_continues``.
"""

from __future__ import annotations

import copy
import importlib
import json
import pickle
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from commoncause.envs.core.game import IllegalMoveError
from commoncause.envs.registry import get_game

SEEDS = st.integers(0, 2**31 - 1)
EAGERNESS = st.sampled_from([0.0, 0.7, 1.0])
"""Hypothesis strategies for ``random_play``: the deal's seed, how often a placing move (a
meld step, a lay-off, a steal) is preferred."""

Plays = Iterable[tuple[Any, int | None]]
"""(state before a move, the move) pairs, then (final state, None)."""


def game_env(name: str) -> Callable[..., Any]:
    """The game's PettingZoo ``env`` factory."""
    return importlib.import_module(get_game(name).env_module).env


# ------------------------------------------------------------------------------ random play
def random_play(
    name: str, config: Any, seed: int, eager: float, placing_base: int, max_moves: int
) -> Iterator[tuple[Any, int | None]]:
    """Random legal play on the engine from a deck shuffled by ``random.Random(seed)``; a
    placing move (id ``>= placing_base``) is preferred with probability ``eager``. Yields
    the state before each move and the move, then (state, None)."""
    game = get_game(name)
    rng = random.Random(seed)
    deck = list(range(game.deck(config).size))
    rng.shuffle(deck)
    state = game.new_state(config, deck)
    for _ in range(max_moves):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        placing = [a for a in legal if a >= placing_base]
        action = rng.choice(placing if placing and rng.random() < eager else legal)
        yield state, action
        state.apply(action)
    yield state, None


def check_random_play(
    name: str,
    plays: Plays,
    check_melds: Callable[[Any], None],
    placing: Callable[[Any], bool],
    steps: range,
) -> None:
    """Every card conserved, the table's melds valid, no player without a legal move, only
    meld steps (ids in ``steps``) while a meld is being laid (``placing(state)``), and the
    notation round trips."""
    game = get_game(name)
    for state, action in plays:
        size = game.deck(state.config).size
        assert sorted(state.locations()) == list(range(size))
        check_melds(state)
        if state.is_terminal:
            assert state.legal_actions() == []
            continue
        legal = state.legal_actions()
        assert legal, "a player without a legal move"
        if placing(state):
            assert all(a in steps for a in legal), "dead end"
        if action is not None:
            assert game.parse_move(state, game.move_text(state, action)) == action


def check_meld_reading(rules: Any, meld: Any, cards: list[int]) -> Any:
    """A finished meld reads, under the core's independent validator ``rules``, as what it
    claims: a set of its rank, or a run on contiguous slots. Returns the reading."""
    if meld.is_set:
        reading = rules.read_set(cards)
        assert reading is not None and reading.rank == meld.rank, cards
    else:
        assert sorted(meld.slots) == list(range(meld.lo, meld.hi + 1)), meld.slots
        reading = rules.read_run(cards)
        assert reading is not None, cards
    return reading


def check_observation_ignores_hidden_cards(
    plays: Plays, seed: int, every: int, encode: Callable[[Any, int], np.ndarray]
) -> None:
    """On every ``every``-th state, permuting the cards the current seat cannot see (other
    hands, the stock) changes nothing in its observation."""
    rng = random.Random(seed)
    for step, (state, _) in enumerate(plays):
        if step % every:
            continue
        me = state.current
        twin = state.clone()
        slots = [(s, i) for s in range(twin.n) if s != me for i in range(len(twin.hands[s]))]
        hidden = [twin.hands[s][i] for s, i in slots] + twin.stock
        rng.shuffle(hidden)
        for (s, i), card in zip(slots, hidden, strict=False):
            twin.hands[s][i] = card
        twin.stock = hidden[len(slots) :]
        assert np.array_equal(encode(state, me), encode(twin, me))


def check_mask_equals_legal_moves(e: Any, seed: int, max_iter: int) -> None:
    """Random play through the env: the acting agent's mask is the engine's legal moves, the
    others' masks are empty."""
    e.reset(seed=seed)
    rng = random.Random(seed)
    for agent in e.agent_iter(max_iter=max_iter):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = e.unwrapped.game_state.legal_actions()
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(rng.choice(legal))


# ------------------------------------------------------------------------------ golden games
def check_observer_equals_reference(
    plays: Plays, n: int, observer: Callable[[int], Any], reference: Callable[[Any, int], Any],
    seed: int, sometimes: float,
) -> None:  # fmt: skip
    """Every seat's ``observer(seat)`` asked every step, and a second set asked at random
    moments (a ``sometimes`` share of steps: their caches catch up over several moves), all
    equal ``reference(state, seat)``."""
    every = [observer(s) for s in range(n)]
    later = [observer(s) for s in range(n)]
    rng = random.Random(seed)
    steps = 0
    for state, _action in plays:
        for s in range(n):
            ref = reference(state, s)
            got = every[s].encode(state)
            assert got.dtype == np.float32 and got.shape == ref.shape
            assert np.array_equal(got, ref), (seed, steps, s, np.flatnonzero(got != ref))
            if rng.random() < sometimes:
                assert np.array_equal(later[s].encode(state), ref), (seed, steps, s)
        steps += 1
    assert steps > 50


def check_observer_follows_copies(
    plays: Plays, n: int, observer: Callable[[int], Any], reference: Callable[[Any, int], Any],
    encode: Callable[[Any, int], Any],
) -> None:  # fmt: skip
    """A clone, a deep copy and a pickled copy of a game in progress encode as the reference
    does with the same observer objects, and so does the module's ``encode``."""
    observers = [observer(s) for s in range(n)]
    for k, (state, _action) in enumerate(plays):
        if k % 37 == 0:
            for other in (state.clone(), copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
                for s, ob in enumerate(observers):
                    assert np.array_equal(ob.encode(other), reference(other, s))
        for s, ob in enumerate(observers):
            assert np.array_equal(ob.encode(state), reference(state, s))
            assert np.array_equal(encode(state, s), reference(state, s))


def check_returned_observation_is_not_a_cache(
    plays: Plays, observer: Any, reference: Callable[[Any, int], Any]
) -> None:
    """Writing into a returned observation (seat 0's) does not disturb the next one."""
    for state, _action in plays:
        got = observer.encode(state)
        got[:] = 7.0
        assert np.array_equal(observer.encode(state), reference(state, 0))


@dataclass(frozen=True)
class Golden:
    """A golden game of a competitive game: the record in ``tests/golden/<name>_game.json``
    of the baseline's first game among ``range(seeds)`` that shows every one of ``kinds``
    (words of move notation), with the engine's ``score`` attribute at the end."""

    name: str
    env_kwargs: dict
    kinds: tuple[str, ...]
    seeds: int
    score: str

    @property
    def path(self) -> Path:
        return Path(__file__).parent / "golden" / f"{self.name}_game.json"

    def load(self) -> dict:
        return json.loads(self.path.read_text())

    def record(self, seed: int) -> dict:
        """The baseline's game from ``seed`` through the env, seat i's agent seeded
        ``seed * seats + i``: the deck, each step's player, move and ``ansi`` render, the
        engine's ``score`` attribute and the returns."""
        e = game_env(self.name)(render_mode="ansi", **self.env_kwargs)
        e.reset(seed=seed)
        game = e.unwrapped.game_state
        record = e.unwrapped.GAME
        seats = len(e.possible_agents)
        agents = [record.baseline("") for _ in range(seats)]
        for i, agent in enumerate(agents):
            agent.reset(seed * seats + i)
        views = [record.seat_view(game, i) for i in range(seats)]
        deck = record.deck(game.config).codes(game.deck)
        steps = []
        for agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            seat = int(agent.split("_")[1])
            action = agents[seat].act(views[seat])
            move = e.unwrapped.action_to_move(action)
            e.step(action)
            steps.append({"player": agent, "move": move, "render": e.render()})
        return {
            "env_kwargs": self.env_kwargs,
            "seed": seed,
            "deck": deck,
            "steps": steps,
            self.score: getattr(game, self.score),
            "returns": list(game.returns()),
        }

    def interesting(self, game: dict) -> bool:
        """The game's moves show every one of ``kinds``."""
        moves = " | ".join(s["move"] for s in game["steps"])
        return all(word in moves for word in self.kinds)

    def check_is_what_the_baseline_plays(self) -> None:
        """The record is the baseline's game from its seed (the env's seeding is stable)."""
        game = self.load()
        again = self.record(game["seed"])
        assert again["deck"] == game["deck"]
        assert [s["move"] for s in again["steps"]] == [s["move"] for s in game["steps"]]

    def regenerate(self) -> None:
        """Write the first interesting seed's game (and its initial render) to ``path``."""
        for seed in range(self.seeds):
            game = self.record(seed)
            if self.interesting(game):
                break
        else:
            raise SystemExit("no seed gives an interesting game")
        e = game_env(self.name)(render_mode="ansi", **self.env_kwargs)
        e.reset(options={"deck": game["deck"]})
        game["initial_render"] = e.render()
        self.path.write_text(json.dumps(game, indent=1) + "\n")
        print(f"seed {seed}: {len(game['steps'])} steps -> {self.path}")


def replay_golden(name: str, game: dict) -> tuple[Any, dict[str, float]]:
    """Replays a golden record through the env: each move legal (by text and in the mask)
    and each render as recorded, and the game over at the end. Returns the env and each
    agent's rewards summed over the game."""
    e = game_env(name)(render_mode="ansi", **game["env_kwargs"])
    e.reset(options={"deck": game["deck"]})
    assert e.render() == game["initial_render"]
    earned = dict.fromkeys(e.possible_agents, 0.0)
    for i, step in enumerate(game["steps"]):
        assert not any(e.terminations.values()), f"step {i}: the game ended early"
        assert e.agent_selection == step["player"], f"step {i}"
        assert step["move"] in e.legal_moves(), f"step {i}: {step['move']!r} is not legal"
        action = e.move_to_action(step["move"])
        assert e.observe(step["player"])["action_mask"][action] == 1
        e.step(action)
        for a in e.possible_agents:
            earned[a] += e.rewards[a]
        assert e.render() == step["render"], f"step {i} ({step['move']}): render differs"
    assert all(e.terminations.values())
    return e, earned


# ------------------------------------------------------------------------------ rules
def check_pile_turns_into_the_stock(state: Any, play: Callable[..., Any], discard_base: int) -> int:
    """Each player discards the card they drew until the stock is empty; the next draw
    turns the pile (but its top card) into the stock, oldest discard first. Returns the
    number of turns played before that."""
    drawn = 0
    while state.stock:
        play(state, "draw stock")
        state.apply(discard_base + state.hand_types(state.current)[-1])
        drawn += 1
    before = list(state.discard)
    assert len(before) == 82
    play(state, "draw stock")
    assert state.discard == before[-1:]
    assert state.hands[state.current][-1] == before[0]  # the oldest discard comes up first
    assert len(state.stock) == len(before) - 2
    return drawn


def check_illegal_move_refused(e: Any, deck: list[str], move: str) -> None:
    """After a reset to ``deck``, playing ``move`` raises (naming the legal moves) and
    changes nothing."""
    e.reset(options={"deck": deck})
    game = e.unwrapped.game_state
    before = [list(h) for h in game.hands]
    with pytest.raises(IllegalMoveError, match="legal moves: draw stock; draw discard"):
        e.step(e.unwrapped.GAME.parse_move(game, move))
    assert [list(h) for h in e.unwrapped.game_state.hands] == before
    assert e.unwrapped.game_state.history == []


def malformed_decks(deck: list[str]) -> list[tuple[list[str], str]]:
    """A good 108-card deck spoilt four ways, each with words of its refusal."""
    return [
        (deck[:-1], "108 card codes"),
        (["7H"] * 3 + deck[3:], "copy 3 of 7H"),
        (deck[:-5] + ["JK"] * 5, "a fifth joker"),
        (deck[:-1] + ["XX"], "unknown card code"),
    ]


def check_malformed_deck_refused(e: Any, deck: list[str], problem: str) -> None:
    """Resetting the env to ``deck`` raises a ValueError naming ``problem``."""
    with pytest.raises(ValueError, match=problem):
        e.reset(options={"deck": deck})


def check_bad_config_refused(name: str, options: dict, problem: str) -> None:
    """Both the env and the config's ``from_dict`` refuse ``options`` naming ``problem``."""
    with pytest.raises(ValueError, match=problem):
        game_env(name)(**options)
    with pytest.raises(ValueError, match=problem):
        get_game(name).config_type.from_dict(options)


# ------------------------------------------------------------------------------ training
def check_per_seat_rewards(name: str, margin: bool = False, **options: Any) -> None:
    """Self-play games (seeds 0-2) on the learner's seats, played by the baseline's choices:
    every seat's per-step rewards sum to its return scaled by 0.01 (with ``margin``
    (``reward_margin``): its return minus the other seats' mean, and every step's rewards
    sum to 0 over the seats), and some came before the end of the game; ``reset``'s info
    holds what the moves before the first decision earned."""
    from commoncause.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv(1.0, game=name, reward_scale=0.01, reward_margin=margin, **options)
    agent = env.game.baseline("")
    for seed in range(3):
        _, info = env.reset(seed=seed)
        agent.reset(seed)
        earned = np.array(info["rewards"])  # the moves before the first decision's
        intermediate = False
        done = False
        while not done:
            state = env.state
            action = agent.act(env.game.seat_view(state, state.current))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            earned += info["rewards"]
            intermediate |= not done and any(info["rewards"])
            if margin:
                assert sum(info["rewards"]) == pytest.approx(0.0, abs=1e-9)
        assert terminated and info["result"] == "over"
        returns = np.array(info["returns"])
        others = (returns.sum() - returns) / (env.num_seats - 1)
        assert earned == pytest.approx((returns - others if margin else returns) * 0.01)
        assert intermediate


def smoke_train(name: str, config: Path, run_name: str, tmp_path: Path) -> tuple[Path, dict]:
    """The real train command on ``config`` for 384 steps (in ``tmp_path``, the working
    folder): both checkpoints record the game, the 4-seat config and their steps, the
    TensorBoard events hold the training scalars, the weights are finite. Returns the run
    folder and the best checkpoint's data."""
    import torch
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from commoncause.agents.trained import load_checkpoint
    from commoncause.cli import main

    args = ["train", "--config", str(config), "--total-steps", "384", "--run-name", run_name]
    assert main(args) == 0
    run = tmp_path / "runs" / run_name
    for kind in ("last", "best"):
        data = load_checkpoint(run / "checkpoints" / f"{kind}.pt")
        assert data["game"] == name
        # best.pt is the best evaluated policy (against the baselines), last.pt the end
        assert data["num_timesteps"] >= (384 if kind == "last" else 0)
        assert (run / "checkpoints" / f"{kind}.json").is_file()
    assert data["config"]["game_options"]["num_players"] == 4
    events = list(run.glob("events.out.tfevents.*"))
    assert events
    tags = EventAccumulator(str(events[0])).Reload().Tags()["scalars"]
    assert {"train/value_loss", "time/steps_per_s"} <= set(tags)
    assert torch.isfinite(data["policy"]["value_net.weight"]).all()
    return run, data


# ------------------------------------------------------------------------------ play sessions
def typed_line(s: Any, k: int) -> str:
    """What a scripted person types: the k-th listed move's text (in upper case) in
    turns, its number otherwise."""
    menu = s.legal_moves()
    i = k % len(menu)
    return menu[i][1].upper() if k % 2 else str(i + 1)


def check_screen(s: Any, seat: int) -> None:
    """The seat's screen shows its own hand and no other (data and drawn lines)."""
    from commoncause.screen import seat_screen

    data = s.screen(seat)
    json.dumps(data)
    god = s.screen(None)
    assert "hands" not in data and data["open_hands"] == [None] * s.num_seats
    assert data["hand"] == god["hands"][seat]
    assert data["hand_sizes"] == [len(h) for h in god["hands"]]
    lines = seat_screen(data)
    assert sum(line.startswith("Your hand (") for line in lines) == 1
    for line in lines:
        assert not (re.search(r"hand \(\d", line) and not line.startswith("Your hand (")), line


def play_person(s: Any, stop_after: int | None = None) -> int:
    """Agents and a scripted person to the end (or ``stop_after`` person moves); every
    screen of the person is checked to show only their own hand and the legal moves.
    Returns the person's moves."""
    moves = 0
    while not s.is_over and moves != stop_after:
        s.step_agents()
        if s.is_over:
            break
        check_screen(s, s.current)
        data = s.screen(s.current)
        assert [m["text"] for m in data["legal"]] == [t for _, t in s.legal_moves()]
        s.play(s.resolve(typed_line(s, moves)))
        moves += 1
    return moves


def check_record_replays(s: Any, name: str) -> dict:
    """The finished session's record: a finished game of ``name``, the person on seat 0 and
    agents on the others, that replays to the same game, seen by every seat alike. Returns
    the record."""
    from commoncause import records
    from commoncause.session import PlaySession

    record = json.loads(s.path.read_text())
    assert record["game"] == name and record["finished"]
    assert [x["player"] for x in record["seats"]] == ["human"] + ["agent"] * (s.num_seats - 1)
    replayed = PlaySession.from_record(records.load(s.path))
    for seat in (None, *range(s.num_seats)):
        assert replayed.screen(seat) == s.screen(seat)
    assert records.replay_moves(record).returns() == s.state.returns()
    return record


def check_resume_continues(new_session: Callable[[Path], Any], tmp_path: Path) -> None:
    """A game played whole and the same game stopped after 4 person moves, resumed and
    played on by the same scripted person: the same moves and returns."""
    from commoncause.session import PlaySession

    whole = new_session(tmp_path / "a")
    play_person(whole)
    part = new_session(tmp_path / "b")
    done = play_person(part, stop_after=4)
    resumed = PlaySession.resume(part.path)
    assert resumed.screen(0) == part.screen(0)
    k = done
    while not resumed.is_over:  # the same scripted person, from where it stopped
        resumed.step_agents()
        if not resumed.is_over:
            resumed.play(resumed.resolve(typed_line(resumed, k)))
            k += 1
    a, b = (json.loads(x.path.read_text()) for x in (whole, resumed))
    assert [m["move"] for m in a["moves"]] == [m["move"] for m in b["moves"]]
    assert a["returns"] == b["returns"] and b["finished"]
