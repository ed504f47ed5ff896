"""Shared fixtures: locations of the cross-project files in ``../shared``, and torch on one
thread for the tests that train."""

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


@pytest.fixture
def one_torch_thread():
    """Torch on one thread for the test (two test processes share two cores); torch is
    imported only by the tests that ask for this."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
