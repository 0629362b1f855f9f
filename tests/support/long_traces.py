"""Long traces for the tests of linear reading: what `fc run` writes when the model keeps asking
for a tool, step after step (benchmarks/long_trace.py records real ones with the fake provider;
here they are written directly, the same files in a fraction of the time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fccli.core.jsonio import dumps
from fccli.core.models import (
    Message,
    Request,
    Response,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from fccli.wire.registry import get_format

WEATHER = ToolSpec(
    name="get_weather",
    description="查询某个城市当前的天气。",
    input_schema={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
)


def _call(step: int) -> ToolUseBlock:
    return ToolUseBlock(id=f"call_{step:05d}", name="get_weather", input={"city": "杭州"})


def write_long_trace(path: Path, steps: int, wire_format: str = "deepseek") -> Path:
    """A trace of `steps` steps, each answered with one more call: every N-request repeats the
    whole history before it, in the internal and the wire format, as fc writes them."""
    fmt = get_format(wire_format)
    path.mkdir(parents=True, exist_ok=True)
    messages = [Message(role="user", content=[TextBlock(text="杭州天气怎么样？一直查。")])]
    records: list[dict[str, Any]] = []
    for step in range(1, steps + 1):
        request = Request(model="deepseek-chat", messages=list(messages), tools=[WEATHER])
        call = _call(step)
        response = Response(
            id=f"chatcmpl-{step}",
            model="deepseek-chat",
            content=[call],
            stop_reason="tool_use",
            usage=Usage(input_tokens=100 * step, output_tokens=12),
        )
        _write(path / f"{step}-request.json", request.to_json_dict())
        _write(path / f"{step}-request.{wire_format}.json", fmt.to_wire_request(request))
        _write(path / f"{step}-response.json", response.to_json_dict())
        _write(path / f"{step}-response.{wire_format}.json", fmt.to_wire_response(response))
        result = ToolResultBlock(
            tool_use_id=call.id, content='{"city": "杭州", "temperature_c": 21, "condition": "晴"}'
        )
        messages += [response.as_message(), Message(role="user", content=[result])]
        records.append(
            {
                "step": step,
                "stop_reason": "tool_use",
                "tool_runs": [{"id": call.id, "name": "get_weather", "duration_ms": 1.0}],
            }
        )
    manifest = {
        "schema_version": 1,
        "provider": "deepseek",
        "wire_format": wire_format,
        "model": "deepseek-chat",
        "question": "杭州天气怎么样？一直查。",
        "status": "max_steps",
        "error": None,
        "started_at": "2026-01-01T00:00:00.000+00:00",
        "steps": records,
    }
    _write(path / "manifest.json", manifest)
    return path


def _write(path: Path, obj: Any) -> None:
    path.write_bytes(dumps(obj).encode("utf-8"))
