"""The message shapes other tools record, made into fc's internal messages.

Every source is first brought to one shape, the GenAI conventions' parts (`{"role", "parts":
[{"type": "text", "content"} | {"type": "tool_call", "id", "name", "arguments"} |
{"type": "tool_call_response", "id", "response"} | {"type": "reasoning", "content"}]}`), then read
into fc's blocks by `internal_messages`. OpenAI chat messages (`role`, `content`, `tool_calls`,
`tool_call_id`: what Logfire, the older events and OpenLLMetry's indexed attributes hold) come
to that shape through `parts_of_chat`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from fccli.core.models import (
    Message,
    ProviderBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from fccli.i18n import Msg

# The conventions' finish reasons (and chat's, Anthropic's, Gemini's words) as fc's stop reasons.
STOP_REASONS = {
    "stop": "end_turn",
    "end_turn": "end_turn",
    "STOP": "end_turn",
    "tool_call": "tool_use",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "tool_use": "tool_use",
    "length": "max_tokens",
    "max_tokens": "max_tokens",
    "MAX_TOKENS": "max_tokens",
    "content_filter": "refusal",
    "refusal": "refusal",
    "stop_sequence": "stop_sequence",
}


def loads(value: Any) -> Any:
    """Return a structured attribute's value: a JSON string parsed (None when it is not JSON),
    anything else as it is."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None


def text_of(content: Any) -> str:
    """Return the text of a message's content: a string, or chat's list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, dict) and isinstance(part.get("content"), str):
                texts.append(part["content"])
        return "".join(texts)
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def parts_of_chat(message: Any) -> dict[str, Any] | None:
    """Return an OpenAI chat message in the conventions' parts shape; None when it is none."""
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    role = role if isinstance(role, str) else "user"
    parts: list[dict[str, Any]] = []
    if role == "tool":
        parts.append(
            {
                "type": "tool_call_response",
                "id": message.get("tool_call_id") or message.get("id"),
                "response": text_of(message.get("content")),
            }
        )
        return {"role": "tool", "parts": parts}
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        parts.append({"type": "reasoning", "content": reasoning})
    text = text_of(message.get("content"))
    if text:
        parts.append({"type": "text", "content": text})
    calls = message.get("tool_calls")
    function_call = message.get("function_call")
    if not isinstance(calls, list) and isinstance(function_call, dict):
        calls = [{"function": function_call}]
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        function: dict[str, Any] = (
            call["function"] if isinstance(call.get("function"), dict) else call
        )
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": function.get("arguments"),
            }
        )
    return {"role": role, "parts": parts}


def tool_specs(definitions: Any) -> list[ToolSpec]:
    """Return tool definitions as fc's: the conventions' flat ones (`{"type": "function", "name",
    "description", "parameters"}`), chat's (`{"type": "function", "function": {...}}`) or
    Anthropic's (`input_schema`)."""
    out = []
    for item in definitions if isinstance(definitions, list) else []:
        if not isinstance(item, dict):
            continue
        spec: dict[str, Any] = item["function"] if isinstance(item.get("function"), dict) else item
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            continue
        schema = spec.get("parameters", spec.get("input_schema", spec.get("json_schema")))
        schema = loads(schema)
        description = spec.get("description")
        out.append(
            ToolSpec(
                name=name,
                description=description if isinstance(description, str) else "",
                input_schema=schema if isinstance(schema, dict) else {"type": "object"},
            )
        )
    return out


@dataclass
class Read:
    """Messages read into fc's form, the system text apart, and what could not be."""

    system: str | None = None
    messages: list[Message] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def internal_messages(items: Any, where: str) -> Read:
    """Read messages in the parts shape into fc's messages: a `system` one becomes the system
    text; `tool` results join the user message they open (fc keeps a turn's results in one user
    message), and an assistant message the one right before it; parts fc has no block for are
    said in `notes`."""
    out = Read()
    systems: list[str] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        role = item.get("role")
        parts = item.get("parts")
        if not isinstance(parts, list):  # the content as a string, chat style
            converted = parts_of_chat(item)
            parts = converted["parts"] if converted else []
        if role in ("system", "developer"):
            systems.append("".join(text_of([p]) for p in parts if isinstance(p, dict)))
            continue
        blocks = [b for p in parts if (b := _block(p, role, where, out.notes)) is not None]
        holder: Literal["user", "assistant"] = "assistant" if role == "assistant" else "user"
        last = out.messages[-1] if out.messages else None
        if last is not None and last.role == holder == "user" and _merges(last, blocks):
            last.content.extend(blocks)
        elif last is not None and last.role == holder == "assistant":
            # one turn recorded as several messages (Responses: a message, then each call)
            last.content.extend(blocks)
        elif blocks or holder == "assistant":
            out.messages.append(Message(role=holder, content=blocks))
    if systems:
        out.system = "\n\n".join(systems)
    return out


def _merges(last: Message, blocks: list[Any]) -> bool:
    """Whether these user blocks continue the last user message: it holds only results (chat
    gives each result a message; fc's export puts a turn's results in a `tool` message and the
    text after them in a `user` one)."""
    return bool(last.content) and all(isinstance(b, ToolResultBlock) for b in last.content)


def _block(part: Any, role: Any, where: str, notes: list[str]) -> Any:
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    content = part.get("content")
    if isinstance(part.get("format"), str) and isinstance(content, dict):  # fc's own export
        return ProviderBlock(format=part["format"], block=content)
    if kind == "text":
        return TextBlock(text=text_of(content))
    if kind in ("reasoning", "thinking"):
        return ThinkingBlock(thinking=text_of(content))
    if kind == "tool_call":
        arguments = part.get("arguments")
        raw = None
        if isinstance(arguments, str):
            parsed = loads(arguments)
            if isinstance(parsed, dict):
                arguments = parsed
            else:
                raw, arguments = arguments, {}
        elif not isinstance(arguments, dict):
            arguments = {}
        call_id = part.get("id")
        return ToolUseBlock(
            id=str(call_id) if call_id else "",
            name=str(part.get("name") or ""),
            input=arguments,
            raw_arguments=raw,
        )
    if kind == "tool_call_response":
        response = part.get("response", part.get("result", content))
        return ToolResultBlock(
            tool_use_id=str(part.get("id") or ""),
            content=response if isinstance(response, str) else text_of(response),
            is_error=part.get("is_error") is True,
        )
    notes.append(
        Msg(
            "{where}: a {role} part of type {kind} has no place in fc's messages; left out",
            where=where,
            role=str(role),
            kind=repr(kind),
        )
    )
    return None


def fill_call_ids(messages: list[Message], first: int = 0) -> bool:
    """Give each call without an id one, made of its place (`call_M_B`: message `first + M`,
    block B, so that the same call repeated in the next step's history gets the same id), and
    each result without one the id of the call it answers, in order; return whether any was
    missing."""
    missing = False
    waiting: list[str] = []
    for m, message in enumerate(messages, start=first):
        for b, block in enumerate(message.content):
            if isinstance(block, ToolUseBlock):
                if not block.id:
                    block.id = f"call_{m}_{b}"
                    missing = True
                waiting.append(block.id)
            elif isinstance(block, ToolResultBlock):
                if not block.tool_use_id:
                    missing = True
                    block.tool_use_id = waiting.pop(0) if waiting else f"result_{m}_{b}"
                elif block.tool_use_id in waiting:
                    waiting.remove(block.tool_use_id)
    return missing
