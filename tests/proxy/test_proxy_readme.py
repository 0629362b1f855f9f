"""docs/reference/proxy.md's "Trace your own agent" commands, run as shown: the proxy in one shell, the agent
and the readers in another; DeepSeek's address pointed at the fake provider, port 8787 at a free
one."""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

REPO = Path(__file__).resolve().parent.parent.parent
SECTION = "# Trace your own agent: `fc proxy`"


def blocks() -> list[list[str]]:
    text = (REPO / "docs" / "reference" / "proxy.md").read_text("utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    found = [b.split("```", 1)[0] for b in section.split("```bash\n")[1:]]
    return [[line for line in b.splitlines() if line.strip()] for b in found]


def _script(lines: list[str], port: int, fake: str) -> str:
    shown = [
        line.replace("127.0.0.1:8787", f"127.0.0.1:{port}")
        .replace(
            "fc proxy --to deepseek", f"fc proxy --to deepseek --port {port} --base-url {fake}"
        )
        .replace("node tests/js/", f"node {REPO}/tests/js/")
        for line in lines
    ]
    # bash has a builtin `fc` (its history editor) that wins over fc on the PATH.
    return "\n".join(["set -euo pipefail", "enable -n fc", *shown])


def _wait_until_written(traces: Path, seconds: float = 60) -> None:
    """Wait until a trace under `traces` has a manifest whose status is no longer `running`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for manifest in traces.glob("proxy-*/*/manifest.json"):
            with contextlib.suppress(OSError, ValueError):
                if json.loads(manifest.read_text("utf-8")).get("status", "running") != "running":
                    return
        time.sleep(0.02)
    raise AssertionError(f"no trace under {traces} was written in {seconds} s")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the agent is JS")
def test_the_readme_commands_do_what_it_says(tmp_path: Path) -> None:
    serve, agent = blocks()
    assert serve == ["fc proxy --to deepseek"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = f"{Path(sys.executable).parent}:{clean_env()['PATH']}"
    env = clean_env(PATH=path, DEEPSEEK_API_KEY=DEFAULT_KEY, PYTHONUNBUFFERED="1")
    with FakeProvider() as fake:
        proxy = subprocess.Popen(
            ["bash", "-c", _script(serve, port, fake.url).replace("fc proxy", "exec fc proxy")],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proxy.stdout is not None
            lines = [proxy.stdout.readline() for _ in range(3)]
            assert f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1" in "".join(lines)
            # The agent, then the readers once the trace is written, as the page says: the
            # journal writes it beside the forwarding, a moment after the agent has its answer.
            readers = next(i for i, line in enumerate(agent) if line.startswith("fc "))

            def bash(lines: list[str]) -> subprocess.CompletedProcess[str]:
                script = _script(lines, port, fake.url)
                return subprocess.run(
                    ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                    text=True, timeout=120,
                )  # fmt: skip

            ran = bash(agent[:readers])
            assert ran.returncode == 0, ran.stderr
            _wait_until_written(tmp_path / "traces")
            read = bash(agent[readers:])
        finally:
            proxy.send_signal(signal.SIGINT)
            proxy.wait(timeout=20)
    assert read.returncode == 0, read.stderr
    # the agent's answer, then fc show's transcript of the trace, then fc check's verdict
    assert '"role":"assistant"' in ran.stdout and "北京" in ran.stdout  # the agent's answer
    assert "done: the model answered at step 2" in read.stdout  # fc show
    assert read.stdout.rstrip().endswith(
        "no problems found"
    )  # fc check: the FC120 of an agent's own spelling is none
    (trace,) = (tmp_path / "traces").glob("proxy-*/*-beijing-shanghai")
    assert (trace / "2-response.deepseek.json").exists()
    assert proxy.returncode == 130
