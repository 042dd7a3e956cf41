"""A wider copy of a trained policy that plays exactly as it does, to train on with more
capacity (issue 39's "a larger network").

The copy has ``--features-dim`` first-layer units and ``--net-arch`` hidden units in place of
the checkpoint's. The old units keep their weights; the new ones get the fresh policy's
initialisation (``build_policy``) on their inputs and zero weights on their outputs, so the
logits and values are the old policy's, to float rounding (checked on random observations
before saving), and training moves the new units from the first update on (their outputs'
gradients are not zero). Run:
``python studies/widen.py --checkpoint checkpoints/adhoc/best.pt --features-dim 512
--net-arch 256 --out runs/wide/start.pt``, then train with a config whose ``init_from`` is
the copy and whose ``features_dim`` and ``net_arch`` are its
(``configs/experiments/adhoc_wide.yaml``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.trained import (  # noqa: E402
    build_policy,
    load_checkpoint,
    policy_from_checkpoint,
    weights_digest,
)


def widen(data: dict, features_dim: int, hidden: int, seed: int = 0) -> dict:
    """A checkpoint dict of the wider policy (no optimizer state: a new run starts it)."""
    old_f, old_h = data["features_dim"], data["net_arch"][-1]
    if len(data["net_arch"]) != 1 or data.get("card_head") or data.get("critic"):
        raise ValueError("widen takes a policy with one hidden layer, no card head, no critic")
    if features_dim < old_f or hidden < old_h:
        raise ValueError(f"the copy must be at least as wide: {old_f}/{old_h}")
    torch.manual_seed(seed)
    policy = build_policy(features_dim, [hidden], data["activation"], data["obs_size"],
                          data["n_actions"])  # fmt: skip
    state = policy.state_dict()
    old = data["policy"]
    for name, tensor in old.items():  # the old units' weights into the top-left blocks
        state[name][tuple(slice(0, n) for n in tensor.shape)] = tensor
    for layer in ("mlp_extractor.policy_net.0", "mlp_extractor.value_net.0"):
        state[f"{layer}.weight"][:old_h, old_f:] = 0.0  # the new features reach no old unit
    state["action_net.weight"][:, old_h:] = 0.0  # the new hidden units reach nothing yet
    state["value_net.weight"][:, old_h:] = 0.0
    wide = {key: value for key, value in data.items() if key not in ("optimizer", "digest")}
    wide |= {"features_dim": features_dim, "net_arch": [hidden], "policy": policy.state_dict(),
             "num_timesteps": 0}  # fmt: skip
    wide["digest"] = weights_digest(wide)
    return wide


def same_play(narrow: dict, wide: dict, rows: int = 256) -> float:
    """The largest difference of logits or values between the two on random observations."""
    nets = [policy_from_checkpoint(data) for data in (narrow, wide)]
    obs = (torch.rand(rows, narrow["obs_size"]) < 0.07).float()
    with torch.no_grad():
        outs = []
        for policy in nets:
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
            outs.append((policy.action_net(latent_pi), policy.value_net(latent_vf)))
    return max(float((a - b).abs().max()) for a, b in zip(*outs, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default="checkpoints/adhoc/best.pt")
    parser.add_argument("--features-dim", type=int, default=512)
    parser.add_argument("--net-arch", type=int, default=256, help="hidden units (one layer)")
    parser.add_argument("--out", default="runs/wide/start.pt")
    args = parser.parse_args()
    narrow = load_checkpoint(args.checkpoint)
    wide = widen(narrow, args.features_dim, args.net_arch)
    gap = same_play(narrow, wide)
    if gap > 1e-4:
        raise SystemExit(f"widen: the copy plays otherwise (largest difference {gap:.2e})")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    torch.save(wide, args.out)
    print(f"{args.out}: {args.features_dim}/{args.net_arch} units, largest difference {gap:.1e}")


if __name__ == "__main__":
    main()
