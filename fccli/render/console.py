"""The one Console: colour and live display only on a terminal, and never with NO_COLOR."""

from __future__ import annotations

import os

from rich.console import Console


def make_console(*, stderr: bool = False) -> Console:
    # Rich already drops colour when the output is not a terminal; NO_COLOR is honoured by it
    # too, but only when set to a non-empty value, so say it plainly here.
    no_color = "NO_COLOR" in os.environ
    return Console(stderr=stderr, no_color=no_color or None, highlight=False, soft_wrap=True)
