"""fc proxy with hostile values in what it records: empty histories in every format, a lone
surrogate sent as raw bytes and answered as a JSON escape, Basic-auth credentials an upstream
echoes decoded. Each exchange is recorded as a closed trace the readers read."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import Running, proxy

pytestmark = pytest.mark.server
CLIENT = httpx.Client(timeout=30)

HEADERS = {
    "authorization": f"Bearer {DEFAULT_KEY}",
    "x-api-key": DEFAULT_KEY,
    "x-goog-api-key": DEFAULT_KEY,
    "anthropic-version": "2023-06-01",
}
EMPTY = {
    "chat": ("/v1/chat/completions", {"model": "m", "messages": []}),
    "chat-stream": ("/v1/chat/completions", {"model": "m", "messages": [], "stream": True}),
    "anthropic": ("/v1/messages", {"model": "m", "max_tokens": 64, "messages": []}),
    "responses": ("/v1/responses", {"model": "m", "input": []}),
    "gemini": ("/v1beta/models/gemini-2.5-flash:generateContent", {"contents": []}),
}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider


@pytest.fixture(scope="module")
def running(fake: FakeProvider, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with proxy(tmp_path_factory.mktemp("proxy") / "out", to=fake.url) as server:
        yield server


def _new_trace(running: Running, before: list[Path]) -> Path:
    """The trace the last request began, once its step is recorded (the proxy hands the
    journal an answer's end after the client has it)."""
    deadline = time.monotonic() + 30
    while True:
        new = [t for t in running.traces() if t not in before]
        manifest = new[0] / "manifest.json" if len(new) == 1 else None
        if manifest is not None and json.loads(manifest.read_bytes())["steps"]:
            return new[0]
        assert time.monotonic() < deadline, new
        time.sleep(0.01)


@pytest.mark.parametrize("kind", list(EMPTY))
def test_an_empty_history_is_recorded_and_its_trace_closed(running: Running, kind: str) -> None:
    path, body = EMPTY[kind]
    before = running.traces()
    CLIENT.post(running.url + path, json=body, headers=HEADERS, timeout=30)
    trace = _new_trace(running, before)
    printed = running.printed
    assert "internal error" not in printed and "a bug in fc" not in printed, printed
    assert "no message at all" in printed
    manifest = json.loads((trace / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] != "running", printed
    assert not (trace / ".fc-writing").exists()
    assert (trace / "1-request.json").is_file()


def test_a_lone_surrogate_as_raw_bytes_and_escaped_is_recorded_and_read(
    running: Running, fake: FakeProvider, fc
) -> None:
    answer = {
        "id": "x",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "lone \ud800 here"},
                "finish_reason": "stop",
            }
        ],
    }
    fake.script.append({"answer": answer})
    raw = b'{"model":"m","messages":[{"role":"user","content":"raw \xed\xa0\x80 bytes"}]}'
    before = running.traces()
    reply = CLIENT.post(
        running.url + "/v1/chat/completions",
        content=raw,
        headers={**HEADERS, "content-type": "application/json"},
        timeout=30,
    )
    assert reply.status_code == 200
    trace = _new_trace(running, before)
    assert "internal error" not in running.printed
    manifest = json.loads((trace / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "ok"
    for args in (["show"], ["show", "--wire"], ["--lang", "zh", "show"], ["check"]):
        ran = fc(*args, str(trace))
        assert ran.returncode == 0, (args, ran.stderr)
        assert "bug in fc" not in ran.stderr
    assert "\\ud800" in fc("show", str(trace)).stdout


def test_basic_auth_an_upstream_echoes_decoded_is_masked(
    running: Running, fake: FakeProvider
) -> None:
    secret = "sk-basic-secret-9876"
    token = base64.b64encode(f"user:{secret}".encode()).decode()
    echo = f"bad pair user:{secret}, or {quote(secret)} or {secret}"
    fake.script.append({"status": 401, "message": echo})
    before = running.traces()
    reply = CLIENT.post(
        running.url + "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        headers={"authorization": f"Basic {token}"},
        timeout=30,
    )
    assert reply.status_code == 401
    trace = _new_trace(running, before)
    written = b"".join(f.read_bytes() for f in trace.iterdir() if f.is_file())
    for form in (secret, token):
        assert form.encode() not in written
        assert form not in running.printed
    assert b"***" in written
