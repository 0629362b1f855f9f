"""The Anthropic Messages wire format, both directions.

Closest of all to the internal content blocks; where it differs (anthropic-sdk-python
`src/anthropic/types/`):

- `max_tokens` is required: a request without one is sent with DEFAULT_MAX_TOKENS;
- `tool_choice` is `{type: auto | any | none | tool, name?}`: internal `required` is `any`;
- "one call at a time" is `tool_choice.disable_parallel_tool_use: true`, not a request field;
- thinking is `{type: "enabled", budget_tokens: N}` or `{type: "disabled"}`; the budget must
  be at least 1024 and below `max_tokens`; a thinking block carries a `signature` that must
  come back unchanged with the turn;
- a tool result's `content` is a string or an array of text blocks; `is_error` is a real flag;
- `system` is a top-level string (or an array of text blocks), not a message.

Round trips: `from_wire_request(to_wire_request(r)) == r` except for: an unset `max_tokens`
(comes back as DEFAULT_MAX_TOKENS), an unset `tool_choice` with parallel calls off (comes back
as `auto`), `tool_choice: none` with parallel calls off (the flag has no place),
`parallel_tool_calls: true` (Anthropic has only the off switch; on is its default, so it comes
back unset), `raw_arguments` (Anthropic carries `input` only, so a call whose arguments were not
a JSON object travels as `{}`), and the thinking budget (internal thinking is on or off).
Responses lose `usage.reasoning_tokens` (Anthropic's usage does not count thinking apart).
"""

from __future__ import annotations

from typing import Any

from fccli.core.errors import ConversionError
from fccli.core.models import (
    Block,
    Message,
    ProviderBlock,
    Request,
    Response,
    TextBlock,
    ThinkingBlock,
    ToolChoice,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from fccli.i18n import N_, Msg
from fccli.wire.shape import count, expect, shape_errors

DEFAULT_MAX_TOKENS = 4096
"""Sent when the internal request sets none: Anthropic refuses a request without max_tokens."""
THINKING_BUDGET = 2048
"""`budget_tokens` when thinking is on: Anthropic's floor is 1024 and it must stay under max_tokens."""
MIN_THINKING_BUDGET = 1024
NAME = "anthropic"
"""The format's name: trace files' suffix, and the origin of the blocks it keeps verbatim."""


def thinking_budget(max_tokens: int) -> int:
    return min(THINKING_BUDGET, max_tokens - 1)


def request_problem(request: Request) -> str | None:
    """Why Anthropic would refuse this request, known before sending it, or None."""
    kind = (request.response_format or {}).get("type")
    if kind == "json_object":
        return Msg(
            "Anthropic has no json_object mode: its structured outputs take a JSON Schema (--response-format json_schema:FILE)"
        )
    if not request.thinking:
        return None
    choice = request.tool_choice
    if choice is not None and choice.type in ("required", "tool"):
        asked = choice.name if choice.type == "tool" else choice.type
        return Msg(
            "tool_choice {asked!r} is refused with thinking on: Anthropic accepts only auto or none when thinking is enabled",
            asked=asked,
        )
    max_tokens = request.max_tokens if request.max_tokens is not None else DEFAULT_MAX_TOKENS
    if max_tokens <= MIN_THINKING_BUDGET:
        return Msg(
            "thinking needs max_tokens above {budget} (its budget alone is at least {budget}); "
            "max_tokens is {max_tokens}",
            budget=MIN_THINKING_BUDGET,
            max_tokens=max_tokens,
        )
    return None


# ---------------------------------------------------------------------------------------------
# internal -> wire


def to_wire_request(request: Request) -> dict[str, Any]:
    max_tokens = request.max_tokens if request.max_tokens is not None else DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens}
    if request.system is not None:
        body["system"] = request.system
    body["messages"] = [_message_to_wire(m, i) for i, m in enumerate(request.messages)]
    if request.tools:
        body["tools"] = [tool_to_wire(t) for t in request.tools]
    choice = tool_choice_to_wire(request.tool_choice, request.parallel_tool_calls)
    if choice is not None:
        body["tool_choice"] = choice
    if request.thinking is not None:
        body["thinking"] = (
            {"type": "enabled", "budget_tokens": thinking_budget(max_tokens)}
            if request.thinking
            else {"type": "disabled"}
        )
    if request.effort is not None:
        # docs.claude.com, effort; DeepSeek's Anthropic format takes the same field.
        body["output_config"] = {"effort": request.effort}
    if request.stream is not None:
        body["stream"] = request.stream
    schema = _output_schema(request.response_format)
    if schema is not None:
        # Structured outputs: the answer's JSON Schema (no name, no json_object mode), beside
        # the effort when both are asked.
        config: dict[str, Any] = body.setdefault("output_config", {})
        config["format"] = {"type": "json_schema", "schema": schema}
    return body


def _output_schema(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    if response_format is None or response_format.get("type") != "json_schema":
        return None
    inner = response_format.get("json_schema")
    schema = inner.get("schema") if isinstance(inner, dict) else None
    return schema if isinstance(schema, dict) else None


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
    }
    if tool.strict is not None:
        out["strict"] = tool.strict
    return out


def tool_choice_to_wire(choice: ToolChoice | None, parallel: bool | None) -> dict[str, Any] | None:
    if choice is None and parallel is not False:
        return None
    kind = "auto" if choice is None else choice.type
    out: dict[str, Any] = {"type": {"required": "any"}.get(kind, kind)}
    if choice is not None and choice.type == "tool":
        out["name"] = choice.name
    # The flag lives in the tool_choice object; `none` has no such field (ToolChoiceNoneParam).
    if parallel is False and kind != "none":
        out["disable_parallel_tool_use"] = True
    return out


def _message_to_wire(message: Message, index: int) -> dict[str, Any]:
    return {
        "role": message.role,
        "content": _blocks_to_wire(message, f"$.messages[{index}].content"),
    }


def _blocks_to_wire(message: Message, path: str) -> list[dict[str, Any]]:
    wire = [
        _block_to_wire(block, message.role, f"{path}[{j}]")
        for j, block in enumerate(message.content)
    ]
    return [b for b in wire if b is not None]


def _block_to_wire(block: Block, role: str, path: str) -> dict[str, Any] | None:
    if isinstance(block, ProviderBlock):
        # Verbatim, back to the format it came from; another format's block has no place here
        # (fc convert lists it as lost).
        return block.block if block.format == NAME else None
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock) and role == "assistant":
        out: dict[str, Any] = {"type": "thinking", "thinking": block.thinking}
        # Without its signature Anthropic refuses the turn; `fc check` says so, the
        # translator does not invent one.
        if block.signature is not None:
            out["signature"] = block.signature
        return out
    if isinstance(block, ToolUseBlock) and role == "assistant":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock) and role == "user":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": block.content,
        }
        if block.is_error:
            result["is_error"] = True
        return result
    raise ConversionError(
        Msg("a {type} block cannot stand in a {role} message", type=block.type, role=role),
        json_path=path,
    )


def to_wire_response(response: Response) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if response.id is not None:
        body["id"] = response.id
    body["type"] = "message"
    body["role"] = "assistant"
    if response.model is not None:
        body["model"] = response.model
    body["content"] = _blocks_to_wire(response.as_message(), "$.content")
    body["stop_reason"] = response.stop_reason
    body["stop_sequence"] = None
    if response.usage is not None:
        body["usage"] = usage_to_wire(response.usage)
    return body


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
    if usage.input_tokens is not None:
        # Anthropic's input_tokens are those after the last cache breakpoint only.
        out["input_tokens"] = max(0, usage.input_tokens - cached)
    if usage.cache_write_tokens is not None:
        out["cache_creation_input_tokens"] = usage.cache_write_tokens
    if usage.cache_write_1h_tokens:
        hour = usage.cache_write_1h_tokens
        out["cache_creation"] = {
            "ephemeral_5m_input_tokens": max(0, (usage.cache_write_tokens or 0) - hour),
            "ephemeral_1h_input_tokens": hour,
        }
    if usage.cache_read_tokens is not None:
        out["cache_read_input_tokens"] = usage.cache_read_tokens
    if usage.output_tokens is not None:
        out["output_tokens"] = usage.output_tokens
    return out


# ---------------------------------------------------------------------------------------------
# wire -> internal


@shape_errors()  # no pydantic error escapes a translator
def from_wire_request(body: Any) -> Request:
    expect(body, dict, "$", N_("a request object"))
    model = expect(body.get("model"), str, "$.model", N_("the model's name"))
    raw_messages = expect(body.get("messages"), list, "$.messages", N_("an array of messages"))
    messages = []
    for i, raw in enumerate(raw_messages):
        path = f"$.messages[{i}]"
        expect(raw, dict, path, N_("a message object"))
        role = raw.get("role")
        if role not in ("user", "assistant"):
            # Anthropic has no system or tool role: results are blocks in a user message.
            raise ConversionError(
                Msg("unknown role {role!r} (Anthropic has user and assistant only)", role=role),
                json_path=f"{path}.role",
            )
        messages.append(
            Message(
                role=role, content=_blocks_from_wire(raw.get("content"), f"{path}.content", role)
            )
        )
    request = Request(
        model=model,
        system=_system_from_wire(body.get("system")),
        messages=messages,
        tools=[
            _tool_from_wire(t, f"$.tools[{k}]")
            for k, t in enumerate(
                expect(body.get("tools") or [], list, "$.tools", N_("an array of tools"))
            )
        ],
    )
    if body.get("max_tokens") is not None:
        request.max_tokens = expect(body["max_tokens"], int, "$.max_tokens", N_("a whole number"))
    if "tool_choice" in body:
        request.tool_choice, request.parallel_tool_calls = _tool_choice_from_wire(
            body["tool_choice"]
        )
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "disabled", "adaptive"):
        request.thinking = thinking["type"] != "disabled"
    if isinstance(body.get("stream"), bool):
        request.stream = body["stream"]
    config = body.get("output_config")
    if isinstance(config, dict) and isinstance(config.get("effort"), str):
        request.effort = config["effort"]
    output = config.get("format") if isinstance(config, dict) else None
    if isinstance(output, dict) and isinstance(output.get("schema"), dict):
        request.response_format = {
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": output["schema"]},
        }
    return request


def _system_from_wire(system: Any) -> str | None:
    if system is None:
        return None
    if isinstance(system, str):
        return system
    return "\n\n".join(_text_blocks(system, "$.system"))


def _text_blocks(content: Any, path: str) -> list[str]:
    expect(content, list, path, N_("a string or an array of text blocks"))
    texts = []
    for k, block in enumerate(content):
        expect(block, dict, f"{path}[{k}]", N_("a content block object"))
        if block.get("type") != "text" or not isinstance(block.get("text"), str):
            raise ConversionError(
                Msg(
                    "only text blocks are supported here, found type {type!r}",
                    type=block.get("type"),
                ),
                json_path=f"{path}[{k}]",
            )
        texts.append(block["text"])
    return texts


def _blocks_from_wire(content: Any, path: str, role: str) -> list[Block]:
    if isinstance(content, str):  # the short form of one text block
        return [TextBlock(text=content)]
    expect(content, list, path, N_("a string or an array of content blocks"))
    return [_block_from_wire(b, f"{path}[{k}]", role) for k, b in enumerate(content)]


def _block_from_wire(block: Any, path: str, role: str) -> Block:
    expect(block, dict, path, N_("a content block object"))
    kind = block.get("type")
    if kind == "text":
        return TextBlock(text=expect(block.get("text"), str, f"{path}.text", N_("a string")))
    if kind == "thinking":
        signature = block.get("signature")
        return ThinkingBlock(
            thinking=expect(block.get("thinking"), str, f"{path}.thinking", N_("a string")),
            signature=signature if isinstance(signature, str) else None,
        )
    if kind == "tool_use":
        # `partial_json` is fc's key, not Anthropic's: the text of an input cut off when the
        # answer ran out of tokens inside it (wire/anthropic/stream.py), kept as the raw text.
        partial = block.get("partial_json")
        return ToolUseBlock(
            id=expect(block.get("id"), str, f"{path}.id", N_("the call's id")),
            name=expect(block.get("name"), str, f"{path}.name", N_("the tool's name")),
            input=expect(block.get("input"), dict, f"{path}.input", N_("an object")),
            raw_arguments=partial if isinstance(partial, str) else None,
        )
    if kind == "tool_result":
        content = block.get("content", "")
        text = (
            content
            if isinstance(content, str)
            else "".join(_text_blocks(content, f"{path}.content"))
        )
        is_error = block.get("is_error", False)
        return ToolResultBlock(
            tool_use_id=expect(block.get("tool_use_id"), str, f"{path}.tool_use_id", N_("an id")),
            content=text,
            is_error=expect(is_error, bool, f"{path}.is_error", N_("true or false")),
        )
    if isinstance(kind, str) and kind and role == "assistant":
        # What the model or Anthropic's servers wrote and fc has no equivalent for
        # (server_tool_use, web_search_tool_result, redacted_thinking, compaction, fallback...):
        # kept verbatim, so it goes back unchanged and the turn continues.
        return ProviderBlock(format=NAME, block=block)
    # An image or a document in the user's turn: fc's format has no place for them, and
    # dropping one silently would change the history.
    raise ConversionError(Msg("fc cannot hold a {kind!r} block", kind=kind), json_path=path)


def _tool_from_wire(tool: Any, path: str) -> ToolSpec:
    expect(tool, dict, path, N_("a tool object"))
    strict = tool.get("strict")
    return ToolSpec(
        name=expect(tool.get("name"), str, f"{path}.name", N_("the tool's name")),
        description=expect(tool.get("description", ""), str, f"{path}.description", N_("a string")),
        input_schema=expect(
            tool.get("input_schema"), dict, f"{path}.input_schema", N_("a JSON Schema object")
        ),
        strict=strict if isinstance(strict, bool) else None,
    )


def _tool_choice_from_wire(choice: Any) -> tuple[ToolChoice, bool | None]:
    expect(choice, dict, "$.tool_choice", N_("a tool_choice object"))
    kind = choice.get("type")
    parallel = False if choice.get("disable_parallel_tool_use") is True else None
    if kind in ("auto", "none"):
        return ToolChoice(type=kind), parallel
    if kind == "any":
        return ToolChoice(type="required"), parallel
    if kind == "tool" and isinstance(choice.get("name"), str):
        return ToolChoice(type="tool", name=choice["name"]), parallel
    raise ConversionError(
        Msg("unknown tool_choice {choice!r}", choice=choice), json_path="$.tool_choice"
    )


@shape_errors()
def from_wire_response(body: Any) -> Response:
    expect(body, dict, "$", N_("a response object"))
    if body.get("type") == "error":
        raise ConversionError(Msg("this is an error body, not a message"), json_path="$.type")
    stop = expect(body.get("stop_reason"), str, "$.stop_reason", N_("a stop reason"))
    usage = body.get("usage")
    return Response(
        id=body.get("id") if isinstance(body.get("id"), str) else None,
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        content=_blocks_from_wire(body.get("content"), "$.content", "assistant"),
        # Unknown reasons (pause_turn, ...) are kept as they came; the engine will not guess.
        stop_reason=stop,
        usage=usage_from_wire(usage) if isinstance(usage, dict) else None,
    )


def usage_from_wire(usage: dict[str, Any]) -> Usage:
    """Anthropic counts the input in three parts (usage.py): `input_tokens` after the last cache
    breakpoint, `cache_read_input_tokens` read from the cache, `cache_creation_input_tokens`
    written to it. Internally `input_tokens` is all of the input, as in chat."""
    read = count(usage.get("cache_read_input_tokens"))
    write = count(usage.get("cache_creation_input_tokens"))
    rest = count(usage.get("input_tokens"))
    # The writes by how long they are kept (an hour costs more than five minutes): kept only
    # when some were kept an hour, as the others are priced as writes of five minutes.
    ttl = usage.get("cache_creation")
    hour = count(ttl.get("ephemeral_1h_input_tokens")) if isinstance(ttl, dict) else None
    return Usage(
        input_tokens=None if rest is None else rest + (read or 0) + (write or 0),
        output_tokens=count(usage.get("output_tokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
        cache_write_1h_tokens=hour or None,
    )
