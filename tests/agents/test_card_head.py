"""The per-card head (``agents.networks.CardHead``): what it reads, that it starts neutral,
that every path computes the same logits, and the real train command with it."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import yaml
from competitive import smoke_train

from commoncause.agents.networks import action_logits, card_neighbours
from commoncause.agents.trained import build_policy, masked_logits, masked_logits_and_values
from commoncause.envs.core.cards import JOKER, N_CARD_TYPES, parse_card
from commoncause.envs.open_rummy.actions import (
    CARDSWAP_BASE,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    SET_STEP_BASE,
)
from commoncause.envs.open_rummy.observer import OFFSET
from commoncause.envs.registry import get_game
from commoncause.train.config import TrainConfig, config_from_dict, load_config
from commoncause.train.ppo import legal_logits_and_values

ROOT = Path(__file__).resolve().parents[2]
GAME = get_game("open_rummy")
HAND, TOP = OFFSET["hand"], OFFSET["top_discard"]


def small_policy(card_head: bool = True):
    torch.manual_seed(0)
    moves = GAME.card_moves if card_head else None
    return build_policy(16, [16], "tanh", GAME.observation_size, GAME.num_actions, moves)


def observations(n: int = 6) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations and legal moves of real Open Rummy positions (the baseline plays)."""
    config = GAME.make_config(num_players=3, rounds=1)
    state, agent = GAME.new_game(config, 3), GAME.baseline("")
    obs, masks = [], []
    while len(obs) < n:
        if len(state.legal_actions()) > 1:
            obs.append(torch.as_tensor(GAME.observer(state.current).encode(state)))
            mask = torch.zeros(GAME.num_actions, dtype=torch.bool)
            mask[state.legal_actions()] = True
            masks.append(mask)
        state.apply(agent.act(GAME.seat_view(state, state.current)))
    return torch.stack(obs), torch.stack(masks)


def test_a_card_reads_its_rank_its_run_neighbours_and_the_jokers():
    seven_hearts = card_neighbours()[parse_card("7H")]
    codes = [parse_card(c) for c in ("7H", "7S", "7C", "7D", "5H", "6H", "8H", "9H")]
    assert seven_hearts == [*codes, JOKER]
    ace = card_neighbours()[parse_card("AC")]  # the Ace neighbours the King and the Queen
    assert ace[4:8] == [parse_card(c) for c in ("QC", "KC", "2C", "3C")]
    assert card_neighbours()[JOKER] == [JOKER] + [N_CARD_TYPES] * 7 + [JOKER]


def test_a_new_head_changes_no_logit_and_a_trained_one_only_one_card_moves():
    obs, masks = observations()
    policy = small_policy()
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
        linear = policy.action_net(latent)
        assert torch.equal(action_logits(policy, obs, latent), linear)
        torch.nn.init.normal_(policy.card_head.out.weight)
        moved = (action_logits(policy, obs, latent) - linear).abs() > 0
    assert moved[:, DISCARD_BASE:SET_STEP_BASE].all()  # the discards and the card swaps
    assert not moved[:, DRAW_STOCK].any() and not moved[:, SET_STEP_BASE:].any()
    shown = obs[:, TOP : TOP + N_CARD_TYPES].sum(1) > 0  # taking the top discard: if shown
    assert shown.any() and torch.equal(moved[:, DRAW_DISCARD], shown)


def test_taking_the_top_discard_scores_that_card():
    """The draw from the pile scores as the card on top would: put another card on top and
    the score follows that card, whatever else the observation says."""
    obs, _ = observations()
    policy = small_policy()
    torch.nn.init.normal_(policy.card_head.out.weight)
    head = policy.card_head
    draw = head.slot[DRAW_DISCARD]
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
        tops = []
        for card in (parse_card("7H"), parse_card("KS"), JOKER):
            moved = obs.clone()
            moved[:, TOP : TOP + N_CARD_TYPES] = 0
            moved[:, TOP + card] = 1
            tops.append(head.scores(moved, latent)[:, draw])
            # the card's own score for that move: its row of the head, the same latent
            hand = F.pad(moved[:, HAND : HAND + N_CARD_TYPES], (0, 1))[:, head.neighbours[card]]
            cards = torch.cat([hand, head.embedding.weight[card].expand(len(obs), -1)], dim=1)
            own = head.out(head.act(head.card_in(cards) + head.latent_in(latent)))[:, -1]
            assert torch.allclose(tops[-1], own, atol=1e-6)
    assert not torch.allclose(tops[0], tops[1])


def test_every_path_computes_the_same_logits():
    """Full logits, logits on some columns (training, agents), with values, and the
    probabilities an agent plays by."""
    obs, masks = observations()
    policy = small_policy()
    torch.nn.init.normal_(policy.card_head.out.weight)
    with torch.no_grad():
        full = masked_logits(policy, obs, masks)
        columns, legal, values = legal_logits_and_values(policy, obs, masks)
        assert torch.allclose(full[:, columns], legal, atol=1e-5)
        with_values, values_too = masked_logits_and_values(policy, obs, masks)
        assert torch.allclose(full, with_values) and torch.allclose(values, values_too)
    # the head differs by card: a discard of one card scores apart from the others'
    discards = full[:, DISCARD_BASE:CARDSWAP_BASE]
    assert (discards[masks[:, DISCARD_BASE:CARDSWAP_BASE]].std() > 0).item()


def test_config_checks_the_head_has_somewhere_to_go():
    with pytest.raises(ValueError, match="card_head needs a game with one-card moves"):
        TrainConfig(card_head=True).validate()
    with pytest.raises(ValueError, match="card_head must be true or false"):
        TrainConfig(game="open_rummy", game_options={}, trainer="torch",
                    card_head="yes").validate()  # fmt: skip


def test_smoke_training_run_with_a_card_head(tmp_path, monkeypatch):
    """The real train command with ``card_head: true`` (cloning first): the checkpoint
    records the head, its weights were trained, an agent from it plays legal moves, and a
    run without the head cannot start from it."""
    monkeypatch.chdir(tmp_path)
    config = yaml.safe_load((ROOT / "configs" / "smoke_open.yaml").read_text())
    config |= {"card_head": True, "bc_games": 4, "bc_epochs": 1}
    path = tmp_path / "smoke_card_head.yaml"
    path.write_text(yaml.safe_dump(config))
    run, data = smoke_train("open_rummy", path, "card_head", tmp_path)
    assert data["card_head"] is True
    assert data["policy"]["card_head.out.weight"].abs().sum() > 0
    from commoncause.agents.evaluate import make_agent

    agent = make_agent(str(run / "checkpoints" / "best.pt"), "open_rummy")
    state = GAME.new_game(GAME.make_config(num_players=4, rounds=1), 7)
    for _ in range(30):
        action = agent.act(GAME.seat_view(state, state.current))
        assert action in state.legal_actions()
        state.apply(action)
    plain = load_config(path)
    plain.card_head, plain.init_from = False, str(run / "checkpoints" / "best.pt")
    with pytest.raises(ValueError, match="card_head"):
        plain.validate()


@pytest.mark.parametrize(
    "name", sorted(str(p.relative_to(ROOT / "configs")) for p in (ROOT / "configs").rglob("*.yaml"))
)
def test_every_shipped_config_is_valid(name):
    """Every config in configs/ and configs/experiments/ loads and validates (the checkpoints
    some experiments start from are not opened: they may be runs of another machine)."""
    data = yaml.safe_load((ROOT / "configs" / name).read_text())
    config_from_dict(data, check_files=False)


def test_the_card_head_configs_use_it():
    for name in ("open_rummy_4p", "open_rummy_2p", "dummy_rummy_4p", "dummy_rummy_2p"):
        config = load_config(ROOT / "configs" / f"{name}.yaml")
        assert config.card_head and config.game_record().card_moves is not None
