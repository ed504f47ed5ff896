"""The command line's own errors, and the flag wording of the errors of the layers below.

Below the command line, messages name values and parameters (``resume=True``,
``range_size=0``): a Python caller passes those. A user of the command line typed flags, so
:func:`in_flags` rewords the parameters that every command maps onto the same flag.
"""

from __future__ import annotations

import re

from pyanitsa.errors import PyanitsaError


class CliError(PyanitsaError):
    """Bad command-line input (a missing file, a malformed ``--sprt``, flags that clash)."""


_SWITCHES = {"resume": "--resume", "overwrite": "--overwrite", "force": "--force"}
"""Parameters set to True by a flag without a value."""
_OPTIONS = {"agents": "--agents", "ranges": "--ranges", "range_size": "--range-size",
            "backend": "--backend"}
"""Parameters set by a flag with a value."""
_PATTERN = re.compile(rf"\b(?:({'|'.join(_SWITCHES)})=True\b|({'|'.join(_OPTIONS)})=|"
                      r"(override) )")
"""``resume=True``, ``range_size=``, and ``override X`` (a ``KEY=VALUE`` config override)."""


def in_flags(message: str) -> str:
    """``message`` with ``resume=True`` worded ``--resume``, ``range_size=0`` worded
    ``--range-size 0``, and so on for the parameters of :data:`_SWITCHES` and :data:`_OPTIONS`;
    ``override a.b=1`` is ``--set a.b=1``."""
    return _PATTERN.sub(lambda m: (_SWITCHES[m[1]] if m[1] else
                                   _OPTIONS[m[2]] + " " if m[2] else "--set "), message)
