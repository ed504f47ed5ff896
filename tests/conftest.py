"""Shared fixtures: locations of the cross-project files in ``../shared``, torch on one thread
for the tests that train, the benchmark scripts as modules, and this folder on ``sys.path`` for
the helper modules beside the tests.

The tests of Ctrl-C send SIGINT, to this process and to the commands they start. A suite run
in the background of a shell without job control (``nohup bash script &``) inherits SIGINT
ignored, and every child would inherit that too: the suite takes Ctrl-C back first, so those
tests test pyanitsa, not how the suite was started.
"""

import importlib.util
import signal
import sys
from pathlib import Path

import pytest

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
# the helper modules beside the tests (rules_space.py) import by name; appended, so that no
# test module's name can shadow an installed one
sys.path.append(str(Path(__file__).resolve().parent))


LONG_FIRST = ("test_docs_examples.py", "test_distill.py", "test_policy_ensemble.py",
              "test_train_resume.py", "test_nash_response.py")
"""Files whose tests take tens of seconds each: started first, so that `pytest -n 2` hands the
short tests to whichever worker is free rather than ending on one long test."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # a stable sort: the same order in every xdist worker, as its scheduler requires
    items.sort(key=lambda item: item.path.name not in LONG_FIRST)


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


@pytest.fixture
def benchmark_module():
    """A loader of ``benchmarks/NAME.py`` as a module (``benchmarks/`` is not a package); the
    modules it loaded are dropped after the test."""
    loaded: list[str] = []

    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"pyanitsa_benchmarks_{name}",
                                                      REPO_ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up in sys.modules
        loaded.append(spec.name)
        spec.loader.exec_module(module)
        return module

    yield load
    for name in loaded:
        sys.modules.pop(name, None)
