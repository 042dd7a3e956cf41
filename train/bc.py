"""Behaviour cloning: start the policy from the game's baseline (its rule sheet's play).

The game's baseline (``game.baseline("")`` in every seat) plays games in chunks of at most
``chunk_decisions`` decisions (fresh deals, never stored whole, so memory is bounded whatever
the observation size); the policy learns the baseline's choice at every decision with more
than one legal move (masked cross-entropy) and the value network learns the return of the
seat that decided (its margin over the others' mean with ``reward_margin``), times
``reward_scale`` (as self-play pays rewards, so PPO's value head starts where cloning left
it).

Agreement with the baseline is measured twice a chunk: on its decisions before training on
them (``bc/agreement_unseen``, from the second chunk on: what the policy has learned to
generalise), overall and by the kind of move (the first word of its notation:
``bc/agreement_unseen/discard`` ...), and after (``bc/accuracy``, the fit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from commoncause.agents.networks import action_logits
from commoncause.agents.trained import ILLEGAL_LOGIT, masked_logits
from commoncause.train.selfplay import margins


@dataclass
class Decisions:
    """The baseline's decisions with more than one legal move, one row each."""

    played: int
    """Games played."""
    obs: np.ndarray
    """The deciding seat's observation."""
    masks: np.ndarray
    """Its legal moves."""
    actions: np.ndarray
    """The baseline's move."""
    returns: np.ndarray
    """The return of the seat that decided."""
    kinds: np.ndarray
    """The kind of the baseline's move: the first word of its notation (``draw``,
    ``discard``, ``meld`` ...)."""


def baseline_decisions(
    game,
    config,
    games: int,
    seed: int,
    max_decisions: int | None = None,
    reward_margin: bool = False,
) -> Decisions:
    """Up to ``games`` games of the game's baseline in every seat, stopping after the game
    that reaches ``max_decisions`` decisions; each decision carries the return of the seat
    that made it (a team game: the team's; with ``reward_margin`` minus the other seats'
    mean). A game is cut at the game's ``max_moves``, as the env truncates it (a stalled
    round would otherwise never end)."""
    seats = game.num_seats(config)
    agents = [game.baseline("") for _ in range(seats)]
    obs, masks, actions, movers, kinds = [], [], [], [], []
    results: list[float] = []
    played = 0
    for g in range(games):
        if max_decisions is not None and len(actions) >= max_decisions:
            break
        played += 1
        state = game.new_game(config, seed * 1_000_003 + g)
        views = [game.seat_view(state, p) for p in range(seats)]
        observers = [game.observer(p) for p in range(seats)]
        for p, agent in enumerate(agents):
            agent.reset(seats * g + p)
        start = len(actions)
        for _move in range(game.max_moves):
            if state.is_terminal:
                break
            p = state.current
            legal = state.legal_actions()
            action = agents[p].act(views[p])
            if len(legal) > 1:
                obs.append(observers[p].encode(state))
                mask = np.zeros(game.num_actions, dtype=bool)
                mask[legal] = True
                masks.append(mask)
                actions.append(action)
                movers.append(p)
                kinds.append(game.move_text(state, action).split()[0])
            state.apply(action)
        returns = margins(state.returns()) if reward_margin else state.returns()
        results.extend(returns[p] for p in movers[start:])
    return Decisions(
        played,
        np.asarray(obs, dtype=np.float32),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(results, dtype=np.float32),
        np.asarray(kinds, dtype=str),
    )


def agreement(
    policy, data: Decisions, logits: Callable = masked_logits
) -> tuple[float, dict[str, float]]:
    """The share of ``data``'s decisions where the policy's likeliest legal move is the
    baseline's, overall and by kind of move; ``logits(policy, obs, masks)`` scores the
    moves (illegal ones far below)."""
    import torch

    choices = []
    with torch.no_grad():  # in slices: a chunk's logits at once would take a GB
        for i in range(0, len(data.actions), 4096):
            rows = slice(i, i + 4096)
            obs, masks = torch.as_tensor(data.obs[rows]), torch.as_tensor(data.masks[rows])
            choices.append(logits(policy, obs, masks).argmax(dim=1).numpy())
    hits = np.concatenate(choices) == data.actions if choices else np.zeros(0, dtype=bool)
    by_kind = {str(k): float(hits[data.kinds == k].mean()) for k in np.unique(data.kinds)}
    return float(hits.mean()) if len(hits) else 0.0, by_kind


def behaviour_clone(
    policy,
    game,
    config,
    games: int,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    reward_scale: float = 1.0,
    reward_margin: bool = False,
    chunk_decisions: int = 40_000,
    progress: Callable[[int, dict], None] | None = None,
) -> dict:
    """Train ``policy`` (a ``SeatPolicy``, or sb3-contrib's policy under ``trainer: sb3``) to
    imitate ``game``'s baseline on ``config``.

    ``progress(games_done, metrics)`` is called after each chunk. Returns the last metrics:
    ``bc/loss``, ``bc/accuracy`` (agreement with the baseline on the chunk it trained on),
    ``bc/value_loss`` and, from the second chunk on, ``bc/agreement_unseen`` and
    ``bc/agreement_unseen/<kind>`` (on the chunk before training on it)."""
    import torch

    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    metrics: dict = {}
    done = 0
    chunk = 0
    policy.set_training_mode(True)
    while done < games:
        data = baseline_decisions(
            game, config, games - done, seed * 7919 + chunk, chunk_decisions, reward_margin
        )
        obs, masks, actions, results = data.obs, data.masks, data.actions, data.returns
        results *= reward_scale
        if chunk:  # decisions the policy has not trained on
            unseen, by_kind = agreement(policy, data)
            metrics["bc/agreement_unseen"] = unseen
            metrics.update({f"bc/agreement_unseen/{k}": v for k, v in by_kind.items()})
        losses, value_losses = [], []
        for _ in range(epochs):
            order = rng.permutation(len(actions))
            for i in range(0, len(order), batch_size):
                idx = order[i : i + batch_size]
                o = torch.as_tensor(obs[idx])
                a = torch.as_tensor(actions[idx])
                features = policy.extract_features(o)
                latent_pi, latent_vf = policy.mlp_extractor(features)
                logits = action_logits(policy, o, latent_pi).masked_fill(
                    ~torch.as_tensor(masks[idx]), ILLEGAL_LOGIT
                )
                loss_pi = torch.nn.functional.cross_entropy(logits, a)
                values = policy.value_net(latent_vf).flatten()
                loss_v = torch.nn.functional.mse_loss(values, torch.as_tensor(results[idx]))
                loss = loss_pi + 0.5 * loss_v
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                optimizer.step()
                losses.append(loss_pi.item())
                value_losses.append(loss_v.item())
        done += data.played
        chunk += 1
        metrics.update({
            "bc/loss": float(np.mean(losses)),
            "bc/value_loss": float(np.mean(value_losses)),
            "bc/accuracy": agreement(policy, data)[0],
            "bc/samples": len(actions),
        })  # fmt: skip
        if progress:
            progress(done, metrics)
    policy.set_training_mode(False)
    return metrics
