"""Ollama's native /api/chat (`-p ollama --api native`, format `ollama-native`): the codec both
ways, the NDJSON stream assembler piece by piece, and every command on traces `fc run` wrote
talking to the fake provider's /api/chat over HTTP, streamed and not. The files are held to the
`ollama` Python client's types (the oracle: its pydantic models, which keep only the fields they
know, so a file must also come back from them whole)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import ProtocolError, ProviderError, StreamCut
from fccli.core.models import (
    Message,
    Request,
    TextBlock,
    ThinkingBlock,
    ToolChoice,
    ToolResultBlock,
    ToolSpec,
)
from fccli.wire.registry import get_format
from tests.conftest import clean_env
from tests.support import local_http
from tests.support.fake_provider import FakeProvider
from tests.support.inprocess import run_in_process

pytestmark = pytest.mark.server

QUESTION = "北京、上海今天适合跑步吗？"
FMT = get_format("ollama-native")
TOOL = ToolSpec(
    name="get_weather",
    description="Weather of a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
)


def fc(root: Path, *args: str, input: str | None = None) -> Any:
    return run_in_process(list(args), cwd=root, env=clean_env(), input=input, terminal=False)


@pytest.fixture(scope="module")
def fake() -> Any:
    with FakeProvider(key=None) as server:
        yield server


@pytest.fixture(scope="module")
def traces(fake: FakeProvider, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two traces of one question, as `fc run -p ollama --api native` wrote them: `json` and
    `stream`."""
    root = tmp_path_factory.mktemp("ollama")
    for name, extra in (("json", []), ("stream", ["--stream"])):
        ran = fc(
            root, "run", QUESTION, "-p", "ollama", "--api", "native", "--thinking",
            "--base-url", fake.url, "-o", name, *extra,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
    assert fake.errors == []
    return root


# ---------------------------------------------------------------------------------------------
# the codec


def _request(**extra: Any) -> Request:
    """A history whose first call came without an id (fc made one up) and the second with one."""
    assistant = {"role": "assistant", "content": "", "thinking": "查一下", "tool_calls": [
        {"function": {"index": 0, "name": "get_weather", "arguments": {"city": "杭州"}}},
        {"id": "call_ab12cd34", "function": {"index": 1, "name": "get_weather", "arguments": {"city": "上海"}}},
    ]}  # fmt: skip
    calls = FMT.from_wire_response({"message": assistant, "done": True}).tool_uses()
    assert calls[0].id.startswith("fcoll_")
    return Request(
        model="qwen3",
        system="Be brief.",
        messages=[
            Message(role="user", content=[TextBlock(text="杭州天气？")]),
            Message(role="assistant", content=[ThinkingBlock(thinking="查一下"), *calls]),
            Message(
                role="user",
                content=[
                    ToolResultBlock(tool_use_id=calls[0].id, content="晴", is_error=True),
                    ToolResultBlock(tool_use_id=calls[1].id, content="多云"),
                ],
            ),
        ],
        tools=[TOOL],
        **extra,
    )


def test_a_request_goes_out_as_ollama_reads_it_and_comes_back_whole() -> None:
    request = _request(max_tokens=300, thinking=True, response_format={"type": "json_object"})
    wire = FMT.to_wire_request(request)
    assistant, first, second = wire["messages"][2:5]
    # arguments an object; an invented id never sent, a real one kept, index by place
    assert assistant["tool_calls"] == [
        {"function": {"index": 0, "name": "get_weather", "arguments": {"city": "杭州"}}},
        {
            "id": "call_ab12cd34",
            "function": {"index": 1, "name": "get_weather", "arguments": {"city": "上海"}},
        },
    ]
    assert assistant["thinking"] == "查一下" and assistant["content"] == ""
    assert first == {"role": "tool", "content": "[tool error] 晴", "tool_name": "get_weather"}
    assert second["tool_call_id"] == "call_ab12cd34"
    assert wire["stream"] is False  # Ollama streams unless told not to
    assert (wire["think"], wire["format"], wire["options"]) == (True, "json", {"num_predict": 300})
    assert FMT.from_wire_request(wire) == request


def test_what_the_format_cannot_hold_is_said_in_a_conversion(tmp_path: Path) -> None:
    body = FMT.to_wire_request(_request(effort="high"))
    assert body["think"] == "high"
    body["options"] = {"num_ctx": 32768, "temperature": 0.2}
    body["keep_alive"] = "10m"
    path = tmp_path / "req.json"
    path.write_text(json.dumps(body, ensure_ascii=False), "utf-8")
    ran = fc(tmp_path, "convert", str(path), "--to", "deepseek")
    assert ran.returncode == 0, ran.stderr
    assert "lost: $.options: " in ran.stderr and '"num_ctx": 32768' in ran.stderr
    assert "lost: $.keep_alive" in ran.stderr
    assert "no id: fc gives it one starting fcoll_" in ran.stderr
    out = json.loads(ran.stdout)
    assert out["messages"][2]["tool_calls"][0]["function"]["arguments"] == '{"city":"杭州"}'


def test_tool_choice_is_said_by_what_is_offered_and_required_is_refused() -> None:
    two = [TOOL, TOOL.model_copy(update={"name": "get_time"})]
    none = FMT.to_wire_request(
        _request(tool_choice=ToolChoice(type="none")).model_copy(update={"tools": two})
    )
    assert "tools" not in none
    forced = _request(tool_choice=ToolChoice(type="tool", name="get_time"))
    forced.tools = two
    assert [t["function"]["name"] for t in FMT.to_wire_request(forced)["tools"]] == ["get_time"]
    assert "offered alone" in " ".join(FMT.written_notes(forced))
    assert "no tool_choice" in str(
        FMT.request_problem(_request(tool_choice=ToolChoice(type="required")))
    )


def test_a_response_reads_its_stop_usage_and_calls_without_ids() -> None:
    body = {
        "model": "qwen3",
        "created_at": "2026-01-01T00:00:00Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"index": 0, "name": "f", "arguments": {"a": 1}}}],
        },
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 12,
        "eval_count": 7,
        "eval_duration": 1_000_000,
    }
    response = FMT.from_wire_response(body)
    assert response.stop_reason == "tool_use"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 7)  # type: ignore[union-attr]
    call = response.tool_uses()[0]
    assert (
        call.id.startswith("fcoll_") and call.id == FMT.from_wire_response(body).tool_uses()[0].id
    )
    assert FMT.from_wire_response({**body, "done_reason": "length"}).stop_reason == "max_tokens"
    assert FMT.to_wire_response(response)["message"]["tool_calls"] == body["message"]["tool_calls"]


# ---------------------------------------------------------------------------------------------
# the stream


def _stream_bytes(trace: Path, step: int) -> bytes:
    return (trace / f"{step}-response.ollama-native.sse").read_bytes()


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_the_stream_folds_into_the_recorded_answer_however_it_is_cut(
    traces: Path, size: int
) -> None:
    for step in (1, 2):
        raw = _stream_bytes(traces / "stream", step)
        folder = FMT.stream_folder()
        for at in range(0, len(raw), size):
            folder.feed(raw[at : at + size])
        assert folder.ended
        assembled = json.loads(
            (traces / "stream" / f"{step}-response.ollama-native.json").read_bytes()
        )
        assert folder.finish() == assembled
        # the same answer as the one not streamed
        plain = json.loads((traces / "json" / f"{step}-response.ollama-native.json").read_bytes())
        assert FMT.from_wire_response(assembled) == FMT.from_wire_response(plain)


def test_a_stream_that_breaks_says_how() -> None:
    done = b'{"model":"m","message":{"role":"assistant","content":"x"},"done":true,"done_reason":"stop"}\n'
    piece = b'{"model":"m","message":{"role":"assistant","content":"hel"},"done":false}\n'
    folder = FMT.stream_folder()
    folder.feed(piece)
    with pytest.raises(StreamCut, match="no line with done: true") as cut:
        folder.finish()
    assert cut.value.partial["message"]["content"] == "hel"  # type: ignore[index]
    folder = FMT.stream_folder()
    folder.feed(piece + done[:30])
    with pytest.raises(StreamCut, match="the last line was cut off"):
        folder.finish()
    folder = FMT.stream_folder()
    with pytest.raises(ProviderError, match="unexpected EOF"):
        folder.feed(piece + b'{"error":"unexpected EOF"}\n')
    with pytest.raises(ProtocolError, match="line 1 of the stream is not JSON"):
        FMT.stream_folder().feed(b"data: {}\n")
    folder = FMT.stream_folder()
    folder.feed(done + piece)
    assert folder.finish()["message"]["content"] == "x"
    assert any("after `done: true` ignored" in n for n in folder.notes)


@pytest.mark.parametrize("quirk", ["cut", "cut_clean", "no_done", "error_event"])
def test_a_broken_stream_over_http_is_exit_3_and_the_trace_keeps_its_bytes(
    fake: FakeProvider, tmp_path: Path, quirk: str
) -> None:
    fake.stream_quirks = {quirk}
    try:
        ran = fc(tmp_path, "run", QUESTION, "-p", "ollama", "--api", "native", "--stream",
                 "--base-url", fake.url, "-o", "t")  # fmt: skip
    finally:
        fake.stream_quirks = set()
    assert ran.returncode == 3, ran.stderr
    said = "unexpected EOF" if quirk == "error_event" else "ended early"
    assert said in ran.stderr
    assert (tmp_path / "t" / "1-response.ollama-native.sse").stat().st_size > 0


def test_a_password_the_stream_echoes_cut_across_lines_is_masked(
    fake: FakeProvider, tmp_path: Path
) -> None:
    """A password in the base URL goes out as Basic auth; the server echoes it in its thinking,
    eight characters a line: masked in every file, and the masked stream still folds."""
    import base64

    password = "s3cret-passw0rd-4711"
    basic = base64.b64encode(f"me:{password}".encode()).decode()
    url = fake.url.replace("http://", f"http://me:{password}@")
    fake.script = [{"echo_auth": ["reasoning"]}]
    ran = fc(tmp_path, "run", QUESTION, "-p", "ollama", "--api", "native", "--stream",
             "--thinking", "--base-url", url, "-o", "t")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    raw = (tmp_path / "t" / "1-response.ollama-native.sse").read_bytes()
    assert b"***" in raw and basic[:8].encode() not in raw  # its first piece masked too
    for file in (tmp_path / "t").iterdir():
        assert (
            basic.encode() not in file.read_bytes() and password.encode() not in file.read_bytes()
        )
    assert basic not in ran.stdout + ran.stderr
    thinking = json.loads((tmp_path / "t" / "1-response.json").read_text("utf-8"))["content"][0]
    assert thinking["type"] == "thinking" and "Basic ***" in thinking["thinking"]


# ---------------------------------------------------------------------------------------------
# the oracle: the ollama client's own types


def _sdk() -> Any:
    return pytest.importorskip(
        "ollama._types", reason="ollama is not installed (pip install -e '.[dev]')"
    )


def _whole(model: Any, value: dict[str, Any], known_extra: set[str] = frozenset()) -> None:
    """`value` validates as `model`, and every field of it is one the model holds (the client's
    types ignore unknown fields: a misspelt one would pass unseen)."""
    parsed = model.model_validate(value)
    dumped = parsed.model_dump(exclude_unset=True, by_alias=True)
    _same_keys(value, dumped, known_extra, "$")


def _same_keys(given: Any, kept: Any, known_extra: set[str], path: str) -> None:
    if isinstance(given, dict) and isinstance(kept, dict):
        for key, value in given.items():
            if key in known_extra or path.endswith(("arguments", "parameters", "format")):
                continue
            assert key in kept, f"{path}.{key} is no field of the ollama client's types"
            _same_keys(value, kept[key], known_extra, f"{path}.{key}")
    elif isinstance(given, list) and isinstance(kept, list):
        for i, (a, b) in enumerate(zip(given, kept, strict=True)):
            _same_keys(a, b, known_extra, f"{path}[{i}]")


# Ids exist on the wire since Ollama 0.12 (api/types.go: ToolCall.ID, Message.ToolCallID; and
# function.index), newer than the client's types.
NEWER = {"id", "tool_call_id", "index"}


def test_the_files_validate_against_the_ollama_clients_types(traces: Path) -> None:
    types = _sdk()
    for name in ("json", "stream"):
        trace = traces / name
        for path in sorted(trace.glob("*-request.ollama-native.json")):
            _whole(types.ChatRequest, json.loads(path.read_bytes()), NEWER)
        for path in sorted(trace.glob("*-response.ollama-native.json")):
            _whole(types.ChatResponse, json.loads(path.read_bytes()), NEWER)
        for path in trace.glob("*.sse"):
            for line in path.read_bytes().splitlines():
                _whole(types.ChatResponse, json.loads(line), NEWER)
    with pytest.raises(AssertionError, match="no field"):  # the check can fail
        _whole(types.ChatRequest, {"model": "m", "messages": [], "tool_choice": "auto"})


# ---------------------------------------------------------------------------------------------
# every command


def test_run_show_and_the_html_page(traces: Path) -> None:
    manifest = json.loads((traces / "stream" / "manifest.json").read_bytes())
    assert manifest["wire_format"] == "ollama-native" and manifest["status"] == "ok"
    shown = fc(traces, "show", "stream")
    assert shown.returncode == 0 and "ollama-native" in shown.stdout
    assert "get_weather" in shown.stdout and "fcoll_" in shown.stdout
    wire = fc(traces, "show", "--wire", "json")
    assert '"tool_name": "get_weather"' in wire.stdout
    page = fc(traces, "show", "json", "--html", "page.html")
    assert page.returncode == 0, page.stderr
    assert "1-request.ollama-native.json" in (traces / "page.html").read_text("utf-8")


def test_diff_maps_fields_and_says_ids_fc_made_up(traces: Path) -> None:
    ran = fc(traces, "diff", "json/2-request.json", "json/2-request.ollama-native.json")
    assert ran.returncode == 0, ran.stderr
    assert "`thinking` → `think`" in ran.stdout
    assert "made up by fc for a call sent without one: never on the wire" in ran.stdout
    assert "1 user message → 2 `tool` messages" in ran.stdout
    answer = fc(traces, "diff", "json/1-response.json", "json/1-response.ollama-native.json")
    assert "`input_tokens` → `prompt_eval_count`" in answer.stdout
    assert "$.total_duration" in answer.stdout  # kept only on the wire: nanoseconds


def test_check_is_clean_on_the_traces_and_quotes_ollama_on_string_arguments(traces: Path) -> None:
    assert fc(traces, "check", "json").returncode == 0
    assert fc(traces, "check", "stream").returncode == 0
    body = json.loads((traces / "json" / "2-request.ollama-native.json").read_bytes())
    call = body["messages"][1]["tool_calls"][0]["function"]
    call["arguments"] = json.dumps(call["arguments"])  # as the OpenAI-compatible format has it
    (traces / "broken.ollama-native.json").write_text(json.dumps(body), "utf-8")
    ran = fc(traces, "check", "broken.ollama-native.json")
    assert ran.returncode == 1
    assert (
        "FC109" in ran.stdout and "ChatRequest.messages.tool_calls.function.arguments" in ran.stdout
    )


def test_replay_sends_an_edited_result_to_ollama(traces: Path, fake: FakeProvider) -> None:
    first = json.loads((traces / "json" / "1-response.json").read_bytes())
    call_id = first["content"][1]["id"]
    ran = fc(traces, "replay", "json", "--step", "2", "--set", f"{call_id}=暴雨", "--error",
             call_id, "--base-url", fake.url, "-o", "replayed")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    sent = json.loads((traces / "replayed" / "1-request.ollama-native.json").read_bytes())
    assert sent["messages"][2] == {
        "role": "tool",
        "content": "[tool error] 暴雨",
        "tool_name": "get_weather",
    }


def test_curl_and_send(traces: Path, fake: FakeProvider) -> None:
    curl = fc(traces, "curl", "stream/1-request.ollama-native.json")
    assert curl.returncode == 0
    assert "http://localhost:11434/api/chat" in curl.stdout and "-N" in curl.stdout
    assert "accept: application/x-ndjson" in curl.stdout
    sent = fc(traces, "send", "stream/1-request.ollama-native.json", "--base-url", fake.url)
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.encode() == _stream_bytes(traces / "stream", 1)


def _ollama_agent(url: str, stream: bool) -> list[dict[str, Any]]:
    """The ollama client running the tool loop against `url`: its messages at the end."""
    ollama = pytest.importorskip("ollama")
    from fccli.tools.weather import get_weather

    client = ollama.Client(host=url)
    tools = FMT.to_wire_request(Request(model="m", messages=[], tools=[TOOL]))["tools"]
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for _ in range(3):
        if stream:
            parts = list(
                client.chat(model="qwen3", messages=messages, tools=tools, stream=True, think=True)
            )
            calls = [c for p in parts for c in (p.message.tool_calls or [])]
            content = "".join(p.message.content or "" for p in parts)
        else:
            reply = client.chat(model="qwen3", messages=messages, tools=tools, think=True)
            calls, content = list(reply.message.tool_calls or []), reply.message.content or ""
        if not calls:
            messages.append({"role": "assistant", "content": content})
            return messages
        messages.append(
            {"role": "assistant", "content": content, "tool_calls": [c.model_dump() for c in calls]}
        )
        for call in calls:
            result = get_weather(**call.function.arguments)
            messages.append(
                {
                    "role": "tool",
                    "content": json.dumps(result, ensure_ascii=False),
                    "tool_name": call.function.name,
                }
            )
    raise AssertionError("the agent did not finish")


@pytest.mark.parametrize("stream", [False, True])
def test_the_ollama_client_through_fc_proxy_and_against_fc_serve(
    fake: FakeProvider, tmp_path: Path, stream: bool
) -> None:
    from fccli.proxy.target import resolve
    from tests.serve.test_serve import Served
    from tests.support.proxy_harness import proxy

    # --to ollama forwards both of Ollama's APIs; --to ollama-native its own only
    to = "ollama-native" if stream else "ollama"
    with proxy(tmp_path / "proxied", to, base_url=fake.url) as running:
        messages = _ollama_agent(running.url, stream)
        recorded = running.traces()
    lines = resolve(to).agent_lines("http://127.0.0.1:8787")
    assert "OLLAMA_HOST=http://127.0.0.1:8787" in lines
    assert ("OPENAI_BASE_URL=http://127.0.0.1:8787/v1" in lines) is not stream
    assert "北京" in messages[-1]["content"]
    assert len(recorded) == 1
    files = sorted(p.name for p in recorded[0].iterdir())
    assert "2-request.ollama-native.json" in files
    assert ("1-response.ollama-native.sse" in files) is stream
    served = Served([recorded[0]])
    served.server.start()
    try:
        again = _ollama_agent(served.url, stream)
        body = (recorded[0] / "1-request.ollama-native.json").read_bytes()
        played = local_http.post(served.url + "/api/chat", content=body)
    finally:
        served.server.stop()
    assert again == messages
    kind = "application/x-ndjson" if stream else "application/json"
    assert played.headers["content-type"].startswith(kind)


@pytest.mark.parametrize("fault", ["unknown_tool", "wrong_type", "bad_json_args"])
def test_a_models_mistake_is_answered_with_an_error_result_and_the_run_goes_on(
    fake: FakeProvider, tmp_path: Path, fault: str
) -> None:
    fake.script = [fault]
    ran = fc(tmp_path, "run", "杭州今天适合跑步吗？", "-p", "ollama", "--api", "native",
             "--base-url", fake.url, "-o", "t")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result = json.loads((tmp_path / "t" / "2-request.ollama-native.json").read_bytes())
    assert result["messages"][2]["content"].startswith("[tool error] ")
    assert json.loads((tmp_path / "t" / "manifest.json").read_bytes())["status"] == "ok"


def test_an_http_error_is_said_with_ollamas_sentence(fake: FakeProvider, tmp_path: Path) -> None:
    fake.script = [{"status": 404, "message": "model 'qwen9' not found, try pulling it first"}]
    ran = fc(tmp_path, "run", QUESTION, "-p", "ollama", "--api", "native", "-m", "qwen9",
             "--base-url", fake.url, "-o", "b")  # fmt: skip
    assert ran.returncode == 3
    assert "model 'qwen9' not found, try pulling it first" in ran.stderr


def test_export_otel(traces: Path) -> None:
    ran = fc(traces, "export", "otel", "json", "--format", "json", "-o", "spans.json")
    assert ran.returncode == 0, ran.stderr
    text = (traces / "spans.json").read_text("utf-8")
    assert "chat qwen3" in text and "execute_tool get_weather" in text
