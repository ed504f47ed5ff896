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
    "research": "pyanitsa.research",
    "ratings": "pyanitsa.ratings",
    "solvers": "pyanitsa.solvers",
    "workers": "pyanitsa.workers",
    "policies": "pyanitsa.policies",
    "tournaments": "pyanitsa.tournaments",
    "training": "pyanitsa.training",
    "cli": "pyanitsa.cli",
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


@pytest.mark.parametrize("name", ["agents", "envs", "research", "ratings", "solvers",
                                  "workers", "policies", "tournaments", "training", "cli"])
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
    import importlib

    for folder, name in LAYERS.items():
        module = importlib.import_module(name)
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
    """Absolute names of the modules a file in ``package`` imports, anywhere in the file
    (inside functions too).

    ``from a import b`` counts both ``a`` and ``a.b``; relative imports are resolved;
    ``importlib.import_module(...)`` / ``__import__(...)`` calls count too, with a literal
    argument or a module-level constant holding one.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    constants = {
        target.id: node.value.value
        for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
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
            in {"import_module", "__import__", "lazy_module"}
            and node.args
        ):
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                names.add(constants[arg.id])
    return names


def package_of(path: Path, folder: str) -> str:
    """The package a file's relative imports resolve against."""
    rel = path.relative_to(REPO_ROOT / folder).parent.parts
    return ".".join((LAYERS[folder], *rel))


# The wings, bottom up (docs/architecture.md draws them). A module may import its own wing and
# the wings of a lower rank; never a wing of its own rank (envs, agents and research know
# nothing of each other, nor do solvers and workers, nor tournaments and training) or above.
# Policies read the solvers (a `features: model` network reads a model's pair marginals), never
# the other way. Workers play scheduled games in other processes; tournaments drive them.
# The front-ends are the top: they import what they run, and nothing imports them. A second
# front-end (a viewer) takes the CLI's rank beside it, in a folder of its own.
RANKS = {"core": 0, "research": 1, "envs": 1, "agents": 1, "ratings": 1, "solvers": 2,
         "workers": 2, "policies": 3, "tournaments": 4, "training": 4, "cli": 5}
WINGS = {"envs", "agents", "research", "ratings", "solvers", "workers", "policies",
         "tournaments", "training", "cli"}

KNOWN_BACK_ARROWS: set[tuple[str, str]] = set()
"""``(file, layer)``: the back-arrows that exist today and are allowed until they are moved.
Every entry must still be in the code (so the list stays exact)."""


def layer_of(module: str) -> str | None:
    """The layer of a module of ours, or None for a module of another project."""
    parts = module.split(".")
    if parts[0] != "pyanitsa":
        return None
    if len(parts) == 1:
        return "core"
    return parts[1] if parts[1] in WINGS else "core"


def layer_arrows() -> dict[tuple[str, str], set[str]]:
    """``(file, layer imported)`` -> the names imported, for every import across layers."""
    arrows: dict[tuple[str, str], set[str]] = {}
    for folder in LAYERS:
        for path in python_files(REPO_ROOT / folder):
            package = package_of(path, folder)
            own = layer_of(package if path.name == "__init__.py"
                           else f"{package}.{path.stem}")
            for name in imported_modules(path, package):
                other = layer_of(name)
                if other is not None and other != own:
                    rel = str(path.relative_to(REPO_ROOT))
                    arrows.setdefault((rel, other), set()).add(name)
    return arrows


def file_layer(rel: str) -> str:
    folder = Path(rel).parts[0]
    return "core" if folder == "pyanitsa" else folder


def test_layers_point_down() -> None:
    offences = []
    for (rel, other), names in sorted(layer_arrows().items()):
        if RANKS[other] >= RANKS[file_layer(rel)] and (rel, other) not in KNOWN_BACK_ARROWS:
            offences.append(f"{rel} ({file_layer(rel)}) -> {other}: {sorted(names)[:3]}")
    assert not offences, "imports against the layering:\n" + "\n".join(offences)


def test_the_known_back_arrows_are_all_still_there() -> None:
    """An exception that no longer exists is taken off the list, so the list stays exact."""
    gone = KNOWN_BACK_ARROWS - set(layer_arrows())
    assert not gone, f"no longer in the code: remove from KNOWN_BACK_ARROWS: {sorted(gone)}"


def test_no_cycle_between_layers() -> None:
    """Package-level cycles, imports inside functions included (agents <-> envs was one): the
    graph of layers, without the known back-arrows, has no cycle."""
    graph: dict[str, set[str]] = {layer: set() for layer in RANKS}
    for rel, other in layer_arrows():
        if (rel, other) not in KNOWN_BACK_ARROWS:
            graph[file_layer(rel)].add(other)

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node):] + [node]
        for nxt in sorted(graph[node]):
            found = cycle_from(nxt, [*path, node])
            if found:
                return found
        return None

    for layer in RANKS:
        found = cycle_from(layer, [])
        assert found is None, "a cycle of layers: " + " -> ".join(found)


def test_the_layer_rules_see_imports_inside_functions(tmp_path: Path) -> None:
    """The checker itself: a function-level import and an import by a named constant count."""
    source = tmp_path / "mod.py"
    source.write_text("import importlib\nWHERE = 'pyanitsa.agents'\n"
                      "def f():\n    from pyanitsa.envs import tactical\n"
                      "    importlib.import_module(WHERE)\n", encoding="utf-8")
    names = imported_modules(source, "pyanitsa")
    assert {"pyanitsa.envs", "pyanitsa.envs.tactical", "pyanitsa.agents"} <= names


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


MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400
SIZED = ("pyanitsa", "envs", "agents", "research", "ratings", "solvers", "workers", "policies",
         "tournaments", "training")
"""The folders held to the developers' guide's sizes (functions under ~80 lines, modules under
~400): split along a real seam when one grows past them."""


def test_functions_and_modules_stay_small() -> None:
    over = []
    for folder in SIZED:
        for path in python_files(REPO_ROOT / folder):
            text = path.read_text(encoding="utf-8")
            where = path.relative_to(REPO_ROOT)
            lines = len(text.splitlines())
            if lines > MAX_MODULE_LINES:
                over.append(f"{where}: {lines} lines (module)")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    n = node.end_lineno - node.lineno + 1
                    if n > MAX_FUNCTION_LINES:
                        over.append(f"{where}:{node.lineno}: {node.name}() {n} lines")
    assert not over, "over the size limits:\n" + "\n".join(over)
