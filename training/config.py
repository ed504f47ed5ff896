"""The typed config of ``pyanitsa train``: every field's docstring is its documentation
(``pyanitsa train --help-config`` prints them). Reading one (YAML plus ``--set`` overrides,
the checks across fields) is :mod:`pyanitsa.training.config_load`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pyanitsa.agents.specs import make_agent
from pyanitsa.config import ConfigError, first_error
from pyanitsa.errors import PyanitsaError
from pyanitsa.policies.meta import MAX_LAYERS, MAX_UNITS
from pyanitsa.solvers.cfr import Algorithm
from pyanitsa.training.teacher import Teacher


class TrainConfigError(ConfigError):
    """A training config that does not validate; the message names the field."""


class _Model(BaseModel):
    # allow_inf_nan: pydantic takes .nan and .inf for a float field (clip_range: .inf)
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True,
                              allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # pydantic reads true as 1 for an int field: `total_steps: true` would train 1 step
        if isinstance(value, bool) and info.field_name is not None:
            annotation = cls.model_fields[info.field_name].annotation
            if annotation in (int, float, int | None, float | None):
                raise ValueError("must be a number, not true or false")
        return value


class OpponentEntry(_Model):
    """One member of the opponent pool."""

    spec: str = Field(min_length=1)
    """An agent spec: ``random``, ``descending``, ``mc_search(samples=32)``, ``ppo:PATH``."""
    weight: float = Field(1.0, gt=0)
    """Relative probability of facing it in an episode."""

    @field_validator("spec")
    @classmethod
    def _buildable(cls, v: str) -> str:
        try:
            make_agent(v)
        except PyanitsaError as exc:
            raise ValueError(str(exc)) from None
        return v


class EnvConfig(_Model):
    """The training environment."""

    id: Literal["pyanitsa/Tactical-v0"] = "pyanitsa/Tactical-v0"
    """The Gymnasium id (ordering policies: the tactical env)."""
    kwargs: dict[str, Any] = Field(default_factory=dict)
    """Constructor kwargs: ``rules``, ``players``, ``seat``, ``reward``, ``engine``
    (``opponents`` come from the pool)."""

    @field_validator("kwargs")
    @classmethod
    def _no_opponents(cls, v: dict[str, Any]) -> dict[str, Any]:
        if "opponents" in v:
            raise ValueError("opponents come from the top-level 'opponents' pool, not kwargs")
        return v


class SelfPlayConfig(_Model):
    """When frozen copies of the learner join the opponent pool."""

    every: int = Field(0, ge=0)
    """Freeze a snapshot every this many env steps (0: no self-play)."""
    start: int = Field(0, ge=0)
    """No snapshot before this many steps."""
    keep: int = Field(4, ge=1)
    """The most recent snapshots kept in the pool."""
    weight: float = Field(1.0, gt=0)
    """Pool weight shared by all snapshots (the configured opponents keep theirs)."""
    deterministic: bool = False
    """Whether snapshots play their most probable order (False: they sample, for variety)."""


class LeagueConfig(_Model):
    """A PSRO-style league (``league.every`` > 0; it replaces ``self_play``): every ``every`` env
    steps the learner is frozen as ``snapshots/gen_K.pt`` (it samples its orders) and a best
    response to that snapshot joins with it; the opponent weights of the next generation are the
    Nash equilibrium of the meta-game between all members (configured opponents, snapshots,
    best responses), scored on a fixed deal set, mixed with the configured weights. Two-player
    tactical only. Each generation is a line of the log and rows of ``league.csv``."""

    every: int = Field(0, ge=0)
    """Env steps per generation (0: no league)."""
    best_responses: bool = True
    """Add ``best_response(target=<the snapshot>)`` with each snapshot (False: snapshots only)."""
    br_samples: int = Field(1, ge=1, le=10_000)
    """The best responses' ``samples``: snapshot calls they predict it from, once per hand they
    play. 1: the exact response (dynamic programme) to one predicted order, about 7 ms a hand
    on one core; more is a search over the sampled orders, 14 ms at 2 and 85 ms at 8 against a
    young snapshot whose orders all differ (it runs the programme for up to 8 of them)."""
    br_restarts: int = Field(0, ge=0, le=64)
    """The best responses' ``restarts`` of the local search (``br_samples`` above 1; each one
    costs another search)."""
    meta_deals: int = Field(100, ge=1, le=100_000)
    """Deals of the meta-game: every pair of members plays each in both seatings."""
    meta_seed: int = Field(7, ge=0, le=2**64 - 1)
    """Seed of the meta-game's deals and of the members' sampled orders on them."""
    fixed_share: float = Field(0.2, ge=0, le=1)
    """Share of the opponent weights kept for the configured ``opponents`` (by their weights);
    the rest follows the meta-game's Nash equilibrium over the whole population."""


class ExploitEvalConfig(_Model):
    """The greedy policy's full-deal exploitability at every evaluation (``pyanitsa
    exploit``'s measure: what a best response gains, in cards a game), beside uniform
    ``random``'s on the same deals. Two-player tactical runs only."""

    deals: int = Field(8, ge=1, le=10_000)
    """Deals (the same at every evaluation; both seats of each)."""
    samples: int = Field(32, ge=1, le=100_000)
    """For ``random`` (sampled): calls per deal and seat to fit the best response on."""
    fresh: int = Field(64, ge=1, le=100_000)
    """For ``random``: further calls that score it (an unbiased lower bound)."""
    seed: int = Field(0, ge=0, le=2**64 - 1)
    """Seed of the deals, as ``pyanitsa exploit --seed``."""


class EvalConfig(_Model):
    """Periodic duplicate evaluation against named baselines."""

    every: int = Field(0, ge=0)
    """Evaluate every this many env steps (0: only at the end)."""
    deals: int = Field(200, ge=1)
    """Deals per baseline (each played twice, seats swapped)."""
    final_deals: int | None = Field(None, ge=1)
    """Deals of the final evaluation (default: ``deals``)."""
    baselines: list[str] = Field(default_factory=lambda: ["random"])
    """Agent specs to evaluate against."""
    seed: int = Field(1_000_003, ge=0)
    """Seed of the evaluation deals (the same deals at every evaluation)."""
    exploit: ExploitEvalConfig | None = Field(default_factory=ExploitEvalConfig)
    """Exploitability at every evaluation, into eval.csv and the learning curve; null: none."""


class EntSchedule(_Model):
    """An entropy coefficient that moves from ``start`` to ``end`` over the run."""

    start: float = Field(ge=0)
    """The coefficient at step 0."""
    end: float = Field(ge=0)
    """The coefficient at ``total_steps``."""
    kind: Literal["linear", "exponential"] = "linear"
    """``linear`` or ``exponential`` (geometric: the same ratio per step; both above 0)."""

    @model_validator(mode="after")
    def _positive_for_exponential(self) -> EntSchedule:
        if self.kind == "exponential" and min(self.start, self.end) <= 0:
            raise ValueError("exponential needs start and end above 0")
        return self

    def at(self, fraction: float) -> float:
        """The coefficient after ``fraction`` (0 to 1) of the run."""
        f = min(max(fraction, 0.0), 1.0)
        if self.kind == "linear":
            return self.start + (self.end - self.start) * f
        return self.start * (self.end / self.start) ** f


class PPOConfig(_Model):
    """Hyperparameters handed to stable-baselines3."""

    learning_rate: float = Field(3e-4, gt=0)
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear`` decays the learning rate to zero over the run."""
    n_steps: int = Field(256, ge=1)
    """Steps per env per rollout."""
    batch_size: int = Field(512, ge=2)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(1.0, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: Annotated[float, Field(ge=0)] | EntSchedule = Field(
        0.01, union_mode="left_to_right")
    """A number, or a schedule ``{start, end, kind: linear|exponential}`` (set at the start of
    every rollout from the step count, so a resumed run gets the same values)."""
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[Annotated[int, Field(ge=1, le=MAX_UNITS)]] = Field(
        default_factory=lambda: [128, 128], max_length=MAX_LAYERS)
    """Hidden layers of both the policy and the value network."""
    activation: Literal["Tanh", "ReLU"] = "Tanh"
    features: Literal["obs", "last", "model"] = "obs"
    """What the networks read: the observation, or (``last``) the observation followed by the
    rank played last and the share of the hand placed (:mod:`pyanitsa.policies.prior`),
    or (``model``) those and what ``opponent_model`` plays against the hand, its pair
    marginals (:mod:`pyanitsa.policies.features`): what a response to it depends on."""
    opponent_model: str = "tie_aware"
    """The agent spec whose marginals ``features: model`` reads (two-player tactical)."""
    prior: Literal["none", "hand"] = "hand"
    """``hand``: the logits carry ``log(cards of each rank in hand)``, so the untrained policy
    plays ``random`` (a uniformly random order of the cards, not of the ranks) and
    ``ent_coef`` pulls toward it (the bonus is ``-KL(policy || random)``;
    :mod:`pyanitsa.policies.prior`). MaskablePPO only. ``none``: plain logits."""

    @field_validator("ent_coef", mode="before")
    @classmethod
    def _number_or_schedule(cls, value: Any) -> Any:
        # one error naming the schedule's field, not one per member of the union
        if isinstance(value, dict):
            try:
                return EntSchedule.model_validate(value)
            except ValidationError as exc:
                raise ValueError(f"schedule {first_error(exc)}") from None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("a number, or a schedule {start, end, kind: linear|exponential}")
        if value < 0:
            raise ValueError(f"{value} is below 0")
        return value

    def ent_at(self, fraction: float) -> float:
        """The entropy coefficient after ``fraction`` (0 to 1) of the run."""
        if isinstance(self.ent_coef, EntSchedule):
            return self.ent_coef.at(fraction)
        return self.ent_coef


class DistillConfig(_Model):
    """Distil the ``nash`` agent's play into the policy before any PPO step
    (:mod:`pyanitsa.training.distill`): tactical only."""

    teacher: Teacher = "solve"
    """``solve``: two-player deals solved one at a time (``iterations``, ``algorithm``,
    ``model``); ``stored``: the whole-game strategy ``nash`` plays at 3+ players
    (``solvers/strategies/``), every seat of each deal taught, no solve."""
    deals: int = Field(2000, ge=2)
    """Deals solved for teacher data (0.7 to 1.5 s of CPU a deal: DCFR 60 to CFR+ 100)."""
    holdout: int = Field(100, ge=1)
    """The last deals, held out (fewer than ``deals``): the fit keeps the epoch with their
    lowest KL."""
    samples: int = Field(8, ge=1)
    """Orders drawn from each seat's solved strategy; every position of each is a decision."""
    iterations: int = Field(100, ge=1)
    """Iterations a deal (``nash(iterations=...)``)."""
    algorithm: Algorithm = "cfr+"
    """How the teacher's passes learn (``nash(algorithm=...)``): ``dcfr`` reaches CFR+'s gap
    at 100 iterations in about 80, though the shipped config's policy taught that way was no
    better and slightly more exploitable (BENCHMARKS.md, "A faster teacher")."""
    model: str | None = None
    """An agent spec: the teacher is then ``nash(model=..., confidence=..., response=...)``,
    a response to it (one solve a deal)."""
    confidence: float = Field(0.0, ge=0, le=1)
    """How often the teacher expects the opponent to play ``model`` (0 without one)."""
    response: Literal["restricted", "mutual"] = "restricted"
    """With ``model``: ``restricted``, the restricted Nash response, taught for seat ``i % 2``
    of deal ``i`` alone; ``mutual``, both seats' mutual responses, taught for both."""
    seed: int = Field(777, ge=0, le=2**63 - 1)
    """Deal ``i`` of the teacher data is ``derive_seed(seed, i)`` (not an evaluation seed)."""
    workers: int = Field(2, ge=1, le=64)
    """Processes solving deals."""
    epochs: int = Field(20, ge=1)
    lr: float = Field(2e-3, gt=0)
    """Adam's peak learning rate (one-cycle schedule)."""
    batch_size: int = Field(1024, ge=1)
    members: int = Field(1, ge=1, le=16)
    """Networks fitted to the teacher, each from its own initialisation and batch order, and
    saved as one policy that plays the mean of their distributions (more than 1: distillation
    only, ``total_steps: 0``). Each fit's error is its own, so their mean is nearer the
    teacher: a best response gains less against it (BENCHMARKS.md)."""

    @model_validator(mode="after")
    def _teacher(self) -> DistillConfig:
        if self.teacher == "stored" and (self.model is not None or self.confidence):
            raise ValueError("teacher: stored plays the stored strategy; model and "
                             "confidence are for teacher: solve")
        if self.model is not None or self.confidence:
            try:
                make_agent(f"nash(model={self.model!r}, confidence={self.confidence}, "
                           f"response={self.response!r})")
            except ValueError as exc:
                raise ValueError(str(exc)) from None
        return self


class TrainConfig(_Model):
    """A training run (``pyanitsa train CONFIG.yaml --set key=value``)."""

    name: str = Field("run", min_length=1)
    """The run's name (defaults to the config file's stem)."""
    algorithm: Literal["MaskablePPO", "PPO"] = "MaskablePPO"
    """``MaskablePPO`` (sb3-contrib; illegal ranks masked) or ``PPO`` (the env replaces an
    illegal rank by the lowest legal one)."""
    env: EnvConfig = Field(default_factory=EnvConfig)
    opponents: list[OpponentEntry] = Field(default_factory=lambda: [OpponentEntry(spec="random")],
                                           min_length=1)
    """The opponent pool: each episode draws one member per opponent seat by weight."""
    self_play: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    league: LeagueConfig = Field(default_factory=LeagueConfig)
    total_steps: int = Field(ge=0)
    """Env steps to train (one step places one card); 0 only with ``distill``."""
    distill: DistillConfig | None = None
    """Start the policy as a distillation of ``nash`` (then ``total_steps`` of PPO, if any)."""
    n_envs: int = Field(8, ge=1, le=256)
    vec_env: Literal["dummy", "subproc"] = "dummy"
    """``dummy`` (all envs in this process: best on two cores) or ``subproc``."""
    seed: int = Field(0, ge=0, le=2**32 - 1)
    torch_threads: int = Field(1, ge=1)
    """torch threads; 1 is fastest on a shared two-core machine."""
    eval: EvalConfig = Field(default_factory=EvalConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    checkpoint_every: int = Field(50_000, ge=0)
    """Save a checkpoint (``checkpoint.pkl`` in the run folder) every this many env steps, at
    the next rollout boundary; ``pyanitsa train CONFIG --resume`` continues from it (0: only
    when stopped by Ctrl-C or SIGTERM)."""
    out_dir: str = Field("runs/{name}", min_length=1)
    """The run folder (``{name}`` is replaced by the run's name)."""
    export: str | None = Field(None, min_length=1)
    """Also copy ``model.pt`` and ``model.json`` to this path stem (the shipped policy:
    ``policies/shipped/tactical-2p``); an existing policy is overwritten only with ``--force``."""
    save_zip: bool = True
    """Also write the full stable-baselines3 ``model.zip`` (loading it needs trust)."""
    tensorboard: bool | Literal["auto"] = "auto"
    """TensorBoard logs in ``tb/``: ``auto`` when tensorboard is installed."""
    progress: bool = True
    """Show the tqdm progress bar."""

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir.replace("{name}", self.name))


__all__ = ["TrainConfig", "TrainConfigError"]
