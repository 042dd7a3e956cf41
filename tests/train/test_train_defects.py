"""Training layer: game-neutral configs and checkpoints, and the defects of issue 10."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from commoncause.agents.trained import (
    DEFAULT_CHECKPOINT,
    PolicyAgent,
    load_checkpoint,
    policy_from_checkpoint,
)
from commoncause.cli import main
from commoncause.envs.registry import game_names, get_game
from commoncause.train.config import TrainConfig, config_from_dict, load_config
from commoncause.train.selfplay import SelfPlayEnv

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"
SHIPPED = sorted((ROOT / "checkpoints").glob("*/best.pt"))


def smoke_config(tmp_path: Path, **overrides) -> Path:
    data = yaml.safe_load(SMOKE.read_text()) | {"out_dir": str(tmp_path / "runs")} | overrides
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "\x1b" not in err and "weights_only" not in err, err
    return err


# --- configs: the game section ------------------------------------------------------------
def test_the_defaults_are_the_recommended_setup():
    default = TrainConfig()
    assert default.trainer == "torch" and default.bc_games == 0
    recipe = load_config(ROOT / "configs" / "normal.yaml")
    assert dataclasses.replace(recipe, game_options={}) == default


def test_game_options_carry_every_rules_option_and_old_keys_still_load():
    config = config_from_dict({"game_options": {"level": "hard", "early_loss": True,
                                                "signal_rule": True}})  # fmt: skip
    rules = config.game_config()
    assert rules.early_loss and rules.signal_rule and rules.label() == "hard"
    old = config_from_dict({"level": "easy", "stock_size": None, "open_hands": True})
    assert old.game_options == {"level": "easy", "open_hands": True}
    assert old.game_config() == get_game().make_config(level="easy", open_hands=True)
    with pytest.raises(ValueError, match="unknown option"):
        config_from_dict({"game_options": {"colour": "red"}})
    with pytest.raises(ValueError, match="unknown game 'gin'"):
        config_from_dict({"game": "gin"})
    with pytest.raises(ValueError, match="both at the top and in game_options"):
        config_from_dict({"level": "easy", "game_options": {"level": "hard"}})


@pytest.mark.parametrize("name", ["net_arch", "critic_net_arch"])
@pytest.mark.parametrize("sizes", [[], [64, 0], [64.5]])
def test_layer_sizes_are_checked(name: str, sizes: list):
    with pytest.raises(ValueError, match=f"config {name} must be a list of layer sizes"):
        config_from_dict({name: sizes})


def test_shipped_configs_load_and_normal_is_the_same_game():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        assert "level" not in data and data.get("game", "common_cause") in game_names()
        config_from_dict(data, check_files=False)
    normal = load_config(ROOT / "configs" / "normal.yaml")
    assert normal.game == "common_cause"
    assert normal.game_config() == get_game().make_config(level="normal")


def test_yaml_syntax_error_is_one_line(tmp_path: Path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nnet_arch: [128\nseed: 1\n")
    assert main(["train", "--config", str(bad)]) == 2
    err = one_line_error(capsys)
    assert "not valid YAML" in err and "line" in err


# --- seeds ------------------------------------------------------------------------------
def test_negative_seed_is_refused_before_work(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = smoke_config(tmp_path)
    assert main(["train", "--config", str(config), "--seed", "-1"]) == 2
    assert "0 or more" in capsys.readouterr().err
    assert main(["train", "--config", str(smoke_config(tmp_path, seed=-3))]) == 2
    assert "seed must be a whole number 0 or more" in one_line_error(capsys)
    assert not (tmp_path / "runs").exists()


# --- resume -----------------------------------------------------------------------------
@pytest.mark.parametrize("shipped", SHIPPED[:1], ids=lambda p: p.parent.name)
def test_resume_of_an_exported_checkpoint_points_to_init_from(
    shipped: Path, tmp_path: Path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # the checkpoint's out_dir is relative: runs/
    assert main(["train", "--resume", str(shipped)]) == 2
    err = one_line_error(capsys)
    assert "init_from" in err and "optimizer" in err
    assert not (tmp_path / "runs").exists()


def test_resume_takes_only_total_steps_and_ignores_the_old_init_from(tmp_path: Path, capsys):
    start = tmp_path / "start.pt"
    shutil.copy(DEFAULT_CHECKPOINT, start)
    config = smoke_config(tmp_path, trainer="torch", init_from=str(start), bc_games=0,
                          total_steps=128, n_envs=1, checkpoint_interval=10_000,
                          eval_interval=10_000)  # fmt: skip
    assert main(["train", "--config", str(config), "--run-name", "r"]) == 0
    last = tmp_path / "runs" / "r" / "checkpoints" / "last.pt"
    capsys.readouterr()
    for extra in (["--config", str(config)], ["--seed", "3"], ["--run-name", "other"]):
        assert main(["train", "--resume", str(last), *extra]) == 2
        err = one_line_error(capsys)
        assert "takes only --total-steps" in err and extra[0] in err
    start.unlink()  # the run's init_from moved away: resuming never reads it
    assert main(["train", "--resume", str(last), "--total-steps", "128"]) == 0
    resumed = load_checkpoint(last)
    assert resumed["config"]["total_steps"] == 128 and resumed["num_timesteps"] == 128
    assert resumed["game"] == "common_cause"


# --- checkpoints ------------------------------------------------------------------------
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.parent.name)
def test_shipped_checkpoints_load_and_play(path: Path):
    """Every shipped policy loads and plays a legal move of its own game (its model card
    names the same game)."""
    agent = PolicyAgent(path)
    card = json.loads(path.with_suffix(".json").read_text())
    assert card.get("game", "common_cause") == agent.game
    game = get_game(agent.game)
    options = card.get("game_config", {}) if agent.game != "common_cause" else {}
    state = game.new_game(game.make_config(**options), 1)
    assert agent.act(game.seat_view(state, state.current)) in state.legal_actions()


def test_checkpoint_errors_are_one_line(tmp_path: Path, capsys):
    data = load_checkpoint(DEFAULT_CHECKPOINT)
    wrong = tmp_path / "wrong.pt"
    torch.save(data | {"net_arch": [64]}, wrong)
    with pytest.raises(ValueError, match="do not fit the network") as info:
        policy_from_checkpoint(load_checkpoint(wrong))
    assert "\n" not in str(info.value)
    assert main(["eval", "--team", f"{wrong},baseline", "--games", "2"]) == 2
    assert "do not fit" in one_line_error(capsys)

    noise = tmp_path / "noise.pt"
    noise.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(ValueError, match="corrupted") as info:
        load_checkpoint(noise)
    assert "weights_only" not in str(info.value) and "\n" not in str(info.value)

    unsafe = tmp_path / "unsafe.pt"
    torch.save({"format": "commoncause-policy-v1", "x": Path("x")}, unsafe)  # an object
    with pytest.raises(ValueError) as info:
        load_checkpoint(unsafe)
    text = str(info.value)
    assert "could run code" in text and "\x1b" not in text and "weights_only" not in text
    assert "\n" not in text


def test_checkpoints_record_their_game(tmp_path: Path):
    data = load_checkpoint(DEFAULT_CHECKPOINT)
    assert data["game"] == "common_cause"  # older checkpoints are Common Cause's
    with pytest.raises(ValueError, match="policy for the game common_cause, not gin"):
        load_checkpoint(DEFAULT_CHECKPOINT, game="gin")
    other = tmp_path / "other.pt"
    torch.save(data | {"game": "gin"}, other)
    with pytest.raises(ValueError, match="unknown game 'gin'"):
        load_checkpoint(other)
    small = tmp_path / "small.pt"
    torch.save(data | {"obs_size": 10}, small)
    with pytest.raises(ValueError, match="trained for observations of 10"):
        load_checkpoint(small)


def test_no_game_constants_above_envs():
    for name in ("train/ppo.py", "train/ppo_parallel.py", "train/ppo_seats.py",
                 "train/trainer.py", "train/bc.py", "train/selfplay.py", "train/sb3.py",
                 "agents/trained.py", "agents/networks.py"):  # fmt: skip
        text = (ROOT / name).read_text()
        assert not re.search(r"\b(OBS_SIZE|N_ACTIONS)\b", text), name
        assert "envs.common_cause" not in text, name


# --- the self-play view -------------------------------------------------------------------
def baseline_game(env: SelfPlayEnv, seed: int) -> tuple[float, dict]:
    """Play one game of ``env`` with the baseline's moves; (last reward, last info)."""
    env.reset(seed=seed)
    agent = env.game.baseline("")
    agent.reset(seed)
    while True:
        state = env.state
        seat = state.current
        action = agent.act(env.game.seat_view(state, seat))
        _, reward, done, _, info = env.step(action)
        if done:
            assert reward == state.returns()[seat] == info["return"]  # the mover's return
            return reward, info


def test_selfplay_step_after_the_end_is_an_error_and_keeps_the_result():
    env = SelfPlayEnv()
    for seed in range(50):
        reward, info = baseline_game(env, seed)
        if reward > 0:
            break
    assert reward == 1.0 and info["result"] == "win"
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    assert env.state.result == "win" and env.state.returns() == (1.0, 1.0)


def test_selfplay_illegal_action_ends_the_game_with_an_empty_mask():
    env = SelfPlayEnv()
    env.reset(seed=3)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and info["illegal_action"] == illegal
    assert not env.action_masks().any()
    assert env.state.result is None  # the engine's game is not rewritten
    with pytest.raises(RuntimeError):
        env.step(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("action", [1.9, "1", True, np.float32(0.7), np.bool_(True), np.array([1])])
def test_selfplay_step_refuses_what_is_no_action_id(action):
    """A float, a string or a bool is no move (``int()`` made 1.9 a move 1): one line, and
    the game goes on unchanged; a numpy integer is a move."""
    env = SelfPlayEnv()
    env.reset(seed=3)
    before = (list(env.state.history), env.action_masks())
    with pytest.raises(ValueError, match="an action is an int id, not"):
        env.step(action)
    assert env.state.history == before[0] and (env.action_masks() == before[1]).all()
    env.step(np.int64(np.flatnonzero(before[1])[0]))
    assert len(env.state.history) > len(before[0])


def test_selfplay_masks_are_fresh_copies():
    env = SelfPlayEnv()
    env.reset(seed=4)
    first = env.action_masks()
    saved = first.copy()
    first[:] = False
    assert (env.action_masks() == saved).all()  # not the env's own array
    kept = env.action_masks()
    env.step(int(np.flatnonzero(kept)[0]))
    assert (kept == saved).all()  # a saved mask never changes later


def test_selfplay_reads_the_game_record():
    env = SelfPlayEnv(0.5, game="common_cause", level="hard", early_loss=True)
    game = get_game("common_cause")
    assert env.observation_space.shape == (game.observation_size,)
    assert env.action_space.n == game.num_actions
    assert env.config.early_loss and env.num_seats == 2
    with pytest.raises(ValueError, match="unknown game"):
        SelfPlayEnv(game="gin")


@pytest.mark.parametrize(("game", "options"), [("common_cause", {"level": "hard"}),
                                               ("dummy_rummy", {"num_players": 3}),
                                               ("open_rummy", {"num_players": 2})])  # fmt: skip
def test_selfplay_deals_through_the_record_as_the_pettingzoo_env_deals(game, options):
    """The env deals with the game record's ``new_state`` (no PettingZoo env), the same
    games for the same seeds as the game's PettingZoo env dealt from the seed it draws."""
    import importlib

    record = get_game(game)
    env = SelfPlayEnv(game=game, **options)
    assert not any("aec" in name for name in vars(env))
    aec = importlib.import_module(record.env_module).raw_env(**options)
    for seed in range(5):
        env.reset(seed=seed)  # (then forced moves are played: compare the deals themselves)
        env.np_random = np.random.Generator(np.random.PCG64(seed))
        dealt = env._deal(None)
        if env._in_c:  # (Common Cause's compiled engine: the same deal in the Python engine)
            dealt = dealt.python_state()
        aec.reset(seed=int(np.random.Generator(np.random.PCG64(seed)).integers(2**31)))
        assert record.encode_state(dealt).tolist() == record.encode_state(aec.game_state).tolist()
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"shuffle": True})


def test_dataclass_defaults_match_normal_yaml():
    normal = yaml.safe_load((ROOT / "configs" / "normal.yaml").read_text())
    defaults = dataclasses.asdict(TrainConfig())
    for key, value in normal.items():
        if key != "game_options":  # (the default: the game's default rules, normal's)
            assert defaults[key] == value, key
    recipe = load_config(ROOT / "configs" / "normal.yaml")
    assert TrainConfig().game_config() == recipe.game_config()


def test_train_takes_game_and_checks_it_against_the_config(capsys):
    """``train --game NAME``: the game's default config (configs/<game>.yaml, linked to the
    recommended one), a mismatch with --config refused, --game refused with --resume."""
    from commoncause.cli import _default_config, main
    from commoncause.envs.registry import game_names
    from commoncause.train.config import load_config

    for name in game_names():
        assert load_config(_default_config(name)).game == name
    assert main(["train", "--game", "dummy_rummy", "--config", "configs/normal.yaml"]) == 2
    assert "trains common_cause, not dummy_rummy" in capsys.readouterr().err
    assert main(["train", "--game", "gin"]) == 2
    assert "unknown game 'gin'" in capsys.readouterr().err
    assert main(["train", "--resume", "x.pt", "--game", "open_rummy"]) == 2
    assert "drop --game" in capsys.readouterr().err


def test_agents_of_one_checkpoint_share_one_network(tmp_path):
    """A server with many games loads a checkpoint once; a rewritten file is read again."""
    import shutil

    path = tmp_path / "policy.pt"
    shutil.copy(DEFAULT_CHECKPOINT, path)
    first, second = PolicyAgent(path), PolicyAgent(path)
    assert first.policy is second.policy
    shutil.copy(DEFAULT_CHECKPOINT, tmp_path / "other.pt")
    (tmp_path / "other.pt").replace(path)  # a new file at the same path
    assert PolicyAgent(path).policy is not first.policy
    with pytest.raises(ValueError, match="not dummy_rummy"):
        PolicyAgent(path, game="dummy_rummy")
