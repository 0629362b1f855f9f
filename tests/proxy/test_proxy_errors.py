"""`fc proxy` and bad input: a clear answer, never a traceback. Unknown `--to`, a port in use,
an upstream that is down (502 in the provider's shape), a client gone mid-stream, a body that is
not JSON, paths it does not record, the checks before forwarding, Ctrl-C."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider
from tests.support.proxy_harness import load, proxy, wire_tools

BEARER = {"Authorization": f"Bearer {DEFAULT_KEY}"}
ASK = {
    "model": "gpt-4.1-mini",
    "messages": [{"role": "user", "content": "杭州今天适合跑步吗？"}],
    "tools": wire_tools("openai"),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unknown_to_is_a_usage_error(fc) -> None:
    result = fc("proxy", "--to", "nowhere")
    assert result.returncode == 2
    assert "unknown --to 'nowhere'" in result.stderr and "deepseek" in result.stderr
    assert fc("proxy", "--to", "ftp://x").returncode == 2


def test_a_port_in_use_is_one_line(fc) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = fc("proxy", "--to", "openai", "--port", str(port))
    assert result.returncode == 2
    assert f"port {port} on 127.0.0.1 is in use" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 2


@pytest.mark.parametrize(
    ("path", "shape"),
    [
        ("/v1/chat/completions", {"error": {"type": "server_error", "param": None, "code": None}}),
        ("/v1/messages", {"type": "error", "error": {"type": "api_error"}}),
    ],
)
def test_an_upstream_that_is_down_gets_a_502_in_the_providers_shape(
    tmp_path: Path, path: str, shape: dict[str, Any]
) -> None:
    down = f"http://127.0.0.1:{_free_port()}"
    with proxy(tmp_path / "px", down) as px:
        ask = ASK if "chat" in path else {**ASK, "tools": wire_tools("anthropic"), "max_tokens": 9}
        answer = local_http.post(px.url + path, json=ask, headers=BEARER)
    assert answer.status_code == 502
    body = answer.json()
    for key, value in shape.items():
        if isinstance(value, dict):
            assert {k: body[key][k] for k in value} == value
        else:
            assert body[key] == value
    message = body["error"]["message"]
    assert message.startswith(f"fc proxy: cannot reach {down}: no connection")
    assert "is it running" in message
    assert "→ 502" in px.printed and "cannot reach" in px.printed
    (trace,) = px.traces()  # the request is on record, and why it got no answer
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "error" and manifest["error"]["http_status"] == 502


def test_a_client_gone_mid_stream_leaves_what_came_and_status_interrupted(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        server.stream_pause = 5.0
        with local_http.stream(
            "POST", px.url + "/v1/chat/completions", json={**ASK, "stream": True}, headers=BEARER
        ) as answer:
            pieces = answer.iter_raw()  # kept: dropped, it would close the connection now
            first = next(pieces)  # a piece came through while the upstream stalls
            assert server.stalled.wait(15)
            pieces.close()
        # the client is gone; the proxy sees it while the upstream is still silent
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            traces = px.traces()
            if traces and load(traces[0] / "manifest.json")["status"] != "running":
                break
            time.sleep(0.05)
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "interrupted"
    assert "client disconnected" in manifest["error"]["message"]
    kept = (trace / "1-response.openai.sse").read_bytes()
    assert kept.startswith(first[:20]) and kept
    assert "client disconnected" in px.printed


def test_a_bug_while_passing_the_answer_on_ends_its_step_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not left open until fc proxy stops (which would then blame the stop); the error's text
    has the key masked, as every line the journal writes."""
    from fccli.proxy import app

    async def failing(relay: Any) -> str:
        await relay.send({"type": "http.response.start", "status": 200, "headers": []})
        raise RuntimeError(f"boom near {DEFAULT_KEY}")

    monkeypatch.setattr(app._Relay, "_relay", failing)
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        with pytest.raises(httpx.HTTPError):  # the answer had begun: the connection is dropped
            local_http.post(px.url + "/v1/chat/completions", json=ASK, headers=BEARER, timeout=10)
        (trace,) = px.traces()
        manifest = load(trace / "manifest.json")
    assert manifest["status"] == "interrupted"
    assert manifest["error"]["message"] == (
        "step 1: fc proxy failed while passing the answer on: RuntimeError: boom near ***"
    )
    assert DEFAULT_KEY not in json.dumps(manifest) and DEFAULT_KEY not in px.printed


def test_the_upstream_gets_the_clients_headers_as_they_were(tmp_path: Path) -> None:
    import http.client

    def send(port: int) -> None:  # a bare client: no Accept-Encoding, no User-Agent
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        body = json.dumps(ASK).encode()
        connection.putrequest("POST", "/v1/chat/completions", skip_accept_encoding=True)
        for name, value in [*BEARER.items(), ("Content-Type", "application/json")]:
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        assert connection.getresponse().status == 200
        connection.close()

    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        send(server.port)
        send(int(px.url.rsplit(":", 1)[1]))
    direct, proxied = (dict(r.headers) for r in server.received[-2:])
    assert proxied == direct  # the Host too: the upstream's own
    assert "accept-encoding" not in proxied and "user-agent" not in proxied


def test_a_body_that_is_not_json_is_forwarded_and_said(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        answer = local_http.post(
            px.url + "/v1/chat/completions", content=b"{not json", headers=BEARER
        )
        assert server.received[-1].body == b"{not json"  # forwarded as it came
    assert answer.status_code == 400  # the provider's own answer to it
    assert "its body is not JSON" in px.printed and "forwarded, not recorded" in px.printed
    assert px.traces() == []


def test_paths_it_does_not_know_are_forwarded_not_recorded(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        answer = local_http.get(px.url + "/v1/models?limit=2", headers=BEARER)
        assert server.received[-1].path == "/v1/models?limit=2"
    assert answer.status_code == 404  # the fake's own answer, passed on
    assert "GET /v1/models → 404: forwarded, not recorded (not a model request)" in px.printed
    assert px.traces() == []


def test_a_body_above_the_limit_is_forwarded_not_recorded(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url, max_record_bytes=100) as px:
        answer = local_http.post(px.url + "/v1/chat/completions", json=ASK, headers=BEARER)
    assert answer.status_code == 200
    assert "above the limit of 100" in px.printed
    assert px.traces() == []


def test_an_answer_above_the_limit_is_forwarded_whole_not_held_nor_recorded(
    tmp_path: Path,
) -> None:
    # hostile pass: a huge answer was held whole in memory (and written three times), whatever
    # --max-record-mb said; now it passes through and the step says why it was not kept
    with FakeProvider() as server, proxy(tmp_path / "px", server.url, max_record_bytes=2000) as px:
        server.fragment_size = 1  # a stream of ~4,800 bytes for a request of ~650
        answer = local_http.post(
            px.url + "/v1/chat/completions", json={**ASK, "stream": True}, headers=BEARER
        )
    assert answer.status_code == 200 and len(answer.content) > 2000  # the client got it all
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "error"
    assert "forwarded, not recorded: above 2,000 bytes" in manifest["error"]["message"]
    assert "forwarded, not recorded: above 2,000 bytes" in px.printed
    assert not list(trace.glob("1-response*"))


def test_a_trace_that_cannot_be_written_is_one_clean_line(tmp_path: Path) -> None:
    # hostile pass: the line read "POST : forwarded, not recorded (...)"
    (tmp_path / "afile").write_text("")
    with FakeProvider() as server, proxy(tmp_path / "afile" / "px", server.url) as px:
        answer = local_http.post(px.url + "/v1/chat/completions", json=ASK, headers=BEARER)
    assert answer.status_code == 200
    assert "POST: forwarded, not recorded (the trace cannot be written" in px.printed
    assert "POST :" not in px.printed


def _deepseek_history_without_reasoning(server: FakeProvider) -> dict[str, Any]:
    """A DeepSeek thinking-mode step 2 whose assistant turn lost its reasoning_content."""
    ask = {**ASK, "model": "deepseek-flash"}
    first = local_http.post(server.url + "/chat/completions", json=ask, headers=BEARER).json()
    turn = dict(first["choices"][0]["message"])
    assert turn.pop("reasoning_content")
    results = [
        {"role": "tool", "tool_call_id": c["id"], "content": '{"temp_c": 20}'}
        for c in turn["tool_calls"]
    ]
    return {**ask, "messages": [*ask["messages"], turn, *results]}


def test_fc_check_warns_before_forwarding(tmp_path: Path) -> None:
    with FakeProvider() as server:
        step2 = _deepseek_history_without_reasoning(server)
        with proxy(tmp_path / "px", "deepseek", base_url=server.url) as px:
            answer = local_http.post(px.url + "/chat/completions", json=step2, headers=BEARER)
    assert answer.status_code == 400  # forwarded: DeepSeek (the fake) refuses it
    assert "reasoning_content" in answer.json()["error"]["message"]
    assert "fc check: FC112 error" in px.printed
    (trace,) = px.traces()
    checks = load(trace / "manifest.json")["steps"][0]["checks"]
    assert checks[0].startswith("FC112 error at $.messages[1]")
    assert "DeepSeek answers HTTP 400" in checks[0]


def test_strict_check_answers_400_in_the_providers_shape_and_forwards_nothing(
    tmp_path: Path,
) -> None:
    with FakeProvider() as server:
        step2 = _deepseek_history_without_reasoning(server)
        sent = len(server.received)
        with proxy(tmp_path / "px", "deepseek", base_url=server.url, strict_check=True) as px:
            answer = local_http.post(px.url + "/chat/completions", json=step2, headers=BEARER)
        assert len(server.received) == sent
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("fc proxy --strict-check: not forwarded: FC112")
    (trace,) = px.traces()
    assert load(trace / "manifest.json")["status"] == "error"


def test_stopping_closes_open_traces_as_interrupted(tmp_path: Path) -> None:
    with FakeProvider() as server, proxy(tmp_path / "px", server.url) as px:
        answer = local_http.post(px.url + "/v1/chat/completions", json=ASK, headers=BEARER)
        assert answer.json()["choices"][0]["finish_reason"] == "tool_calls"
        (trace,) = px.traces()
        assert load(trace / "manifest.json")["status"] == "running"  # waiting for step 2
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "interrupted"
    assert "1 open trace(s) closed as interrupted" in px.printed
    assert not (trace / ".fc-writing").exists()


def _fc_proxy(tmp_path: Path, to: str, *more: str) -> tuple[subprocess.Popen[str], str]:
    """`fc proxy` as a process of its own (in a process group of its own, as a shell runs
    it), and its banner's first line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "fccli", "proxy", "--to", to, "--port", "0", "--out", "px", *more],
        cwd=tmp_path,
        env=clean_env(PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    return process, process.stdout.readline() if process.stdout else ""


def _journal_of(process: subprocess.Popen[str]) -> int:
    """The pid of fc proxy's journal: its one child (Linux's /proc)."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text()
    (journal,) = [int(pid) for pid in children.split()]
    return journal


def _held(pid: int) -> tuple[list[str], str, bytes]:
    """A process's arguments, its memory map (the libraries it loaded) and its environment."""
    proc = Path(f"/proc/{pid}")
    arguments = (proc / "cmdline").read_bytes().decode().split("\0")[:-1]
    return arguments, (proc / "maps").read_text(), (proc / "environ").read_bytes()


def _recorded(out: Path, most: float = 60.0) -> None:
    """Wait until the journal has written the one trace's first step (it records beside the
    forwarding: a moment after the answer, longer on a busy machine)."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        manifests = list(out.glob("*/manifest.json"))
        if manifests and json.loads(manifests[0].read_text("utf-8")).get("steps"):
            return
        time.sleep(0.02)
    raise AssertionError(f"no step recorded under {out} in {most:.0f} s")


def _ctrl_c(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Ctrl-C as the terminal sends it (to the process group); what fc proxy printed after its
    banner, on stdout and stderr."""
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=20)
    # read through the file objects: readline() may have read ahead of its line
    out = process.stdout.read() if process.stdout else ""
    err = process.stderr.read() if process.stderr else ""
    return out, err


def test_ctrl_c_ends_the_process_with_130_and_interrupted_traces(tmp_path: Path) -> None:
    """The journal runs in a child process: the terminal's Ctrl-C (sent to the whole process
    group) stops the proxy, which has the journal close the open traces."""
    with FakeProvider() as server:
        process, banner = _fc_proxy(tmp_path, server.url, "--host", "0.0.0.0")
        try:
            port = int(banner.split("http://0.0.0.0:", 1)[1].split()[0])
            answer = local_http.post(
                f"http://127.0.0.1:{port}/v1/chat/completions", json=ASK, headers=BEARER
            )
            assert answer.status_code == 200
            _recorded(tmp_path / "px")  # the journal has loaded what recording needs
            proxys, journals = _held(process.pid), _held(_journal_of(process))
            out, err = _ctrl_c(process)
        finally:
            if process.poll() is None:
                process.kill()
    # `fc proxy` became its lean process (the same pid), its options not in its arguments; the
    # journal's process holds the models (what the lean process imports: test_proxy_child.py)
    assert proxys[0] == [sys.executable, "-m", "fccli.commands.proxy_lean"]
    assert "_pydantic_core" in journals[1]
    assert b"FC_PROXY_OPTIONS" not in journals[2]
    assert process.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    out = banner + out
    assert "export OPENAI_BASE_URL=http://0.0.0.0:" in out
    assert "anyone who can reach it" in out
    (trace,) = (tmp_path / "px").iterdir()
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    assert manifest["status"] == "interrupted"
    assert os.listdir(trace)  # the step that came is kept
    assert (trace / "1-response.openai.json").exists()
    assert "1 open trace(s) closed as interrupted" in out  # said once, by the journal
    written = b"".join(p.read_bytes() for p in trace.iterdir() if p.is_file())
    assert DEFAULT_KEY.encode() not in written


def test_a_proxy_killed_outright_still_leaves_its_traces_closed(tmp_path: Path) -> None:
    """SIGKILL gives the proxy no time to stop: its journal sees the end of its pipe, and
    closes the open traces as interrupted on its own."""
    with FakeProvider() as server:
        process, banner = _fc_proxy(tmp_path, server.url)
        try:
            port = int(banner.split("http://127.0.0.1:", 1)[1].split()[0])
            answer = local_http.post(
                f"http://127.0.0.1:{port}/v1/chat/completions", json=ASK, headers=BEARER
            )
            assert answer.status_code == 200
            process.kill()
            process.wait(timeout=20)
            # the journal's output goes to the same pipe: its end means the journal has ended
            out = process.stdout.read() if process.stdout else ""
        finally:
            if process.poll() is None:
                process.kill()
    (trace,) = (tmp_path / "px").iterdir()
    assert load(trace / "manifest.json")["status"] == "interrupted"
    assert "1 open trace(s) closed as interrupted" in out


def test_stopping_mid_stream_keeps_what_came_as_interrupted(tmp_path: Path) -> None:
    with FakeProvider() as server:
        server.stream_pause = 10.0
        with proxy(tmp_path / "px", server.url, grace=0.1) as px:
            client = httpx.Client()
            answer = client.send(
                client.build_request(
                    "POST",
                    px.url + "/v1/chat/completions",
                    json={**ASK, "stream": True},
                    headers=BEARER,
                ),
                stream=True,
            )
            # kept: a generator dropped would close the connection (a client gone, not a stop)
            pieces = answer.iter_raw()
            first = next(pieces)  # a piece came through while the upstream stalls
            assert server.stalled.wait(15)
        pieces.close()
        answer.close()
        client.close()
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "interrupted"
    assert manifest["error"]["message"] == "step 1: fc proxy stopped before the answer ended"
    assert (trace / "1-response.openai.sse").read_bytes().startswith(first)
    assert "fc proxy stopped before the answer ended" in px.printed


@pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="finds the journal in Linux's /proc"
)
def test_a_journal_that_died_is_said_once_and_requests_still_go_through(tmp_path: Path) -> None:
    with FakeProvider() as server:
        process, banner = _fc_proxy(tmp_path, server.url)
        try:
            port = int(banner.split("http://127.0.0.1:", 1)[1].split()[0])
            journal = _journal_of(process)
            os.kill(journal, signal.SIGKILL)
            for _ in range(2):
                answer = local_http.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions", json=ASK, headers=BEARER
                )
                assert answer.json()["choices"][0]["finish_reason"] == "tool_calls"
            out, err = _ctrl_c(process)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in out + err
    assert out.count("its journal process ended") == 1, out
    assert "requests are still forwarded, no longer recorded" in out


@pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="finds the journal in Linux's /proc"
)
def test_ctrl_c_again_while_the_journal_catches_up_stops_at_once(tmp_path: Path) -> None:
    """What a burst left can take the journal a while to write: stopping says it waits, and a
    second Ctrl-C ends the wait (and the journal) at once, saying steps may be missing. The
    journal is paused here, so that it is still busy whatever this machine's speed."""
    with FakeProvider() as server:
        process, banner = _fc_proxy(tmp_path, server.url)
        try:
            port = int(banner.split("http://127.0.0.1:", 1)[1].split()[0])
            journal = _journal_of(process)
            answer = local_http.post(
                f"http://127.0.0.1:{port}/v1/chat/completions", json=ASK, headers=BEARER
            )
            assert answer.status_code == 200
            os.kill(journal, signal.SIGSTOP)
            os.killpg(process.pid, signal.SIGINT)
            assert process.stdout is not None
            said = ""
            while "writing the traces still queued" not in said:
                line = process.stdout.readline()
                assert line, said
                said += line
            assert "Ctrl-C again stops now" in said
            os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=20)  # not the 120 s the wait would allow
            out = said + process.stdout.read()
            err = process.stderr.read() if process.stderr else ""
        finally:
            if process.poll() is None:
                process.kill()
            with contextlib.suppress(OSError):
                os.kill(journal, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "Traceback" not in out + err
    assert "the last steps may be missing" in out


def test_a_fact_handed_to_the_journal_after_it_closed_is_dropped(tmp_path: Path) -> None:
    """A request task that swallowed its cancellation (its client left as fc proxy stopped) may
    end after the journal was closed: its fact must not go to the closed pipe's descriptor
    (another file may have its number by then), nor be said as a journal that died."""
    import asyncio

    from fccli.proxy.facts import Notice
    from fccli.proxy.journal import BATCH_SECONDS, ChildJournal
    from fccli.proxy.settings import Settings
    from fccli.proxy.target import resolve

    lost: list[str] = []

    async def stop_then_hand_a_fact() -> None:
        journal = ChildJournal(
            resolve("http://127.0.0.1:9"), Settings(out=tmp_path), lambda: lost.append("lost")
        )
        assert journal.close()
        journal(Notice("passed", "GET", "/v1/models", 200, "not a model request"))
        await asyncio.sleep(BATCH_SECONDS * 2)  # the batch's turn comes before this one's

    asyncio.run(stop_then_hand_a_fact())
    assert lost == []


def test_stopping_before_the_upstream_answered_ends_that_step_as_interrupted(
    tmp_path: Path,
) -> None:
    """A request still waiting for the upstream's first byte at Ctrl-C (the usual state of a
    request that does not stream) ends its step, said as the stop, like a stream cut short."""
    import threading

    with FakeProvider() as server:
        server.script = [{"delay": 3}]
        with proxy(tmp_path / "px", server.url, grace=0.1) as px:
            asking = threading.Thread(
                target=lambda: local_http.post(
                    px.url + "/v1/chat/completions", json=ASK, headers=BEARER, timeout=10
                ),
                daemon=True,
            )
            asking.start()
            deadline = time.monotonic() + 10
            while not px.traces() and time.monotonic() < deadline:
                time.sleep(0.05)  # the journal opened the trace: the request went upstream
        asking.join(10)
    (trace,) = px.traces()
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "interrupted"
    assert manifest["error"]["message"] == "step 1: fc proxy stopped before the answer ended"
    assert "fc proxy stopped before the answer ended" in px.printed
