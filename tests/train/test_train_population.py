"""Training with a population of hand-written partners (``baseline_options``): each game
with a baseline seat draws one of the listed baselines; the default draws nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from commoncause.train.config import TrainConfig
from commoncause.train.selfplay import SelfPlayEnv


def test_each_game_draws_one_of_the_listed_baselines():
    env = SelfPlayEnv(1.0, "common_cause", baseline_options=["", "start_choice=first"])
    drawn = set()
    for seed in range(30):
        env.reset(seed=seed)
        (agent,) = env.baseline_seats.values()
        drawn.add(agent.options.start_choice)
    assert drawn == {"best", "first"}


def test_one_baseline_plays_as_before():
    plain = SelfPlayEnv(0.5, "common_cause")
    listed = SelfPlayEnv(0.5, "common_cause", baseline_options=[""])
    for seed in range(10):
        a, _ = plain.reset(seed=seed)
        b, _ = listed.reset(seed=seed)
        assert (a == b).all() and plain.baseline_seat == listed.baseline_seat


@pytest.mark.parametrize(
    ("options", "message"),
    [([], "lists no baseline and there are no partners"), ("jokers=eager", "list of option texts"),
     (["", "jokers=sometimes"], "baseline_options 'jokers=sometimes'")],
)  # fmt: skip
def test_config_refuses_bad_baseline_options(options, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(baseline_options=options).validate()
    TrainConfig(baseline_options=["", "jokers=eager"]).validate()


def test_trained_partners_join_the_population_and_play_their_seat():
    """``partners`` adds team members to the population: a game draws a baseline or a
    trained partner, and a trained partner's seat is played by that policy."""
    env = SelfPlayEnv(1.0, "common_cause", partners=["checkpoints/normal_seed11/best.pt"])
    drawn, policy_moves = set(), 0
    for seed in range(30):
        env.reset(seed=seed)
        (agent,) = env.baseline_seats.values()
        drawn.add(type(agent).__name__)
        if type(agent).__name__ != "PolicyAgent" or policy_moves:
            continue
        calls = []
        act = agent.act
        agent.act = lambda view, act=act, calls=calls: calls.append(view.seat) or act(view)
        done = False
        while not done:
            mask = env.action_masks()
            _, _, done, _, _ = env.step(int(mask.nonzero()[0][0]))
        del agent.act
        policy_moves = len(calls)
        assert set(calls) == set(env.baseline_seats)  # only its own seat
    assert drawn == {"BaselineAgent", "PolicyAgent"} and policy_moves > 0


def test_trained_names_the_shipped_policy_of_the_runs_config():
    """``trained`` as a partner is what ``eval --team trained`` plays for that config: the
    2-player Dummy rummy policy in a 2-player run, not the default 4-player one."""
    from commoncause.agents.trained import shipped_checkpoint

    env = SelfPlayEnv(1.0, "dummy_rummy", num_players=2, baseline_options=[],
                      partners=["trained"])  # fmt: skip
    ((agent,),) = env._baseline_pool
    assert agent.path == shipped_checkpoint("dummy_rummy", env.config)
    assert agent.path != shipped_checkpoint("dummy_rummy")
    env.reset(seed=0)
    assert list(env.baseline_seats.values()) == [agent]


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"partners": "trained"}, "list of team members"),
     ({"partners": ["checkpoints/none/best.pt"]}, "partners 'checkpoints/none/best.pt'"),
     ({"partners": ["grandmaster"]}, "unknown team member 'grandmaster'"),
     ({"partners": ["trained"], "baseline_partner_prob": 0.0}, "baseline_partner_prob above 0"),
     ({"partners": ["trained"], "trainer": "rllib"}, "partners needs trainer torch or sb3")],
)  # fmt: skip
def test_config_refuses_bad_partners(changes, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**changes).validate()
    TrainConfig(partners=["trained", "checkpoints/normal_seed11/best.pt"]).validate()


def _option_pairs(text: str) -> set[tuple[str, str]]:
    """A baseline's option text as (name, value) pairs, spaces stripped."""
    pairs = (pair.partition("=") for pair in text.split(";") if pair.strip())
    return {(name.strip(), value.strip()) for name, _, value in pairs}


def _policy_files(spec: str, members: dict[str, str]) -> set[Path]:
    """The checkpoint files a member (or ``init_from``) plays: its own path, a shipped
    member's, or a search member's blueprint, rollout and others; resolved in the project."""
    from commoncause import ROOT
    from commoncause.agents.search import SearchOptions

    name, _, text = spec.partition(":")
    named = [spec]
    if name == "search":
        options = SearchOptions.parse(text)
        named = [options.blueprint, options.rollout, options.others]
    files = set()
    for item in named:
        item = members.get(item, item)
        if item.endswith(".pt") or "/" in item:
            path = Path(item)
            files.add((path if path.is_absolute() else ROOT / path).resolve())
    return files


def test_no_training_config_uses_the_benchmarks_test_split():
    """The held-out partners are for reporting only: no config under configs/ trains with
    them (as a partner, or inside a search partner), starts from one, or lists a
    hand-written partner sharing a test partner's option."""
    import yaml

    from commoncause import ROOT
    from commoncause.envs.common_cause.study.benchmark import partners
    from commoncause.envs.registry import get_game
    from commoncause.train.config import config_from_dict

    members = get_game("common_cause").members
    held_out = partners("test")
    checkpoints = {f for p in held_out if p.kind == "ppo" for f in _policy_files(p.member, {})}
    options = {pair for p in held_out if p.kind == "rules"
               for pair in _option_pairs(p.member.partition(":")[2])}  # fmt: skip
    assert len(checkpoints) == 2 and options
    configs = sorted((ROOT / "configs").rglob("*.y*ml"))
    assert len(configs) > 10
    for path in configs:
        cfg = config_from_dict(yaml.safe_load(path.read_text()), check_files=False)
        used = [*cfg.partners, *([cfg.init_from] if cfg.init_from else [])]
        assert not {f for spec in used for f in _policy_files(spec, members)} & checkpoints, path
        texts = [*cfg.baseline_options]
        texts += [spec.partition(":")[2] for spec in cfg.partners if spec.startswith("baseline:")]
        assert not {pair for text in texts for pair in _option_pairs(text)} & options, path


def test_the_benchmark_pages_training_config_is_valid():
    """docs/benchmark.md's config for training with the train split loads as it is written."""
    import re

    import yaml

    from commoncause import ROOT
    from commoncause.train.config import config_from_dict

    page = (ROOT / "docs" / "benchmark.md").read_text()
    (block,) = re.findall(r"```yaml\n(.*?)```", page, re.S)
    cfg = config_from_dict(yaml.safe_load(block))
    assert cfg.partners and cfg.baseline_options != [""]


def test_the_model_card_pins_what_each_partner_plays(tmp_path):
    """The card names each partner's member for the run's config and, for a policy, its
    checkpoint and weights digest."""
    from commoncause import ROOT
    from commoncause.agents.trained import load_checkpoint, weights_digest
    from commoncause.train.trainer import Trainer

    partners = ["trained", "checkpoints/normal_seed11/best.pt", "baseline:jokers=eager"]
    cfg = TrainConfig(partners=partners, out_dir=str(tmp_path))
    cfg.validate()
    card = Trainer(cfg, run_name="card", say=lambda *_: None).model_card(0)
    trained, seed11, eager = card["partners"]
    assert trained["checkpoint"] == "checkpoints/normal/best.pt"
    assert seed11["checkpoint"] == "checkpoints/normal_seed11/best.pt"
    assert seed11["digest"] == weights_digest(load_checkpoint(ROOT / seed11["checkpoint"]))
    assert trained["digest"] != seed11["digest"]
    assert eager == {"partner": "baseline:jokers=eager", "member": "baseline:jokers=eager"}
    assert "partners" not in Trainer(TrainConfig(out_dir=str(tmp_path)), run_name="plain",
                                     say=lambda *_: None).model_card(0)  # fmt: skip


def test_a_resumed_run_refuses_a_partner_whose_weights_changed(tmp_path, capsys):
    """The run's checkpoint pins each partner's weights; resuming with other weights under
    the same path is refused with one line (exit 2), and the run's checkpoint is kept."""
    import shutil

    import yaml

    from commoncause import ROOT
    from commoncause.agents.trained import load_checkpoint, weights_digest
    from commoncause.cli import main

    partner = tmp_path / "partner.pt"
    shutil.copy(ROOT / "checkpoints/normal_seed11/best.pt", partner)
    smoke = yaml.safe_load((ROOT / "configs/smoke.yaml").read_text())
    config = tmp_path / "partnered.yaml"
    config.write_text(yaml.safe_dump(smoke | {
        "out_dir": str(tmp_path / "runs"), "total_steps": 256, "checkpoint_interval": 10_000,
        "partners": [str(partner)], "baseline_partner_prob": 0.5,
        "init_from": "checkpoints/normal_seed12/best.pt",
    }))  # fmt: skip
    assert main(["train", "--config", str(config), "--run-name", "r"]) == 0
    last = tmp_path / "runs" / "r" / "checkpoints" / "last.pt"
    saved = load_checkpoint(last)
    assert saved["partners"][0]["digest"] == weights_digest(load_checkpoint(partner))
    start = weights_digest(load_checkpoint(ROOT / "checkpoints/normal_seed12/best.pt"))
    assert saved["init_from"]["digest"] == start
    capsys.readouterr()
    shutil.copy(ROOT / "checkpoints/normal_seed12/best.pt", partner)  # other weights, same path
    assert main(["train", "--resume", str(last), "--total-steps", "512"]) == 2
    err = capsys.readouterr().err.strip()
    assert "is not the policy this run trained with" in err and len(err.splitlines()) == 1
    assert load_checkpoint(last)["num_timesteps"] == 256
    partner.unlink()  # gone: the same one line names the partner
    assert main(["train", "--resume", str(last), "--total-steps", "512"]) == 2
    assert f"config partners '{partner}': checkpoint" in capsys.readouterr().err
    shutil.copy(ROOT / "checkpoints/normal_seed11/best.pt", partner)  # put back: it resumes
    assert main(["train", "--resume", str(last), "--total-steps", "512"]) == 0
    resumed = load_checkpoint(last)
    assert resumed["num_timesteps"] == 512 and resumed["init_from"]["digest"] == start
