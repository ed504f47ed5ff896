"""Package layout guards: install mapping, lazy heavy imports, layering, conftest placement."""

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# folder -> the package name it is installed as
LAYERS = {
    "pyanitsa": "pyanitsa",
    "envs": "pyanitsa.envs",
    "agents": "pyanitsa.agents",
    "tournaments": "pyanitsa.tournaments",
}
HEAVY_MODULES = ("gymnasium", "torch", "stable_baselines3", "pettingzoo", "ray")
PRUNED_DIRS = {
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "node_modules",
}


def run_python(code: str, tmp_path: Path) -> str:
    """Run ``code`` in a fresh interpreter whose cwd is outside the repo; return its stdout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def inside(path: str | None, folder: Path) -> bool:
    return path is not None and Path(path).resolve().is_relative_to(folder.resolve())


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("name", ["agents", "envs", "tournaments"])
def test_bare_top_level_packages_are_not_ours(name: str, tmp_path: Path) -> None:
    code = f"""
import json
try:
    import {name} as m
except ModuleNotFoundError:
    print(json.dumps(None))
else:
    print(json.dumps(getattr(m, "__file__", None)))
"""
    found = json.loads(run_python(code, tmp_path))
    assert not inside(found, REPO_ROOT), f"`import {name}` resolves to the repo: {found}"


def test_subpackages_map_to_their_folders() -> None:
    import pyanitsa.agents
    import pyanitsa.envs
    import pyanitsa.tournaments

    for module, folder in [
        (pyanitsa.envs, "envs"),
        (pyanitsa.agents, "agents"),
        (pyanitsa.tournaments, "tournaments"),
    ]:
        assert Path(module.__file__).resolve() == REPO_ROOT / folder / "__init__.py"


def test_core_does_not_import_heavy_dependencies(tmp_path: Path) -> None:
    code = f"""
import json, pkgutil, sys
import pyanitsa

def fail(name):
    raise ImportError(f"cannot import {{name}}")

names = ["pyanitsa"]
for info in pkgutil.walk_packages(pyanitsa.__path__, "pyanitsa.", onerror=fail):
    __import__(info.name)
    names.append(info.name)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY_MODULES!r})
print(json.dumps({{"imported": names, "heavy": heavy}}))
"""
    result = json.loads(run_python(code, tmp_path))
    assert result["heavy"] == [], f"importing {result['imported']} pulled in {result['heavy']}"


def imported_modules(path: Path, package: str) -> set[str]:
    """Absolute names of the modules a file in ``package`` imports.

    ``from a import b`` counts both ``a`` and ``a.b``; relative imports are resolved; literal
    ``importlib.import_module("...")`` / ``__import__("...")`` calls count too.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names.add(node.args[0].value)
    return names


def package_of(path: Path, folder: str) -> str:
    """The package a file's relative imports resolve against."""
    rel = path.relative_to(REPO_ROOT / folder).parent.parts
    return ".".join((LAYERS[folder], *rel))


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        ("pyanitsa", ("pyanitsa.envs", "pyanitsa.agents", "pyanitsa.tournaments")),
        ("envs", ("pyanitsa.tournaments",)),
        ("agents", ("pyanitsa.tournaments",)),
    ],
)
def test_layers_point_down(folder: str, forbidden: tuple[str, ...]) -> None:
    offences = []
    for path in python_files(REPO_ROOT / folder):
        for name in imported_modules(path, package_of(path, folder)):
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                offences.append(f"{path.relative_to(REPO_ROOT)}: {name}")
    assert not offences, "imports against the layering:\n" + "\n".join(offences)


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = set()
    for folder, package in LAYERS.items():
        for init in (REPO_ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO_ROOT / folder).parts
            on_disk.add(".".join((package, *rel)))
    assert on_disk <= listed, f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}"


def test_no_conftest_outside_tests() -> None:
    found = []
    for dirpath, dirnames, filenames in os.walk(REPO_ROOT):
        here = Path(dirpath)
        dirnames[:] = [
            d
            for d in dirnames
            if d not in PRUNED_DIRS
            and not d.endswith(".egg-info")
            and not (here / d / "pyvenv.cfg").exists()
        ]
        if "conftest.py" in filenames and here != REPO_ROOT / "tests":
            found.append(str((here / "conftest.py").relative_to(REPO_ROOT)))
    assert not found, f"conftest.py outside tests/: {found}"


def test_every_folder_of_package_data_is_a_listed_package() -> None:
    """Data in a folder that is not a listed package (``"pyanitsa.agents" = ["policies/*"]``)
    installs only with setuptools' "absent from the packages configuration" warning: each
    data folder must be a package of its own, its files named relative to it."""
    tool = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    listed = set(tool["setuptools"]["packages"])
    folders = {package: folder for folder, package in LAYERS.items()}
    unlisted = []
    for package, patterns in tool["setuptools"]["package-data"].items():
        top = max((p for p in folders if package == p or package.startswith(p + ".")), key=len)
        base = REPO_ROOT / folders[top] / Path(*package.split(".")[len(top.split(".")):])
        files = [f for pattern in patterns for f in base.glob(pattern) if f.is_file()]
        assert files, f"package-data {package}: {patterns} match no file under {base}"
        for f in files:
            rel = f.parent.relative_to(REPO_ROOT / folders[top]).parts
            if ".".join((top, *rel)) not in listed:
                unlisted.append(f"{f.relative_to(REPO_ROOT)}")
    assert not unlisted, f"data outside a listed package: {unlisted}"
