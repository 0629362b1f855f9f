"""Internal messages built the way a reader of CLI.md would write them, for the translator tests."""

from __future__ import annotations

from fccli.core.models import Block, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}
WEATHER = ToolSpec(
    name="get_weather", description="Current weather for a city.", input_schema=WEATHER_SCHEMA
)


def user(*blocks: Block | str) -> Message:
    return Message(
        role="user", content=[TextBlock(text=b) if isinstance(b, str) else b for b in blocks]
    )


def assistant(*blocks: Block | str) -> Message:
    return Message(
        role="assistant",
        content=[TextBlock(text=b) if isinstance(b, str) else b for b in blocks],
    )


def call(call_id: str, city: str, name: str = "get_weather") -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, input={"city": city})


def result(call_id: str, content: str, is_error: bool = False) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error)
