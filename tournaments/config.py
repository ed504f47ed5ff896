"""The tournament configuration: a validated pydantic model read from YAML plus ``--set`` overrides.

Errors are one line naming the field path (``agents.2.spec: ...``), raised as
:class:`TournamentConfigError`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pyanitsa.agents.sandbox import Level as SandboxLevel
from pyanitsa.agents.sandbox import Policy, SandboxError, policy_from, with_hidden
from pyanitsa.config import ConfigError, apply_override, first_error, read_mapping
from pyanitsa.errors import InvalidRulesError, PyanitsaError
from pyanitsa.rng import MASK64
from pyanitsa.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

Format = Literal["round_robin", "gauntlet"]
Backend = Literal["local", "ray"]

RESULT_FIELDS = ("agents", "rules", "players", "format", "candidate", "duplicate", "seed",
                 "time_limit", "copies")
"""Fields that decide what game a key (pairing, deal, rotation) is. A resumed tournament must
keep them; ``deals``, ``sprt``, ``workers``, ``backend`` and the rest may change."""


MAX_DEALS = 10**12
"""The most deals per pairing: game keys stay far inside SQLite's 64-bit integers."""


class TournamentError(PyanitsaError):
    """A tournament that cannot run as asked: bad configuration, a database that is not
    resumable with it."""


class TournamentConfigError(TournamentError, ConfigError):
    """A tournament configuration that does not validate; the message names the field."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # pydantic reads true as 1 for an int or float field: `deals: true` would play 1 deal
        if isinstance(value, bool) and info.field_name is not None \
                and not _takes_bool(cls.model_fields[info.field_name].annotation):
            raise ValueError("must be a number, not true or false")
        return value


def _takes_bool(annotation: Any) -> bool:
    return annotation is bool or annotation is Any or bool in get_args(annotation)


class AgentEntry(_Model):
    """One participant: a display name and the spec string that builds it."""

    name: str = Field(min_length=1, max_length=60)
    """The name in tables and plots (unique within the tournament)."""
    spec: str = Field(min_length=1)
    """An agent spec: ``descending``, ``mc_search(samples=400)``, ``pkg.mod:Class``, ``ppo:PATH``."""


class SprtConfig(_Model):
    """A sequential probability ratio test per two-player pairing (first entry vs second).

    H0: the first entry is ``elo0`` stronger (logistic Elo); H1: ``elo1`` stronger. A pairing
    stops as soon as one is accepted, with error rates ``alpha`` (false H1) and ``beta``.
    """

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = Field(0.05, gt=0, lt=0.5)
    beta: float = Field(0.05, gt=0, lt=0.5)

    @field_validator("elo0", "elo1")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):  # JSON stores inf as null: workers could not read it back
            raise ValueError("must be a finite number of Elo")
        return value

    @model_validator(mode="after")
    def _order(self) -> SprtConfig:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 ({self.elo1:g}) must be above elo0 ({self.elo0:g})")
        return self


class ExploitConfig(_Model):
    """Each agent's full-deal exploitability next to its tournament results (tactical only,
    at the tournament's table size): ``pyanitsa exploit`` on ``deals`` seeded deals, with
    ``samples`` agent calls to fit each best response and ``fresh`` more to score it."""

    deals: int = Field(20, ge=1, le=100_000)
    samples: int = Field(64, ge=1, le=100_000)
    fresh: int = Field(256, ge=1, le=1_000_000)
    seed: int = Field(0, ge=0, le=MASK64)


class TournamentConfig(_Model):
    """Everything that defines a tournament run. See docs/tournaments.md for each field."""

    name: str = Field("tournament", min_length=1, max_length=200)
    agents: list[AgentEntry] = Field(min_length=2)
    """Specs with display names; a plain string is both."""
    rules: dict[str, Any] = Field(default_factory=dict)
    """A preset plus overrides, either mode, exactly as in a rules YAML file."""
    players: int = Field(2, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    """Seats per table."""
    format: Format = "round_robin"
    """``round_robin``: every combination of agents for the table size. ``gauntlet``: the
    candidate at every table, with each combination of the others (the field)."""
    candidate: str | None = None
    """The gauntlet's candidate (default: the first agent)."""
    copies: bool = False
    """Tables of 3+ seats may seat an agent more than once. Round robin: every multiset of
    ``players`` agents but one agent alone (the empirical game of every seating, for
    α-Rank). Gauntlet: the candidate in one seat and ``players - 1`` copies of one other agent
    in the rest, for each other agent."""
    deals: int = Field(100, ge=1, le=MAX_DEALS)
    """Deals per pairing."""
    duplicate: bool = True
    """Play each deal in every seat rotation with the same cards, so luck cancels."""
    seed: int | None = Field(None, ge=0, le=MASK64)
    """The seed of the deals (and, by default, of the agents' generators). None: a random one
    drawn when the database is made, kept in it and shown in the report; a bot cannot guess it,
    where it can guess a seed that is written down (0, 1, the year...)."""
    agent_key: Literal["seed", "random"] = "seed"
    """What keys the agents' generators and the deals. ``seed``: a one-way function of
    ``seed``, so one config plays the same games anywhere (and a bot that knows or guesses the
    seed can compute the deal). ``random``: a fresh secret per database, which keys the
    generators and the deals, for bots that may know the seed."""
    workers: int = Field(1, ge=1, le=512)
    backend: Backend = "local"
    ray_address: str | None = None
    """The Ray cluster to join (``auto``, ``ray://host:10001``); none starts a local one."""
    time_limit: float | None = Field(None, gt=0)
    """Seconds per decision; an agent over it forfeits the game."""
    engine: Literal["batch", "reference"] = "batch"
    """What plays the games once the agents have decided: the compiled batch core (a chunk's
    games in one call) or the reference engine game by game. Results are identical; classic
    games with ``pickup_order: agent`` always use the reference engine."""
    hang_timeout: float | None = Field(None, gt=0)
    """Seconds after which a decision still running is killed with its worker (a forfeit).
    Default: ``2 * time_limit + 5`` when there is a time limit, else never."""
    sprt: SprtConfig | None = None
    bootstrap: int = Field(200, ge=0, le=100_000)
    """Bootstrap resamples (over deals) for rating intervals and the LOS matrix; 0: none."""
    anchor: str | None = None
    """The agent (by name) whose Elo is 0: every rating and interval is then the difference
    from it. None: ratings have mean 0 over the field."""
    output: str | None = Field(None, min_length=1)
    """The output folder (default ``runs/tournaments/NAME``)."""
    exploit: ExploitConfig | None = None
    """Measure each agent's exploitability on full deals for the reports (see
    :class:`ExploitConfig`); ``exploit: {}`` takes the defaults."""
    sandbox: SandboxLevel | dict[str, Any] = "strict"
    """How ``cmd:`` bots are confined: ``strict``, ``basic`` or ``none``, or a mapping with
    ``level`` and limits, ``paths``, ``network`` (:class:`pyanitsa.agents.sandbox.Policy`).
    The run refuses to start if this machine gives less than the level asked for."""

    @field_validator("agents", mode="before")
    @classmethod
    def _plain_strings(cls, value: Any) -> Any:
        return agent_entries(value)

    @field_validator("rules", mode="before")
    @classmethod
    def _rules_mapping(cls, value: Any) -> Any:
        if value is None:
            return {}
        if isinstance(value, str):  # a bare preset name
            return {"preset": value}
        return value

    @field_validator("rules")
    @classmethod
    def _rules_valid(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            Rules.from_options(value)
        except InvalidRulesError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("output")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:  # open() and the lock refuse it later
            raise ValueError("a path cannot hold a NUL character")
        return value

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox(cls, value: Any) -> Any:
        try:
            policy_from(value)
        except SandboxError as exc:
            raise ValueError(str(exc).removeprefix("sandbox: ")) from None
        return value

    @field_validator("time_limit", "hang_timeout")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> TournamentConfig:
        names = [a.name for a in self.agents]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise ValueError(f"agents.{i}.name: {name!r} is used twice; give each entry "
                                 "its own name")
        rules = self.build_rules()
        try:
            rules.check_players(self.players)
        except InvalidRulesError as exc:
            raise ValueError(f"players: {exc}") from None
        if self.format == "round_robin":
            if self.candidate is not None:
                raise ValueError("candidate: only a gauntlet has a candidate")
            if len(self.agents) < self.players and not self.copies:
                raise ValueError(f"players: {self.players} seats need at least {self.players} "
                                 f"agents in a round robin, not {len(self.agents)}")
        else:
            if self.candidate is not None and self.candidate not in names:
                raise ValueError(f"candidate: {self.candidate!r} is not one of the agents "
                                 f"({', '.join(names)})")
            if len(self.agents) - 1 < self.players - 1 and not self.copies:
                raise ValueError(f"players: {self.players} seats need a field of at least "
                                 f"{self.players - 1} agents besides the candidate")
        if self.anchor is not None and self.anchor not in names:
            raise ValueError(f"anchor: {self.anchor!r} is not one of the agents "
                             f"({', '.join(names)})")
        if self.sprt is not None:
            if self.players != 2:
                raise ValueError("sprt: needs players: 2 (it tests one agent against another)")
            if self.format == "round_robin" and len(self.agents) != 2:
                raise ValueError("sprt: is for gauntlets and head-to-head matches (a round "
                                 "robin of exactly two agents)")
        if self.copies and self.players < 3:
            raise ValueError("copies: needs players: 3 or more (two seats hold two agents)")
        if self.exploit is not None and rules.mode != "tactical":
            raise ValueError("exploit: is measured on tactical deals")
        if self.hang_timeout is not None and self.time_limit is not None \
                and self.hang_timeout < self.time_limit:
            raise ValueError(f"hang_timeout: {self.hang_timeout:g} s is below the time_limit "
                             f"({self.time_limit:g} s)")
        return self

    # -- derived ------------------------------------------------------------------------------

    def build_rules(self) -> Rules:
        return Rules.from_options(self.rules)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.agents]

    @property
    def candidate_index(self) -> int:
        """The gauntlet candidate's index in ``agents``."""
        return self.names.index(self.candidate) if self.candidate is not None else 0

    @property
    def output_dir(self) -> Path:
        return Path(self.output if self.output is not None else f"runs/tournaments/{self.name}")

    def sandbox_policy(self) -> Policy:
        """The policy of this run's ``cmd:`` bots, with its output folder hidden from them."""
        return with_hidden(policy_from(self.sandbox), self.output_dir)

    @property
    def kill_after(self) -> float | None:
        """Seconds a single decision may run before its worker is killed."""
        if self.hang_timeout is not None:
            return self.hang_timeout
        return None if self.time_limit is None else 2 * self.time_limit + 5

    def result_fields(self) -> dict[str, Any]:
        """The fields that decide every game (see :data:`RESULT_FIELDS`), rules normalised."""
        data = self.model_dump(mode="json", include=set(RESULT_FIELDS))
        data["rules"] = self.build_rules().to_json()
        if self.format == "gauntlet":
            data["candidate"] = self.names[self.candidate_index]
        if not self.copies:  # absent, as in the databases made before the field
            del data["copies"]
        return data


# -- loading --------------------------------------------------------------------------------------


def parse_config(data: Any, *, source: str = "tournament") -> TournamentConfig:
    """Validate a mapping; errors become one :class:`TournamentConfigError` line."""
    if not isinstance(data, dict):
        raise TournamentConfigError(f"{source}: must be a YAML mapping of fields")
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise TournamentConfigError(f"{source}: {first_error(exc)}") from None


def agent_entries(value: Any) -> Any:
    """``agents`` with every plain spec string as the entry it stands for, ``{name: SPEC,
    spec: SPEC}``, and a mapping without a name named after its spec."""
    if isinstance(value, list):
        return [{"name": v, "spec": v} if isinstance(v, str) else
                ({"name": str(v["spec"]), **v} if isinstance(v, dict) and "name" not in v
                 and "spec" in v else v)
                for v in value]
    return value


def load_config(path: str | Path, overrides: list[str] | None = None) -> TournamentConfig:
    """Read a YAML config and apply ``KEY=VALUE`` overrides (dotted paths, YAML values).

    Plain agent entries become ``{name, spec}`` first, so ``agents.0.spec=...`` reaches a
    ``- random`` entry as it does a mapping (the name stays ``random``)."""
    data = read_mapping(path, error=TournamentConfigError)
    if "agents" in data:
        data["agents"] = agent_entries(data["agents"])
    for item in overrides or []:
        apply_override(data, item, error=TournamentConfigError)
    return parse_config(data, source=str(path))


