"""fc proxy under a low limit of open files (`ulimit -n 64`): more conversations left open than
the limit allows are each recorded whole, none an empty trace directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import QUESTION, wire_tools

resource = pytest.importorskip("resource")

pytestmark = [pytest.mark.process, pytest.mark.server]

LIMIT = 64
OPEN = 90


def _low_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


@pytest.mark.skipif(sys.platform == "win32", reason="ulimit -n")
def test_more_open_conversations_than_open_files_are_all_recorded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    printed = tmp_path / "printed.txt"
    with FakeProvider() as fake:
        argv = [sys.executable, "-m", "fccli", "proxy", "--to", fake.url, "--port", "0"]
        with printed.open("wb") as screen:
            proxy = subprocess.Popen(
                [*argv, "--out", str(out)],
                stdout=screen,
                stderr=subprocess.STDOUT,
                preexec_fn=_low_limit,
                env={**os.environ, "COLUMNS": "200"},
            )
        try:
            deadline = time.monotonic() + 60
            banner = ""
            while " on " not in banner and time.monotonic() < deadline:
                time.sleep(0.05)
                banner = printed.read_text("utf-8", errors="replace").split("\n", 1)[0]
            url = banner.split(" on ", 1)[1].split()[0]
            with httpx.Client(timeout=30) as client:
                for n in range(OPEN):
                    body = {
                        "model": "m",
                        "messages": [{"role": "user", "content": f"{QUESTION} ({n})"}],
                        "tools": wire_tools("openai"),
                    }
                    headers = {"authorization": f"Bearer {DEFAULT_KEY}"}
                    reply = client.post(url + "/v1/chat/completions", json=body, headers=headers)
                    assert reply.json()["choices"][0]["message"]["tool_calls"]
        finally:
            proxy.send_signal(signal.SIGINT)
            proxy.wait(timeout=60)
    said = printed.read_text("utf-8", errors="replace")
    assert "cannot be written" not in said, said[-2000:]
    traces = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(traces) == OPEN
    for trace in traces:
        manifest = json.loads((trace / "manifest.json").read_bytes())
        assert manifest["status"] == "interrupted", trace
        assert len(manifest["steps"]) == 1 and (trace / "1-response.openai.json").is_file()
