"""numba's disk cache keyed on every file a kernel compiles from, not only its own.

numba stamps a cached function with its own source file. The batch core's kernels inline pieces
from the other files of this package (the generator of ``rng.py``, the showdown of
``pieces.py``...), so editing one of those left every caller's cache looking fresh: parity
tests could pass against stale machine code. Functions defined in this package, or in a module
importing from it (the search kernels in ``agents/``), are stamped here with their own file and
every module of this package; editing any of them recompiles them on next use.

Imported first by ``pyanitsa/batch/__init__.py``: a locator is chosen when ``@njit(cache=True)``
decorates, so this must run before any kernel module is imported.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import caching

PACKAGE = Path(__file__).resolve().parent
"""The files every stamp covers: each ``.py`` here."""


def sources(py_file: str | os.PathLike) -> list[Path]:
    """The files a kernel of ``py_file`` compiles from (at most): itself and this package."""
    own = Path(py_file).resolve()
    return sorted({own, *PACKAGE.glob("*.py")})


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
