"""The batch core's numba cache is keyed on every file its kernels compile from: editing a
module whose pieces another module inlines (``rng.py`` into ``classic.py``) must make the
caller's cache stale, not leave parity tests running old machine code."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numba
import pytest

pytest.importorskip("pyanitsa.batch")

from pyanitsa.batch import _cache, classic, classic_fast, rng, tactical  # noqa: E402


def kernels(*modules):
    for module in modules:
        for f in vars(module).values():
            if (isinstance(f, numba.core.registry.CPUDispatcher) and f._cache is not None
                    and f.__module__ == module.__name__):
                yield f


def test_every_cached_kernel_is_stamped_with_the_whole_package() -> None:
    from pyanitsa.agents import kernels as search_kernels

    found = list(kernels(classic, classic_fast, rng, tactical, search_kernels))
    assert len(found) > 20
    for f in found:
        locator = f._cache._impl.locator
        assert isinstance(locator, _cache.LOCATORS), f
        files = {p.name for p in _cache.sources(locator._py_file)}
        assert {"rng.py", "classic.py", "classic_fast.py", "encode.py"} <= files, f


def test_the_stamp_changes_with_any_file(tmp_path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = _cache.stamp([a, b])
    assert _cache.stamp([a, b]) == before
    b.write_text("y = 3\n")
    os.utime(b, ns=(1, 1))  # a new mtime, as an editor's save gives one
    assert _cache.stamp([a, b]) != before


def test_a_callers_stamp_covers_its_callees_file() -> None:
    locator = classic.play_game._cache._impl.locator
    assert locator.get_source_stamp() == _cache.stamp(_cache.sources(classic.__file__))
    assert (_cache.PACKAGE / "rng.py") in _cache.sources(classic.__file__)


def test_the_stamp_covers_the_core_modules_a_kernel_freezes() -> None:
    # pieces.py reads option codes that encode.py derives from rules.py's Literal types; numba
    # freezes them into the machine code, so an edit of rules.py must make every kernel stale
    core = _cache.PACKAGE.parent
    for module in (classic, classic_fast, tactical):
        files = set(_cache.sources(module.__file__))
        assert {core / "rules.py", core / "cards.py", core / "rng.py"} <= files, module


def test_an_agent_kernels_stamp_covers_the_agent_kernels_it_imports() -> None:
    from pyanitsa.agents import kernels as search_kernels
    from pyanitsa.agents import pair_kernels

    files = set(_cache.sources(search_kernels.__file__))
    assert Path(pair_kernels.__file__).resolve() in files


def test_imports_are_followed_transitively(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pyanitsa.tstpkg.b import f\n")
    (pkg / "b.py").write_text("def f():\n    from pyanitsa.tstpkg import c\n")
    (pkg / "c.py").write_text("import os\n")
    fake = type(sys)("pyanitsa.tstpkg")
    fake.__path__ = [str(pkg)]
    monkeypatch.setitem(sys.modules, "pyanitsa.tstpkg", fake)
    files = _cache._closure((pkg / "a.py",))
    assert {p.name for p in files} == {"a.py", "b.py", "c.py"}


def test_numba_cache_dir_still_comes_first() -> None:
    # NUMBA_CACHE_DIR (tests, read-only installs) must keep winning over __pycache__
    from numba.core import caching

    order = caching.CacheImpl._locator_classes
    assert order.index(_cache.UserProvidedLocator) < order.index(_cache.InTreeLocator)
    assert order.index(_cache.UserProvidedLocator) < order.index(caching.InTreeCacheLocator)
