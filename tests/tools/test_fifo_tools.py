"""A tools path that exists but is not a regular file (a FIFO) is not called missing."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fccli.core.errors import UsageError
from fccli.tools.json_tools import load_json_tools


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")
def test_fifo_is_not_called_missing(tmp_path: Path) -> None:
    fifo = tmp_path / "tools.json"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="not a regular file"):
        load_json_tools(fifo)
