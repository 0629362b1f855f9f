"""fc's console writes a line without Rich's rendering when nothing is styled, wrapped or live
(a pipe, a file, NO_COLOR; fccli/render/console.py `_as_plain`): what it writes must be what Rich
would have written, byte for byte, whatever the text."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from fccli.render.console import SafeConsole, make_console

PIECES = [
    "[bold]", "[/]", "[/bold]", "[dim]", "[red]", "[link=https://x.y]", "\\[", "[", "]", "[b",
    ":smile:", ":", "warning", "中文", "é", " ", "  ", "\n", "\t", "\x1b[31m", "\x07", "\r",
    "\x00", "\x7f", "\x9b", "text", "→", "✓", "😀", "a" * 90,
]  # fmt: skip


def _both(obj: object) -> tuple[str, str]:
    """What fc's console writes, and what Rich's own print writes, on the same console setup."""
    written = []
    for rich_way in (False, True):
        screen = io.StringIO()
        console = make_console(file=screen)
        assert console.soft_wrap and not console.is_terminal
        try:
            if rich_way:
                SafeConsole.print(console, obj)
            else:
                console.print(obj)
        except Exception as e:  # a markup error: raised alike by both ways
            written.append(f"raised {type(e).__name__}: {e}")
            continue
        written.append(screen.getvalue())
    return written[0], written[1]


@settings(deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_a_plain_line_is_written_as_rich_writes_it(pieces: list[str]) -> None:
    ours, rich = _both("".join(pieces))
    assert ours == rich


def test_text_objects_and_the_lines_rich_must_render_come_out_alike() -> None:
    for obj in (
        Text("plain text"),
        Text("styled", style="bold"),
        Text("no end", end=""),
        Text("right", justify="right"),
        Text("left", justify="left"),
        "trailing blank ",
        "a\ttab",
        "x" * 100 + " ",
        "",
    ):
        ours, rich = _both(obj)
        assert ours == rich, repr(obj)


def test_a_line_in_a_pipe_takes_the_plain_way_and_a_terminal_does_not() -> None:
    piped = make_console(file=io.StringIO())
    assert piped._as_plain("[bold]step 1[/] → request") == "step 1 → request\n"
    assert piped._as_plain("a\ttab") is None
    coloured = make_console(file=io.StringIO(), force_terminal=True, width=80)
    assert coloured._as_plain("[bold]step 1[/]") is None
