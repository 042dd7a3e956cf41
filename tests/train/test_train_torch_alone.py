"""A shipped checkpoint plays with torch alone: ``agents.networks.SeatPolicy`` loads best.pt
in a process where SB3 cannot be imported and picks the same moves as ``PolicyAgent``, whose
network gives the same logits as sb3-contrib's policy on the same weights; and the network the
torch trainer starts from is sb3-contrib's initial policy, weight for weight."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from commoncause.agents.trained import (
    PolicyAgent,
    build_policy,
    load_checkpoint,
    masked_logits,
)
from commoncause.envs.registry import get_game

ROOT = Path(__file__).resolve().parents[2]

ALONE = """
import importlib.abc, json, sys

class NoSB3(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("stable_baselines3", "sb3_contrib", "gymnasium", "ray"):
            raise ImportError(f"{name} is not to be imported here")

sys.meta_path.insert(0, NoSB3())
import numpy as np
from commoncause.agents.networks import SeatPolicy
from commoncause.envs.registry import get_game

game, path, decisions = json.loads(sys.stdin.read())
data = __import__("torch").load(path, weights_only=True)
moves = get_game(game).card_moves if data.get("card_head") else None
policy = SeatPolicy.load(path, moves)
print(json.dumps([policy.act(np.array(obs, dtype=np.float32), legal) for obs, legal in decisions]))
"""


def sb3_policy(features_dim: int, net_arch: list[int], activation: str, obs_size: int,
               n_actions: int):  # fmt: skip
    """sb3-contrib's policy for the network of ``train/sb3.py``."""
    import gymnasium
    import numpy as np
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from commoncause.train.sb3 import policy_kwargs

    return MaskableActorCriticPolicy(
        gymnasium.spaces.Box(0.0, 1.0, (obs_size,), np.float32),
        gymnasium.spaces.Discrete(n_actions), lambda _: 0.0,
        **policy_kwargs(features_dim, net_arch, activation),
    )  # fmt: skip


@pytest.mark.parametrize("game", ["common_cause", "dummy_rummy"])
def test_the_torch_trainers_network_starts_as_sb3_contribs(game):
    record = get_game(game)
    shape = (64, [32, 16], "tanh", record.observation_size, record.num_actions)
    torch.manual_seed(7)
    expected = sb3_policy(*shape).state_dict()
    torch.manual_seed(7)
    ours = build_policy(*shape).state_dict()
    assert list(ours) == list(expected)
    for key, weights in expected.items():
        assert torch.equal(ours[key], weights), key
    torch.manual_seed(8)
    assert not torch.equal(build_policy(*shape).state_dict()["action_net.weight"],
                           expected["action_net.weight"])  # fmt: skip


class Seen:
    """A seat view's observation and legal moves, as read once."""

    def __init__(self, obs, legal: list[int]) -> None:
        self.obs, self.legal = obs, legal

    def observation(self):
        return self.obs

    def legal_actions(self) -> list[int]:
        return self.legal


def decisions(agent: PolicyAgent, games: int = 3, per_game: int = 25) -> list[tuple]:
    """(observation, legal moves, ``agent``'s move) of decisions with a choice, the baseline
    playing."""
    record = get_game(agent.game)
    config = record.make_config()
    out = []
    for seed in range(games):
        state = record.new_game(config, seed)
        baselines = [record.baseline("") for _ in range(record.num_seats(config))]
        for i, baseline in enumerate(baselines):
            baseline.reset(seed * 10 + i)
        taken = 0
        while not state.is_terminal and taken < per_game:
            view = record.seat_view(state, state.current)
            legal = list(view.legal_actions())
            if len(legal) > 1:  # (a view's observation() is read once: observers keep history)
                obs = view.observation()
                seen = Seen(obs, legal)
                out.append((obs.tolist(), legal, agent.act(seen)))
                taken += 1
            state.apply(baselines[state.current].act(view))
    return out


@pytest.mark.parametrize("name", ["normal", "dummy_rummy_2p", "open_rummy_2p"])
def test_a_shipped_checkpoint_plays_with_torch_alone(name):
    path = ROOT / "checkpoints" / name / "best.pt"
    agent = PolicyAgent(path)
    seen = decisions(agent)
    asked = [(obs, legal) for obs, legal, _ in seen]
    run = subprocess.run([sys.executable, "-c", ALONE],
                         input=json.dumps([agent.game, str(path), asked]),
                         capture_output=True, text=True, cwd=ROOT, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    expected = [move for _, _, move in seen]
    assert json.loads(run.stdout) == expected
    assert len(set(expected)) > 3
    # the same logits as the sb3-contrib network of the same shape, on the same weights
    data = load_checkpoint(path)
    trained = sb3_policy(data["features_dim"], data["net_arch"], data["activation"],
                         data["obs_size"], data["n_actions"])  # fmt: skip
    if data.get("card_head"):
        trained.card_head = PolicyAgent(path).policy.card_head
    trained.load_state_dict(data["policy"])
    obs = torch.tensor([obs for obs, _ in asked])
    mask = torch.zeros(len(asked), data["n_actions"], dtype=torch.bool)
    for row, (_, legal) in enumerate(asked):
        mask[row, legal] = True
    with torch.no_grad():
        assert torch.equal(agent.policy(obs, mask), masked_logits(trained, obs, mask))
