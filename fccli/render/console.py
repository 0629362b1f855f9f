"""The one Console: colour and live display only on a terminal, and never with NO_COLOR.

On a terminal, lines wrap by words at its width (a word longer than a line, a URL or a JSON
string, is folded), and a wrapped line goes on at its own indentation, under its beginning.
In a pipe nothing is wrapped: a line is as long as it is, for grep and for files.
"""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.text import Text


class _Console(Console):
    def print(self, *objects: Any, **options: Any) -> None:
        if self.soft_wrap or len(objects) != 1 or options:
            super().print(*objects, **options)
            return
        text = objects[0]
        if isinstance(text, str):
            text = self.render_str(text)
        if not isinstance(text, Text):
            super().print(text)
            return
        for line in text.split("\n", allow_blank=True):
            indent = len(line.plain) - len(line.plain.lstrip(" "))
            if indent >= self.width // 2:
                indent = 0
            for piece in line[indent:].wrap(self, self.width - indent, overflow="fold"):
                piece.rstrip()
                super().print(Text.assemble(" " * indent, piece))


def make_console(*, stderr: bool = False, **for_tests: Any) -> Console:
    """`for_tests`: a file, a width and force_terminal, to see what a terminal would show."""
    # Rich already drops colour when the output is not a terminal; NO_COLOR is honoured by it
    # too, but only when set to a non-empty value, so say it plainly here.
    no_color = "NO_COLOR" in os.environ
    console = _Console(stderr=stderr, no_color=no_color or None, highlight=False, **for_tests)
    console.soft_wrap = not console.is_terminal
    return console
