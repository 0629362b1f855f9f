"""`fc run --mcp`: real MCP servers written with the official SDK (streamable HTTP in a thread,
the demo over stdio) and hand-written ones that misbehave, against the fake provider in every
wire format; the trace holds their JSON-RPC, paired with the calls by id."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

pytest.importorskip("mcp")

MISBEHAVING = Path(__file__).resolve().parent.parent / "support" / "mcp_misbehaving.py"
QUESTION = "北京、上海今天适合跑步吗？"

# format: (the options that reach it, its key variable)
FORMATS = {
    "deepseek": (["-p", "deepseek"], "DEEPSEEK_API_KEY"),
    "anthropic": (["-p", "anthropic"], "ANTHROPIC_API_KEY"),
    "responses": (["-p", "openai", "--api", "responses"], "OPENAI_API_KEY"),
    "gemini": (["-p", "gemini"], "GEMINI_API_KEY"),
}


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def manifest(trace: Path) -> dict[str, Any]:
    return json.loads((trace / "manifest.json").read_text(encoding="utf-8"))


def clean(result: Any) -> None:
    assert "Traceback" not in result.stderr + result.stdout


# Every format with the SDK's server over streamable HTTP; one of them over stdio as well (the
# demo server, built on the SDK's MCPServer: a process of its own, so only once).
SERVED = [(fmt, "streamable-http") for fmt in FORMATS] + [("anthropic", "stdio")]
DEMO = f"{sys.executable} -m fccli mcp demo"
HTTP_TOOLS = ["get_weather", "get_alerts", "snapshot", "halves"]


@pytest.mark.parametrize(("fmt", "transport"), SERVED, ids=[f"{f}-{t}" for f, t in SERVED])
def test_every_format_offers_the_servers_tools_and_keeps_their_json_rpc(
    fc, tmp_path: Path, mcp_http: str, provider: FakeProvider, fmt: str, transport: str
) -> None:
    options, key = FORMATS[fmt]
    http = transport == "streamable-http"
    given, name = (mcp_http, "weather-http") if http else (DEMO, "fc-demo")
    result = fc(
        "run", QUESTION, *options, "--base-url", provider.url, "--mcp", given, "-o", "t",
        env=clean_env(**{key: DEFAULT_KEY}),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    clean(result)
    assert f"MCP server {name} ({transport}, protocol 2025-11-25) offers" in result.stdout
    trace = tmp_path / "t"
    record = manifest(trace)
    (server,) = record["mcp_servers"]
    tools = HTTP_TOOLS if http else ["get_weather", "get_alerts"]
    assert record["options"]["tools"] == "none"  # the servers' tools took the weather set's place
    assert record["options"]["tools_offered"] == tools
    assert server["name"] == name and server["transport"] == transport
    assert server["protocol_version"] and server["server_info"]["name"] == name
    assert bool(server["session_id"]) is http and server["tools"] == tools
    assert server["server"] == given and (server["stderr"] is None) is http
    log = lines(trace / server["log"])
    methods = [entry["message"].get("method") for entry in log if entry.get("dir") == "sent"]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert methods[3:] == ["tools/call", "tools/call"]  # one per city, both of step 1
    listed = next(
        e["message"]["result"]["tools"]
        for e in log
        if e.get("id") == 2 and e.get("dir") == "received"
    )
    # The tools as the provider's format offers them: made from the servers' inputSchema.
    sent = (trace / f"1-request.{fmt}.json").read_text(encoding="utf-8")
    assert all(tool["name"] in sent for tool in listed)
    runs = record["steps"][0]["tool_runs"]
    assert len(runs) == 2
    for run in runs:
        assert run["is_error"] is False and run["mcp"]["server"] == name
        request = next(e for e in log if e.get("dir") == "sent" and e["call"] == run["id"])
        answer = next(e for e in log if e.get("dir") == "received" and e["call"] == run["id"])
        assert request["step"] == answer["step"] == 1
        assert request["id"] == answer["id"] == run["mcp"]["request_id"]
        assert request["message"]["params"] == {
            "name": "get_weather",
            "arguments": run["arguments"],
        }
        assert answer["message"]["result"]["structuredContent"]["temp_c"] is not None
        assert run["mcp"]["structured_content"] is True
    if not http:
        assert {"event": "exit", "code": 0}.items() <= log[-1].items()
        assert (trace / server["stderr"]).is_file()
    # The results went back to the model, in the next request.
    second = (trace / f"2-request.{fmt}.json").read_text(encoding="utf-8")
    assert "temp_c" in second


@pytest.mark.parametrize(
    ("mode", "kind", "said"),
    [
        ("crash", "server_gone", "its MCP server has gone"),
        ("hang", "tool_timeout", "tool-timeout"),
        ("garbage", None, None),
        ("invalid", "mcp_error", "not a JSON-RPC message"),
        ("huge", "mcp_error", "--max-response-mb"),
        ("deep", "mcp_error", "not a JSON-RPC message"),  # not "the server has gone"
    ],
)
def test_a_misbehaving_server_gives_an_error_result_and_the_trace_keeps_it(
    fc, tmp_path: Path, mode: str, kind: str | None, said: str | None
) -> None:
    result = fc(
        "run", "杭州今天适合跑步吗？", "--mcp", f"{sys.executable} {MISBEHAVING} {mode}",
        "--tool-timeout", "0.5", "--max-response-mb", "1", "-o", "t",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    clean(result)
    trace = tmp_path / "t"
    record = manifest(trace)
    assert record["status"] == "ok"
    (run,) = record["steps"][0]["tool_runs"]
    assert run["error_kind"] == kind
    if said is not None:
        assert said in run["error"]
    log = lines(trace / f"mcp-bad-{mode}.jsonl")
    stderr = (trace / f"mcp-bad-{mode}.stderr").read_text(encoding="utf-8")
    assert f"tools/call in mode {mode}" in stderr  # kept, not printed over the run view
    assert "tools/call in mode" not in result.stderr
    if mode == "crash":
        assert {"event": "exit", "code": 1}.items() <= log[-1].items()
    if mode == "garbage":
        assert any(e.get("raw") == "Loading weather model... done" for e in log)
    if mode == "invalid":
        assert any(e.get("dir") == "received" and "oops" in e.get("raw", "") for e in log)
    if mode == "huge":
        assert any(e.get("event") == "line_cut" and e["bytes"] > 2_000_000 for e in log)


def test_a_token_the_server_echoes_is_masked_in_what_the_model_is_handed(
    fc, tmp_path: Path
) -> None:
    token = "ghp_0123456789abcdefABCDEF0123456789abcd"
    given = f"{sys.executable} {MISBEHAVING} echo --token {token}"
    result = fc("run", "杭州今天适合跑步吗？", "--mcp", given, "-o", "t")
    assert result.returncode == 0, result.stderr
    assert token not in result.stdout + result.stderr
    handed = json.loads((tmp_path / "t" / "2-request.json").read_text("utf-8"))["messages"]
    assert handed[-1]["content"][0]["content"] == "***\n***"  # the escaped one, the raw one
    for file in (tmp_path / "t").iterdir():
        assert token.encode() not in file.read_bytes(), file.name


def test_two_servers_sharing_a_tool_name_are_refused_naming_both(fc, mcp_http: str) -> None:
    result = fc("run", "杭州？", "--mcp", mcp_http, "--mcp", mcp_http, "-o", "t")
    assert result.returncode == 2
    clean(result)
    first = next(line for line in result.stderr.splitlines() if "waiting for" not in line)
    assert "'get_weather'" in first and "weather-http" in first and "weather-http-2" in first


def test_a_server_that_never_answers_is_said_at_once_and_waited_on_no_longer_than_asked(
    fc,
) -> None:
    silent = f"{sys.executable} {MISBEHAVING} silent"
    started = time.monotonic()
    result = fc("run", "杭州？", "--mcp", silent, "--mcp-timeout", "0.3", "-o", "t")
    assert time.monotonic() - started < 10
    assert result.returncode == 3
    clean(result)
    waiting, error = result.stderr.splitlines()
    assert waiting.startswith("fc: waiting for MCP server") and "at most 0.3 s" in waiting
    assert "did not start as an MCP server: no answer within 0.3 s (--mcp-timeout)" in error


def test_a_tools_list_without_end_is_a_clear_exit(fc) -> None:
    endless = f"{sys.executable} {MISBEHAVING} pages"
    result = fc("run", "杭州？", "--mcp", endless, "-o", "t")
    assert result.returncode == 3
    clean(result)
    assert "its tools/list did not end after 101 pages" in result.stderr.splitlines()[-1]


def test_a_server_that_does_not_start_is_a_clear_exit(fc) -> None:
    failing = (
        f"{sys.executable} -c \"import sys; print('no config file', file=sys.stderr); sys.exit(3)\""
    )
    result = fc("run", "杭州？", "--mcp", failing, "-o", "t")
    assert result.returncode == 3
    clean(result)
    assert "did not start as an MCP server" in result.stderr and "no config file" in result.stderr
    assert "an MCP server failed" not in result.stderr  # said once, not wrapped
    missing = fc("run", "杭州？", "--mcp", "no-such-mcp-server --flag", "-o", "t")
    assert missing.returncode == 2 and "cannot start it" in missing.stderr
    clean(missing)


def test_a_secret_in_the_server_url_is_masked(fc, tmp_path: Path, mcp_http: str) -> None:
    result = fc("run", "杭州？", "--mcp", mcp_http + "?token=s3cret-value-123", "-o", "t")
    assert result.returncode == 0, result.stderr
    text = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "t").iterdir() if p.is_file())
    assert "s3cret-value-123" not in text and "token=***" in text


def test_without_the_sdk_it_says_how_to_install_it(fc, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = fc("run", "杭州？", "--mcp", "fc mcp demo")
    assert result.returncode == 2
    assert "pip install 'fccli[mcp]'" in result.stderr


@pytest.fixture(scope="module")
def mcp_trace(tmp_path_factory, mcp_http: str) -> Path:
    """One run of the demo model with the HTTP server's tools: two parallel calls."""
    from tests.support.inprocess import run_in_process

    folder = tmp_path_factory.mktemp("mcp")
    result = run_in_process(
        ["run", QUESTION, "--mcp", mcp_http, "-o", "t"], cwd=folder, env=clean_env()
    )
    assert result.returncode == 0, result.stderr
    return folder / "t"


def test_show_prints_the_chain_of_each_call(fc, mcp_trace: Path) -> None:
    shown = fc("show", str(mcp_trace))
    assert shown.returncode == 0, shown.stderr
    record = manifest(mcp_trace)
    assert "MCP server weather-http: http://127.0.0.1:" in shown.stdout
    text = shown.stdout
    for run in record["steps"][0]["tool_runs"]:
        call = text.index(f"id {run['id']}")
        mcp = text.index(f"⇄ MCP weather-http: tools/call id {run['mcp']['request_id']}", call)
        answer = text.index("← CallToolResult isError false, content: text, structuredContent", mcp)
        assert answer < text.index(f"✓ result for {run['id']}", mcp)


def test_check_finds_an_error_handed_back_as_success_and_an_unlisted_tool(
    fc, tmp_path: Path, mcp_trace: Path
) -> None:
    assert fc("check", str(mcp_trace)).returncode == 0
    edited = tmp_path / "edited"
    shutil.copytree(mcp_trace, edited)
    log = edited / "mcp-weather-http.jsonl"
    entries = lines(log)
    calls = [
        e for e in entries if e.get("dir") == "sent" and e["message"].get("method") == "tools/call"
    ]
    answer = next(
        e for e in entries if e.get("dir") == "received" and e["call"] == calls[0]["call"]
    )
    answer["message"]["result"]["isError"] = True  # the server said it failed...
    calls[1]["message"]["params"]["name"] = "get_forecast"  # ...and a tool it never listed
    log.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), "utf-8")
    checked = fc("check", str(edited), "--json")
    assert checked.returncode == 1
    found = {(f["rule"], f["file"]) for f in json.loads(checked.stdout)["findings"]}
    assert found == {("FC135", "2-request.json"), ("FC136", "mcp-weather-http.jsonl")}


def test_the_page_shows_the_json_rpc_beside_each_call(fc, tmp_path: Path, mcp_trace: Path) -> None:
    assert fc("show", str(mcp_trace), "--html", "page.html").returncode == 0
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "MCP server" in page and "weather-http: http://127.0.0.1:" in page
    for run in manifest(mcp_trace)["steps"][0]["tool_runs"]:
        call = page.index(f"<code>{run['id']}</code>")
        mcp = page.index(f"tools/call id {run['mcp']['request_id']}</summary>", call)
        sent = page.index("mcp-weather-http.jsonl #", mcp)
        assert sent < page.index("structuredContent", sent) < page.index("✓ result", sent)


def test_otel_export_has_an_mcp_client_span_inside_each_tool_span(
    fc, tmp_path: Path, mcp_trace: Path
) -> None:
    pytest.importorskip("opentelemetry.proto")
    exported = fc("export", "otel", str(mcp_trace), "-o", "spans.json")
    assert exported.returncode == 0, exported.stderr
    line = json.loads((tmp_path / "spans.json").read_text(encoding="utf-8").splitlines()[0])
    spans = [s for r in line["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]

    def attrs(span: dict[str, Any]) -> dict[str, Any]:
        return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}

    session = manifest(mcp_trace)["mcp_servers"][0]["session_id"]
    tools = {s["spanId"]: s for s in spans if s["name"] == "execute_tool get_weather"}
    mcp = [s for s in spans if s["name"] == "tools/call get_weather"]
    runs = manifest(mcp_trace)["steps"][0]["tool_runs"]
    assert len(mcp) == len(tools) == len(runs) == 2
    ids = set()
    for span in mcp:
        a = attrs(span)
        assert span["parentSpanId"] in tools and span["kind"] == 3  # CLIENT, inside the tool's
        assert a["mcp.method.name"] == "tools/call" and a["mcp.session.id"] == session
        assert a["network.transport"] == "tcp" and a["gen_ai.tool.name"] == "get_weather"
        ids.add(a["jsonrpc.request.id"])
    assert ids == {str(run["mcp"]["request_id"]) for run in runs}
    # The handshake: the session's other requests, under the run's span, which begins with them.
    (root,) = [s for s in spans if "parentSpanId" not in s or not s["parentSpanId"]]
    handshake = {s["name"]: s for s in spans if s["name"] in ("initialize", "tools/list")}
    assert set(handshake) == {"initialize", "tools/list"}
    for span in handshake.values():
        assert span["parentSpanId"] == root["spanId"] and span["kind"] == 3
        assert int(span["startTimeUnixNano"]) >= int(root["startTimeUnixNano"])
    assert attrs(handshake["tools/list"])["jsonrpc.request.id"] == "2"


def test_replay_answers_from_the_recorded_results_or_calls_the_servers_again(
    fc, tmp_path: Path, mcp_http: str
) -> None:
    # The demo model's wrong-type call is refused by validation; step 2 calls the server.
    ran = fc(
        "run", "杭州今天适合跑步吗？", "--mcp", mcp_http, "--demo-fault", "wrong-type", "-o", "t"
    )
    assert ran.returncode == 0, ran.stderr
    (served,) = manifest(tmp_path / "t")["steps"][1]["tool_runs"]
    replayed = fc("replay", "t", "--step", "2", "-o", "r")
    assert replayed.returncode == 0, replayed.stderr
    clean(replayed)
    (run,) = manifest(tmp_path / "r")["steps"][0]["tool_runs"]
    assert run["arguments"] == served["arguments"] and run["is_error"] is False
    assert run["mcp"] == {
        "server": "weather-http",
        "recorded": str(Path("t") / "mcp-weather-http.jsonl") + " #7",
    }
    assert not list((tmp_path / "r").glob("mcp-*"))  # no server was asked
    live = fc("replay", "t", "--step", "2", "--live-mcp", "-o", "l")
    assert live.returncode == 0, live.stderr
    record = manifest(tmp_path / "l")
    assert record["mcp_servers"][0]["name"] == "weather-http"
    (run,) = record["steps"][0]["tool_runs"]
    assert run["mcp"]["request_id"] == 3
    log = lines(tmp_path / "l" / "mcp-weather-http.jsonl")
    assert [e["call"] for e in log if e.get("dir") == "sent" and e.get("id") == 3] == [run["id"]]


def test_fc_tools_shows_a_servers_tools_and_what_strict_mode_refuses(fc, mcp_http: str) -> None:
    shown = fc("tools", "--mcp", mcp_http, "-p", "anthropic")
    assert shown.returncode == 0, shown.stderr
    assert [t["name"] for t in json.loads(shown.stdout)] == [
        "get_weather",
        "get_alerts",
        "snapshot",
        "halves",
    ]
    server = f"{sys.executable} {MISBEHAVING} garbage"
    strict = fc("tools", "--mcp", server, "--strict")
    assert strict.returncode == 1
    assert "not ready for strict mode" in strict.stderr and "minLength" in strict.stderr
    refused = fc("run", "杭州？", "--mcp", server, "--strict", "-o", "t")
    assert (
        refused.returncode == 2 and "--strict:" in refused.stderr and "minLength" in refused.stderr
    )
    clean(refused)


def test_a_key_cut_across_two_text_parts_is_masked_for_the_model_and_in_the_log(
    mcp_http: str, tmp_path: Path
) -> None:
    from fccli.core.models import ToolUseBlock
    from fccli.mcp.client import McpClient
    from fccli.mcp.servers import server_spec

    key = "s3cret-value-123"  # the server's URL holds it: fc masks it in what it keeps
    client = McpClient(
        [server_spec(f"{mcp_http}?token={key}")], max_bytes=1 << 20, step_of=lambda: 1
    )
    try:
        client.start()
        client.attach(tmp_path)
        arguments = {"text": f"the key is {key}.", "cut": len("the key is s3cret-")}
        call = ToolUseBlock(id="call_1", name="halves", input=arguments)
        answer, _ = client.call("weather-http", "halves", call, arguments, 30)
    finally:
        client.close()
    assert answer.content == "the key is ***\n."  # the two parts, joined by a line
    log = (tmp_path / "mcp-weather-http.jsonl").read_text("utf-8")
    assert "s3cret-" not in log and "value-123" not in log
    entries = [json.loads(line) for line in log.splitlines()]
    (result,) = [
        e["message"]["result"] for e in entries if e.get("id") == 3 and e["dir"] == "received"
    ]
    assert [p["text"] for p in result["content"]] == ["the key is ***", "."]


def test_an_http_answer_over_max_response_mb_is_cut_and_said(mcp_http: str) -> None:
    from fccli.core.errors import ProviderError
    from fccli.mcp.client import McpClient
    from fccli.mcp.servers import server_spec

    # 600 bytes: the initialize answer fits, the tools/list answer does not.
    client = McpClient([server_spec(mcp_http)], max_bytes=600, step_of=lambda: None)
    with pytest.raises(ProviderError) as raised:
        client.start()
    assert "did not start as an MCP server" in str(raised.value)
    log = client.servers[0].tap.messages
    assert [e.get("event") or e["dir"] for e in log][-1] == "body_cut"
    assert log[-1]["bytes"] > 600 and log[-1]["max_bytes"] == 600
