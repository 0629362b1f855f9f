"""`fc import` of every span shape it reads, in the attribute names each project documents
(tests/importer/spans_json.py), and of `llm logs --json` as llm 0.36 wrote it against the fake
provider (tests/importer/data/llm-logs.json: `llm -m fake --functions ... QUESTION`, then
`llm logs --json -n 0`, with the fake provider as an extra OpenAI model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.importer.spans_json import otlp, span

DATA = Path(__file__).parent / "data"
Q = "杭州今天适合跑步吗？"
SYSTEM = "Answer briefly."
RESULT = '{"temp_c": 21}'
ANSWER = "适合跑步。"
ARGS = '{"city": "杭州"}'
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOL = {
    "type": "function",
    "function": {"name": "get_weather", "description": "Weather.", "parameters": SCHEMA},
}
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ARGS}}


def _indexed() -> bytes:
    """OpenLLMetry before 0.4x: one attribute per field, numbered."""
    common = {
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "llm.request.type": "chat",
        "llm.request.functions.0.name": "get_weather",
        "llm.request.functions.0.description": "Weather.",
        "llm.request.functions.0.parameters": json.dumps(SCHEMA),
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": SYSTEM,
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": Q,
        "gen_ai.usage.prompt_tokens": 20,
        "gen_ai.usage.completion_tokens": 5,
    }
    first = {
        **common,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "call_1",
        "gen_ai.completion.0.tool_calls.0.name": "get_weather",
        "gen_ai.completion.0.tool_calls.0.arguments": ARGS,
    }
    second = {
        **common,
        "gen_ai.prompt.2.role": "assistant",
        "gen_ai.prompt.2.tool_calls.0.id": "call_1",
        "gen_ai.prompt.2.tool_calls.0.name": "get_weather",
        "gen_ai.prompt.2.tool_calls.0.arguments": ARGS,
        "gen_ai.prompt.3.role": "tool",
        "gen_ai.prompt.3.tool_call_id": "call_1",
        "gen_ai.prompt.3.content": RESULT,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": ANSWER,
        "gen_ai.completion.0.finish_reason": "stop",
    }
    return otlp([span(1, first, name="openai.chat"), span(300, second, name="openai.chat")])


def _openinference() -> bytes:
    """OpenInference (Arize; the OpenAI Agents SDK through openinference-instrumentation-openai-
    agents): flattened messages, a TOOL span for the run."""

    def message(prefix: str, n: int, role: str, **fields: Any) -> dict[str, Any]:
        out: dict[str, Any] = {f"{prefix}.{n}.message.role": role}
        for key, value in fields.items():
            out[f"{prefix}.{n}.message.{key}"] = value
        return out

    call = {
        "tool_calls.0.tool_call.id": "call_1",
        "tool_calls.0.tool_call.function.name": "get_weather",
        "tool_calls.0.tool_call.function.arguments": ARGS,
    }
    common = {
        "openinference.span.kind": "LLM",
        "llm.provider": "openai",
        "llm.model_name": "gpt-4o-mini",
        "llm.tools.0.tool.json_schema": json.dumps(CHAT_TOOL),
        **message("llm.input_messages", 0, "system", content=SYSTEM),
        **message("llm.input_messages", 1, "user", content=Q),
        "llm.token_count.prompt": 20,
        "llm.token_count.completion": 5,
    }
    first = {**common, **message("llm.output_messages", 0, "assistant", **call)}
    second = {
        **common,
        **message("llm.input_messages", 2, "assistant", **call),
        **message("llm.input_messages", 3, "tool", content=RESULT, tool_call_id="call_1"),
        **message("llm.output_messages", 0, "assistant", content=ANSWER),
    }
    tool = {
        "openinference.span.kind": "TOOL",
        "tool.name": "get_weather",
        "input.value": ARGS,
        "output.value": RESULT,
    }
    return otlp(
        [
            span(1, first, name="ChatCompletion"),
            span(150, tool, name="get_weather", took_ms=7),
            span(300, second, name="ChatCompletion"),
        ],
        scope="openinference.instrumentation.openai",
    )


def _logfire() -> bytes:
    """Logfire before it wrote the conventions' attributes: the request body and the answer."""
    base = {"model": "gpt-4o-mini", "tools": [CHAT_TOOL]}
    system, user = {"role": "system", "content": SYSTEM}, {"role": "user", "content": Q}
    called = {"role": "assistant", "content": None, "tool_calls": [CALL]}
    first = {
        "gen_ai.system": "openai",
        "request_data": {**base, "messages": [system, user]},
        "response_data": {"message": called, "usage": {"prompt_tokens": 20}},
    }
    second = {
        "gen_ai.system": "openai",
        "request_data": {
            **base,
            "messages": [
                system,
                user,
                called,
                {"role": "tool", "tool_call_id": "call_1", "content": RESULT},
            ],
        },
        "response_data": {"message": {"role": "assistant", "content": ANSWER}},
    }
    return otlp(
        [span(1, first, name="Chat Completion"), span(300, second, name="Chat Completion")],
        scope="logfire.openai",
    )


def _events() -> bytes:
    """The conventions' events (v1.28 to v1.36): one event per message, then the choice."""
    common = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"}
    asked = [
        ("gen_ai.system.message", {"content": SYSTEM}),
        ("gen_ai.user.message", {"content": Q}),
    ]
    first = [
        *asked,
        (
            "gen_ai.choice",
            {"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": [CALL]}},
        ),
    ]
    second = [
        *asked,
        ("gen_ai.assistant.message", {"tool_calls": [CALL]}),
        ("gen_ai.tool.message", {"id": "call_1", "content": RESULT}),
        ("gen_ai.choice", {"index": 0, "finish_reason": "stop", "message": {"content": ANSWER}}),
    ]
    return otlp([span(1, common, events=first), span(300, common, events=second)])


SHAPES = {
    "OpenLLMetry (gen_ai.prompt.N)": _indexed,
    "OpenInference (llm.input_messages)": _openinference,
    "Logfire (request_data)": _logfire,
    "span events (gen_ai.*.message)": _events,
}


def test_each_projects_span_shape_gives_the_same_trace(fc, tmp_path: Path) -> None:
    for source, make in SHAPES.items():
        (tmp_path / "spans.json").write_bytes(make())
        ran = fc("import", "spans.json", "-o", "out", "--force")
        assert ran.returncode == 0, (source, ran.stderr)
        out = tmp_path / "out"
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["imported_from"]["source"] == source
        assert manifest["question"] == Q and manifest["final_answer"] == ANSWER, source
        assert manifest["wire_format"] == "openai"
        runs = manifest["steps"][0]["tool_runs"]
        assert [(r["id"], r["name"], r["arguments"]) for r in runs] == [
            ("call_1", "get_weather", {"city": "杭州"})
        ], source
        assert [s["stop_reason"] for s in manifest["steps"]] == ["tool_use", "end_turn"]
        first = json.loads((out / "1-request.json").read_text())
        assert first["system"] == SYSTEM, source
        if source != "span events (gen_ai.*.message)":  # the events carry no definitions
            assert [t["name"] for t in first["tools"]] == ["get_weather"], source
            assert first["tools"][0]["input_schema"] == SCHEMA
        second = json.loads((out / "2-request.json").read_text())
        assert second["messages"][-1]["content"] == [
            {"type": "tool_result", "tool_use_id": "call_1", "content": RESULT, "is_error": False}
        ], source
        assert (out / "2-request.openai.json").is_file()
    # the TOOL span of OpenInference says how long the tool ran
    (tmp_path / "oi.json").write_bytes(_openinference())
    fc("import", "oi.json", "-o", "oi")
    runs = json.loads((tmp_path / "oi" / "manifest.json").read_text())["steps"][0]["tool_runs"]
    assert runs[0]["duration_ms"] == 7.0


def test_llm_logs_become_one_trace_per_conversation(fc, tmp_path: Path) -> None:
    rows = json.loads((DATA / "llm-logs.json").read_text())
    ran = fc("import", str(DATA / "llm-logs.json"), "-o", "llm")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "wrote llm/1: 2 step(s) from llm logs --json",
        "wrote llm/2: 1 step(s) from llm logs --json",
    ]
    # what llm does not keep is said, once per trace, and in the notes
    assert ran.stderr.count("fc: note: llm keeps no request body") == 2
    trace = tmp_path / "llm" / "1"
    manifest = json.loads((trace / "manifest.json").read_text())
    assert manifest["imported_from"]["id"] == rows[0]["conversation_id"]
    assert any("llm keeps no request body" in n for n in manifest["notes"])
    calls = rows[0]["tool_calls"]
    runs = manifest["steps"][0]["tool_runs"]
    assert [(r["id"], r["name"], r["arguments"]) for r in runs] == [
        (c["tool_call_id"], c["name"], c["arguments"]) for c in calls
    ]
    second = json.loads((trace / "2-request.json").read_text())
    assert second["system"] == rows[0]["system"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert [b["content"] for b in second["messages"][-1]["content"]] == [
        r["output"] for r in rows[1]["tool_results"]
    ]
    assert [t["name"] for t in second["tools"]] == ["get_weather", "get_time"]
    assert manifest["final_answer"] == rows[1]["response"]
    assert manifest["steps"][1]["usage"]["cache_read_tokens"] == 22
    assert manifest["started_at"].startswith(rows[0]["datetime_utc"][:19])
    other = json.loads((tmp_path / "llm" / "2" / "manifest.json").read_text())
    assert other["question"] == rows[2]["prompt"] and other["final_answer"] == rows[2]["response"]
