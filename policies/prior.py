"""The ``prior: hand`` policy network: stable-baselines3's maskable actor-critic with
``log(cards of each rank in hand)`` added to its action logits (imports torch: import lazily).

Why: the policy picks a *rank* per step, so a network with equal outputs plays each rank it
holds with equal chance, and a hand's lone ace comes early far more often than in a uniformly
random order of the cards. That rank-uniform start is about three times as exploitable as
``random`` in two-player tactical 36 (a best response gains 2.0 cards a game against it, 0.6
against ``random``; BENCHMARKS.md, "Training toward equilibrium"). With the prior, a network
with equal outputs *is* ``random``, and what it learns is a departure from it.

The prior also changes what the entropy bonus means: :meth:`PriorPolicy.evaluate_actions`
reports ``-KL(policy || uniform over the cards)`` as the entropy, so ``ent_coef`` pulls toward
``random`` (a magnet, in the sense of magnetic mirror descent) instead of toward playing every
rank equally often.
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from pyanitsa.observation import PRIOR_FLOOR, TacticalLayout
from pyanitsa.rules import Rules


class LastPlayed(BaseFeaturesExtractor):
    """The observation followed by the rank played last and the share placed: the torch twin
    of :meth:`pyanitsa.observation.TacticalLayout.last_played` (``features: last``)."""

    features_kind = "last"

    def __init__(self, observation_space: Any, ranks: int, hand_size: int) -> None:
        super().__init__(observation_space, int(observation_space.shape[0]) + ranks + 1)
        self.ranks, self.hand_size = ranks, hand_size

    def forward(self, obs: th.Tensor) -> th.Tensor:
        r, n = self.ranks, self.hand_size
        order = obs[:, r:r + n * r].reshape(-1, n, r)
        placed = order.sum(dim=(1, 2)).round().long()
        rows = th.arange(obs.shape[0], device=obs.device)
        last = order[rows, (placed - 1).clamp(min=0)] * (placed > 0).unsqueeze(1)
        return th.cat([obs, last, (placed.float() / n).unsqueeze(1)], dim=1)

    @staticmethod
    def kwargs_for(layout: TacticalLayout) -> dict[str, Any]:
        """The policy's constructor arguments that make it read ``features: last``."""
        assert layout.slices["order"].start == layout.ranks  # what forward() slices
        return {"features_extractor_class": LastPlayed,
                "features_extractor_kwargs": {"ranks": layout.ranks,
                                              "hand_size": layout.hand_size}}


class OpponentModel(LastPlayed):
    """:class:`LastPlayed` followed by an opponent model's pair marginals (``features: model``,
    :class:`pyanitsa.policies.features.ModelFeatures`, computed in numpy: nothing to
    differentiate, and the numpy actor reads the very same numbers)."""

    features_kind = "model"

    def __init__(self, observation_space: Any, ranks: int, hand_size: int,
                 opponent_model: str, rules: dict[str, Any], players: int) -> None:
        from pyanitsa.policies.features import ModelFeatures
        super().__init__(observation_space, ranks, hand_size)
        self._features_dim += 2 * ranks
        self.opponent_model = opponent_model
        layout = TacticalLayout(Rules.from_json(rules), players)
        self.model = ModelFeatures(layout, opponent_model)

    def forward(self, obs: th.Tensor) -> th.Tensor:
        extra = th.from_numpy(self.model(obs.detach().cpu().numpy())).to(obs.device)
        return th.cat([super().forward(obs), extra], dim=1)

    @staticmethod
    def kwargs_for(layout: TacticalLayout, opponent_model: str) -> dict[str, Any]:
        """The policy's constructor arguments that make it read ``features: model``."""
        assert layout.slices["order"].start == layout.ranks  # what forward() slices
        return {"features_extractor_class": OpponentModel,
                "features_extractor_kwargs": {
                    "ranks": layout.ranks, "hand_size": layout.hand_size,
                    "opponent_model": opponent_model, "rules": layout.rules.to_json(),
                    "players": layout.players}}


class PriorPolicy(MaskableActorCriticPolicy):
    """Maskable actor-critic whose logits carry the card-count prior of the hand."""

    prior_kind = "hand"

    def __init__(self, *args: Any, hand_start: int, copies: list[float], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hand_start = hand_start
        self.copies_list = list(copies)
        self.register_buffer("copies", th.tensor(self.copies_list, dtype=th.float32),
                             persistent=False)

    @staticmethod
    def kwargs_for(layout: TacticalLayout) -> dict[str, Any]:
        """The constructor's prior arguments for a layout's observations."""
        return {"hand_start": layout.slices["hand"].start,
                "copies": [float(c) for c in layout.counts]}

    def _get_constructor_parameters(self) -> dict[str, Any]:
        # SB3 saves these to rebuild the policy (model.zip, checkpoints)
        return {**super()._get_constructor_parameters(), "hand_start": self.hand_start,
                "copies": self.copies_list}

    def log_prior(self, obs: th.Tensor) -> th.Tensor:
        """The torch twin of :meth:`pyanitsa.observation.TacticalLayout.log_prior`."""
        end = self.hand_start + self.copies.numel()
        counts = obs[:, self.hand_start:end].float() * self.copies
        return th.log(th.clamp(counts, min=PRIOR_FLOOR))

    def _dist(self, obs: th.Tensor, latent_pi: th.Tensor, action_masks: Any) -> Any:
        logits = self.action_net(latent_pi) + self.log_prior(obs)
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return (self.mlp_extractor.forward_actor(pi_features),
                self.mlp_extractor.forward_critic(vf_features))

    def forward(self, obs: th.Tensor, deterministic: bool = False,
                action_masks: Any = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        dist = self._dist(obs, latent_pi, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        log_prob = dist.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), \
            log_prob

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks: Any = None
                         ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """Values, log-probabilities, and ``-KL(policy || uniform over the cards)`` in place of
        the entropy (zero at ``random``, negative elsewhere)."""
        latent_pi, latent_vf = self._latents(obs)
        dist = self._dist(obs, latent_pi, action_masks)
        probs = dist.distribution.probs
        legal = probs > 0
        log_q = th.where(legal, self.log_prior(obs), th.zeros_like(probs))
        norm = th.log((th.exp(log_q) * legal).sum(-1))
        neg_kl = dist.entropy() + (probs * log_q).sum(-1) - norm
        return self.value_net(latent_vf), dist.log_prob(actions), neg_kl

    def get_distribution(self, obs: th.Tensor, action_masks: Any = None) -> Any:
        features = super(MaskableActorCriticPolicy, self).extract_features(
            obs, self.pi_features_extractor)
        return self._dist(obs, self.mlp_extractor.forward_actor(features), action_masks)


__all__ = ["LastPlayed", "PriorPolicy"]
