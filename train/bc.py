"""Behaviour cloning: start the policy from the game's baseline (its rule sheet's play).

The game's baseline (``game.baseline("")`` in every seat) plays games in chunks of at most
``chunk_decisions`` decisions (fresh deals, never stored whole, so memory is bounded whatever
the observation size); the policy learns the baseline's choice at every decision with more
than one legal move (masked cross-entropy) and the value network learns the return of the
seat that decided (its margin over the others' mean with ``reward_margin``), times
``reward_scale`` (as self-play pays rewards, so PPO's value head starts where cloning left
it).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from commoncause.agents.trained import masked_logits
from commoncause.train.selfplay import margins


def baseline_decisions(
    game,
    config,
    games: int,
    seed: int,
    max_decisions: int | None = None,
    reward_margin: bool = False,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(games played, observations, legal masks, baseline actions, returns): up to ``games``
    games of the game's baseline in every seat, stopping after the game that reaches
    ``max_decisions`` decisions; each decision carries the return of the seat that made it
    (a team game: the team's; with ``reward_margin`` minus the other seats' mean). A game
    is cut at the game's ``max_moves``, as the env truncates it (a stalled round would
    otherwise never end)."""
    seats = game.num_seats(config)
    agents = [game.baseline("") for _ in range(seats)]
    obs, masks, actions, movers = [], [], [], []
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
            state.apply(action)
        returns = margins(state.returns()) if reward_margin else state.returns()
        results.extend(returns[p] for p in movers[start:])
    return (
        played,
        np.asarray(obs, dtype=np.float32),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(results, dtype=np.float32),
    )


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
    """Train ``policy`` (a MaskableActorCriticPolicy) to imitate ``game``'s baseline on
    ``config``.

    ``progress(games_done, metrics)`` is called after each chunk. Returns the last metrics:
    ``bc/loss``, ``bc/accuracy`` (agreement with the baseline), ``bc/value_loss``."""
    import torch

    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    metrics: dict = {}
    done = 0
    chunk = 0
    policy.set_training_mode(True)
    while done < games:
        n, obs, masks, actions, results = baseline_decisions(
            game, config, games - done, seed * 7919 + chunk, chunk_decisions, reward_margin
        )
        results *= reward_scale
        losses, hits, value_losses = [], 0, []
        for _ in range(epochs):
            order = rng.permutation(len(actions))
            for i in range(0, len(order), batch_size):
                idx = order[i : i + batch_size]
                o = torch.as_tensor(obs[idx])
                a = torch.as_tensor(actions[idx])
                features = policy.extract_features(o)
                latent_pi, latent_vf = policy.mlp_extractor(features)
                logits = policy.action_net(latent_pi).masked_fill(
                    ~torch.as_tensor(masks[idx]), -1e8
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
        with torch.no_grad():  # agreement with the baseline on this chunk
            logits = masked_logits(policy, torch.as_tensor(obs), torch.as_tensor(masks))
            hits = int((logits.argmax(dim=1).numpy() == actions).sum())
        done += n
        chunk += 1
        metrics = {
            "bc/loss": float(np.mean(losses)),
            "bc/value_loss": float(np.mean(value_losses)),
            "bc/accuracy": hits / max(1, len(actions)),
            "bc/samples": len(actions),
        }
        if progress:
            progress(done, metrics)
    policy.set_training_mode(False)
    return metrics
