"""fc proxy's journal process (fccli/proxy/child.py) loads what recording needs and no more:
every module it holds is memory it keeps for as long as the proxy runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fccli.proxy.child import framed
from fccli.proxy.facts import Close
from fccli.proxy.settings import Settings
from fccli.proxy.target import resolve

NOT_NEEDED = ("asyncio", "ssl", "httpx", "typer", "click", "pygments", "uvicorn", "fccli.commands")
"""The proxy's network and the command line: none of them is the journal's."""
LIST = (
    "import sys, fccli.proxy.child as c; c.main(); "
    "print(' '.join(sorted(m for m, loaded in sys.modules.items() if loaded)))"
)


def test_the_journals_process_loads_no_network_nor_command_line(tmp_path: Path) -> None:
    header = framed((resolve("deepseek", None), Settings(out=tmp_path), "en"))
    done = subprocess.run(
        [sys.executable, "-c", LIST],
        input=header + framed(Close()),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    *said, listed = done.stdout.decode().splitlines()
    assert "fc proxy stopped; no trace was open" in said  # it ran as the proxy's journal
    loaded = set(listed.split())
    assert {"fccli.proxy.handler", "fccli.render.proxy_view"} <= loaded
    assert sorted(m for m in loaded if m.split(".")[0] in NOT_NEEDED or m in NOT_NEEDED) == []
