"""studies/widen.py: the wider copy of a policy plays exactly as the policy (its new units
reach nothing yet), is a checkpoint the loader accepts at its new shape, and trains its new
units from the first gradient; a narrower copy is refused."""

from __future__ import annotations

import pytest
import torch
from helpers import load_bench

from commoncause import ROOT
from commoncause.agents.trained import load_checkpoint, policy_from_checkpoint

ADHOC = ROOT / "checkpoints" / "adhoc" / "best.pt"


def test_the_wider_copy_plays_as_the_policy_and_loads(tmp_path):
    script = load_bench("widen")
    narrow = load_checkpoint(ADHOC)
    wide = script.widen(narrow, 320, 160)
    assert (wide["features_dim"], wide["net_arch"]) == (320, [160])
    assert script.same_play(narrow, wide) < 1e-4
    torch.save(wide, tmp_path / "wide.pt")
    assert load_checkpoint(tmp_path / "wide.pt")["features_dim"] == 320  # digest and shape


def test_the_new_units_get_gradients():
    script = load_bench("widen")
    wide = script.widen(load_checkpoint(ADHOC), 320, 160)
    policy = policy_from_checkpoint(wide)
    obs = (torch.rand(64, wide["obs_size"]) < 0.07).float()
    latent_pi, _ = policy.mlp_extractor(policy.extract_features(obs))
    policy.action_net(latent_pi).logsumexp(dim=1).sum().backward()
    assert policy.action_net.weight.grad[:, 128:].abs().sum() > 0  # new hidden units' outputs
    assert policy.mlp_extractor.policy_net[0].weight.grad[:128, 256:].abs().sum() > 0


def test_a_narrower_copy_is_refused():
    script = load_bench("widen")
    with pytest.raises(ValueError, match="at least as wide"):
        script.widen(load_checkpoint(ADHOC), 128, 128)
