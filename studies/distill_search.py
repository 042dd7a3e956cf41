"""Distilling search into a policy: one round of expert iteration for Common Cause's `adhoc`.

``generate``: a search member (``search:blueprint=<policy>``, agents/search.py) plays one
seat of Normal games (game ``g`` in seat ``g % 2``, dealt from ``deal_seed(seed, g)``)
with a partner drawn per game from a weighted population (the benchmark's train split and
its combinations by default: never its test split). At each of its decisions with several
legal moves it records the seat's observation, the legal moves, the move it played, the
blueprint's move, the moves it searched with their rollout win rates, the game's result
and the partner drawn. Worker ``w`` of
``W`` plays games ``w, w + W, ...`` and writes them in files of 50 games
(``w{w}_g{first:06d}.npz``); a file already there is skipped, so a stopped run resumes.

``fit``: the blueprint learns from the records. Its target at a decision is its own move
distribution with the searched moves' share re-weighted by ``exp(rate / tau)`` (a soft
policy improvement that the rollouts' noise cannot swing far: one rollout of 16 is a rate
step of 0.0625); ``--tau 0`` takes the search's move itself (cross-entropy) plus
``--kl`` times the divergence from the blueprint. Decisions where nothing was searched keep
the blueprint's distribution. It writes a policy checkpoint (``commoncause eval``,
``benchmark`` take it) whose card records the run. The runs of docs/benchmark.md::

    python studies/distill_search.py generate --out runs/distill/data --games 2300
    python studies/distill_search.py fit --data runs/distill/data --tau 0 --kl 1 \\
        --epochs 4 --lr 3e-4 --out runs/distill/hard.pt
    python studies/distill_search.py fit --data runs/distill/data --tau 0.05 \\
        --epochs 6 --lr 3e-4 --out runs/distill/soft.pt
"""

from __future__ import annotations

import argparse
import copy
import json
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commoncause.agents.arena import deal_seed, play_game  # noqa: E402
from commoncause.agents.registry import make_agent  # noqa: E402
from commoncause.agents.search import (  # noqa: E402
    SearchAgent,
    better_move,
    rollout_rates,
    search_moves,
)
from commoncause.envs.common_cause.rules import GameConfig  # noqa: E402
from commoncause.envs.registry import get_game  # noqa: E402

POPULATION = {
    "baseline": 3,
    "baseline:jokers=eager": 2,
    "baseline:take_discard=always": 2,
    "baseline:discard=random": 2,
    "baseline:jokers=eager;take_discard=always": 1,
    "baseline:take_discard=always;discard=random": 1,
    "checkpoints/normal_seed11/best.pt": 1.5,
    "checkpoints/normal_seed12/best.pt": 1.5,
    "trained": 1,
    "checkpoints/adhoc/best.pt": 2,
}
"""The partners of ``generate`` and their weights: the benchmark's train split (the four
hand-written conventions, two of their pairs, the two PPO seeds), ``trained`` and the
blueprint itself."""
CHUNK = 50
"""Games per file and worker."""


class Labeller(SearchAgent):
    """The search agent, recording each decision it searches (``rows``)."""

    rows: list[tuple]

    def act(self, view) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        deals = self.deals(view)
        blueprint_move = self.blueprint.act(view)
        moves = search_moves(self.blueprint, view, legal, self.options.moves)
        rates = rollout_rates(moves, deals, self.rollouts, self.options, self.stats, view.player)
        move = better_move(moves, blueprint_move, rates, self.options.threshold, self.stats)
        searched = np.full(self.options.moves, -1, dtype=np.int16)
        won = np.full(self.options.moves, -1.0, dtype=np.float32)
        if rates is not None:
            searched[: len(moves)], won[: len(moves)] = moves, rates
        observation = view.observation().astype(np.float16)
        self.rows.append((observation, legal, move, blueprint_move, searched, won))
        return move


def generate_worker(args: argparse.Namespace, worker: int) -> None:
    """Worker ``worker``'s games, file by file (module docstring)."""
    config = GameConfig.make("normal")
    names, weights = list(POPULATION), list(POPULATION.values())
    partners = {name: make_agent(name) for name in names}
    search = make_agent(f"search:blueprint={args.blueprint};rollouts={args.rollouts}")
    labeller = Labeller(search.options, "common_cause", search.blueprint)
    rng = random.Random(args.seed * 100 + worker)
    step = args.workers
    for first in range(worker, args.games, CHUNK * step):
        games = range(first, min(args.games, first + CHUNK * step), step)
        drawn = [rng.choices(names, weights)[0] for _ in games]  # (drawn even when skipped)
        path = args.out / f"w{worker}_g{first:06d}.npz"
        if path.exists():
            continue
        labeller.rows, won, partner = [], [], []
        for g, name in zip(games, drawn, strict=True):
            team = (labeller, partners[name]) if g % 2 == 0 else (partners[name], labeller)
            before = len(labeller.rows)
            outcome = play_game(config, team, deal_seed(args.seed, g))
            won += [outcome.win] * (len(labeller.rows) - before)
            partner += [names.index(name)] * (len(labeller.rows) - before)
        rows = labeller.rows
        legal = np.zeros((len(rows), get_game("common_cause").num_actions), dtype=bool)
        for i, row in enumerate(rows):
            legal[i, row[1]] = True
        partial = path.with_suffix(".partial.npz")  # (a stop mid-write leaves no file)
        np.savez_compressed(
            partial, obs=np.stack([r[0] for r in rows]), legal=legal,
            search=np.array([r[2] for r in rows]), blue=np.array([r[3] for r in rows]),
            moves=np.stack([r[4] for r in rows]), rates=np.stack([r[5] for r in rows]),
            win=np.array(won), partner=np.array(partner),
        )  # fmt: skip
        os.replace(partial, path)
        print(f"worker {worker}: games to {games[-1]}, {len(rows)} decisions", flush=True)


def generate(args: argparse.Namespace) -> int:
    """The workers' games; a folder of records made with other settings is refused (the
    files it holds would not be the games these settings play)."""
    run = {"blueprint": args.blueprint, "rollouts": args.rollouts, "seed": args.seed,
           "workers": args.workers, "population": POPULATION}  # fmt: skip
    kept = args.out / "population.json"
    if kept.is_file() and json.loads(kept.read_text()) != run:
        raise SystemExit(f"{args.out} holds records of other settings ({kept}): use another --out")
    args.out.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(run, indent=1) + "\n")
    workers = [multiprocessing.Process(target=generate_worker, args=(args, w))
               for w in range(args.workers)]  # fmt: skip
    for process in workers:
        process.start()
    for process in workers:
        process.join()
    failed = [w for w, process in enumerate(workers) if process.exitcode != 0]
    if failed:
        raise SystemExit(f"worker(s) {failed} failed (see above); run again to resume")
    return 0


def load_records(folder: Path) -> dict[str, np.ndarray]:
    files = sorted(folder.glob("w*_g*.npz"))
    if not files:
        raise SystemExit(f"no records in {folder}: run generate first")
    keys = ("obs", "legal", "search", "blue", "moves", "rates")
    parts = [np.load(f) for f in files]
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def soft_targets(ref_probs, moves: np.ndarray, rates: np.ndarray, tau: float):
    """The blueprint's move probabilities with the searched moves' total share re-weighted
    by ``exp(rate / tau)`` (module docstring)."""
    import torch

    targets = ref_probs.clone()
    for row in np.nonzero((moves >= 0).any(1))[0]:
        kept = moves[row] >= 0
        searched = torch.as_tensor(moves[row][kept].astype(np.int64))
        won = torch.as_tensor(rates[row][kept])
        share = targets[row, searched]
        weights = share * torch.exp((won - won.max()) / tau)
        if weights.sum() > 0:  # (else every weight underflowed: the blueprint's own)
            targets[row, searched] = share.sum() * weights / weights.sum()
    return targets


def fit(args: argparse.Namespace) -> int:
    import torch

    from commoncause.agents.trained import (
        load_checkpoint,
        masked_logits,
        policy_from_checkpoint,
        weights_digest,
    )

    torch.manual_seed(args.seed)
    data = load_records(args.data)
    start = load_checkpoint(make_agent(args.blueprint).path)
    policy = policy_from_checkpoint(start)
    reference = copy.deepcopy(policy)
    obs = torch.as_tensor(data["obs"].astype(np.float32))
    legal = torch.as_tensor(data["legal"])
    with torch.no_grad():
        ref_logp = torch.cat([
            torch.log_softmax(masked_logits(reference, obs[i : i + 4096], legal[i : i + 4096]), 1)
            for i in range(0, len(obs), 4096)
        ])  # fmt: skip
    if args.tau > 0:
        targets = soft_targets(ref_logp.exp(), data["moves"], data["rates"], args.tau)
    else:
        labels = torch.as_tensor(data["search"].astype(np.int64))
    policy.train()
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
    order_rng = np.random.default_rng(args.seed)
    started = time.time()
    for epoch in range(args.epochs):
        losses = []
        order = order_rng.permutation(len(obs))
        for i in range(0, len(order), 512):
            rows = torch.as_tensor(order[i : i + 512])
            logp = torch.log_softmax(masked_logits(policy, obs[rows], legal[rows]), 1)
            logp = logp.masked_fill(~legal[rows], 0.0)
            if args.tau > 0:
                loss = -(targets[rows] * logp).sum(1).mean()
            else:
                ref = ref_logp[rows].masked_fill(~legal[rows], 0.0)
                kl = (ref.exp() * (ref - logp)).sum(1)
                loss = (-logp.gather(1, labels[rows, None]).squeeze(1) + args.kl * kl).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.4f}", flush=True)
    policy.eval()
    with torch.no_grad():
        chosen = torch.cat([masked_logits(policy, obs[i : i + 4096], legal[i : i + 4096]).argmax(1)
                            for i in range(0, len(obs), 4096)]).numpy()  # fmt: skip
    changed = float((chosen != data["blue"]).mean())
    out = {k: v for k, v in start.items() if k != "digest"}
    out["policy"] = policy.state_dict()
    out["run_name"] = f"distill_search(tau={args.tau})"
    out["distilled"] = {
        "records": str(args.data), "decisions": len(obs), "blueprint": args.blueprint,
        "tau": args.tau, "kl": args.kl, "epochs": args.epochs, "lr": args.lr, "seed": args.seed,
        "moves_changed": changed, "seconds": round(time.time() - started, 1),
    }  # fmt: skip
    out["digest"] = weights_digest(out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(out, args.out)
    print(f"{len(obs):,} decisions; the policy's move differs from the blueprint's on "
          f"{changed:.1%}; saved {args.out}")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    gen = sub.add_parser("generate", help="search-labelled decisions (resumable)")
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--games", type=int, default=8000)
    gen.add_argument("--workers", type=int, default=2)
    gen.add_argument("--seed", type=int, default=424242)
    gen.add_argument("--blueprint", default="checkpoints/adhoc/best.pt")
    gen.add_argument("--rollouts", type=int, default=16, help="the search's sampled deals")
    learn = sub.add_parser("fit", help="the blueprint trained on the records")
    learn.add_argument("--data", type=Path, required=True)
    learn.add_argument("--out", type=Path, required=True)
    learn.add_argument("--blueprint", default="checkpoints/adhoc/best.pt")
    learn.add_argument("--tau", type=float, default=0.1)
    learn.add_argument("--kl", type=float, default=1.0, help="with --tau 0 only")
    learn.add_argument("--epochs", type=int, default=2)
    learn.add_argument("--lr", type=float, default=1e-4)
    learn.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return (generate if args.step == "generate" else fit)(args)


if __name__ == "__main__":
    raise SystemExit(main())
