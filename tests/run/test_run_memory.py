"""`fc run` holds a large tool result about twice, not five times (issue 19): the result itself
and the body sent; the files are written in pieces and the body goes out in pieces.

Measured in a real process (only a process has its own peak memory, ru_maxrss), as the
difference between a small and a larger result, so that what Python and the libraries take
at start-up does not count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

TOOLS = '''
import os


def get_weather(city: str) -> str:
    """The weather, at length."""
    return "晴" + "x" * int(os.environ["RESULT_BYTES"])
'''
SMALL, LARGE = 1_000_000, 9_000_000


def _answer(message: dict[str, object], finish: str) -> dict[str, object]:
    return {
        "id": "chatcmpl-memory",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "deepseek-chat",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


CALL = _answer(
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "杭州"}'},
            }
        ],
    },
    "tool_calls",
)
DONE = _answer({"role": "assistant", "content": "晴。"}, "stop")


class _Forgetful(FakeProvider):
    def _record(self, received: object) -> None:
        pass  # the test process need not keep the large requests


def _peak_mb(tmp_path: Path, size: int) -> float:
    tools = tmp_path / "big_tools.py"
    tools.write_text(TOOLS, encoding="utf-8")
    with _Forgetful() as fake:
        fake.script = [{"answer": CALL}, {"answer": DONE}]
        out = tmp_path / f"trace-{size}"
        argv = [sys.executable, "-m", "fccli", "run", "杭州天气", "-p", "deepseek"]
        argv += ["--base-url", fake.url, "--tools", str(tools), "-o", str(out), "--json"]
        env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY, RESULT_BYTES=str(size))
        proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        summary = json.loads(proc.stdout.read())
        _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert summary["status"] == "ok"
    assert (out / "2-request.deepseek.json").stat().st_size > size
    return usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20


def test_a_large_tool_result_is_held_about_twice(tmp_path: Path) -> None:
    grown = _peak_mb(tmp_path, LARGE) - _peak_mb(tmp_path, SMALL)
    result_mb = (LARGE - SMALL) / 2**20
    # The result and the body sent: 2x. Before, the text of each file was built whole, joined,
    # given its newline and encoded, and the HTTP library joined the body once more: 5x.
    assert grown < 3 * result_mb, f"{grown:.1f} MB more for a {result_mb:.1f} MB larger result"
