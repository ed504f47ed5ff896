"""Out-of-process bots: ``cmd:COMMAND ARGS`` runs a bot as its own process, the way chess
engines run under cutechess and fastchess.

The bot speaks JSON lines on stdin/stdout (the protocol is in ``docs/bots.md``): a handshake,
then one request per decision carrying exactly the seat's view, and one answer. Each agent
object owns one process (a tournament builds one agent per worker), started lazily and
handshaken by :meth:`CmdAgent.warm_up` before the referee's clock starts; a bot that crashes,
prints garbage, answers wrongly or overruns its time is killed, forfeits that decision, and is
started afresh for the next one. Its stderr goes to a file or nowhere, never into the protocol.

The bot sees its view and nothing else: it shares no interpreter with pyanitsa, and it runs in
the sandbox of :mod:`pyanitsa.agents.sandbox` (namespaces, limits, a scratch folder), so an
untrusted bot belongs here rather than in a ``module:Class`` spec.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyanitsa.agents import sandbox as jail
from pyanitsa.agents.guard import DecisionTimeout, IllegalAnswer, time_budget
from pyanitsa.agents.specs import register_scheme
from pyanitsa.cards import Card
from pyanitsa.errors import PyanitsaRuntimeError
from pyanitsa.protocol import BaseAgent, HandView, PickupView, UnsupportedDecisionError

PROTOCOL = 1
"""The protocol version sent in ``hello``."""
DECISIONS = ("hand", "pickup")
"""Decisions a bot may make: tactical hand orders and classic pickup orders."""
MAX_LINE = 1 << 20
"""Bytes of one line a bot may print (a longer one is garbage)."""


class BotError(PyanitsaRuntimeError):
    """A bot that crashed, printed garbage or broke the protocol (the agent's forfeit)."""


def hand_request(view: HandView) -> dict[str, Any]:
    deck = view.rules.deck
    return {"type": "hand", "rules": view.rules.to_json(every_option=True), "seat": view.seat,
            "players": view.players, "hand": deck.cards_json(view.hand),
            "hand_ranks": view.hand_ranks(), "unseen": list(view.unseen),
            "set_aside": view.set_aside}


def pickup_request(view: PickupView) -> dict[str, Any]:
    deck = view.rules.deck
    rank_of = view.ranks.rank_of
    return {"type": "pickup", "rules": view.rules.to_json(every_option=True), "seat": view.seat,
            "players": view.players, "cards": deck.cards_json(view.cards),
            "card_ranks": [rank_of[c] for c in view.cards], "owners": list(view.owners),
            "face_up": list(view.face_up), "stack_sizes": list(view.stack_sizes),
            "pile_sizes": list(view.pile_sizes), "in_game": list(view.in_game),
            "known_tail": deck.cards_json(view.known_tail),
            "my_pile": deck.cards_json(view.my_pile), "seen": list(view.seen),
            "rounds": view.rounds}


class CmdAgent(BaseAgent):
    """A bot in its own process, speaking JSON lines (``docs/bots.md``).

    ``timeout``: seconds to wait for an answer when the caller sets no time limit (with one,
    the limit is the wait). ``start_timeout``: seconds for start-up and the handshake (not
    counted against the time limit). ``stderr``: a file the bot's stderr is appended to
    (default: discarded). ``sandbox``: a level (``strict``, ``basic``, ``none``) or a mapping
    of :class:`~pyanitsa.agents.sandbox.Policy` fields; default: the tournament's, else
    ``strict``. A level this machine cannot give is refused here, when the agent is built."""

    def __init__(self, command: str, *, timeout: float = 30.0, start_timeout: float = 10.0,
                 stderr: str = "", sandbox: str | dict[str, Any] | None = None) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"cmd: cannot split {command!r} ({exc})") from None
        if not argv:
            raise ValueError("cmd: needs a command, as in cmd:python bot.py")
        if shutil.which(argv[0]) is None:
            raise ValueError(f"cmd: {argv[0]!r} is not an executable program")
        for key, value in (("timeout", timeout), ("start_timeout", start_timeout)):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"cmd: {key}={value!r} is not a finite, positive number")
        self.argv = argv
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self.stderr = stderr
        # a spec's own sandbox still hides what the run hides (its output folder)
        self.policy = (jail.default_policy() if sandbox is None else
                       jail.with_hidden(jail.policy_from(sandbox), *jail.default_policy().hide))
        jail.require(self.policy.level, key="sandbox")
        self.bot_name: str | None = None
        """The name the bot gave in its handshake."""
        self.decisions: tuple[str, ...] = ()
        self._proc: subprocess.Popen[bytes] | None = None
        self._launch: jail.Launch | None = None
        self._owner = 0
        self._buffer = b""

    # -- decisions ---------------------------------------------------------------------------

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        return self._decide("hand", hand_request(view), view.hand, rng)

    def order_pickup(self, view: PickupView, rng: np.random.Generator) -> Sequence[Card]:
        return self._decide("pickup", pickup_request(view), view.cards, rng)

    def _decide(self, decision: str, request: dict[str, Any], given: Sequence[Card],
                rng: np.random.Generator) -> list[Card]:
        start = time.monotonic()
        self.warm_up()
        if decision not in self.decisions:
            what = "order tactical hands" if decision == "hand" else "order classic pickups"
            raise UnsupportedDecisionError(f"bot {self.bot_name!r} does not {what}")
        limit = time_budget.get()
        request["time_ms"] = None if limit is None else round(limit * 1000)
        request["seed"] = int(rng.integers(2**63))
        deadline = start + (self.timeout if limit is None else limit)
        try:
            self._send(request, deadline)
            answer = self._receive(deadline, "order")
            return _order(answer, given)
        except BaseException:
            self.close()  # out of step, or misbehaving: the next decision gets a fresh process
            raise

    # -- the process -------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Start the bot and shake hands, unless it is running already."""
        if self._proc is not None and self._owner == os.getpid() \
                and self._proc.poll() is None:
            return
        if self._owner != os.getpid():
            self._proc = None  # a forked copy: the process is the parent's, leave it alone
        self.close()
        err: Any = subprocess.DEVNULL
        if self.stderr:
            err = open(self.stderr, "ab")  # noqa: SIM115 - the child keeps its own copy
        try:
            self._launch = jail.launch(self.policy, self.argv)
            self._proc = _spawner().popen(self._launch, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=err, bufsize=0,
                                          close_fds=True, start_new_session=True)
        except OSError as exc:
            jail.cleanup(self._launch)
            self._launch = None
            raise BotError(f"cannot start {shlex.join(self.argv)!r}: {exc}") from None
        finally:
            if err is not subprocess.DEVNULL:
                err.close()
        self._owner = os.getpid()
        self._buffer = b""
        assert self._proc.stdin is not None
        os.set_blocking(self._proc.stdin.fileno(), False)
        deadline = time.monotonic() + self.start_timeout
        try:
            self._send({"type": "hello", "protocol": PROTOCOL}, deadline)
            hello = self._receive(deadline, "hello")
            name, decisions = hello.get("name"), hello.get("decisions")
            if not isinstance(name, str) or not isinstance(decisions, list) \
                    or not all(isinstance(d, str) for d in decisions):
                raise BotError('the hello answer needs "name" (a string) and "decisions" (a '
                               "list of strings)")
            unknown = sorted(set(decisions) - set(DECISIONS))
            if unknown:
                raise BotError(f"unknown decision {unknown[0]!r} in hello (known: "
                               f"{', '.join(DECISIONS)})")
        except DecisionTimeout:
            self.close()
            raise BotError(f"no hello within {self.start_timeout:g} s") from None
        except BaseException:
            self.close()
            raise
        self.bot_name = name[:100]
        self.decisions = tuple(decisions)

    def close(self) -> None:
        """Kill the bot (and anything it started), if it runs."""
        proc, self._proc = self._proc, None
        started, self._launch = self._launch, None
        if proc is None:
            jail.cleanup(started)
            return
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        jail.cleanup(started)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            if self._owner == os.getpid():
                self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_proc=None, _launch=None, _owner=0, _buffer=b"")
        return state

    def _send(self, message: dict[str, Any], deadline: float) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        fd = self._proc.stdin.fileno()
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DecisionTimeout("the bot did not read its request in time")
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                continue
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except OSError:  # BrokenPipeError: it exited
                raise BotError(f"the bot exited{self._exit_text()}") from None

    def _receive(self, deadline: float, expected: str) -> dict[str, Any]:
        line = self._read_line(deadline)
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            raise BotError(f"not a JSON line: {_clip(line)}") from None
        if not isinstance(message, dict) or message.get("type") != expected:
            raise BotError(f'expected a {{"type": "{expected}"}} object, got {_clip(line)}')
        return message

    def _read_line(self, deadline: float) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                raise BotError(f"a line over {MAX_LINE} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                raise DecisionTimeout("no answer within the time limit")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise BotError(f"the bot exited{self._exit_text()}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _exit_text(self) -> str:
        assert self._proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self._proc.wait(timeout=1)
            return f" (exit code {code})"
        return ""


class _Spawner:
    """Starts bot processes from one thread that lives as long as this process, so that on
    Linux each bot gets SIGKILL when this process ends, however it ends (SIGKILL included): a
    bot that ignores end-of-file on stdin and SIGTERM would otherwise outlive its worker.

    ``PR_SET_PDEATHSIG`` fires when the *thread* that forked the child exits, not the process;
    decisions may run in short-lived threads (a Ray actor's, say), hence the dedicated one.
    """

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.preexec = _death_signal_setter()
        threading.Thread(target=self._serve, daemon=True, name="pyanitsa-bot-spawner").start()

    def _serve(self) -> None:
        while True:
            started, kwargs, box, done = self.requests.get()
            try:
                box.append(subprocess.Popen(started.argv, env=started.env, cwd=started.cwd,
                                            preexec_fn=self._preexec(started.rlimits),
                                            **kwargs))
            except BaseException as exc:  # handed to the caller, which raises it
                box.append(exc)
            done.set()

    def _preexec(self, rlimits: list[tuple[int, int]]) -> Any:
        if not rlimits:
            return self.preexec
        death, limits = self.preexec, jail.limit_setter(rlimits)

        def preexec() -> None:
            if death is not None:
                death()
            limits()

        return preexec

    def popen(self, started: jail.Launch, **kwargs: Any) -> subprocess.Popen[bytes]:
        box: list[Any] = []
        done = threading.Event()
        self.requests.put((started, kwargs, box, done))
        done.wait()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]


_SPAWNER: _Spawner | None = None


def _spawner() -> _Spawner:
    """This process's spawner (a forked worker has the parent's object but not its thread)."""
    global _SPAWNER
    if _SPAWNER is None or _SPAWNER.pid != os.getpid():
        _SPAWNER = _Spawner()
    return _SPAWNER


def _death_signal_setter() -> Any:
    """A ``preexec_fn`` asking Linux to SIGKILL the child when its parent thread ends (None
    elsewhere). Looked up here, in the parent: the child, between fork and exec, should only
    make the system call."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    pr_set_pdeathsig, sigkill = 1, int(signal.SIGKILL)

    def set_death_signal() -> None:
        prctl(pr_set_pdeathsig, sigkill)
        if os.getppid() != parent:  # the parent died before the call: no signal would come
            os._exit(1)

    return set_death_signal


def _order(answer: dict[str, Any], given: Sequence[Card]) -> list[Card]:
    """The cards an ``order`` answer names: indices into ``given``, an exact permutation."""
    order = answer.get("order")
    n = len(given)
    if not isinstance(order, list) or len(order) != n \
            or not all(type(i) is int and 0 <= i < n for i in order) or len(set(order)) != n:
        raise IllegalAnswer(f'"order" must list each index 0..{n - 1} once, got '
                            f"{_clip(json.dumps(order))}")
    return [given[i] for i in order]


def _clip(text: bytes | str, limit: int = 80) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[:limit] + "...")


register_scheme("cmd", CmdAgent)
