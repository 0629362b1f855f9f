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
