"""Self-play training of a competitive game (Dummy rummy): per-seat trajectories, the real
train command on configs/smoke_dummy.yaml, and the config's guards."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest
import yaml
from competitive import check_per_seat_rewards, smoke_train

from commoncause.train.config import TrainConfig, config_from_dict, load_config
from commoncause.train.ppo_parallel import TorchPPO
from commoncause.train.ppo_seats import compute_linked_gae
from commoncause.train.selfplay import SelfPlayEnv

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke_dummy.yaml"


class Monitor:
    def on_step(self, infos, dones) -> None:
        pass


@pytest.mark.parametrize("margin", [False, True])
def test_per_seat_rewards_sum_to_each_seats_return(margin):
    """Two hands, the learner's seats played by the baseline's choices: every seat's
    per-step rewards (intermediate hands included) sum to its return (with
    ``reward_margin`` its margin over the others' mean), scaled; the first hand's points
    came before the end of the game."""
    check_per_seat_rewards("dummy_rummy", margin, num_players=3, hands=2)


class ScriptedEnv(gymnasium.Env):
    """A competitive 3-seat game on rails: decision k is made by ``SEATS[k]`` and every seat
    earns ``REWARDS[k]`` over the moves after it; a game is ``len(SEATS)`` decisions."""

    SEATS = [0, 1, 2, 0, 2, 1, 0, 1]
    REWARDS = [(1, 0, 0), (0, 2, 0), (0, 0, 0), (5, 0, 3), (0, 0, 0), (0, 7, 0), (0, 0, 1),
               (-4, 4, 10)]  # fmt: skip
    per_seat = True
    num_seats = 3

    def __init__(self) -> None:
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (4,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(3)
        self.k = 0

    class _State:
        current = 0

    @property
    def state(self):
        s = self._State()
        s.current = self.SEATS[self.k]
        return s

    def reset(self, *, seed=None, options=None):
        self.k = 0
        return self._obs(), {"seat": 0}

    def _obs(self):
        return np.full(4, self.k / 10, dtype=np.float32)

    def action_masks(self):
        return np.ones(3, dtype=bool)

    def step(self, action):
        rewards = self.REWARDS[self.k]
        self.k += 1
        done = self.k == len(self.SEATS)
        info = {"rewards": tuple(float(r) for r in rewards)}
        if done:
            info["returns"] = tuple(
                float(sum(r[s] for r in self.REWARDS)) for s in range(self.num_seats)
            )
        return self._obs(), 0.0, done, False, info


@pytest.mark.parametrize("workers", [1, 2])
def test_rollout_threads_each_seats_trajectory(tmp_path, workers):
    """Rollouts of 3 steps cut the scripted game: each seat's transitions (followed through
    the buffer's next rows and the carry rows) get exactly what that seat earned until its
    own next decision, and the game's end ends every seat's trajectory; the same with two
    rollout processes, each keeping the trajectories of its own env in the shared buffer."""
    cfg = TrainConfig(trainer="torch", n_envs=workers, n_steps=3, batch_size=4,
                      game="dummy_rummy", game_options={"num_players": 3},
                      rollout_workers=workers)  # fmt: skip
    ppo = TorchPPO(cfg, [ScriptedEnv() for _ in range(workers)], tmp_path)
    ppo.reset_envs()
    seats, rewards = ScriptedEnv.SEATS, np.array(ScriptedEnv.REWARDS, dtype=float)
    expected = []  # (seat, reward to its next decision, ends the game) per decision
    for k, seat in enumerate(seats):
        later = [j for j in range(k + 1, len(seats)) if seats[j] == seat]
        stop = later[0] if later else len(seats)
        expected.append((seat, rewards[k:stop, seat].sum(), not later))
    trained = {env: [] for env in range(workers)}
    try:
        for _ in range(4):  # 12 steps per env: one game and a half, cut every 3 steps
            ppo.collect_rollout(Monitor())
            ppo.update()
            for flat in ppo.train_rows.tolist():
                row, env = divmod(flat, workers)
                step = int(round(float(ppo.buf_obs[row, env, 0]) * 10))
                trained[env].append((step, int(ppo.buf_seat[row, env]),
                                     float(ppo.seat_rewards[row, env]),
                                     bool(ppo.seat_dones[row, env])))  # fmt: skip
    finally:
        ppo.close_workers()
    for env in range(workers):
        got = {}
        for step, seat, reward, done in trained[env]:
            got.setdefault(step, []).append((seat, reward, done))
        for k, (seat, reward, done) in enumerate(expected):
            assert (seat, pytest.approx(reward), done) in got[k], (env, k, got[k])
        assert 0 < len(trained[env]) <= 12


def test_linked_gae_follows_each_seat():
    """Two seats alternating in one env, gamma 1, lambda 1: a transition's return is its
    seat's rewards to the end of the game; a pending transition stops its seat's chain."""
    rewards = np.array([[0.0], [0.0], [1.0], [-1.0], [0.5]], dtype=np.float32)
    values = np.array([[0.2], [0.3], [0.4], [0.1], [0.6]], dtype=np.float32)
    next_row = np.array([[2], [3], [-1], [-1], [-1]])  # seat 0: 0 -> 2 (end); seat 1: 1 -> 3
    dones = np.array([[False], [False], [True], [True], [False]])  # row 4 is pending
    adv, ret = compute_linked_gae(rewards, values, next_row, dones, 1.0, 1.0)
    assert ret[:4, 0] == pytest.approx([1.0, -1.0, 1.0, -1.0])
    assert adv[4, 0] == 0.0
    adv, ret = compute_linked_gae(rewards, values, next_row, dones, 1.0, 0.0)  # one step
    assert ret[0, 0] == pytest.approx(0.4) and ret[1, 0] == pytest.approx(0.1)


def test_dummy_configs_load():
    for name in ("dummy_rummy_4p", "dummy_rummy_2p", "smoke_dummy"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.game == "dummy_rummy" and cfg.trainer == "torch"
        assert cfg.reward_scale == 0.01 and cfg.game_options["hands"] == 1
    with pytest.raises(ValueError, match="sb3 trains team games only"):
        TrainConfig(game="dummy_rummy", game_options={}, trainer="sb3").validate()
    with pytest.raises(ValueError, match="baseline_seats"):
        TrainConfig(game="dummy_rummy", game_options={"num_players": 2},
                    baseline_seats=2).validate()  # fmt: skip
    long_run = ROOT / "configs" / "experiments" / "dummy_rummy_4p_long.yaml"  # start: not here
    long = config_from_dict(yaml.safe_load(long_run.read_text()), check_files=False)
    assert long.reward_margin and long.selfplay_kwargs()["reward_margin"]
    with pytest.raises(ValueError, match="reward_margin is for competitive games"):
        TrainConfig(reward_margin=True).validate()  # Common Cause: one team return
    with pytest.raises(ValueError, match="reward_margin is for competitive games"):
        SelfPlayEnv(reward_margin=True)
    with pytest.raises(ValueError, match="reward_margin must be true or false"):
        TrainConfig(game="dummy_rummy", game_options={}, reward_margin="yes").validate()


def test_episode_options_draw_each_games_contract_from_the_seed():
    """``episode_options`` deal every game on one of the listed contracts, drawn from the
    env's seed (the same seed, the same contracts), each listed one in turn up."""

    def contracts(seed: int) -> list[int]:
        env = SelfPlayEnv(game="dummy_rummy", num_players=2, hands=1,
                          episode_options={"first_contract": [3, 11]})  # fmt: skip
        drawn = []
        for game in range(24):
            env.reset(seed=seed if game == 0 else None)
            drawn.append(env.state.contract[0] + 1)
            assert env.state.contract == [drawn[-1] - 1] * 2  # every player on it (0-based)
        return drawn

    first = contracts(5)
    assert set(first) == {3, 11} and contracts(5) == first
    with pytest.raises(ValueError, match="both fixed and in episode_options"):
        SelfPlayEnv(game="dummy_rummy", first_contract=2, episode_options={"first_contract": [1]})
    with pytest.raises(ValueError, match="change the number of seats"):
        env = SelfPlayEnv(game="dummy_rummy", episode_options={"num_players": [2, 4]})
        for _ in range(30):
            env.reset()


def test_max_moves_cuts_training_games_short():
    """A config's ``max_moves`` truncates its training games after that many moves (forced
    ones counted), paying nothing; 0 keeps the game's own 5,000; a bad value or RLlib is an
    error that names it. The continuation configs set one above any finished hand's."""
    base = {"game": "dummy_rummy", "game_options": {"num_players": 2, "hands": 1}}
    cfg = TrainConfig(**base, max_moves=12, baseline_partner_prob=0.0)
    cfg.validate()
    env = SelfPlayEnv(**cfg.selfplay_kwargs())
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
    assert truncated and not terminated and reward == 0.0
    assert info["result"] == "truncated" and env._moves == 12 and not env.state.is_terminal
    assert SelfPlayEnv(**TrainConfig(**base).selfplay_kwargs()).max_moves == 5000
    for bad in (-1, True, "many"):
        with pytest.raises(ValueError, match="config max_moves must be 0"):
            TrainConfig(**base, max_moves=bad).validate()
    with pytest.raises(ValueError, match="max_moves needs trainer torch or sb3"):
        TrainConfig(**base, max_moves=500, trainer="rllib", baseline_partner_prob=0.0).validate()
    for n, cap in ((2, 500), (4, 1000)):
        more = ROOT / "configs" / "experiments" / f"dummy_rummy_{n}p_all_more.yaml"
        assert load_config(more).max_moves == cap


def test_episode_and_eval_options_are_checked_in_the_config():
    """Every contract config trains on all twelve contracts and evaluates whole games; a
    value the game refuses, a changed number of seats or an option given twice is an error
    that names it."""
    for n in (2, 4):
        cfg = load_config(ROOT / "configs" / f"dummy_rummy_{n}p_all.yaml")
        assert cfg.selfplay_kwargs()["episode_options"] == {"first_contract": list(range(1, 13))}
        assert cfg.game_config().hands == 1 and cfg.eval_config().hands == 0
        assert cfg.eval_config().num_players == n
    base = {"game": "dummy_rummy", "game_options": {"num_players": 2, "hands": 1}}
    with pytest.raises(ValueError, match="episode_options first_contract 13"):
        TrainConfig(**base, episode_options={"first_contract": [1, 13]}).validate()
    with pytest.raises(ValueError, match="must be a list of values"):
        TrainConfig(**base, episode_options={"first_contract": 4}).validate()
    with pytest.raises(ValueError, match="changes the number of seats"):
        TrainConfig(game="dummy_rummy", game_options={"hands": 1},
                    episode_options={"num_players": [4, 3]}).validate()  # fmt: skip
    with pytest.raises(ValueError, match="both game_options and episode_options"):
        TrainConfig(**base, episode_options={"hands": [1]}).validate()
    with pytest.raises(ValueError, match="episode_options needs trainer torch or sb3"):
        TrainConfig(**base, episode_options={"first_contract": [2]}, trainer="rllib",
                    baseline_partner_prob=0.0).validate()  # fmt: skip
    with pytest.raises(ValueError, match="eval_options must not change the number of seats"):
        TrainConfig(**base, eval_options={"num_players": 4}).validate()
    with pytest.raises(ValueError, match="eval_options"):
        TrainConfig(**base, eval_options={"colour": "red"}).validate()


def test_smoke_training_run(tmp_path, monkeypatch):
    """The real train command on configs/smoke_dummy.yaml: run folder, checkpoints that
    record the game, TensorBoard events with the per-seat game statistics."""
    monkeypatch.chdir(tmp_path)
    _, data = smoke_train("dummy_rummy", SMOKE, "dummy", tmp_path)
    assert data["evaluations"]
    for entry in data["evaluations"]:  # (one hand a game: per hand is per game)
        assert entry["minus_baselines_per_hand"] == pytest.approx(entry["win_rate"])
        assert 0.0 <= entry["went_out_per_hand"] <= 1.0


def test_cloning_data_is_bounded_by_decisions():
    """Cloning plays baseline games in chunks that stop after the game reaching the decision
    budget (memory bounded whatever the observation size); every decision has a legal label."""
    from commoncause.envs.registry import get_game
    from commoncause.train.bc import baseline_decisions

    game = get_game("dummy_rummy")
    config = game.make_config(num_players=2, hands=1)
    data = baseline_decisions(game, config, 50, 0, 300)
    actions, results = data.actions, data.returns
    assert 1 <= data.played < 50
    assert 300 <= len(actions) < 300 + game.max_moves
    assert data.obs.shape == (len(actions), game.observation_size)
    assert data.masks[np.arange(len(actions)), actions].all()
    assert (results <= 0).all() and (results == np.round(results)).all()  # minus penalty points
    assert set(data.kinds) <= {"draw", "discard", "meld", "layoff", "cutin"}
    assert {"draw", "discard", "meld"} <= set(data.kinds)
    everything = baseline_decisions(game, config, data.played, 0)
    assert everything.played == data.played and len(everything.actions) == len(actions)
    # reward_margin: heads-up, each decision's value target is its seat's points minus the
    # opponent's, so the two seats' targets of a game are opposite
    margin = baseline_decisions(game, config, 1, 0, reward_margin=True)
    margins, plain = margin.returns, baseline_decisions(game, config, 1, 0).returns
    assert (margin.actions == everything.actions[: len(margin.actions)]).all()
    assert set(np.round(margins, 6)) <= {plain.min() - plain.max(), plain.max() - plain.min()}
    assert margins.min() == -margins.max() != 0


def test_cloning_measures_agreement_on_unseen_decisions_by_kind():
    """Agreement counts the decisions where the policy's likeliest legal move is the
    baseline's, by kind of move; cloning reports it on each chunk before training on it
    (from the second chunk on), beside the fit on the chunk it trained on."""
    import torch

    from commoncause.agents.trained import build_policy, masked_logits
    from commoncause.envs.registry import get_game
    from commoncause.train.bc import agreement, baseline_decisions, behaviour_clone

    game = get_game("dummy_rummy")
    config = game.make_config(num_players=2, hands=1)
    policy = build_policy(16, [16], "tanh", game.observation_size, game.num_actions)
    data = baseline_decisions(game, config, 2, 0)
    with torch.no_grad():
        likeliest = masked_logits(policy, torch.as_tensor(data.obs), torch.as_tensor(data.masks))
    data.actions = likeliest.argmax(dim=1).numpy()
    assert agreement(policy, data) == (1.0, dict.fromkeys(set(data.kinds), 1.0))
    other = np.array([np.flatnonzero(m & (np.arange(len(m)) != a))[0]
                      for m, a in zip(data.masks, data.actions, strict=True)])  # fmt: skip
    data.actions[::2] = other[::2]  # every other decision: another legal move
    overall, by_kind = agreement(policy, data)
    assert overall == pytest.approx(0.5, abs=1 / len(other))
    assert overall == pytest.approx(
        sum(share * (data.kinds == kind).sum() for kind, share in by_kind.items()) / len(other)
    )
    one_chunk = behaviour_clone(policy, game, config, 2, 1, 64, 1e-3, 0)
    assert "bc/agreement_unseen" not in one_chunk and 0 <= one_chunk["bc/accuracy"] <= 1
    chunks = behaviour_clone(policy, game, config, 4, 1, 64, 1e-3, 0, chunk_decisions=50)
    kinds = {key.rsplit("/", 1)[1] for key in chunks if key.startswith("bc/agreement_unseen/")}
    assert {"draw", "discard"} <= kinds <= {"draw", "discard", "meld", "layoff", "cutin"}
    assert 0 <= chunks["bc/agreement_unseen"] <= 1


@pytest.mark.parametrize(("name", "options"), [("dummy_rummy", {"num_players": 3}),
                                               ("open_rummy", {"num_players": 2})])  # fmt: skip
def test_hidden_cards_show_the_other_hands_and_the_next_draws(name, options):
    """A competitive game's ``encode_hidden`` (a centralised critic's input, training only):
    the other hands counted from the seat's left, the stock's counts, then the next draws
    in order; what the seat itself holds is not in it."""
    from commoncause.envs.core.planes import NEXT_DRAWS
    from commoncause.envs.registry import get_game

    game = get_game(name)
    state = game.new_game(game.make_config(**options), 5)
    type_of = game.deck(state.config).type_of
    n, seats = 53, state.num_seats
    for seat in range(seats):
        hidden = game.encode_hidden(state, seat)
        assert hidden.shape == (game.hidden_size,)
        planes = hidden[: -NEXT_DRAWS * n].reshape(-1, n)
        for k in range(1, seats):
            held = np.zeros(n)
            for c in state.hands[(seat + k) % seats]:
                held[type_of(c)] += 1
            assert ((planes[k - 1] > 0) == (held > 0)).all()
        assert not planes[seats - 1 : -1].any()  # seats the game does not have
        assert (planes[-1] > 0).sum() == len({type_of(c) for c in state.stock})
        draws = hidden[-NEXT_DRAWS * n :].reshape(NEXT_DRAWS, n)
        assert draws.argmax(1).tolist() == [type_of(c) for c in state.stock[::-1][:NEXT_DRAWS]]
        assert (draws.sum(1) == 1).all()
        state.apply(state.legal_actions()[0])  # (each seat looks at a later state)


def test_critic_warmup_trains_the_values_alone(tmp_path):
    """critic_warmup_steps: updates in the warm-up leave the policy's weights as they were
    (critic: state, so no layer is shared) and train the critic; after it both move."""
    import torch

    cfg = TrainConfig(trainer="torch", n_envs=2, n_steps=32, batch_size=32, rollout_workers=2,
                      game="dummy_rummy", game_options={"num_players": 2, "hands": 1},
                      critic="state", critic_warmup_steps=64, baseline_partner_prob=0.0,
                      reward_scale=0.01, reward_margin=True)  # fmt: skip
    envs = [SelfPlayEnv(**cfg.selfplay_kwargs()) for _ in range(2)]
    ppo = TorchPPO(cfg, envs, tmp_path)
    ppo.reset_envs()

    def weights():
        return ({k: v.clone() for k, v in ppo.policy.state_dict().items()},
                {k: v.clone() for k, v in ppo.critic.state_dict().items()})  # fmt: skip

    def moved(before, after):
        return any(not torch.equal(before[k], after[k]) for k in before)

    try:
        for warm in (True, False):
            before = weights()
            ppo.collect_rollout(Monitor())
            ppo.update()
            after = weights()
            assert moved(before[0], after[0]) is not warm
            assert moved(before[1], after[1])
            assert (ppo.num_timesteps <= cfg.critic_warmup_steps) is warm
    finally:
        ppo.close_workers()


def test_shipped_policies_by_config():
    """One-hand games of contract 1 play the contract-1 policies; whole games and later
    contracts the policies trained on every contract; three seats have none."""
    from commoncause.agents.trained import shipped_checkpoint
    from commoncause.envs.registry import get_game

    make = get_game("dummy_rummy").make_config
    for n in (2, 4):
        one = shipped_checkpoint("dummy_rummy", make(num_players=n, hands=1))
        assert one == ROOT / "checkpoints" / f"dummy_rummy_{n}p" / "best.pt"
        for options in ({}, {"hands": 1, "first_contract": 7}, {"first_contract": 2}):
            every = shipped_checkpoint("dummy_rummy", make(num_players=n, **options))
            assert every == ROOT / "checkpoints" / f"dummy_rummy_{n}p_all" / "best.pt"
    with pytest.raises(ValueError, match="ships no trained policy"):
        shipped_checkpoint("dummy_rummy", make(num_players=3))
