"""fc serve as a crafted trace, a hostile client on this machine or a web page in its browser
meets it: it plays only regular files inside the trace, refuses a recorded status HTTP does not
allow, streams a large response file in bounded memory, and answers only requests addressed to
it and not sent by a web page."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fccli.serve.app import Player, make_app
from fccli.serve.guard import Guard
from fccli.serve.launch import InThread, bind
from fccli.serve.recordings import load_recordings
from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.inprocess import run_in_process
from tests.support.trap import raw_request

QUESTION = "杭州今天适合跑步吗？"


def _run(root: Path, name: str, script: list[object]) -> Path:
    with FakeProvider() as fake:
        fake.script = script
        run_in_process(
            ["run", QUESTION, "-p", "openai", "--base-url", fake.url, "-o", name],
            cwd=root,
            env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
            input=None,
            terminal=False,
        )
    return root / name


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A trace that went well, and one whose first step failed with HTTP 400."""
    root = tmp_path_factory.mktemp("traces")
    return {
        "ok": _run(root, "ok", []),
        "failed": _run(root, "failed", [{"status": 400, "message": "scripted refusal"}]),
    }


def _copy(recorded: dict[str, Path], name: str, to: Path) -> Path:
    copied = to / name
    shutil.copytree(recorded[name], copied)
    return copied


def refused_at_start(fc, trace: Path, *options: str) -> str:
    """Run `fc serve TRACE` on a port already taken (a trace that loads stops at the port, not
    serving for good); return what it said, having checked it stopped with exit 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        result = fc("serve", str(trace), "--port", port, *options)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "is in use" not in result.stderr, "the trace was loaded"
    assert len(result.stderr.strip().splitlines()) <= 2  # the line, and perhaps a hint
    return str(result.stderr)


@pytest.fixture
def serve() -> Iterator[object]:
    servers: list[InThread] = []

    def start(trace: Path, **guard: object) -> tuple[str, list[str]]:
        lines: list[str] = []
        app = make_app(load_recordings([trace]), lines.append, Guard(**guard))  # type: ignore[arg-type]
        server = InThread(app, bind("127.0.0.1", 0)).start()
        servers.append(server)
        return server.url, lines

    yield start
    for server in servers:
        server.stop()


# files outside the trace, or not files


def test_a_response_linked_out_of_the_trace_is_refused_at_start(
    fc, recorded, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:the secret", "utf-8")
    trace = _copy(recorded, "ok", tmp_path)
    (trace / "2-response.openai.json").unlink()
    (trace / "2-response.openai.json").symlink_to(secret)
    said = refused_at_start(fc, trace)
    assert "2-response.openai.json" in said
    assert "leads out of its trace" in said
    assert "the secret" not in said


def test_a_link_inside_the_trace_is_played(recorded, serve, tmp_path: Path) -> None:
    trace = _copy(recorded, "ok", tmp_path)
    response = trace / "2-response.openai.json"
    (trace / "kept.json").write_bytes(response.read_bytes())
    response.unlink()
    response.symlink_to("kept.json")
    url, _ = serve(trace)
    got = local_http.post(
        url + "/v1/chat/completions", content=(trace / "2-request.openai.json").read_bytes()
    )
    assert got.status_code == 200
    assert got.content == (trace / "kept.json").read_bytes()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_for_a_response_is_refused_at_start(fc, recorded, tmp_path: Path) -> None:
    trace = _copy(recorded, "ok", tmp_path)
    (trace / "1-response.openai.json").unlink()
    os.mkfifo(trace / "1-response.openai.json")
    said = refused_at_start(fc, trace)
    assert "1-response.openai.json" in said
    assert "not a regular file" in said


def test_a_response_above_max_response_mb_is_refused_at_start(fc, recorded, tmp_path) -> None:
    trace = _copy(recorded, "ok", tmp_path)
    with open(trace / "1-response.openai.json", "r+b") as f:
        f.truncate(2 * 1024 * 1024)
    said = refused_at_start(fc, trace, "--max-response-mb", "1")
    assert "1-response.openai.json" in said and "--max-response-mb" in said


def test_a_large_response_file_is_streamed_in_bounded_memory(recorded, serve, tmp_path) -> None:
    trace = _copy(recorded, "ok", tmp_path)
    size = 48 * 1024 * 1024
    with open(trace / "1-response.openai.json", "r+b") as f:
        f.truncate(size)  # sparse: no disk spent
    url, _ = serve(trace)
    tracemalloc.start()
    try:
        got = 0
        request = (trace / "1-request.openai.json").read_bytes()
        with local_http.stream("POST", url + "/v1/chat/completions", content=request) as answer:
            assert answer.status_code == 200
            for piece in answer.iter_raw():
                got += len(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == size
    assert peak < 8 * 1024 * 1024, peak


# recorded statuses


@pytest.mark.parametrize("status", [0, 99, 101, 1000, -5, True, 10**30, 204, 304])
def test_a_recorded_status_http_does_not_allow_is_refused_naming_the_step(
    fc, recorded, tmp_path: Path, status: object
) -> None:
    trace = _copy(recorded, "failed", tmp_path)
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    assert manifest["error"]["step"] == 1
    manifest["error"]["http_status"] = status
    (trace / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    said = refused_at_start(fc, trace)
    assert "step 1" in said and "status" in said


# who is answered


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:{port}", "127.0.0.1:1", ""])
def test_a_request_addressed_to_another_host_is_refused(recorded, serve, host: str) -> None:
    """DNS rebinding: a page whose name now resolves to 127.0.0.1 sends its own name as Host."""
    url, lines = serve(recorded["ok"])
    port = url.rsplit(":", 1)[1]
    request = (recorded["ok"] / "1-request.openai.json").read_bytes()
    head = "POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json"
    status, body = raw_request(url, head, request, host=host.format(port=port))
    assert status == 421
    assert b"choices" not in body
    assert "HTTP 421" in lines[-1]
    for name in ("127.0.0.1", "localhost", "Localhost"):
        status, body = raw_request(url, head, request, host=f"{name}:{port}")
        assert status == 200 and b"choices" in body


def test_a_web_pages_request_is_refused_unless_allowed(recorded, serve) -> None:
    request = (recorded["ok"] / "1-request.openai.json").read_bytes()
    head = "POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nOrigin: "
    url, _ = serve(recorded["ok"])
    status, body = raw_request(url, head + "https://evil.example", request)
    assert status == 403 and b"--allow-origin" in body
    url, _ = serve(recorded["ok"], origins=["http://localhost:3000"])
    assert raw_request(url, head + "http://localhost:3000", request)[0] == 200
    assert raw_request(url, head + "https://evil.example", request)[0] == 403


def test_fc_serve_takes_allow_origin_on_its_command_line(fc, recorded) -> None:
    """The flag is there (the server itself is the test above's): a trace that does not load
    stops before serving, after the options were read."""
    result = fc("serve", "missing", "--allow-origin", "http://localhost:3000")
    assert result.returncode == 2 and "no such option" not in result.stderr.lower()


def test_the_guard_is_checked_before_the_body_is_read(recorded, serve) -> None:
    """A refused request is answered at once, its body never waited for."""
    url, _ = serve(recorded["ok"])
    port = url.rsplit(":", 1)[1]
    done = threading.Event()
    started = time.monotonic()

    def ask() -> None:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:
            s.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: evil\r\nContent-Length: 999\r\n\r\n"
            )
            assert b" 421 " in s.recv(1024)
        done.set()

    threading.Thread(target=ask, daemon=True).start()
    assert done.wait(5)
    assert time.monotonic() - started < 5


# one heavy request does not hold up the others


def test_a_heavy_request_does_not_hold_up_another_client(
    recorded, serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading and matching a large body takes seconds (10 MB of 300,000 blocks: ~1 s): in a
    thread, while another client's request is answered at once. The heavy one is held in its
    reading until the light one has its answer: read on the event loop, it would hold the light
    one up until the hold gives out."""
    url, _ = serve(recorded["ok"])
    blocks = [{"type": "text", "text": f"x{i}"} for i in range(300)]
    heavy = json.dumps({"model": "m", "messages": [{"role": "user", "content": blocks}] * 10})
    reading, answered = threading.Event(), threading.Event()
    find = Player._find

    def held(self: Player, raw: bytes, *rest: Any) -> Any:
        if len(raw) == len(heavy):
            reading.set()
            answered.wait(10)
        return find(self, raw, *rest)

    monkeypatch.setattr(Player, "_find", held)
    ended: dict[str, float] = {}

    def ask_heavy() -> None:
        local_http.post(url + "/v1/chat/completions", content=heavy, timeout=120)
        ended["heavy"] = time.monotonic()

    thread = threading.Thread(target=ask_heavy)
    thread.start()
    assert reading.wait(10)  # the heavy one is being read
    started = time.monotonic()
    light = (recorded["ok"] / "1-request.openai.json").read_bytes()
    answer = local_http.post(url + "/v1/chat/completions", content=light, timeout=120)
    ended["light"] = time.monotonic()
    answered.set()
    thread.join()
    assert answer.status_code == 200
    assert ended["light"] - started < 1.0
    assert ended["light"] < ended["heavy"]


def test_a_history_far_longer_than_any_recorded_is_refused_unmatched(recorded, serve) -> None:
    url, _ = serve(recorded["ok"])
    many = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}] * 5000})
    answer = local_http.post(url + "/v1/chat/completions", content=many, timeout=60)
    assert answer.status_code == 400
    assert "5,000 messages, far more than any recorded step" in answer.json()["error"]["message"]
