"""One trace, one writer (issue #13, item 5): a second fc run into a trace that is being written
is refused, --force included, and --force replaces only what fc wrote."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import clean_env

QUESTION = "杭州今天适合跑步吗？"


def test_a_second_run_into_a_trace_being_written_is_refused_even_with_force(
    fc, tmp_path: Path
) -> None:
    started, go = tmp_path / "started", tmp_path / "go"
    (tmp_path / "waiting_tools.py").write_text(
        "import pathlib, time\n\n\n"
        "def get_weather(city: str) -> dict:\n"
        '    """查询某个城市当前的天气。"""\n'
        f"    pathlib.Path({str(started)!r}).write_text('x')\n"
        "    for _ in range(400):\n"
        f"        if pathlib.Path({str(go)!r}).exists():\n"
        "            break\n"
        "        time.sleep(0.05)\n"
        "    return {'city': city, 'temp_c': 21}\n"
    )
    first = subprocess.Popen(
        [sys.executable, "-m", "fccli", "run", QUESTION, "--tools", "waiting_tools.py", "-o", "t"],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not started.exists():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.02)
        for extra in ([], ["--force"]):
            second = fc("run", "北京今天适合跑步吗？", "-o", "t", *extra)
            assert second.returncode == 2, second.stderr
            assert "being written by another fc run" in second.stderr
    finally:
        go.write_text("x")
        _, stderr = first.communicate(timeout=30)
    assert first.returncode == 0, stderr
    trace = tmp_path / "t"
    manifest = json.loads((trace / "manifest.json").read_text(encoding="utf-8"))
    request = json.loads((trace / "1-request.json").read_text(encoding="utf-8"))
    assert manifest["question"] == QUESTION == request["messages"][0]["content"][0]["text"]
    assert manifest["status"] == "ok"
    assert not (trace / ".fc-writing").exists()  # released at the end


def test_force_replaces_only_what_fc_wrote(fc, tmp_path: Path) -> None:
    assert fc("run", "北京、上海今天适合跑步吗？", "--no-parallel", "-o", "t").returncode == 0
    assert (tmp_path / "t" / "3-request.json").exists()
    trace = tmp_path / "t"
    (trace / ".notes.tmp").write_text("my notes")
    (trace / "mine").mkdir()
    result = fc("run", QUESTION, "-o", "t", "--force")
    assert result.returncode == 0, result.stderr
    assert (trace / ".notes.tmp").read_text() == "my notes"
    assert (trace / "mine").is_dir()
    assert not (trace / "3-request.json").exists()  # the earlier run's third step is gone
    assert "kept .notes.tmp, mine" in result.stdout
