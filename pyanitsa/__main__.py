"""Entry point for ``python -m pyanitsa``: runs the ``pyanitsa`` command.

The command is the top layer (``pyanitsa.cli``) and the core imports nothing above it, so this
file names no module: it runs the console script the distribution declares (``[project.scripts]``
in pyproject.toml), found in the installed metadata the way the ``pyanitsa`` script pip writes
finds it. ``python -m pyanitsa`` and ``pyanitsa`` are one command by construction, and
``python -m pyanitsa.cli`` is the same without the metadata.
"""

import sys
from importlib.metadata import PackageNotFoundError, distribution

COMMAND = "pyanitsa"


def main() -> int:
    try:
        scripts = distribution("pyanitsa").entry_points.select(group="console_scripts",
                                                               name=COMMAND)
    except PackageNotFoundError:
        scripts = ()
    if not scripts:
        print(f"python -m pyanitsa: error: no {COMMAND!r} console script installed "
              "(pip install -e . installs it; python -m pyanitsa.cli runs it without)",
              file=sys.stderr)
        return 2
    (script,) = scripts
    return script.load()()


if __name__ == "__main__":
    raise SystemExit(main())
