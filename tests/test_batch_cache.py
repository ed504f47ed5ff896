"""The batch core's numba cache is keyed on every file its kernels compile from: editing a
module whose pieces another module inlines (``rng.py`` into ``classic.py``) must make the
caller's cache stale, not leave parity tests running old machine code."""

from __future__ import annotations

import os

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


def test_numba_cache_dir_still_comes_first() -> None:
    # NUMBA_CACHE_DIR (tests, read-only installs) must keep winning over __pycache__
    from numba.core import caching

    order = caching.CacheImpl._locator_classes
    assert order.index(_cache.UserProvidedLocator) < order.index(_cache.InTreeLocator)
    assert order.index(_cache.UserProvidedLocator) < order.index(caching.InTreeCacheLocator)
