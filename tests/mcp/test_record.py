"""`fc mcp record -- COMMAND` between the SDK's own stdio client and the demo server (built on
the SDK's server): the client gets what the server sent, the trace holds every message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import clean_env

pytest.importorskip("mcp")


def test_the_sdk_client_through_fc_mcp_record_sees_the_server_and_the_trace_keeps_it(
    fc, tmp_path: Path
) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    trace = tmp_path / "rec"
    argv = ["-m", "fccli", "mcp", "record", "-o", str(trace), "--"]
    server = StdioServerParameters(
        command=sys.executable,
        args=[*argv, sys.executable, "-m", "fccli", "mcp", "demo"],
        env=clean_env(),
        cwd=str(tmp_path),
    )

    async def client() -> tuple[object, object, object]:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            called = await session.call_tool("get_weather", {"city": "杭州"})
            return init, listed, called

    init, listed, called = anyio.run(client)
    lines = [
        json.loads(line) for line in (trace / "mcp-fc-demo.jsonl").read_text("utf-8").splitlines()
    ]
    received = [e["message"] for e in lines if e.get("dir") == "received"]
    sent = [e["message"] for e in lines if e.get("dir") == "sent"]
    assert [m.get("method") for m in sent] == [
        "initialize", "notifications/initialized", "tools/list", "tools/call"
    ]  # fmt: skip
    dump = {"mode": "json", "by_alias": True, "exclude_unset": True}
    # What the client read is what the server wrote, message by message.
    assert received[0]["result"] == init.model_dump(**dump)  # type: ignore[attr-defined]
    assert received[1]["result"]["tools"] == listed.model_dump(**dump)["tools"]  # type: ignore[attr-defined]
    assert received[2]["result"] == called.model_dump(**dump)  # type: ignore[attr-defined]
    assert {"event": "exit", "code": 0}.items() <= lines[-1].items()
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    assert manifest["recorded_by"] == "fc mcp record" and manifest["status"] == "ok"
    (record,) = manifest["mcp_servers"]
    assert record["server_info"]["name"] == "fc-demo" and record["protocol_version"] == "2025-11-25"
    assert record["tools"] == ["get_weather", "get_alerts"]
    shown = fc("show", str(trace))
    assert shown.returncode == 0, shown.stderr
    assert '→ tools/call get_weather {"city": "杭州"} (id 3)' in shown.stdout
    assert "← result isError false (id 3)" in shown.stdout
    assert fc("check", str(trace)).returncode == 0


def test_record_without_a_command_says_how(fc) -> None:
    result = fc("mcp", "record")
    assert result.returncode == 2 and "fc mcp record -- " in result.stderr


def test_record_to_an_http_server_relays_the_sdk_client_and_keeps_the_traffic(
    tmp_path: Path, mcp_http: str
) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from fccli.mcp.record_http import HttpRecording
    from fccli.serve.launch import InThread, bind

    recording = HttpRecording(mcp_http, tmp_path / "rec", force=False)
    relay = InThread(recording.app, bind("127.0.0.1", 0)).start()

    async def client() -> tuple[object, object]:
        async with (
            streamable_http_client(relay.url + "/mcp") as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            called = await session.call_tool("get_weather", {"city": "杭州"})
            failed = await session.call_tool("get_alerts", {"city": "杭州"})
            return called, failed

    try:
        called, failed = anyio.run(client)
    finally:
        relay.stop()
        recording.close()
    trace = tmp_path / "rec"
    (file,) = trace.glob("mcp-127-0-0-1-*.jsonl")  # named after the server's host and port
    log = [json.loads(line) for line in file.read_text("utf-8").splitlines()]
    received = {e["message"].get("id"): e["message"] for e in log if e["dir"] == "received"}
    sent = [e["message"] for e in log if e["dir"] == "sent"]
    # (the SDK's client lists the tools itself around its first call: their output schemas)
    assert sorted(m["method"] for m in sent) == [
        "initialize", "notifications/initialized", "tools/call", "tools/call", "tools/list"
    ]  # fmt: skip
    first, second = (received[m["id"]] for m in sent if m["method"] == "tools/call")
    dump = {"mode": "json", "by_alias": True, "exclude_unset": True}
    assert first["result"] == called.model_dump(**dump)  # type: ignore[attr-defined]
    assert second["result"]["isError"] is True and failed.is_error is True  # type: ignore[attr-defined]
    (record,) = json.loads((trace / "manifest.json").read_text("utf-8"))["mcp_servers"]
    assert record["server_info"]["name"] == "weather-http" and record["session_id"]
    assert record["transport"] == "streamable-http"


RECORD = [sys.executable, "-m", "fccli", "mcp", "record", "-o"]
RUN = [sys.executable, "-m", "fccli", "run"]
ECHOING_SERVER = """
import os, sys
for line in sys.stdin:
    print('{"jsonrpc": "2.0", "id": 1, "result": {"key": "%s"}}' % os.environ["DEEPSEEK_API_KEY"])
    sys.stdout.flush()
"""


def test_a_server_that_echoes_a_key_from_the_environment_is_recorded_masked(
    tmp_path: Path,
) -> None:
    import subprocess

    key = "sk-test-echoed-0123456789abcdef"
    server = tmp_path / "echo.py"
    server.write_text(ECHOING_SERVER, encoding="utf-8")
    request = '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}\n'
    done = subprocess.run(
        [*RECORD, str(tmp_path / "rec"), "--", sys.executable, str(server)],
        input=request,
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_env(DEEPSEEK_API_KEY=key),
    )
    assert done.returncode == 0, done.stderr
    assert key in done.stdout  # the client gets what the server sent, unchanged
    written = b"".join(p.read_bytes() for p in (tmp_path / "rec").rglob("*") if p.is_file())
    assert written
    assert key.encode() not in written and key[-12:].encode() not in written


def test_a_server_that_writes_json_with_blanks_is_named_by_its_initialize_answer(
    fc, tmp_path: Path
) -> None:
    misbehaving = Path(__file__).resolve().parent.parent / "support" / "mcp_misbehaving.py"
    request = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'
    ran = fc("mcp", "record", "-o", "rec", "--", sys.executable, str(misbehaving), "hang",
             input=request)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    (server,) = json.loads((tmp_path / "rec" / "manifest.json").read_text("utf-8"))["mcp_servers"]
    assert server["name"] == "bad-hang" and server["protocol_version"] == "2025-11-25"
    assert server["server_info"] == {"name": "bad-hang", "version": "1"}


def test_sigterm_while_an_mcp_server_starts_ends_fc_with_143_and_stops_the_server(
    tmp_path: Path,
) -> None:
    import signal
    import subprocess
    import time

    run = subprocess.Popen(
        [*RUN, "北京今天适合跑步吗？", "--mcp", "fc mcp demo", "-o", str(tmp_path / "t")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
        start_new_session=True,
    )
    children = ""
    deadline = time.monotonic() + 20
    while not children and time.monotonic() < deadline:  # the server started, not yet listed
        time.sleep(0.05)
        children = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(run.pid)], capture_output=True, text=True
        ).stdout.strip()
    assert children, "fc never started the server"
    run.send_signal(signal.SIGTERM)
    try:
        _, stderr = run.communicate(timeout=20)
    finally:
        run.kill()
    assert run.returncode == 143, stderr
    assert "Traceback" not in stderr and "SIGTERM" in stderr
    time.sleep(0.2)
    for child in children.split():
        state = subprocess.run(["ps", "-o", "stat=", "-p", child], capture_output=True, text=True)
        assert state.stdout.strip() in ("", "Z"), f"the server {child} is still running"


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_a_record_stopped_by_a_signal_keeps_every_message_that_passed(
    tmp_path: Path, stop: str
) -> None:
    import contextlib
    import os
    import signal
    import subprocess

    record = subprocess.Popen(
        [*RECORD, str(tmp_path / "rec"), "--", sys.executable, "-m", "fccli", "mcp", "demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
        start_new_session=True,
    )
    assert record.stdin is not None and record.stdout is not None
    try:
        asked = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ]  # fmt: skip
        for message in asked:
            record.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            record.stdin.flush()
            if "id" in message:
                assert json.loads(record.stdout.readline())["id"] == message["id"]
        record.send_signal(getattr(signal, stop))  # the client still connected, the server up
        _, stderr = record.communicate(timeout=20)
    finally:
        with contextlib.suppress(ProcessLookupError):  # fc and the server it started
            os.killpg(record.pid, signal.SIGKILL)
    assert record.returncode == (143 if stop == "SIGTERM" else -signal.SIGKILL), stderr
    log = (tmp_path / "rec" / "mcp-fc-demo.jsonl").read_text("utf-8").splitlines()
    passed = [(e["dir"], e["message"].get("id")) for e in map(json.loads, log) if "dir" in e]
    assert passed == [("sent", 1), ("received", 1), ("sent", None), ("sent", 2), ("received", 2)]
