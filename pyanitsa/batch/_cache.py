"""numba's disk cache keyed on every file a kernel compiles from, not only its own.

numba stamps a cached function with its own source file. The batch core's kernels inline pieces
from the other files of this package (the generator of ``rng.py``, the showdown of
``pieces.py``...) and freeze the globals they read (the option codes ``encode.py`` derives from
the ``Literal`` types of ``rules.py``), so editing one of those left every caller's cache looking
fresh: parity tests could pass against stale machine code (a value added to ``pickup_order``
before ``shuffled`` played ``shuffled`` with the old code until the cache was cleared). Functions
defined in this package, or in a module importing from it (the search kernels in ``agents/``),
are stamped here with their own file, every module of this package and every ``pyanitsa``
module those import, transitively; editing any of them recompiles them on next use.

Imported first by ``pyanitsa/batch/__init__.py``: a locator is chosen when ``@njit(cache=True)``
decorates, so this must run before any kernel module is imported.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import sys
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
"""The files every stamp covers: each ``.py`` here."""


def sources(py_file: str | os.PathLike) -> list[Path]:
    """The files a kernel of ``py_file`` compiles from (at most): itself, this package, and
    the ``pyanitsa`` modules any of those imports, transitively."""
    return sorted(_closure((Path(py_file).resolve(), *sorted(PACKAGE.glob("*.py")))))


@functools.cache
def _closure(roots: tuple[Path, ...]) -> frozenset[Path]:
    seen: set[Path] = set()
    todo = list(roots)
    while todo:
        path = todo.pop()
        if path not in seen and path.suffix == ".py":
            seen.add(path)
            todo.extend(_imported_files(path))
    return frozenset(seen)


@functools.cache  # each file parsed once a process: every kernel module shares the core's edges
def _imported_files(path: Path) -> tuple[Path, ...]:
    """The files of the ``pyanitsa`` modules ``path`` imports (at any depth of its code:
    a function-level import is frozen into a kernel just the same)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
    found = (_file_of(n) for n in names if n.split(".")[0] == "pyanitsa")
    return tuple(f for f in found if f is not None)


def _file_of(name: str) -> Path | None:
    """The source file of module ``name`` without importing it (``from m import f``: ``m.f``
    is no module, None). The folders mapped into ``pyanitsa`` (``agents/``...) are found through
    the parent package's ``__path__``."""
    module = sys.modules.get(name)
    if module is not None:
        file = getattr(module, "__file__", None)
        return Path(file).resolve() if file else None
    parent, _, leaf = name.rpartition(".")
    for base in getattr(sys.modules.get(parent), "__path__", ()):
        for cand in (Path(base) / f"{leaf}.py", Path(base) / leaf / "__init__.py"):
            if cand.exists():
                return cand.resolve()
    return None


def stamp(paths: list[Path]) -> bytes:
    """One digest of the files' contents (numba's own per-file hash, memoised on mtime/size)."""
    digest = hashlib.sha256()
    for path in paths:
        st = os.stat(path)
        digest.update(str(path).encode())
        digest.update(caching._hash_source_file(str(path), st.st_mtime, st.st_size))
    return digest.digest()


class _EveryFileStamp:
    _py_file: str

    def get_source_stamp(self) -> bytes:
        return stamp(sources(self._py_file))

    @classmethod
    def from_function(cls, py_func, py_file):  # noqa: ANN001, ANN206 (numba's signature)
        # other packages' cached functions keep numba's own stamp
        if not getattr(py_func, "__module__", "").startswith("pyanitsa."):
            return None
        return super().from_function(py_func, py_file)


class UserProvidedLocator(_EveryFileStamp, caching.UserProvidedCacheLocator):
    """numba's ``NUMBA_CACHE_DIR`` locator, stamped with every file of :func:`sources`."""


class InTreeLocator(_EveryFileStamp, caching.InTreeCacheLocator):
    """numba's ``__pycache__`` locator, stamped the same way."""


class UserWideLocator(_EveryFileStamp, caching.UserWideCacheLocator):
    """numba's user-wide locator (read-only installs), stamped the same way."""


LOCATORS = (UserProvidedLocator, InTreeLocator, UserWideLocator)


def install() -> None:
    """Put each locator just ahead of the numba one it stamps anew (once per process), so
    numba's order of choice (``NUMBA_CACHE_DIR`` first) holds."""
    classes = caching.CacheImpl._locator_classes
    for ours in LOCATORS:
        if ours not in classes:
            classes.insert(classes.index(ours.__mro__[2]), ours)


install()
