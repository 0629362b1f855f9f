"""fc's Responses files against the official SDK's own types (issue 15): the request files fc
writes validate as openai-python's `ResponseCreateParams` (a TypedDict, read with pydantic's
TypeAdapter), the response files as its `Response` model. Skipped, saying why, where the
`openai` package is not installed (the dev extra brings it, and .ci/run installs that)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from fccli.core.models import Request, Response, Usage
from fccli.wire.registry import FORMATS
from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider


def _sdk() -> Any:
    """openai's Responses types, imported by the tests that use them (not at collection: ~1.3 s
    of CPU in every xdist worker, whether or not it runs one of them)."""
    return pytest.importorskip(
        "openai.types.responses",
        reason="the openai package is not installed: pip install -e '.[test]' to check fc's "
        "Responses files against its types",
    )


@functools.cache
def _adapters() -> tuple[pydantic.TypeAdapter[Any], ...]:
    """The request's validators, built once (building a TypeAdapter of ResponseCreateParams
    costs more than validating with it)."""
    types = _sdk()
    return (
        pydantic.TypeAdapter(types.ResponseCreateParams),
        # `tools` is an Iterable in the SDK's type, which pydantic checks lazily: read it as a list.
        pydantic.TypeAdapter(list[types.ToolParam]),
        pydantic.TypeAdapter(types.ResponseInputParam),
    )


def _valid_request(body: Any) -> None:
    params, tools, history = _adapters()
    params.validate_python(body)
    tools.validate_python(body.get("tools", []))
    history.validate_python(body["input"])


def _valid_response(body: Any) -> None:
    _sdk().Response.model_validate(body)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("model", ["gpt-5-mini", "gpt-4.1-mini"])
def test_the_trace_files_are_what_the_sdk_types_say(
    fc, fake_provider: FakeProvider, tmp_path: Path, stream: bool, model: str
) -> None:
    result = fc(
        "run", "北京、上海今天适合跑步吗？", "-p", "openai", "--api", "responses", "-m", model,
        "--base-url", fake_provider.url, "-o", "t", *(["--stream"] if stream else []),
        env=clean_env(OPENAI_API_KEY=DEFAULT_KEY),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    requests = sorted(trace.glob("*-request.responses.json"))
    answers = sorted(trace.glob("*-response.responses.json"))
    assert len(requests) == len(answers) == 2
    for file in requests:
        _valid_request(json.loads(file.read_text(encoding="utf-8")))
    for file in answers:
        _valid_response(json.loads(file.read_text(encoding="utf-8")))


def test_a_request_fc_writes_from_any_history_validates() -> None:
    from fccli.core.models import (
        Message,
        TextBlock,
        ThinkingBlock,
        ToolChoice,
        ToolResultBlock,
        ToolSpec,
        ToolUseBlock,
    )

    request = Request(
        model="gpt-5-mini",
        system="brief",
        messages=[
            Message(role="user", content=[TextBlock(text="q"), TextBlock(text="more")]),
            Message(
                role="assistant",
                content=[
                    ThinkingBlock(thinking="from elsewhere"),
                    TextBlock(text="looking"),
                    ToolUseBlock(id="call_1", name="t", input={"a": 1}),
                ],
            ),
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id="call_1", content="x", is_error=True)],
            ),
        ],
        tools=[ToolSpec(name="t", description="d", input_schema={"type": "object"}, strict=True)],
        tool_choice=ToolChoice(type="tool", name="t"),
        parallel_tool_calls=False,
        max_tokens=100,
        effort="low",
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "a", "schema": {"type": "object"}},
        },
    )
    _valid_request(FORMATS["responses"].to_wire_request(request))


def test_the_check_can_fail() -> None:
    body = FORMATS["responses"].to_wire_request(
        Request(model="m", messages=[], tools=[], max_tokens=5)
    )
    body["tools"] = [{"type": "function", "name": "t", "parameters": {}}]  # no strict
    with pytest.raises(pydantic.ValidationError):
        _valid_request(body)
    answer = FORMATS["responses"].to_wire_response(
        Response(content=[], stop_reason="end_turn", usage=Usage(input_tokens=1, output_tokens=1))
    )
    with pytest.raises(pydantic.ValidationError):
        _valid_response(answer)  # fc's own translation leaves out created_at, tools...
