"""Golden files for rendered output (tests/golden/*.txt): fixed width 100, no colour.

After a deliberate change to what fc prints: `FC_UPDATE_GOLDEN=1 python -m pytest tests/render/test_show.py
tests/diff/test_diff.py`, then review `git diff tests/golden/`.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

from rich.console import Console

GOLDEN = Path(__file__).parent.parent / "golden"
WIDTH = 100


def string_console() -> Console:
    """What `fc` prints through a pipe at COLUMNS=100: no colour, no wrapping of long lines."""
    return Console(file=io.StringIO(), width=WIDTH, no_color=True, highlight=False, soft_wrap=True)


def output(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def without_times(text: str) -> str:
    """Durations differ between two identical runs; the golden files keep their place only."""
    return re.sub(r"\b\d+\.\d+ (ms|s)\b", r"#.# \1", text)


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    text = without_times(text)
    if os.environ.get("FC_UPDATE_GOLDEN") == "1" and (
        not path.exists() or path.read_text("utf-8") != text
    ):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing; create it with FC_UPDATE_GOLDEN=1"
    expected = path.read_text("utf-8")
    assert text == expected, f"{name} differs from its golden file; FC_UPDATE_GOLDEN=1 rewrites it"
