"""The OpenTelemetry GenAI semantic conventions, as fc follows them.

Pinned to semantic conventions v1.41.1 (`docs/gen-ai/` of open-telemetry/semantic-conventions
at that tag), the last tagged release that holds them. Every GenAI attribute is still
"Development", so names move; the version is written into every export as the schema URL.

Structured attributes (messages, definitions, arguments, results) are recorded as JSON strings,
as the conventions allow on spans where structured values are not supported.
"""

from __future__ import annotations

import json
from typing import Any

from fccli.core.models import (
    Message,
    ProviderBlock,
    Response,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from fccli.providers.profiles import PROFILES

SEMCONV_VERSION = "1.41.1"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"

AGENT_NAME = "fc"

# What a step and the run cost: fc's own attributes, as the conventions (to v1.41.1) have no
# cost attribute; the one proposed (semantic-conventions-genai #443: gen_ai.usage.cost.amount
# with its currency) is not merged. US dollars, as genai-prices prices them (fccli/cost).
COST = "fc.cost.usd"
COST_SAVED = "fc.cost.cache_saved_usd"
COST_MODEL = "fc.cost.model"
"""The model priced as: its id in genai-prices' table (a step), the name looked up (the run)."""
COST_BASIS = "fc.cost.basis"
"""Why the run is priced as another model (the demo, --price-model)."""
COST_UNKNOWN = "fc.cost.unknown"
"""Why a step has no price: never a cost of 0."""

# The offline demo model's `gen_ai.provider.name`; a real provider's is its own name (deepseek,
# openai and anthropic are the well-known values already) unless its profile names another.
DEMO_NAME = "fc.demo"

# fc's stop reasons (CLI.md) as the output messages' `finish_reason` enum.
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_call",
    "max_tokens": "length",
    "refusal": "content_filter",
}


def provider_name(fc_provider: str | None) -> str:

    if not fc_provider:
        return "_OTHER"
    if fc_provider == "demo":
        return DEMO_NAME
    profile = PROFILES.get(fc_provider)
    return profile.otel_name if profile is not None and profile.otel_name else fc_provider


def finish_reason(stop_reason: str) -> str:
    return FINISH_REASONS.get(stop_reason, stop_reason)


def as_json(value: Any) -> str:
    """Return a structured attribute as the JSON string recorded on the span (UTF-8 kept
    readable)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------
# content, in the conventions' parts structure (opt-in: only with --content)


def input_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Return `gen_ai.input.messages`: the history in the order sent. fc keeps all results of a turn
    in one user message; the conventions give tool results a message of role `tool`, so such a
    message becomes a `tool` message (its results) and, if it also holds text, a `user` one."""
    out: list[dict[str, Any]] = []
    for message in messages:
        results = [_part(b) for b in message.content if isinstance(b, ToolResultBlock)]
        rest = [_part(b) for b in message.content if not isinstance(b, ToolResultBlock)]
        if results:
            out.append({"role": "tool", "parts": results})
        if rest or not results:
            out.append({"role": message.role, "parts": rest})
    return out


def output_messages(response: Response) -> list[dict[str, Any]]:
    """Return `gen_ai.output.messages`: fc asks for one choice, so one message."""
    return [
        {
            "role": "assistant",
            "parts": [_part(b) for b in response.content],
            "finish_reason": finish_reason(response.stop_reason),
        }
    ]


def system_instructions(system: str) -> list[dict[str, Any]]:
    return [{"type": "text", "content": system}]


def tool_definitions(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.input_schema,
        }
        for t in tools
    ]


def call_arguments(call: ToolUseBlock) -> str:
    """Return `gen_ai.tool.call.arguments`: the object read; the model's own text when it was not
    one."""
    return call.raw_arguments if call.raw_arguments is not None else as_json(call.input)


def _part(
    block: TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ProviderBlock,
) -> dict[str, Any]:
    if isinstance(block, ProviderBlock):
        # A generic part (the conventions allow any type): the provider's block as it came.
        return {"type": block.kind(), "format": block.format, "content": block.block}
    if isinstance(block, TextBlock):
        return {"type": "text", "content": block.text}
    if isinstance(block, ThinkingBlock):
        return {"type": "reasoning", "content": block.thinking}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_call", "id": block.id, "name": block.name, "arguments": block.input}
    part: dict[str, Any] = {"type": "tool_call_response", "id": block.tool_use_id}
    part["response"] = block.content
    if block.is_error:  # not in the schema's required fields; its parts allow more
        part["is_error"] = True
    return part
