"""`fc import` of span files written by other projects' instrumentations of the openai SDK,
generated here against the fake provider: OpenLLMetry (opentelemetry-instrumentation-openai)
and the official opentelemetry-instrumentation-openai-v2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the import-test extra is not installed")

from tests.conftest import clean_env
from tests.importer.agent import QUESTION, run_agent, traced, weather
from tests.importer.otlp_file import otlp_json, otlp_protobuf

pytestmark = pytest.mark.server


def _check_trace(trace: Path, source: str) -> dict[str, Any]:
    """The agent's conversation, as fc reads it back: two steps, two calls, results, answer."""
    manifest = json.loads((trace / "manifest.json").read_text())
    assert manifest["status"] == "ok"
    assert manifest["imported_from"]["source"].startswith(source)
    assert manifest["question"] == QUESTION
    assert manifest["wire_format"] == "openai"
    assert [s["step"] for s in manifest["steps"]] == [1, 2]
    runs = manifest["steps"][0]["tool_runs"]
    assert [(r["name"], r["arguments"]) for r in runs] == [
        ("get_weather", {"city": "杭州"}),
        ("get_weather", {"city": "北京"}),
    ]
    assert all(r["is_error"] is False for r in runs)
    first = json.loads((trace / "1-request.json").read_text())
    assert first["system"] == "Answer briefly."
    second = json.loads((trace / "2-request.json").read_text())
    results = [b for b in second["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [r["content"] for r in results] == [weather("杭州"), weather("北京")]
    assert [r["tool_use_id"] for r in results] == [r["id"] for r in runs]
    # the wire files are chat's, and say what the internal ones say
    wire = json.loads((trace / "2-request.openai.json").read_text())
    assert [m["role"] for m in wire["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert "杭州" in manifest["final_answer"] and "北京" in manifest["final_answer"]
    assert manifest["steps"][1]["usage"]["input_tokens"] > 0
    return manifest


def test_openllmetry_spans_read_in(fc, fake_provider, tmp_path: Path, monkeypatch) -> None:
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    with traced(OpenAIInstrumentor()) as (exporter, _provider):
        run_agent(fake_provider.url + "/v1", fake_provider.key)
    spans = list(exporter.get_finished_spans())
    # no agent span: each call is a trace of its own, joined by its history
    assert len({s.context.trace_id for s in spans}) == 2
    (tmp_path / "spans.jsonl").write_bytes(otlp_json(spans))
    ran = fc("import", "spans.jsonl", "-o", "out")
    assert ran.returncode == 0, ran.stderr
    manifest = _check_trace(tmp_path / "out", "OpenLLMetry")
    tools = json.loads((tmp_path / "out" / "1-request.json").read_text())["tools"]
    assert [t["name"] for t in tools] == ["get_weather", "get_time"]
    # what the spans lack is said, on stderr and in the notes
    assert "no run or result" not in ran.stderr
    assert ran.stderr == "fc: note: the file does not say how long the tools ran\n"
    assert manifest["steps"][0]["tool_runs"][0]["duration_ms"] is None


def test_official_v2_spans_read_in_from_protobuf(fc, fake_provider, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    with traced(OpenAIInstrumentor()) as (exporter, provider):
        tracer = provider.get_tracer("agent")
        run_agent(
            fake_provider.url + "/v1",
            fake_provider.key,
            lambda: tracer.start_as_current_span("invoke_agent weather"),
        )
    spans = list(exporter.get_finished_spans())
    (tmp_path / "spans.pb").write_bytes(otlp_protobuf(spans))
    ran = fc("import", "spans.pb", "-o", "out")
    assert ran.returncode == 0, ran.stderr
    _check_trace(tmp_path / "out", "OpenTelemetry's official instrumentation")
    # v2 records no tool definitions: the request has none, and fc says nothing it cannot know
    assert json.loads((tmp_path / "out" / "1-request.json").read_text())["tools"] == []

    # without content capture the spans hold no messages: said, step by step, exit 0
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "NO_CONTENT")
    with traced(OpenAIInstrumentor()) as (exporter, provider):
        run_agent(fake_provider.url + "/v1", fake_provider.key)
    (tmp_path / "bare.jsonl").write_bytes(otlp_json(list(exporter.get_finished_spans())))
    ran = fc("import", "bare.jsonl", "-o", "bare", env=clean_env())
    assert ran.returncode == 0, ran.stderr
    assert "carries no request messages" in ran.stderr
    assert "carries no answer" in ran.stderr
