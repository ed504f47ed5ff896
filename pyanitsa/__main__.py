"""Entry point for ``python -m pyanitsa``."""

from pyanitsa.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
