"""Shared fixtures: locations of the cross-project files in ``../shared``."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``shared/`` folder that sits beside the repository checkout."""
    if not SHARED_DIR.is_dir():
        raise FileNotFoundError(
            f"shared folder not found at {SHARED_DIR}; it must sit beside the repo checkout"
        )
    return SHARED_DIR


@pytest.fixture(scope="session")
def vectors_path(shared_dir: Path) -> Path:
    """The conformance vectors, one JSON object per line."""
    path = shared_dir / "conformance" / "vectors.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"conformance vectors not found at {path}")
    return path
