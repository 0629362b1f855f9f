"""Format detection from content (fccli/trace/detect.py): the trace files, the other formats, and the
documents it must refuse with a reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.convert.translate import convert
from fccli.trace.reader import document_from
from fccli.wire.detect import TraceManifest, Unrecognised, detect, error_body
from fccli.wire.registry import get_format
from tests.conftest import REPO

EXAMPLES = REPO / "traces" / "examples"
TRACE_FILES = sorted(EXAMPLES.glob("*/[0-9]*-*.json"))


def load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _wire_format(path: Path) -> str:
    """The format of the example's wire files, as its manifest says (the demo's is deepseek)."""
    return str(load(path.parent / "manifest.json")["wire_format"])


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_trace_file_is_recognised_with_its_name(path: Path) -> None:
    found = detect(load(path), name_hint=path.name)
    fmt = _wire_format(path)
    assert found.format == (fmt if f".{fmt}." in path.name else "internal")
    assert found.kind == ("request" if "-request" in path.name else "response")
    assert found.reason


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_without_a_name_the_kind_is_right_and_the_family_too(path: Path) -> None:
    found = detect(load(path))
    assert found.kind == ("request" if "-request" in path.name else "response")
    fmt = _wire_format(path)
    if ".deepseek." in path.name:
        # A request without reasoning reads the same as OpenAI's chat; only the name tells.
        assert found.format in ("deepseek", "openai")
    elif f".{fmt}." in path.name:
        assert found.format == fmt
    else:
        assert found.format == "internal"


@pytest.mark.parametrize("target", ["anthropic", "openai", "deepseek"])
@pytest.mark.parametrize(
    "path",
    [p for p in TRACE_FILES if ".deepseek." not in p.name and ".responses." not in p.name],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_a_converted_file_is_read_the_same_whatever_detection_says(path: Path, target: str) -> None:
    """Anthropic and internal are near twins: where nothing tells them apart, reading the
    document either way must give the same content (the module's promise)."""
    doc = document_from(load(path), path.name)
    wire = convert(doc, target).output
    found = detect(wire, name_hint=f"x.{target}.json")
    assert found.format == target
    unnamed = document_from(wire, "-")
    as_target = document_from(wire, "-", forced=target)
    assert unnamed.internal_json() == as_target.internal_json()


QUESTION = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("doc", "name", "fmt", "kind"),
    [
        # DeepSeek's switch has Anthropic's shape; Anthropic would require max_tokens.
        (
            {"model": "deepseek-v4-flash", "messages": QUESTION, "thinking": {"type": "disabled"}},
            None,
            "deepseek",
            "request",
        ),
        (
            {
                "model": "m",
                "max_tokens": 2000,
                "messages": QUESTION,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
            },
            None,
            "anthropic",
            "request",
        ),
        (
            {"model": "gpt-x", "messages": QUESTION, "max_completion_tokens": 5},
            None,
            "openai",
            "request",
        ),
        (
            {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": QUESTION},
            None,
            "anthropic",
            "request",
        ),
        (
            {"model": "x", "messages": QUESTION, "stop_sequences": ["END"]},
            None,
            "anthropic",
            "request",
        ),
        ({"model": "x", "messages": QUESTION}, "1-request.openai.json", "openai", "request"),
        ({"model": "x", "messages": QUESTION}, "1-request.anthropic.json", "anthropic", "request"),
        ({"model": "x", "messages": QUESTION}, None, "internal", "request"),
        (QUESTION, "history.deepseek.json", "deepseek", "messages"),
        ([{"role": "tool", "tool_call_id": "c", "content": "x"}], None, "openai", "messages"),
        # An Anthropic message without its `type` (some proxies): `stop_sequence` gives it away.
        (
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "x"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
            },
            None,
            "anthropic",
            "response",
        ),
        (
            {"content": [{"type": "text", "text": "x"}], "stop_reason": "end_turn"},
            None,
            "internal",
            "response",
        ),
    ],
)
def test_documents_without_a_trace_name(doc: Any, name: str | None, fmt: str, kind: str) -> None:
    found = detect(doc, name_hint=name)
    assert (found.format, found.kind) == (fmt, kind), found.reason


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ({"choices": [{"index": 0, "delta": {"content": "h"}}]}, "one chunk of a stream"),
        (
            {"type": "content_block_delta", "index": 0, "delta": {}},
            "one event of an Anthropic stream",
        ),
        (
            {"error": {"message": "bad key"}},
            "provider's error body, not a request or a response: bad key",
        ),
        ({"error": None, "x": 1}, "neither a request"),
        ({"type": "error", "error": {"type": "overloaded_error"}}, "error body"),
        ({"hello": 1}, "neither a request"),
        (42, "expected a JSON object"),
    ],
)
def test_what_is_not_a_request_or_response_is_refused_with_a_reason(doc: Any, says: str) -> None:
    with pytest.raises(Unrecognised, match=says):
        detect(doc)


def test_anthropic_response_from_the_translator_is_anthropic() -> None:
    response = load(EXAMPLES / "hangzhou" / "1-response.json")
    doc = document_from(response, "r.json")
    wire = get_format("anthropic").to_wire_response(doc.internal)  # type: ignore[arg-type]
    assert detect(wire).format == "anthropic"


@pytest.mark.parametrize("name", ["hangzhou", "unknown-city"])
def test_a_trace_manifest_is_a_manifest_not_an_error_body(name: str) -> None:
    manifest = load(EXAMPLES / name / "manifest.json")
    assert manifest["error"] is None  # the key is there, and null
    with pytest.raises(TraceManifest, match="this is a trace's manifest"):
        detect(manifest)
    assert error_body(manifest) is None
    # A failed run's manifest has an error object: still a manifest.
    manifest["error"] = {"kind": "ProviderError", "message": "step 1: HTTP 401", "step": 1}
    with pytest.raises(TraceManifest):
        detect(manifest)


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        (
            {"error": {"message": "Incorrect  API key", "type": "invalid_request_error"}},
            "Incorrect API key",
        ),
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "Overloaded",
        ),
        ({"type": "error", "error": {"type": "overloaded_error"}}, "overloaded_error"),
        ({"error": "rate limited"}, "rate limited"),
        ({"error": {}}, ""),
        ({"error": None}, None),
        ({"choices": [], "error": {"message": "x"}}, None),
    ],
)
def test_an_error_body_gives_the_providers_sentence(doc: Any, said: str | None) -> None:
    assert error_body(doc) == said
