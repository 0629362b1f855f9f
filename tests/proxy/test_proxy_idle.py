"""fc proxy's open conversations: one waiting for its agent's next request holds no open file,
and one that waits past the idle time is closed, its trace saying why."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import QUESTION, Running, proxy, run_tool, wire_tools

pytestmark = pytest.mark.server

HEADERS = {"authorization": f"Bearer {DEFAULT_KEY}"}
CLIENT = httpx.Client(timeout=30)


def _ask(running: Running, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"model": "m", "messages": messages, "tools": wire_tools("openai")}
    reply = CLIENT.post(running.url + "/v1/chat/completions", json=body, headers=HEADERS)
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()["choices"][0]["message"]
    return answer


def _settled(running: Running, count: int) -> list[Path]:
    """The traces, once `count` of them have their steps recorded (the proxy hands the journal
    an answer's end after the client has it)."""
    deadline = time.monotonic() + 30
    while True:
        traces = running.traces()
        if len(traces) == count and all(_manifest(t)["steps"] for t in traces):
            return traces
        assert time.monotonic() < deadline, traces
        time.sleep(0.01)


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def _manifest(trace: Path) -> dict[str, Any]:
    return json.loads((trace / "manifest.json").read_bytes())


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/self/fd")
def test_a_conversation_waiting_for_its_next_request_holds_no_open_file(tmp_path: Path) -> None:
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url) as running:
        question = [{"role": "user", "content": QUESTION}]
        first = _ask(running, question)
        assert first["tool_calls"]
        running.traces()
        before = _open_files()
        for n in range(15):
            _ask(running, [{"role": "user", "content": f"{QUESTION} ({n})"}])
        traces = _settled(running, 16)
        deadline = time.monotonic() + 30
        while any((t / ".fc-writing").exists() for t in traces):  # the last steps settling
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert _open_files() - before < 8  # one lock per waiting trace would be 15
        results = [
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": run_tool(
                    call["function"]["name"], json.loads(call["function"]["arguments"])
                ),
            }
            for call in first["tool_calls"]
        ]
        _ask(running, [*question, first, *results])  # the first conversation goes on
        assert len(running.traces()) == 16
    [trace] = [t for t in traces if len(_manifest(t)["steps"]) == 2]
    assert _manifest(trace)["status"] == "ok"


def test_a_conversation_waiting_past_the_idle_time_is_closed(tmp_path: Path) -> None:
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url, idle_seconds=0) as running:
        _ask(running, [{"role": "user", "content": QUESTION}])
        [waiting] = _settled(running, 1)
        _ask(
            running, [{"role": "user", "content": "上海呢？"}]
        )  # the journal looks, if no tick did
        running.traces()
        manifest = _manifest(waiting)
        printed = running.printed
    assert manifest["status"] == "interrupted"
    assert "no next request came for 0 s" in manifest["error"]["message"]
    assert f"trace {waiting}: interrupted, no next request came" in printed


def test_a_waiting_trace_changed_meanwhile_is_left_alone_and_said(tmp_path: Path) -> None:
    """A waiting conversation holds its trace only as its file: one whose manifest was broken
    while it waited goes on in a trace of its own, one whose manifest is gone is not closed at
    the stop, and both are said (the other traces are closed all the same)."""
    with FakeProvider() as fake, proxy(tmp_path / "out", to=fake.url) as running:
        question = [{"role": "user", "content": QUESTION}]
        first = _ask(running, question)
        _ask(running, [{"role": "user", "content": "上海呢？"}])
        _ask(running, [{"role": "user", "content": "杭州呢？"}])
        asked = {_manifest(t)["question"]: t for t in _settled(running, 3)}
        broken, gone, kept = asked[QUESTION], asked["上海呢？"], asked["杭州呢？"]
        (broken / "manifest.json").write_text("not json", "utf-8")
        (gone / "manifest.json").unlink()
        results = [
            {"role": "tool", "tool_call_id": call["id"], "content": "晴"}
            for call in first["tool_calls"]
        ]
        _ask(running, [*question, first, *results])
        traces = running.traces()
    assert (broken / "manifest.json").read_text("utf-8") == "not json"
    assert not (gone / "manifest.json").exists()
    [own] = [t for t in traces if t not in (broken, gone, kept)]
    assert _manifest(own)["status"] == "ok" and len(_manifest(own)["steps"]) == 1
    assert _manifest(kept)["status"] == "interrupted"
    printed = running.printed
    assert f"the trace cannot be written: cannot read {broken / 'manifest.json'} back" in printed
    assert f"warning: cannot read {gone / 'manifest.json'} back" in printed
    assert "1 open trace(s) closed as interrupted" in printed
