"""Tools that misbehave: one that never returns (--tool-timeout), one that raises a
BaseException, one that returns a lone surrogate. Each becomes an error result the model reads,
or a result that is written and shown; the run goes on, and no traceback is ever printed.
In-process, on the offline demo model."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest

QUESTION = "杭州今天适合跑步吗？"


def tools_file(tmp_path: Path, body: str) -> str:
    path = tmp_path / "my_tools.py"
    header = '''
        import time


        def get_weather(city: str) -> object:
            """查询某个城市当前的天气。"""
    '''
    path.write_text(textwrap.dedent(header) + textwrap.indent(textwrap.dedent(body), "    "))
    return str(path)


def tool_runs(tmp_path: Path) -> list[dict]:
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text(encoding="utf-8"))
    return manifest["steps"][0]["tool_runs"]


def test_a_tool_past_the_tool_timeout_becomes_an_error_result_and_the_run_goes_on(
    fc, tmp_path: Path
) -> None:
    tools = tools_file(tmp_path, "time.sleep(8)\nreturn 'late'\n")
    start = time.perf_counter()
    result = fc("run", QUESTION, "--tools", tools, "--tool-timeout", "0.2", "-o", "t")
    assert time.perf_counter() - start < 6  # far less than the tool's 8 s
    assert result.returncode == 0, result.stderr
    (run,) = tool_runs(tmp_path)
    assert run["error_kind"] == "tool_timeout"
    assert "did not finish within --tool-timeout 0.2 s" in run["error"]
    # the model read it as an error, and answered
    request = (tmp_path / "t" / "2-request.deepseek.json").read_text(encoding="utf-8")
    assert "[tool error] get_weather did not finish within --tool-timeout" in request


@pytest.mark.parametrize(
    "raised",
    ["GeneratorExit()", "KeyboardInterrupt()", "type('Odd', (BaseException,), {})('odd')"],
)
def test_a_tool_raising_a_base_exception_is_an_error_result(
    fc, tmp_path: Path, raised: str
) -> None:
    tools = tools_file(tmp_path, f"raise {raised}\n")
    result = fc("run", QUESTION, "--tools", tools, "-o", "t")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    (run,) = tool_runs(tmp_path)
    assert run["error_kind"] == "tool_raised"


def test_a_tools_file_raising_a_base_exception_on_import_is_one_line(fc, tmp_path: Path) -> None:
    path = tmp_path / "bad_tools.py"
    path.write_text("raise GeneratorExit('at import')\n")
    result = fc("run", QUESTION, "--tools", str(path), "-o", "t")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


def test_a_tool_returning_a_lone_surrogate_does_not_crash_the_loop(fc, tmp_path: Path) -> None:
    tools = tools_file(tmp_path, "return {'city': city, 'note': '\\ud800'}\n")
    result = fc("run", QUESTION, "--tools", tools, "-o", "t")
    assert result.returncode == 0, result.stderr
    assert "\\ud800" in result.stdout  # shown escaped
    # written as valid UTF-8 JSON, the surrogate as its escape
    text = (tmp_path / "t" / "2-request.json").read_text(encoding="utf-8")
    assert json.loads(text)["messages"][2]["content"][0]["content"].endswith('"\ud800"}')
    assert fc("show", "t").returncode == 0
