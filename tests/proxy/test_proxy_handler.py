"""The journal's logic (fccli/proxy/handler.py) fed facts directly, as the event loop hands them:
no server, no process."""

from __future__ import annotations

import dataclasses
import io
import json
import time
from pathlib import Path
from typing import Any

from fccli.proxy.facts import Asked, Close, Ended
from fccli.proxy.handler import FactHandler
from fccli.proxy.settings import Settings
from fccli.proxy.target import resolve
from fccli.render.console import make_console
from fccli.render.proxy_view import ProxyView

KEY = "sk-handler-test-key-0123456789"
QUESTION = {"role": "user", "content": "北京今天适合跑步吗？"}
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "北京"}'},
}
CALLED = {"role": "assistant", "content": None, "tool_calls": [CALL]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": '{"weather": "晴"}'}


def _answer(message: dict[str, Any], finish: str) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }
    return json.dumps(body, ensure_ascii=False).encode()


def _asked(rid: int, messages: list[dict[str, Any]]) -> Asked:
    body = json.dumps({"model": "m", "messages": messages}, ensure_ascii=False).encode()
    secrets = (f"Bearer {KEY}", KEY)
    return Asked(rid, "openai", "/v1/chat/completions", body, secrets, time.perf_counter(), 0.0)


def _ended(rid: int, answer: bytes) -> Ended:
    now = time.perf_counter()
    return Ended(rid, "done", 200, "", [answer], len(answer), now, now)


def test_a_request_that_came_before_its_last_step_ended_waits_and_continues_its_trace(
    tmp_path: Path,
) -> None:
    """The loop may see an agent's next request before the end of the answer it goes on from:
    it is held back until that step is recorded, and becomes its step 2, not a new trace."""
    screen = io.StringIO()
    view = ProxyView(make_console(file=screen, width=200), "fake")
    handler = FactHandler(resolve("http://127.0.0.1:9"), Settings(out=tmp_path), view)
    final = {"role": "assistant", "content": f"适合。{KEY}"}  # an answer echoing the key
    for fact in (
        _asked(1, [QUESTION]),
        _asked(2, [QUESTION, CALLED, RESULT]),  # before step 1's end
        _ended(2, _answer(final, "stop")),  # held back with it, in order
        _ended(1, _answer(CALLED, "tool_calls")),
        Close(),
    ):
        handler(fact)
    (trace,) = tmp_path.iterdir()
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    assert manifest["status"] == "ok" and len(manifest["steps"]) == 2
    assert manifest["steps"][0]["tool_runs"][0]["name"] == "get_weather"
    assert "fc proxy stopped; no trace was open" in screen.getvalue()
    written = b"".join(p.read_bytes() for p in trace.iterdir() if p.is_file())
    assert KEY.encode() not in written and "***" in manifest["final_answer"]


def test_a_bug_in_the_journal_is_one_line_that_does_not_blame_the_answer(tmp_path: Path) -> None:
    """The client got its answer before the journal saw the request: a journal's exception
    says the step may be missing, not that the client got a 500, and the next fact is handled."""
    screen = io.StringIO()
    view = ProxyView(make_console(file=screen, width=200), "fake")
    handler = FactHandler(resolve("http://127.0.0.1:9"), Settings(out=tmp_path), view)
    handler(dataclasses.replace(_asked(1, [QUESTION]), fmt="no-such-format"))
    handler(_asked(2, [QUESTION]))
    handler(_ended(2, _answer(CALLED, "tool_calls")))
    printed = screen.getvalue()
    assert printed.count("internal error:") == 1, printed
    assert "fc proxy's journal" in printed and "HTTP 500" not in printed
    assert len(list(tmp_path.iterdir())) == 1  # the next request still has its trace
