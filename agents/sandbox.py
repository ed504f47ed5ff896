"""The sandbox a ``cmd:`` bot runs in: bubblewrap namespaces, a scrubbed environment, a private
scratch folder and resource limits.

Three levels, best first:

* ``strict``: bubblewrap (``bwrap``) gives the bot its own user, PID, IPC, network, UTS and
  (where the kernel has it) cgroup namespaces, a root of read-only system paths and the bot's
  own files, a writable scratch folder, ``/proc`` of its own PID namespace and a minimal
  ``/dev``. Nothing else of the host (the run's folder, its database, other bots, ``/tmp``) is
  there. Every process the bot starts lives in its PID namespace and dies with it.
* ``basic``: no namespaces; the bot still gets the resource limits, a scrubbed environment, its
  own session and the scratch folder as its working directory.
* ``none``: the bot runs as pyanitsa does, as before the sandbox (an explicit choice only).

bubblewrap is a small, audited setuid-free tool (Flatpak's sandbox) rather than hand-written
namespace syscalls: it gets the ordering of mounts, ``pivot_root`` and capability drops right.
:func:`probe` finds which level this machine gives; :func:`require` refuses a level above it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

from pyanitsa.errors import PyanitsaError

Level = Literal["strict", "basic", "none"]
LEVELS: tuple[Level, ...] = get_args(Level)
"""The levels, best first."""

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Read-only everywhere: programs and libraries (symlinks stay symlinks, as on merged /usr)."""
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
       "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/mime.types")
"""What of ``/etc`` a program needs to load libraries and name users (not ``/etc/shadow``)."""
NETWORK_ETC = ("/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/ssl",
               "/etc/ca-certificates")
"""Added with ``network=True``: name resolution and certificates."""
PATH = "/usr/local/bin:/usr/bin:/bin"
"""The ``PATH`` a sandboxed bot sees."""
SCRATCH = "/scratch"
"""The strict bot's scratch folder: a tmpfs of its own, gone with its mount namespace however
the bot or its worker ends (a host folder would outlive a worker killed with SIGKILL)."""
NAMESPACES = ("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
              "--unshare-cgroup-try", "--disable-userns")


class SandboxError(PyanitsaError):
    """A sandbox level this machine cannot give, or a bad sandbox option (names the key)."""


@dataclass(frozen=True)
class Policy:
    """How a ``cmd:`` bot is confined. A limit of ``None`` is no limit."""

    level: Level = "strict"
    """``strict``, ``basic`` or ``none`` (see the module docstring)."""
    memory_mb: int | None = 2048
    """Address space of each of the bot's processes (``RLIMIT_AS``), MiB."""
    cpu_seconds: int | None = 3600
    """CPU seconds of each process over its life (``RLIMIT_CPU``); past it, it is killed."""
    open_files: int | None = 256
    """Open file descriptors per process (``RLIMIT_NOFILE``)."""
    file_size_mb: int | None = 64
    """Largest file a process may write (``RLIMIT_FSIZE``), MiB."""
    scratch_mb: int | None = 256
    """Size of the scratch folder at ``strict`` (a tmpfs: memory while it is full)."""
    processes: int | None = None
    """``RLIMIT_NPROC``. Linux counts every process of the *user*, not of the bot, so it binds
    only when bots run as their own user: none by default (the PID namespace still ends them
    all with the bot)."""
    paths: tuple[str, ...] = ()
    """More folders or files the bot may read (``strict``), at the same paths."""
    network: bool = False
    """Keep the host's network (``strict`` cuts it by default)."""
    hide: tuple[str, ...] = field(default=(), repr=False)
    """Folders covered by an empty one even where a bound folder holds them (a run's output)."""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise SandboxError(f"sandbox: {self.level!r} is not a level (choose from "
                               f"{', '.join(LEVELS)})")
        for key in ("memory_mb", "cpu_seconds", "open_files", "file_size_mb", "scratch_mb",
                    "processes"):
            value = getattr(self, key)
            if value is not None and (type(value) is not int or value < 1):
                raise SandboxError(f"sandbox: {key}={value!r} is not a positive integer")
        if type(self.network) is not bool:
            raise SandboxError(f"sandbox: network={self.network!r} is not true or false")
        for key in ("paths", "hide"):
            for path in getattr(self, key):
                if not isinstance(path, str) or not os.path.isabs(path) or "\x00" in path:
                    raise SandboxError(f"sandbox: {key} entry {path!r} is not an absolute path")

    def rlimits(self) -> list[tuple[int, int]]:
        """``(resource, limit)`` pairs for the child (empty at level ``none``)."""
        import resource

        if self.level == "none":
            return []
        mib = 1 << 20
        pairs = [(resource.RLIMIT_AS, self.memory_mb and self.memory_mb * mib),
                 (resource.RLIMIT_CPU, self.cpu_seconds),
                 (resource.RLIMIT_NOFILE, self.open_files),
                 (resource.RLIMIT_FSIZE, self.file_size_mb and self.file_size_mb * mib),
                 (resource.RLIMIT_NPROC, self.processes)]
        return [(res, int(value)) for res, value in pairs if value is not None]


def policy_from(value: Level | dict[str, Any] | Policy | None) -> Policy:
    """A policy from a level name or a mapping of :class:`Policy` fields (a config's value)."""
    if value is None:
        return Policy()
    if isinstance(value, Policy):
        return value
    if isinstance(value, str):
        return Policy(level=value)  # type: ignore[arg-type]
    if not isinstance(value, dict):
        raise SandboxError(f"sandbox: {value!r} is neither a level nor a mapping")
    known = set(Policy.__dataclass_fields__) - {"hide"}
    unknown = sorted(set(value) - known)
    if unknown:
        raise SandboxError(f"sandbox: unknown key {unknown[0]!r} (known: "
                           f"{', '.join(sorted(known))})")
    options = dict(value)
    if "paths" in options:
        paths = options["paths"]
        if not isinstance(paths, (list, tuple)):
            raise SandboxError(f"sandbox: paths={paths!r} is not a list of paths")
        options["paths"] = tuple(paths)
    return Policy(**options)


_DEFAULT: contextvars.ContextVar[Policy | None] = contextvars.ContextVar("sandbox", default=None)


def default_policy() -> Policy:
    """The policy of a ``cmd:`` bot whose spec names none (a tournament sets its config's;
    otherwise ``strict`` with the default limits)."""
    return _DEFAULT.get() or Policy()


@contextlib.contextmanager
def using(policy: Policy) -> Iterator[Policy]:
    """Make ``policy`` the default of the ``cmd:`` bots built inside the block."""
    token = _DEFAULT.set(policy)
    try:
        yield policy
    finally:
        _DEFAULT.reset(token)


# -- what this machine gives ----------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """The best level this machine gives, and what it lacks for ``strict``."""

    level: Level
    missing: str = ""
    """Empty at ``strict``; otherwise why (``bwrap not found``, its error)."""

    def describe(self, used: Level, *, network: bool = False) -> str:
        """One line for the console and reports (``network``: some strict bot has the host's
        network, by its config's choice)."""
        if used == "strict":
            if network:
                return ("strict (bubblewrap: user, PID, IPC, UTS namespaces, the host's network "
                        "for the bots given it; limits)")
            return "strict (bubblewrap: user, PID, IPC, network, UTS namespaces; limits)"
        if used == "basic":
            return "basic (limits, scrubbed environment, own session; no namespaces)"
        return "none (cmd: bots run unconfined)"


@functools.cache
def probe() -> Probe:
    """Which level this machine gives (once per process): starts ``true`` in bubblewrap."""
    try:
        import resource  # noqa: F401 - POSIX only: basic needs setrlimit
    except ImportError:
        return Probe("none", "setrlimit (not a POSIX system)")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Probe("basic", "bubblewrap (no bwrap on PATH: apt-get install bubblewrap)")
    true = shutil.which("true", path=PATH) or "/bin/true"
    # the very command a strict bot gets (binds, tmpfs size, read-only root, limits), so a
    # bubblewrap that lacks one of its options is found here, not at the first bot
    started = launch(Policy(level="strict"), [true])
    try:
        done = subprocess.run(started.argv, env=started.env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=30, check=False,
                              preexec_fn=limit_setter(started.rlimits))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe("basic", f"a working bubblewrap ({exc})")
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"]
        return Probe("basic", f"namespaces (bwrap failed: {lines[-1]})")
    return Probe("strict")


def require(level: Level, *, key: str = "sandbox") -> Probe:
    """The probe, if this machine gives ``level``; else :class:`SandboxError` naming ``key``
    and what is missing. ``none`` passes with a warning on stderr."""
    if level not in LEVELS:
        raise SandboxError(f"{key}: {level!r} is not a level (choose from {', '.join(LEVELS)})")
    found = probe()
    if LEVELS.index(level) < LEVELS.index(found.level):
        raise SandboxError(f"{key}: {level!r} needs {found.missing}; this machine gives "
                           f"{found.level!r} (set {key}: {found.level} to accept it)")
    if level == "none":
        _warn_none()
    return found


@functools.cache
def _warn_none() -> None:
    print("warning: sandbox none: cmd: bots run unconfined, with this process's files, "
          "environment and network", file=sys.stderr)


# -- one bot's jail --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """How to start one bot: the argv, environment, working folder, limits and scratch."""

    argv: list[str]
    env: dict[str, str] | None
    cwd: str | None
    rlimits: list[tuple[int, int]]
    scratch: str | None
    """The host folder to remove with :func:`cleanup` (``basic`` only: ``strict``'s is a
    tmpfs in the sandbox, ``none`` has none)."""


def launch(policy: Policy, argv: Sequence[str]) -> Launch:
    """The launch of ``argv`` under ``policy`` (``basic`` makes its scratch folder here)."""
    if policy.level == "none":
        return Launch(list(argv), None, None, [], None)
    argv = _absolute(argv)
    if policy.level == "basic":
        scratch = tempfile.mkdtemp(prefix="pyanitsa-bot-")
        return Launch(argv, _environment(scratch), scratch, policy.rlimits(), scratch)
    env = _environment(SCRATCH)
    prefix = [shutil.which("bwrap") or "bwrap", *_walls(network=policy.network),
              *(a for k, v in env.items() for a in ("--setenv", k, v))]
    etc = ETC + (NETWORK_ETC if policy.network else ())
    prefix += [a for p in etc if os.path.exists(p) for a in ("--ro-bind", p, p)]
    prefix += [a for p in _own_paths(argv, policy) for a in ("--ro-bind", p, p)]
    hidden = [p for p in policy.hide if os.path.isdir(p)]
    prefix += [a for p in hidden for a in ("--tmpfs", p)]
    if policy.scratch_mb is not None:
        prefix += ["--size", str(policy.scratch_mb << 20)]
    prefix += ["--tmpfs", SCRATCH, "--proc", "/proc", "--dev", "/dev", "--chdir", SCRATCH,
               "--remount-ro", "/", "--"]
    return Launch([*prefix, *argv], env, None, policy.rlimits(), None)


def _environment(scratch: str) -> dict[str, str]:
    return {"PATH": PATH, "LANG": "C.UTF-8", "HOME": scratch, "TMPDIR": scratch}


def cleanup(started: Launch | None) -> None:
    """Remove a launch's scratch folder (after its process ended)."""
    if started is not None and started.scratch is not None:
        shutil.rmtree(started.scratch, ignore_errors=True)


def limit_setter(rlimits: list[tuple[int, int]]) -> Callable[[], None]:
    """A ``preexec_fn`` part: set the limits in the child, between fork and exec."""
    import resource

    def set_limits() -> None:
        for res, value in rlimits:
            resource.setrlimit(res, (value, value))

    return set_limits


def _walls(*, network: bool) -> list[str]:
    """bubblewrap's namespaces, process ties, empty environment and system paths: what the
    probe checks and every strict bot gets."""
    return [*NAMESPACES, *(() if network else ("--unshare-net",)), "--die-with-parent",
            "--new-session", "--clearenv", *_system_binds()]


def _system_binds() -> list[str]:
    out: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    return out


def _absolute(argv: Sequence[str]) -> list[str]:
    """``argv`` with the program resolved on ``PATH`` and relative paths that exist made
    absolute: the bot starts in its scratch folder, not where pyanitsa runs."""
    program = shutil.which(argv[0]) or argv[0]
    rest = [os.path.abspath(a) if not a.startswith("-") and os.path.exists(a) else a
            for a in argv[1:]]
    # the script by its real path: its folder is bound by its real path (``_own_paths``)
    script = next((i for i, a in enumerate(rest) if os.path.isfile(a)), None)
    if script is not None:
        rest[script] = os.path.realpath(rest[script])
    return [os.path.abspath(program), *rest]


def _own_paths(argv: Sequence[str], policy: Policy) -> list[str]:
    """What a bot may read besides the system: its program's prefix (a venv's, pyenv's), the
    folder of the first file its command names (an interpreter's script) and the policy's
    ``paths``. Other arguments are not bound: a path in them is the bot's to ask for."""
    out: list[str] = []
    program = Path(argv[0])
    for path in (program, program.resolve()):
        out.append(str(_prefix(path)))
    script = next((a for a in argv[1:] if os.path.isabs(a) and os.path.isfile(a)), None)
    if script is not None:  # an interpreter's script: only the first file, not every argument
        out.append(os.path.dirname(script))
    out += [p for p in policy.paths if os.path.exists(p)]
    # bound by their real paths, so a symlinked folder cannot lead around a hidden one
    out = [os.path.realpath(p) for p in out]
    system = tuple(p + "/" for p in SYSTEM)
    unique = dict.fromkeys(p for p in out if not (p + "/").startswith(system) and p != "/")
    return sorted(unique, key=len)


def _prefix(program: Path) -> Path:
    """The folder a program needs: an interpreter prefix (a venv: ``pyvenv.cfg`` beside its
    ``bin/``; pyenv's ``versions/X`` or ``shims``) for a program in its ``bin/``, else the
    program's own folder. Never the folder above an ordinary ``bin/`` (``~/bin`` would bind
    the home folder)."""
    folder = program.parent
    above = folder.parent
    if folder.name == "shims" or (folder.name == "bin" and (
            (above / "pyvenv.cfg").is_file() or above.parent.name == "versions")):
        return above
    return folder


def with_hidden(policy: Policy, *folders: str | os.PathLike[str]) -> Policy:
    """``policy`` that also hides ``folders`` from the bot, by their real paths (a bound
    folder is bound by its real path too, so a symlink does not lead around the cover)."""
    hide = dict.fromkeys((*policy.hide, *(os.path.realpath(f) for f in folders)))
    return replace(policy, hide=tuple(hide))
