"""A learner finds the two newer formats (responses, gemini) in the help of every command that
takes a format: the help texts once named only the first four."""

from __future__ import annotations

from typing import Any

import pytest

from fccli.wire.registry import FORMATS


@pytest.mark.parametrize(
    ("command", "option"), [("check", "--format"), ("convert", "--to"), ("send", "--provider")]
)
def test_the_help_of_a_format_option_names_every_format(fc: Any, command: str, option: str) -> None:
    result = fc(command, "--help", env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    start = text.index(option) + len(option)
    end = text.find(" -", start)  # the next option
    said = text[start:end]
    for name in FORMATS:
        assert name in said, (name, said)
