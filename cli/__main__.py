"""Entry point for ``python -m pyanitsa.cli``: the ``pyanitsa`` command without its script."""

from pyanitsa.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
