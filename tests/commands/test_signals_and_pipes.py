"""What only a real process shows: SIGTERM and SIGHUP handled as Ctrl-C (issue #13, item 4), and
a reader that goes away (`fc ... | head`) taken as a normal end (item 6). Few and fast."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import FakeProvider
from tests.support.inprocess import deepseek_env, deepseek_run

QUESTION = "杭州今天适合跑步吗？"


def fc_process(
    cwd: Path, *args: str, env: dict[str, str] | None = None, **popen
) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "fccli", *args], cwd=cwd, env=env or clean_env(), **popen
    )


def wait_for(ready, limit: float = 20) -> None:
    deadline = time.monotonic() + limit
    while not ready():
        assert time.monotonic() < deadline, "never ready"
        time.sleep(0.02)


def manifest(trace: Path) -> dict:
    return json.loads((trace / "manifest.json").read_text(encoding="utf-8"))


def test_sigterm_mid_stream_keeps_the_bytes_and_says_interrupted(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_pause = 20  # half the stream goes out, then it stalls
    proc = fc_process(
        tmp_path,
        *deepseek_run(fake_provider.url, "--stream"),
        env=deepseek_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(fake_provider.stalled.is_set)
    time.sleep(0.3)  # the first half reaches fc
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=15)
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr and "(by SIGTERM)" in stderr
    trace = tmp_path / "t"
    m = manifest(trace)
    assert m["status"] == "interrupted"
    assert m["error"]["signal"] == "SIGTERM"
    assert m["steps"][0]["step"] == 1  # the step is on record
    assert (trace / "1-response.deepseek.sse").read_bytes().startswith(b"data: ")


def test_sighup_while_a_tool_runs_says_interrupted(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    (tmp_path / "slow_tools.py").write_text(
        "import pathlib, time\n\n\n"
        "def get_weather(city: str) -> str:\n"
        '    """查询某个城市当前的天气。"""\n'
        f"    pathlib.Path({str(marker)!r}).write_text('x')\n"
        "    time.sleep(30)\n"
        "    return 'late'\n"
    )
    proc = fc_process(
        tmp_path,
        "run",
        QUESTION,
        "--tools",
        "slow_tools.py",
        "-o",
        "t",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(marker.exists)
    proc.send_signal(signal.SIGHUP)
    _, stderr = proc.communicate(timeout=15)
    assert proc.returncode == 128 + signal.SIGHUP, stderr
    m = manifest(tmp_path / "t")
    assert m["status"] == "interrupted" and m["error"]["signal"] == "SIGHUP"
    assert "while the tools ran" in m["error"]["message"]
    shown = subprocess.run(
        [sys.executable, "-m", "fccli", "show", "t"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "interrupted at step 1 (SIGHUP)" in shown.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["run", QUESTION, "-o", "t"],
        ["run", QUESTION, "-o", "t", "--stream"],
        ["show", "--wire", "t0"],
        ["send", "t0/1-request.deepseek.json", "-p", "demo"],
    ],
    ids=["run", "run-stream", "show-wire", "send"],
)
def test_a_reader_that_goes_away_is_a_normal_end(tmp_path: Path, args: list[str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "fccli", "run", QUESTION, "-o", "t0"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        timeout=30,
        check=True,
    )
    # `fc ... | head -0`: the reader closes the pipe before fc writes (a pipe's buffer would
    # take all of fc's output before a reader that takes a line or two closes it).
    proc = fc_process(tmp_path, *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert stderr == b""
    if args[0] == "run":  # the run went on to its end, and its trace says so
        m = manifest(tmp_path / "t")
        assert m["status"] == "ok" and len(m["steps"]) == 2
