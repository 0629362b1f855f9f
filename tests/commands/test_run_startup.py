"""What `fc run` leaves out of its start-up (issue 19) must still come out the same when used."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from fccli.render.console import make_console


@pytest.mark.parametrize(
    "text",
    [
        "go :thumbs_up: [bold]now[/]",
        "time: 12:30, a:b:c, no :such_code:",  # `:b:` is an emoji too
        ":warning-emoji: [red]x[/]:smile:",
        "[dim]plain: text[/] 杭州 : spaced : colons",
    ],
)
def test_emoji_codes_render_as_rich_renders_them(text: str) -> None:
    # fc's console skips Rich's emoji lookup where no code can stand (its table costs every run)
    ours, rich = io.StringIO(), io.StringIO()
    make_console(file=ours, width=80, force_terminal=False).print(text)
    Console(file=rich, width=80, force_terminal=False, highlight=False).print(text)
    assert ours.getvalue() == rich.getvalue()
