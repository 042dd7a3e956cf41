"""``TrainConfig`` in sections: every field documented in its section, each section checking
its own fields, and YAML files flat (every file shipped) or sectioned giving the same config."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from commoncause.train.config import SECTIONS, TrainConfig, config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "configs").glob("*.yaml")) + sorted(
    (ROOT / "configs" / "experiments").glob("*.yaml")
)


def sectioned(flat: dict) -> dict:
    """A flat config mapping written in sections (the run's own keys stay at the top)."""
    out: dict = {}
    where = {f.name: name for name, section in SECTIONS.items() for f in fields(section)}
    for key, value in flat.items():
        section = where.get(key)
        if section is None or section == "rllib":
            out[key] = value
        else:
            out.setdefault(section, {})["name" if key == "game" else key] = value
    return out


def documented(cls) -> set[str]:
    """The fields of a dataclass followed by a docstring in its source."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    return {a.target.id for a, b in zip(body, body[1:], strict=False)
            if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr)
            and isinstance(b.value, ast.Constant)}  # fmt: skip


def test_every_field_is_in_one_section_or_the_run_and_documented_there():
    owners = [TrainConfig, *SECTIONS.values()]
    own = [set(documented(cls)) for cls in owners]
    assert set().union(*own) == {f.name for f in fields(TrainConfig)}
    assert sum(len(names) for names in own) == len(fields(TrainConfig))  # each in one place
    assert all(hasattr(section, "check") for section in SECTIONS.values())


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_flat_file_loads_and_reads_the_same_in_sections(path):
    flat = yaml.safe_load(path.read_text())
    config = config_from_dict(flat, check_files=False)
    assert config_from_dict(sectioned(flat), check_files=False) == config
    if not (config.init_from and not (ROOT / config.init_from).is_file()):
        assert load_config(path) == config


def test_a_sectioned_file_reads_as_its_flat_twin(tmp_path):
    path = tmp_path / "sectioned.yaml"
    path.write_text(
        "name: sec\ngame:\n  name: dummy_rummy\n  game_options: {num_players: 3}\n"
        "ppo:\n  n_steps: 32\nparallel:\n  n_envs: 4\n  rollout_workers: 1\n"
    )
    config = load_config(path)
    assert config == config_from_dict({"name": "sec", "game": "dummy_rummy", "n_steps": 32,
                                       "game_options": {"num_players": 3}, "n_envs": 4,
                                       "rollout_workers": 1})  # fmt: skip
    assert (config.game, config.n_steps, config.n_envs) == ("dummy_rummy", 32, 4)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"ppo": {"nsteps": 3}}, "config section ppo has no key nsteps; its keys: n_steps"),
        ({"ppo": 5}, "config section ppo must be a mapping"),
        ({"n_steps": 3, "ppo": {"n_steps": 4}}, "gives n_steps both at the top and in a section"),
        ({"ppo": {"n_steps": 0}}, "config n_steps must be at least 1"),
        ({"parallel": {"vec_env": "x"}}, "config vec_env must be subproc or dummy"),
        ({"eval": {"eval_games": 0}}, "config eval_games must be at least 1"),
        ({"game": {"name": "gin"}}, "unknown game"),
    ],
)
def test_a_bad_section_is_one_clear_line(data, message):
    with pytest.raises(ValueError, match=message):
        config_from_dict(data)


def test_each_section_checks_its_own_fields():
    """A section's check refuses its own bad field on a config otherwise valid."""
    bad = {"net": {"activation": "sigmoid"}, "ppo": {"gamma": 0.0},
           "selfplay": {"reward_scale": 0.0}, "eval": {"eval_interval": 0},
           "parallel": {"torch_threads": 0}, "game": {"max_moves": -1},
           "rllib": {"rllib": {"nonsense": 1}}}  # fmt: skip
    for name, section in SECTIONS.items():
        config = TrainConfig(**bad[name])
        with pytest.raises(ValueError):
            section.check(config)
        for other in SECTIONS.values():
            if other is not section:
                other.check(config)
