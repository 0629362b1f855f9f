"""`fc run` holds a large tool result about twice, not five times: the result itself and the
body sent; the files are written in pieces and the body goes out in pieces. The demo model reads
such a result by its start and length, and answers within its bound.

Measured in a real process (only a process has its own peak memory, ru_maxrss), as the
difference between a small and a larger result, so that what Python and the libraries take
at start-up does not count."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fccli.providers.demo.model import DEFAULT_MAX_TOKENS
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


DEMO_TOOLS = '''
import os


def get_weather(city: str) -> str:
    """The weather, at length."""
    size = int(os.environ["RESULT_BYTES"])
    if os.environ["RESULT_TEXT"] == "mixed":  # 15 bytes of UTF-8 in 7 characters
        return ("晴天abc多云" * (size // 15 + 1))[: size // 15 * 7]
    return "x" * size
'''
RESULT_MB = 20


MEASURED = """
import atexit, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(measured, "w") as out:
        out.write(kb)

measured, sys.argv = sys.argv[1], ["fc", *sys.argv[2:]]
atexit.register(peak)
runpy.run_module("fccli", run_name="__main__")
"""
"""`python -m fccli` that writes its own peak (kB) to a file at exit: the peak of this process
alone (VmHWM), where ru_maxrss would count the test process it was forked from."""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
@pytest.mark.parametrize("text", ["ascii", "mixed"])
def test_the_demo_answers_a_20_mb_result_in_under_100_mb_and_within_max_tokens(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "big_tools.py").write_text(DEMO_TOOLS, encoding="utf-8")
    out, measured = tmp_path / "t", tmp_path / "peak"
    argv = [sys.executable, "-c", MEASURED, str(measured), "run", "杭州天气"]
    argv += ["--tools", "big_tools.py", "-o", str(out), "--json"]
    env = clean_env(RESULT_BYTES=str(RESULT_MB * 10**6), RESULT_TEXT=text)
    done = subprocess.run(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, check=False)
    assert done.returncode == 0
    assert (out / "2-request.deepseek.json").stat().st_size > RESULT_MB * 10**6 * 0.99
    peak = int(measured.read_text()) / 1024
    assert peak < 100, f"fc run peaked at {peak:.0f} MB for a {RESULT_MB} MB tool result"
    answer = json.loads((out / "2-response.deepseek.json").read_text("utf-8"))
    said = answer["choices"][0]["message"]["content"]
    assert answer["usage"]["completion_tokens"] <= DEFAULT_MAX_TOKENS[True]
    assert len(said) < 1000 and "个字符的长文本" in said
    assert (out / "manifest.json").stat().st_size < 100_000
