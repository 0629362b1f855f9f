"""`fc show --wire` on a terminal: a wrapped heading or stream line goes on under its beginning."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fccli import i18n
from fccli.render.console import make_console
from fccli.render.transcript import render_files
from fccli.trace.reader import read_trace, wire_sections

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "traces" / "examples"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [60, 80])
def test_wrapped_wire_lines_keep_their_hanging_indent(lang: str, width: int) -> None:
    i18n.set_language(lang)
    try:
        file = io.StringIO()
        console = make_console(file=file, width=width, force_terminal=True, color_system=None)
        trace = read_trace(EXAMPLES / "hangzhou-stream")
        heading = f"trace {trace.path}: the {trace.wire_format} wire files, as stored"
        render_files(console, heading, wire_sections(trace))
    finally:
        i18n.set_language("en")
    lines = file.getvalue().splitlines()
    assert lines[1].startswith("  ")  # the heading, wrapped under itself
    data = [i for i, line in enumerate(lines) if line.startswith("data: ")]
    assert data
    for i in data:  # each stream line's value goes on under the value, never at the margin
        for line in lines[i + 1 :]:
            if not line or line.startswith(("data: ", "event: ")):
                break
            assert line.startswith(" " * len("data: ")), line
