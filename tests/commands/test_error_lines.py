"""An error whose text ends in a newline (an empty hint) prints no blank second line."""

from __future__ import annotations

import pytest

from fccli.commands.entry import _print_error


def test_trailing_newline_prints_no_blank_line(capsys: pytest.CaptureFixture[str]) -> None:
    _print_error("cannot reach http://127.0.0.1:9/v1/traces\n")
    assert capsys.readouterr().err == "fc: error: cannot reach http://127.0.0.1:9/v1/traces\n"
