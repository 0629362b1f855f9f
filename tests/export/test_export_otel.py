"""`fc export otel`: the exported bytes parsed back with opentelemetry-proto, and end to end
against a real OTLP/HTTP receiver on 127.0.0.1 (tests/support/otlp_receiver.py)."""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip(
    "opentelemetry.proto", reason="the otel extra is not installed: pip install -e '.[otel]'"
)

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from fccli.commands import entry
from fccli.core.models import Usage
from fccli.export.spans import _Builder
from fccli.trace.reader import Step
from tests.conftest import REPO
from tests.support.otlp_receiver import OtlpReceiver

EXAMPLES = REPO / "traces" / "examples"
THREE_CITIES = EXAMPLES / "three-cities"
SCHEMA_URL = "https://opentelemetry.io/schemas/1.41.1"


def fc(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str):
    """`fc ARGS` in-process through the real entry point: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["fc", *args])
    code = 0
    try:
        entry.main()
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def receiver():
    with OtlpReceiver() as r:
        yield r


@pytest.fixture(autouse=True)
def _no_otel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_TIMEOUT",
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
        "FC_OTLP",
    ):
        monkeypatch.delenv(name, raising=False)


def parse_json_lines(data: bytes) -> list[ExportTraceServiceRequest]:
    """OTLP/JSON back into messages: its hex ids turned into protobuf JSON's base64 first."""
    requests = []
    for line in data.decode("utf-8").splitlines():
        request = ExportTraceServiceRequest()
        ParseDict(_base64_ids(json.loads(line)), request)
        requests.append(request)
    return requests


def _base64_ids(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in ("traceId", "spanId", "parentSpanId")
            else _base64_ids(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_base64_ids(v) for v in node]
    return node


def spans_of(request: ExportTraceServiceRequest) -> list[Span]:
    return [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]


def attrs(span: Span) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        which = kv.value.WhichOneof("value")
        value = getattr(kv.value, which)
        out[kv.key] = [v.string_value for v in value.values] if which == "array_value" else value
    return out


def export_file(monkeypatch, capsys, tmp_path: Path, *args: str, trace: Path = THREE_CITIES):
    out = tmp_path / "export.out"
    code, stdout, err = fc(monkeypatch, capsys, "export", "otel", str(trace), "-o", str(out), *args)
    assert code == 0, err
    return out.read_bytes(), stdout


# ---------------------------------------------------------------------------------------------
# the span tree, parsed back


def assert_three_cities(spans: list[Span], *, content: bool) -> None:
    root, chat1, tool_a, tool_b, tool_c, chat2 = spans
    manifest = json.loads((THREE_CITIES / "manifest.json").read_text("utf-8"))
    assert {s.trace_id for s in spans} == {root.trace_id} and len(root.trace_id) == 16
    assert len({s.span_id for s in spans}) == 6

    assert root.name == "invoke_agent fc" and root.kind == Span.SPAN_KIND_INTERNAL
    assert root.parent_span_id == b""
    assert attrs(root)["gen_ai.operation.name"] == "invoke_agent"
    assert attrs(root)["gen_ai.agent.name"] == "fc"

    for chat, step in ((chat1, 1), (chat2, 2)):
        a = attrs(chat)
        record = manifest["steps"][step - 1]
        assert chat.name == "chat fc-demo" and chat.kind == Span.SPAN_KIND_CLIENT
        assert chat.parent_span_id == root.span_id
        assert a["gen_ai.operation.name"] == "chat"
        assert a["gen_ai.provider.name"] == "fc.demo"
        assert a["gen_ai.request.model"] == a["gen_ai.response.model"] == "fc-demo"
        assert a["gen_ai.usage.input_tokens"] == record["usage"]["input_tokens"]
        assert a["gen_ai.usage.output_tokens"] == record["usage"]["output_tokens"]
        assert a["gen_ai.usage.reasoning.output_tokens"] == record["usage"]["reasoning_tokens"]
        assert a["gen_ai.response.finish_reasons"] == [record["wire_stop_reason"]]
        assert a["fc.step"] == step
        assert chat.end_time_unix_nano - chat.start_time_unix_nano == round(
            record["duration_ms"] * 1_000_000
        )
        assert ("gen_ai.input.messages" in a) is content
        assert chat.status.code == Status.STATUS_CODE_UNSET
    assert attrs(chat1)["gen_ai.response.id"] == "cd55600f-03a6-fb75-5603-7f7f649f8e17"
    assert chat2.start_time_unix_nano >= chat1.end_time_unix_nano  # in order

    # Each tool span: a sibling of the chat spans, paired to its call by id, linked to the
    # chat span that asked for it.
    calls = json.loads((THREE_CITIES / "1-response.json").read_text("utf-8"))["content"]
    call_ids = [b["id"] for b in calls if b["type"] == "tool_use"]
    tools = [tool_a, tool_b, tool_c]
    assert [attrs(t)["gen_ai.tool.call.id"] for t in tools] == call_ids
    for tool in tools:
        a = attrs(tool)
        assert tool.name == "execute_tool get_weather" and tool.kind == Span.SPAN_KIND_INTERNAL
        assert tool.parent_span_id == root.span_id
        assert [link.span_id for link in tool.links] == [chat1.span_id]
        assert a["gen_ai.operation.name"] == "execute_tool"
        assert a["gen_ai.tool.name"] == "get_weather" and a["gen_ai.tool.type"] == "function"
        assert a["gen_ai.tool.description"].startswith("查询某个城市当前的天气")
        assert chat1.end_time_unix_nano <= tool.start_time_unix_nano
        assert tool.end_time_unix_nano <= chat2.start_time_unix_nano
        assert ("gen_ai.tool.call.arguments" in a) is content
    assert root.start_time_unix_nano <= chat1.start_time_unix_nano
    assert root.end_time_unix_nano >= chat2.end_time_unix_nano


def test_json_file_parses_back_into_the_span_tree(monkeypatch, capsys, tmp_path: Path) -> None:
    data, stdout = export_file(monkeypatch, capsys, tmp_path)
    [request] = parse_json_lines(data)
    assert_three_cities(spans_of(request), content=False)
    resource_spans = request.resource_spans[0]
    assert resource_spans.schema_url == SCHEMA_URL
    assert resource_spans.scope_spans[0].schema_url == SCHEMA_URL
    service = {kv.key: kv.value.string_value for kv in resource_spans.resource.attributes}
    assert service["service.name"] == "fc"
    trace_id = spans_of(request)[0].trace_id.hex()
    assert f"three-cities: trace {trace_id}, 6 spans" in stdout


def test_json_follows_the_otlp_json_rules(monkeypatch, capsys, tmp_path: Path) -> None:
    data, _ = export_file(monkeypatch, capsys, tmp_path)
    spans = json.loads(data)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    root, chat = spans[0], spans[1]
    assert len(root["traceId"]) == 32 and int(root["traceId"], 16)  # hex, not base64
    assert len(chat["spanId"]) == 16 and chat["parentSpanId"] == root["spanId"]
    assert root["kind"] == 1 and chat["kind"] == 3  # integer enums
    assert isinstance(chat["startTimeUnixNano"], str)  # 64-bit integers as strings
    tokens = next(a for a in chat["attributes"] if a["key"] == "gen_ai.usage.input_tokens")
    assert tokens["value"] == {"intValue": "161"}


def test_protobuf_file_parses_back_into_the_same_tree(monkeypatch, capsys, tmp_path) -> None:
    data, _ = export_file(monkeypatch, capsys, tmp_path, "--format", "protobuf")
    request = ExportTraceServiceRequest()
    request.ParseFromString(data)
    assert_three_cities(spans_of(request), content=False)
    json_data, _ = export_file(monkeypatch, capsys, tmp_path)
    assert spans_of(parse_json_lines(json_data)[0]) == spans_of(request)


def test_content_in_the_conventions_parts(monkeypatch, capsys, tmp_path: Path) -> None:
    data, _ = export_file(monkeypatch, capsys, tmp_path, "--content")
    spans = spans_of(parse_json_lines(data)[0])
    assert_three_cities(spans, content=True)
    root, chat1, tool_a, _, _, chat2 = spans
    inputs = json.loads(attrs(chat2)["gen_ai.input.messages"])
    assert [m["role"] for m in inputs] == ["user", "assistant", "tool"]
    assert inputs[0]["parts"] == [{"type": "text", "content": "北京、上海、深圳今天适合跑步吗？"}]
    assert [p["type"] for p in inputs[1]["parts"]] == [
        "reasoning",
        "text",
        "tool_call",
        "tool_call",
        "tool_call",
    ]
    call = inputs[1]["parts"][2]
    assert call["name"] == "get_weather" and call["arguments"] == {"city": "北京"}
    response = inputs[2]["parts"][0]
    assert response["type"] == "tool_call_response" and response["id"] == call["id"]
    assert json.loads(response["response"])["temp_c"] == 12
    [output] = json.loads(attrs(chat1)["gen_ai.output.messages"])
    assert output["role"] == "assistant" and output["finish_reason"] == "tool_call"
    [final] = json.loads(attrs(chat2)["gen_ai.output.messages"])
    assert final["finish_reason"] == "stop" and final["parts"][-1]["type"] == "text"
    definitions = json.loads(attrs(chat1)["gen_ai.tool.definitions"])
    assert definitions[0]["type"] == "function" and definitions[0]["name"] == "get_weather"
    assert "city" in definitions[0]["parameters"]["properties"]
    a = attrs(tool_a)
    assert json.loads(a["gen_ai.tool.call.arguments"]) == {"city": "北京"}
    assert json.loads(a["gen_ai.tool.call.result"])["city"] == "北京"
    assert json.loads(attrs(root)["gen_ai.input.messages"])[0]["role"] == "user"


def conversation_texts(trace: Path) -> list[str]:
    """Every question, answer, reasoning, argument and result text of a trace."""
    texts = []
    for path in sorted(trace.glob("*-re*.json")):
        if path.name.count(".") > 1:
            continue  # the wire files say the same as the internal ones
        data = json.loads(path.read_text("utf-8"))
        messages = [*data.get("messages", []), data] if "messages" in data else [data]
        for message in messages:
            for block in message.get("content", []):
                for key in ("text", "thinking", "content"):
                    if isinstance(block.get(key), str):
                        texts.append(block[key])
                if block.get("type") == "tool_use":
                    texts.extend(v for v in block["input"].values() if isinstance(v, str))
    return [t for t in texts if t]


@pytest.mark.parametrize("name", ["three-cities", "hangzhou-stream", "unknown-city"])
@pytest.mark.parametrize("fmt", ["json", "protobuf"])
def test_no_content_leaves_no_conversation_text(monkeypatch, capsys, tmp_path, name, fmt):
    data, _ = export_file(monkeypatch, capsys, tmp_path, "--format", fmt, trace=EXAMPLES / name)
    texts = conversation_texts(EXAMPLES / name)
    assert len(texts) >= 5
    for text in texts:
        # Each text and each line of it, as UTF-8 and as JSON would escape it.
        for piece in [text, *text.splitlines()]:
            for form in (piece, json.dumps(piece)[1:-1]):
                assert form.encode("utf-8") not in data, f"{form!r} leaked into the export"
    # ... while the same export with --content does carry them (so the grep can fail).
    with_content, _ = export_file(
        monkeypatch, capsys, tmp_path, "--format", fmt, "--content", trace=EXAMPLES / name
    )
    assert texts[0].encode("utf-8") in with_content


def test_exporting_twice_gives_identical_ids(monkeypatch, capsys, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(THREE_CITIES, copy)  # another path, the same trace
    first, _ = export_file(monkeypatch, capsys, tmp_path)
    second, _ = export_file(monkeypatch, capsys, tmp_path, trace=copy)
    assert first == second
    ids = [(s.trace_id, s.span_id) for s in spans_of(parse_json_lines(first)[0])]
    other, _ = export_file(monkeypatch, capsys, tmp_path, trace=EXAMPLES / "hangzhou")
    assert ids[0][0] != spans_of(parse_json_lines(other)[0])[0].trace_id


def test_a_stream_records_its_first_chunk(monkeypatch, capsys, tmp_path: Path) -> None:
    data, _ = export_file(monkeypatch, capsys, tmp_path, trace=EXAMPLES / "hangzhou-stream")
    chat = spans_of(parse_json_lines(data)[0])[1]
    a = attrs(chat)
    assert a["gen_ai.request.stream"] is True
    manifest = json.loads((EXAMPLES / "hangzhou-stream" / "manifest.json").read_bytes())
    first_byte_ms = manifest["steps"][0]["stream"]["first_byte_ms"]
    assert a["gen_ai.response.time_to_first_chunk"] == pytest.approx(first_byte_ms / 1000)


def test_cached_tokens_from_the_wire_answer(monkeypatch, capsys, tmp_path: Path) -> None:
    trace = tmp_path / "cached"
    shutil.copytree(THREE_CITIES, trace)
    wire = trace / "1-response.deepseek.json"
    body = json.loads(wire.read_text("utf-8"))
    body["usage"]["prompt_cache_hit_tokens"] = 128
    wire.write_text(json.dumps(body), "utf-8")
    data, _ = export_file(monkeypatch, capsys, tmp_path, trace=trace)
    chat = spans_of(parse_json_lines(data)[0])[1]
    assert attrs(chat)["gen_ai.usage.cache_read.input_tokens"] == 128


def test_a_failed_step_and_a_tool_error_are_error_spans(monkeypatch, capsys, tmp_path) -> None:
    trace = tmp_path / "failed"
    shutil.copytree(EXAMPLES / "unknown-city", trace)
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    # As a run that failed at its second request reads: no answer, the provider's 503.
    (trace / "2-response.json").unlink()
    (trace / "2-response.deepseek.json").unlink()
    manifest["steps"] = manifest["steps"][:1]
    manifest["status"] = "error"
    manifest["error"] = {
        "kind": "ProviderError",
        "message": "step 2: demo answered HTTP 503: overloaded",
        "step": 2,
        "http_status": 503,
    }
    (trace / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    data, _ = export_file(monkeypatch, capsys, tmp_path, trace=trace)
    root, _chat1, tool, chat2 = spans_of(parse_json_lines(data)[0])
    assert root.status.code == Status.STATUS_CODE_ERROR
    assert attrs(root)["error.type"] == "ProviderError"
    assert chat2.status.code == Status.STATUS_CODE_ERROR and attrs(chat2)["error.type"] == "503"
    assert chat2.status.message == "503"  # no provider words without --content
    assert tool.status.code == Status.STATUS_CODE_ERROR
    assert attrs(tool)["error.type"] == "tool_error"
    with_content, _ = export_file(monkeypatch, capsys, tmp_path, "--content", trace=trace)
    chat2 = spans_of(parse_json_lines(with_content)[0])[3]
    assert chat2.status.message == "step 2: demo answered HTTP 503: overloaded"


def test_what_a_trace_lacks_is_said(monkeypatch, capsys, tmp_path: Path) -> None:
    trace = tmp_path / "lacking"
    shutil.copytree(THREE_CITIES, trace)
    (trace / "2-response.json").unlink()
    (trace / "2-response.deepseek.json").unlink()
    data, stdout = export_file(monkeypatch, capsys, tmp_path, trace=trace)
    assert len(spans_of(parse_json_lines(data)[0])) == 6  # exported as far as it goes
    assert "note: step 2: 2-response.json is missing (and its wire form too)" in stdout
    assert "note: step 2: no answer could be read; its span has none" in stdout


# ---------------------------------------------------------------------------------------------
# end to end: OTLP/HTTP to a receiver on 127.0.0.1


def test_protobuf_over_http_to_a_receiver(monkeypatch, capsys, receiver: OtlpReceiver) -> None:
    endpoint = f"{receiver.url}/v1/traces"
    code, out, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", endpoint
    )
    assert code == 0, err
    [request] = receiver.requests
    assert request.path == "/v1/traces"
    assert request.headers["content-type"] == "application/x-protobuf"
    assert_three_cities(receiver.spans(), content=False)
    assert f"exported 1 trace(s) to {endpoint} (protobuf)" in out


def test_the_standard_variables_and_headers(monkeypatch, capsys, receiver) -> None:
    secret = "Basic cGstbGYtMTIzOnNrLWxmLXNlY3JldC00NTY="
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url + "/")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"Authorization={secret.replace(' ', '%20')}")
    receiver.script = [{"status": 401, "body": f"bad credentials: {secret}"}]
    code, out, err = fc(monkeypatch, capsys, "export", "otel", str(THREE_CITIES))
    assert code == 3
    assert receiver.requests[0].path == "/v1/traces"  # appended to the base, as specified
    assert receiver.requests[0].headers["authorization"] == secret
    assert "answered HTTP 401: bad credentials: ***" in err
    assert "cGstbGYtMTIz" not in out + err  # header values are never printed
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/custom")
    code, out, err = fc(monkeypatch, capsys, "export", "otel", str(THREE_CITIES))
    assert code == 0, err
    assert receiver.requests[-1].path == "/custom"  # the traces variable is taken as it is
    assert "cGstbGYtMTIz" not in out + err


def test_an_endpoint_without_a_path_gets_v1_traces(monkeypatch, capsys, receiver) -> None:
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", receiver.url
    )
    assert code == 0, err
    assert receiver.requests[0].path == "/v1/traces"


def test_json_over_http(monkeypatch, capsys, receiver: OtlpReceiver) -> None:
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", receiver.url,
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    request = receiver.requests[0]
    assert request.headers["content-type"] == "application/json"
    assert_three_cities(spans_of(parse_json_lines(request.body)[0]), content=False)


def test_429_and_503_are_retried(monkeypatch, capsys, receiver: OtlpReceiver) -> None:
    receiver.script = [{"status": 429, "retry_after": "0"}, {"status": 503, "retry_after": "0"}]
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", receiver.url
    )
    assert code == 0, err
    assert len(receiver.requests) == 3
    assert receiver.requests[0].body == receiver.requests[2].body


def test_an_http_error_is_exit_3_with_the_status_and_first_line(monkeypatch, capsys, receiver):
    receiver.script = [{"status": 400, "body": "\n  invalid span: trace_id\nmore detail\n"}]
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", receiver.url
    )
    assert code == 3
    assert err.splitlines()[0] == (
        f"fc: error: {receiver.url}/v1/traces answered HTTP 400: invalid span: trace_id"
    )
    assert "Traceback" not in err


def test_a_server_that_is_not_there_is_exit_3(monkeypatch, capsys) -> None:
    with OtlpReceiver() as gone:
        url = gone.url
    monkeypatch.setattr("fccli.export.deliver.RETRIES", 0)
    code, _, err = fc(monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", url)
    assert code == 3
    assert "cannot reach" in err and url in err


def test_a_partial_success_is_reported(monkeypatch, capsys, receiver: OtlpReceiver) -> None:
    receiver.script = [{}, {"rejected": 2, "message": "2 spans too old"}]
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), str(EXAMPLES / "hangzhou"),
        str(EXAMPLES / "no-city"), "--endpoint", receiver.url,
    )  # fmt: skip
    assert code == 3
    assert "rejected 2 of the" in err and "2 spans too old" in err
    assert "exported 2 of 3 traces" in err and "not exported: " in err
    assert len(receiver.requests) == 2


def test_a_failure_part_way_says_what_arrived(monkeypatch, capsys, receiver) -> None:
    receiver.script = [{}, {"status": 400, "body": "no"}]
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), str(EXAMPLES / "hangzhou"),
        "--endpoint", receiver.url,
    )  # fmt: skip
    assert code == 3
    assert f"exported 1 of 2 traces ({THREE_CITIES}); not exported: {EXAMPLES / 'hangzhou'}" in err


def test_an_unreadable_trace_is_exit_2_and_nothing_is_sent(monkeypatch, capsys, receiver, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json", "utf-8")
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), str(broken),
        "--endpoint", receiver.url,
    )  # fmt: skip
    assert code == 2
    assert str(broken / "manifest.json") in err
    assert receiver.requests == []
    code, _, err = fc(monkeypatch, capsys, "export", "otel", str(tmp_path / "nope"), "-o", "x")
    assert code == 2 and "no such file or directory" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--endpoint", "localhost:4317"], "not an http(s) URL"),
        (["--endpoint", "http://h/v1/traces", "-o", "f"], "not both"),
        (["--format", "yaml", "-o", "f"], "unknown --format"),
        ([], "give --endpoint URL or -o FILE"),
    ],
)
def test_bad_usage_is_exit_2(monkeypatch, capsys, args, said) -> None:
    code, _, err = fc(monkeypatch, capsys, "export", "otel", str(THREE_CITIES), *args)
    assert code == 2 and said in err


def test_a_malformed_header_variable_is_exit_2_without_its_value(monkeypatch, capsys) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20tok-secret-1,oops")
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "--endpoint", "http://h"
    )
    assert code == 2
    assert "OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value" in err
    assert "tok-secret" not in err


def test_without_the_extra_the_install_line_is_said(monkeypatch, capsys) -> None:
    # As if opentelemetry-proto were not installed: importing it fails.
    monkeypatch.setitem(sys.modules, "opentelemetry.proto.collector.trace.v1", None)
    code, _, err = fc(monkeypatch, capsys, "export", "otel", str(THREE_CITIES), "-o", "-")
    assert code == 2
    assert "pip install 'fccli[otel]'" in err


# ---------------------------------------------------------------------------------------------
# live: fc run --otlp, fc replay --otlp


def test_run_exports_its_trace_when_it_closes(monkeypatch, capsys, receiver, tmp_path) -> None:
    out = tmp_path / "t"
    code, stdout, err = fc(
        monkeypatch, capsys, "run", "北京、上海、深圳今天适合跑步吗？", "-o", str(out), "--json",
        "--otlp", receiver.url,
    )  # fmt: skip
    assert code == 0, err
    json.loads(stdout)  # stdout stays the summary alone
    spans = receiver.spans()
    assert [s.name for s in spans] == ["invoke_agent fc", "chat fc-demo"] + [
        "execute_tool get_weather"
    ] * 3 + ["chat fc-demo"]
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    started = manifest["steps"][1]["started_at"]  # recorded now, and used for the span
    from fccli.export.spans import iso_ns

    assert spans[5].start_time_unix_nano == iso_ns(started)
    assert "exported" in err and spans[0].trace_id.hex() in err
    # The live export and a later one of the same trace give the same ids.
    code, _, _ = fc(monkeypatch, capsys, "export", "otel", str(out), "--endpoint", receiver.url)
    assert code == 0
    assert receiver.spans(-1) == spans


def test_replay_exports_its_new_trace(monkeypatch, capsys, receiver, tmp_path) -> None:
    original = tmp_path / "t"
    shutil.copytree(EXAMPLES / "hangzhou", original)
    monkeypatch.setenv("FC_OTLP", receiver.url)
    code, _, err = fc(
        monkeypatch, capsys, "replay", str(original), "--error", "call_", "--json",
        "--otlp-content",
    )  # fmt: skip
    assert code == 0, err
    spans = receiver.spans()
    assert spans[0].name == "invoke_agent fc" and spans[1].name == "chat fc-demo"
    assert "gen_ai.input.messages" in attrs(spans[1])


def test_a_failed_run_is_exported_too(monkeypatch, capsys, receiver, fake_provider, tmp_path):
    from tests.support.fake_provider import DEFAULT_KEY

    monkeypatch.setenv("DEEPSEEK_API_KEY", DEFAULT_KEY)
    fake_provider.script = [{"status": 400, "message": "Invalid request"}]
    code, _, err = fc(
        monkeypatch, capsys, "run", "杭州今天适合跑步吗？", "-p", "deepseek", "--base-url",
        fake_provider.url, "-o", str(tmp_path / "t"), "--json", "--otlp", receiver.url,
    )  # fmt: skip
    assert code == 3, err
    root, chat = receiver.spans()
    assert root.status.code == chat.status.code == Status.STATUS_CODE_ERROR
    assert attrs(chat)["error.type"] == "400"
    assert attrs(chat)["server.address"] == "127.0.0.1"


def test_run_refuses_a_bad_otlp_url_before_running(monkeypatch, capsys, tmp_path) -> None:
    code, _, err = fc(
        monkeypatch, capsys, "run", "杭州今天适合跑步吗？", "-o", str(tmp_path / "t"),
        "--otlp", "grpc://h:4317",
    )  # fmt: skip
    assert code == 2 and "--otlp: not an http(s) URL" in err
    assert not (tmp_path / "t").exists()


def test_a_run_whose_export_fails_exits_0_warns_once_and_notes_it(
    monkeypatch, capsys, receiver, tmp_path
):
    receiver.script = [{"status": 500, "body": "down"}] * 4
    monkeypatch.setattr("fccli.export.deliver.RETRIES", 0)
    code, stdout, err = fc(
        monkeypatch, capsys, "run", "杭州今天适合跑步吗？", "-o", str(tmp_path / "t"), "--json",
        "--otlp", receiver.url,
    )  # fmt: skip
    assert code == 0, err
    json.loads(stdout)  # the run's summary, as without --otlp
    [warning] = [line for line in err.splitlines() if "not exported" in line]
    assert warning.startswith("fc: warning: ") and "HTTP 500: down" in warning
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text("utf-8"))
    assert manifest["status"] == "ok"
    [note] = [n for n in manifest["notes"] if "export" in n]
    assert note.startswith(f"the export to {receiver.url}") and "HTTP 500: down" in note
    # fc export otel alone keeps exit 3 for the same failure
    code, _, err = fc(
        monkeypatch, capsys, "export", "otel", str(tmp_path / "t"), "--endpoint", receiver.url
    )
    assert code == 3 and "HTTP 500: down" in err


def test_a_replay_whose_export_fails_exits_0(monkeypatch, capsys, receiver, tmp_path) -> None:
    original = tmp_path / "t"
    shutil.copytree(EXAMPLES / "hangzhou", original)
    receiver.script = [{"status": 503, "body": "busy"}] * 4
    monkeypatch.setattr("fccli.export.deliver.RETRIES", 0)
    code, _, err = fc(
        monkeypatch, capsys, "replay", str(original), "--error", "call_", "-o",
        str(tmp_path / "r"), "--otlp", receiver.url,
    )  # fmt: skip
    assert code == 0, err
    assert "fc: warning: the trace was not exported" in err and "HTTP 503: busy" in err
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text("utf-8"))
    assert any(n.startswith("the export to ") for n in manifest["notes"])


def test_a_failed_run_whose_export_fails_keeps_the_runs_exit(
    monkeypatch, capsys, receiver, fake_provider, tmp_path
):
    from tests.support.fake_provider import DEFAULT_KEY

    monkeypatch.setenv("DEEPSEEK_API_KEY", DEFAULT_KEY)
    fake_provider.script = [{"status": 400, "message": "Invalid request"}]
    receiver.script = [{"status": 500, "body": "down"}] * 4
    monkeypatch.setattr("fccli.export.deliver.RETRIES", 0)
    code, _, err = fc(
        monkeypatch, capsys, "run", "杭州今天适合跑步吗？", "-p", "deepseek", "--base-url",
        fake_provider.url, "-o", str(tmp_path / "t"), "--otlp", receiver.url,
    )  # fmt: skip
    assert code == 3, err
    assert "Invalid request" in err and "fc: warning: the trace was not exported" in err
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text("utf-8"))
    assert manifest["status"] == "error"
    assert any(n.startswith("the export to ") for n in manifest["notes"])


# ---------------------------------------------------------------------------------------------
# docs/reference/export.md's commands, run as shown: Phoenix's and Langfuse's addresses pointed at the receiver

PAGE_TITLE = "# Into the tracing tools teams already run: `fc export otel`"


def page_blocks() -> list[list[str]]:
    """The page's bash blocks, each a list of its command lines. `pip install` and
    `phoenix serve` are set-up steps in the prose, not in the blocks."""
    text = (REPO / "docs" / "reference" / "export.md").read_text("utf-8")
    section = text.split(PAGE_TITLE, 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```bash\n")[1:]]
    return [[line for line in b.splitlines() if line.strip()] for b in blocks]


def run_block(lines: list[str], receiver: OtlpReceiver, cwd: Path, **env: str):
    import subprocess

    from tests.conftest import clean_env

    here = receiver.url.removeprefix("http://")
    script = "\n".join(
        line.replace("localhost:6006", here).replace("https://cloud.langfuse.com", receiver.url)
        # bash has a builtin `fc` (its history editor) that wins over fc on the PATH.
        for line in ["set -euo pipefail", "enable -n fc", *lines]
    )
    path = f"{Path(sys.executable).parent}:{clean_env()['PATH']}"
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=clean_env(PATH=path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_page_s_commands_do_what_it_says(receiver: OtlpReceiver, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "traces" / "examples")
    first, phoenix, langfuse = page_blocks()

    result = run_block(first, receiver, tmp_path)
    assert result.returncode == 0, result.stderr
    [request] = parse_json_lines((tmp_path / "three-cities.otlp.json").read_bytes())
    assert_three_cities(spans_of(request), content=False)
    to_phoenix, from_run = receiver.requests
    assert to_phoenix.path == from_run.path == "/v1/traces"
    assert_three_cities(receiver.spans(0), content=False)
    assert "gen_ai.input.messages" in attrs(receiver.spans(1)[1])  # --otlp-content

    result = run_block(phoenix, receiver, tmp_path)
    assert result.returncode == 0, result.stderr
    assert receiver.requests[-1].headers["content-type"] == "application/x-protobuf"

    keys = {"LANGFUSE_PUBLIC_KEY": "pk-lf-1234", "LANGFUSE_SECRET_KEY": "sk-lf-secret-5678"}
    result = run_block(langfuse, receiver, tmp_path, **keys)
    assert result.returncode == 0, result.stderr
    sent = receiver.requests[-1]
    assert sent.path == "/api/public/otel/v1/traces"
    token = base64.b64encode(b"pk-lf-1234:sk-lf-secret-5678").decode()
    assert sent.headers["authorization"] == f"Basic {token}"
    assert token not in result.stdout + result.stderr
    assert "gen_ai.input.messages" in attrs(receiver.spans()[1])  # --content


def test_hostile_numbers_and_times_are_exported_without_a_traceback(monkeypatch, capsys, tmp_path):
    trace = tmp_path / "hostile"
    shutil.copytree(THREE_CITIES, trace)
    manifest = json.loads((trace / "manifest.json").read_text("utf-8"))
    manifest["started_at"] = "0001-01-01T00:00:00+00:00"
    manifest["finished_at"] = "not a time"
    manifest["steps"][0]["duration_ms"] = 1e300
    manifest["steps"][0]["tool_runs"][0]["duration_ms"] = "long"
    manifest["steps"][1]["started_at"] = "9999-12-31T23:59:59+00:00"
    (trace / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    response = json.loads((trace / "2-response.json").read_text("utf-8"))
    response["usage"]["input_tokens"] = 2**70
    (trace / "2-response.json").write_text(json.dumps(response), "utf-8")
    data, _ = export_file(monkeypatch, capsys, tmp_path, "--format", "protobuf", trace=trace)
    request = ExportTraceServiceRequest()
    request.ParseFromString(data)
    spans = spans_of(request)
    assert len(spans) == 6
    assert attrs(spans[5])["gen_ai.usage.input_tokens"] == str(2**70)
    assert all(s.end_time_unix_nano >= s.start_time_unix_nano for s in spans)


def test_the_newest_trace_by_default_and_help_offline(monkeypatch, capsys, tmp_path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "traces" / "examples")
    monkeypatch.chdir(tmp_path)
    code, out, err = fc(monkeypatch, capsys, "export", "otel", "-o", "out.json")
    assert code == 0, err
    assert out.startswith("traces/examples/")  # the newest of them, by its manifest's start
    code, out, _ = fc(monkeypatch, capsys, "export", "otel", "--help")
    assert code == 0 and "--no-content" in out


def test_anthropic_cache_counts_from_the_wire_answer_join_the_input(tmp_path: Path) -> None:
    """A trace whose usage has no cache counts: Anthropic's wire answer gives them, and the
    input it left them out of counts them (as the conventions do)."""
    wire = tmp_path / "1-response.anthropic.json"
    usage = {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5}
    body = {"type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}
    wire.write_text(json.dumps({**body, "usage": usage}), "utf-8")
    step = Step(1)
    step.files["wire_response"] = wire
    builder = SimpleNamespace(trace=SimpleNamespace(wire_format="anthropic"))
    merged = _Builder._with_wire_cache(builder, Usage(input_tokens=10, output_tokens=5), step)  # type: ignore[arg-type]
    assert merged == Usage(input_tokens=110, output_tokens=5, cache_read_tokens=100)
