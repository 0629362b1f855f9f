"""The chat-completions wire format (OpenAI, DeepSeek, Ollama, vLLM, ...), both directions.

Where it differs from the internal content blocks (PROTOCOL.md, "The same turn in each format"):

- a call's `input` object travels as `function.arguments`, a JSON *string*;
- the results of one turn, ONE internal user message, become one `role: "tool"` message per
  result, in the order given, right after the assistant message;
- `thinking` blocks travel as DeepSeek's `reasoning_content` beside `content`;
- chat has no `is_error` flag, so an error result is marked in its text with ERROR_MARKER;
- stop reasons have other names (`tool_calls` for `tool_use`, ...).

What a provider adds on top (DeepSeek's `thinking` switch and `reasoning_content`) is data on a
ChatDialect, given by the provider, not code here. Ids are never rewritten.

Round trips: `from_wire_request(to_wire_request(r)) == r` except for what chat cannot hold:
several text blocks in one assistant turn (joined), the order of blocks in an assistant turn
(always thinking, text, calls), empty text or thinking blocks (dropped), thinking without a
reasoning field (dropped), a thinking signature (dropped), `raw_arguments` (the wire carries
`input`), an error result whose text starts with ERROR_MARKER by itself, `stop_sequence` (sent
as `stop`), OpenAI's `refusal` field (read as text with stop reason `refusal`; written back as
`content` with `content_filter`), `stream_options` (always `include_usage` with a stream),
an empty system prompt (none), and user turns split or merged around tool messages
(a results-only turn followed by a text turn comes back as one; result, text, result as two).
"""

from __future__ import annotations

import json
import re
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
from fccli.i18n import N_, Joined, Msg
from fccli.wire.chat.dialects import OPENAI, ChatDialect
from fccli.wire.shape import count, expect, parse_arguments, shape_errors

ERROR_MARKER = "[tool error] "
"""Prefix of a tool message's content when the internal result had `is_error: true`."""

STOP_FROM_CHAT = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    # The pre-2023 single-function API; still sent by some compatible servers.
    "function_call": "tool_use",
}
STOP_TO_CHAT = {
    "end_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "stop_sequence": "stop",
}


def max_tokens_field(model: str, dialect: ChatDialect) -> str:
    """Return the name of the length cap this model takes: `max_tokens`, or `max_completion_tokens`."""
    pattern = dialect.completion_tokens_models
    if pattern is not None and re.match(pattern, model):
        return "max_completion_tokens"
    return "max_tokens"


def dump_arguments(arguments: dict[str, Any]) -> str:
    """Return the `arguments` string: compact JSON, UTF-8 text kept as is."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def thinking_enabled(request: Request, dialect: ChatDialect) -> bool:
    return request.thinking if request.thinking is not None else dialect.thinking_default


def tool_choice_problem(request: Request, dialect: ChatDialect) -> str | None:
    """Why the provider would refuse this request's tool_choice, or None."""
    allowed = dialect.thinking_tool_choices
    choice = request.tool_choice
    if allowed is None or choice is None or not thinking_enabled(request, dialect):
        return None
    if choice.type in allowed:
        return None
    asked = choice.name if choice.type == "tool" else choice.type
    return Msg(
        "tool_choice {asked!r} is refused in {provider}'s thinking mode, which accepts only {accepted}",
        asked=asked,
        provider=dialect.name,
        accepted=Joined(list(allowed), " or "),
    )


# ---------------------------------------------------------------------------------------------
# internal -> wire


def to_wire_request(request: Request, dialect: ChatDialect = OPENAI) -> dict[str, Any]:
    thinking_on = thinking_enabled(request, dialect)
    messages: list[dict[str, Any]] = []
    if request.system is not None:
        messages.append({"role": "system", "content": request.system})
    for i, message in enumerate(request.messages):
        if message.role == "user":
            messages.extend(_user_to_wire(message, i))
        else:
            messages.append(_assistant_to_wire(message, dialect, thinking_on, i))
    body: dict[str, Any] = {"model": request.model, "messages": messages}
    if request.tools:
        body["tools"] = [tool_to_wire(t) for t in request.tools]
    if request.tool_choice is not None:
        body["tool_choice"] = tool_choice_to_wire(request.tool_choice)
    if request.parallel_tool_calls is not None:
        body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.max_tokens is not None:
        body[max_tokens_field(request.model, dialect)] = request.max_tokens
    if request.stream is not None:
        body["stream"] = request.stream
    if request.stream:
        # Without it a streamed answer carries no token counts (the usage-only last chunk).
        body["stream_options"] = {"include_usage": True}
    if dialect.thinking_param and request.thinking is not None:
        body["thinking"] = {"type": "enabled" if request.thinking else "disabled"}
    if request.response_format is not None:
        # JSON mode governs `content`, the answer; the calls keep their own channel.
        body["response_format"] = request.response_format
    if request.effort is not None:
        body["reasoning_effort"] = request.effort
    return body


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.input_schema,
    }
    if tool.strict is not None:
        function["strict"] = tool.strict
    return {"type": "function", "function": function}


def tool_choice_to_wire(choice: ToolChoice) -> Any:
    if choice.type == "tool":
        return {"type": "function", "function": {"name": choice.name}}
    return choice.type


def _user_to_wire(message: Message, index: int) -> list[dict[str, Any]]:
    """One user message -> tool messages and user messages, in block order.

    Order is kept as given, even when it is wrong (text before results): a translator that
    silently repaired histories would hide the very mistakes `fc check` teaches.
    """
    out: list[dict[str, Any]] = []
    texts: list[str] = []

    def flush_texts() -> None:
        if texts:
            content: Any = (
                texts[0] if len(texts) == 1 else [{"type": "text", "text": t} for t in texts]
            )
            out.append({"role": "user", "content": content})
            texts.clear()

    for j, block in enumerate(message.content):
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            flush_texts()
            content = ERROR_MARKER + block.content if block.is_error else block.content
            out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
        elif isinstance(block, ProviderBlock):
            continue  # another format's block: chat has no place for it (convert lists it lost)
        else:
            raise ConversionError(
                Msg("a {type} block cannot stand in a user message", type=block.type),
                json_path=f"$.messages[{index}].content[{j}]",
            )
    flush_texts()
    if not out:
        # An empty user message still has to exist on the wire, or the turn order changes.
        out.append({"role": "user", "content": ""})
    return out


def _assistant_to_wire(
    message: Message, dialect: ChatDialect, thinking_on: bool, index: int
) -> dict[str, Any]:
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for j, block in enumerate(message.content):
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ThinkingBlock):
            reasoning.append(block.thinking)
        elif isinstance(block, ToolUseBlock):
            calls.append(
                {
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": dump_arguments(block.input)},
                }
            )
        elif isinstance(block, ProviderBlock):
            continue  # another format's block: chat has no place for it (convert lists it lost)
        else:
            raise ConversionError(
                Msg("a tool_result block cannot stand in an assistant message"),
                json_path=f"$.messages[{index}].content[{j}]",
            )
    out: dict[str, Any] = {"role": "assistant"}
    # OpenAI's rule: content may be null when the message carries tool calls.
    out["content"] = "".join(texts) if texts or not calls else None
    if dialect.reasoning_field is not None and (reasoning or (calls and thinking_on)):
        # DeepSeek answers 400 when a tool-calling turn comes back without its reasoning in
        # thinking mode, even an empty one: the key must be there (PROTOCOL.md, DeepSeek).
        out[dialect.reasoning_field] = "".join(reasoning)
    if calls:
        out["tool_calls"] = calls
    return out


def to_wire_response(response: Response, dialect: ChatDialect = OPENAI) -> dict[str, Any]:
    message = _assistant_to_wire(response.as_message(), dialect, False, 0)
    body: dict[str, Any] = {}
    if response.id is not None:
        body["id"] = response.id
    body["object"] = "chat.completion"
    if response.model is not None:
        body["model"] = response.model
    body["choices"] = [
        {
            "index": 0,
            "message": message,
            "finish_reason": STOP_TO_CHAT.get(response.stop_reason, response.stop_reason),
        }
    ]
    if response.usage is not None:
        body["usage"] = usage_to_wire(response.usage, dialect)
    return body


def usage_to_wire(usage: Usage, dialect: ChatDialect = OPENAI) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if usage.input_tokens is not None:
        out["prompt_tokens"] = usage.input_tokens
    if usage.output_tokens is not None:
        out["completion_tokens"] = usage.output_tokens
    if usage.input_tokens is not None and usage.output_tokens is not None:
        out["total_tokens"] = usage.input_tokens + usage.output_tokens
    if usage.reasoning_tokens is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    if usage.cache_read_tokens is not None and dialect.cache_hit_fields:
        out["prompt_cache_hit_tokens"] = usage.cache_read_tokens
        if usage.input_tokens is not None:
            out["prompt_cache_miss_tokens"] = max(0, usage.input_tokens - usage.cache_read_tokens)
    elif usage.cache_read_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.cache_read_tokens}
    if usage.cache_write_tokens is not None and not dialect.cache_hit_fields:
        out.setdefault("prompt_tokens_details", {})["cache_write_tokens"] = usage.cache_write_tokens
    return out


# ---------------------------------------------------------------------------------------------
# wire -> internal


def _text_parts(content: Any, path: str) -> list[str]:
    """Return a chat `content`: a string, null, or an array of `{type: "text", text}` parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content] if content else []
    expect(content, list, path, N_("a string or an array of text parts"))
    texts = []
    for k, part in enumerate(content):
        expect(part, dict, f"{path}[{k}]", N_("a content part object"))
        if part.get("type") != "text" or not isinstance(part.get("text"), str):
            raise ConversionError(
                Msg("only text parts are supported, found type {type!r}", type=part.get("type")),
                json_path=f"{path}[{k}]",
            )
        texts.append(part["text"])
    return texts


@shape_errors()  # no pydantic error escapes a translator
def from_wire_request(body: Any, dialect: ChatDialect = OPENAI) -> Request:
    expect(body, dict, "$", N_("a request object"))
    model = expect(body.get("model"), str, "$.model", N_("the model's name"))
    raw_messages = expect(body.get("messages"), list, "$.messages", N_("an array of messages"))
    system: list[str] = []
    messages: list[Message] = []
    for i, raw in enumerate(raw_messages):
        path = f"$.messages[{i}]"
        expect(raw, dict, path, N_("a message object"))
        role = raw.get("role")
        if role in ("system", "developer"):
            system.extend(_text_parts(raw.get("content"), f"{path}.content"))
        elif role == "user":
            blocks: list[Block] = [
                TextBlock(text=t) for t in _text_parts(raw.get("content"), f"{path}.content")
            ]
            # Chat puts the user's words after the tool messages; internally they share one turn.
            if messages and messages[-1].role == "user" and _only_results(messages[-1]):
                messages[-1].content.extend(blocks)
            else:
                messages.append(Message(role="user", content=blocks))
        elif role == "tool":
            result = _tool_message_from_wire(raw, path)
            if messages and messages[-1].role == "user" and _only_results(messages[-1]):
                messages[-1].content.append(result)
            else:
                messages.append(Message(role="user", content=[result]))
        elif role == "assistant":
            messages.append(
                Message(role="assistant", content=_assistant_from_wire(raw, dialect, path))
            )
        else:
            raise ConversionError(Msg("unknown role {role!r}", role=role), json_path=f"{path}.role")

    request = Request(
        model=model,
        system="\n\n".join(system) if system else None,
        messages=messages,
        tools=[
            _tool_from_wire(t, f"$.tools[{k}]")
            for k, t in enumerate(
                expect(body.get("tools") or [], list, "$.tools", N_("an array of tools"))
            )
        ],
    )
    if "tool_choice" in body:
        request.tool_choice = _tool_choice_from_wire(body["tool_choice"])
    if isinstance(body.get("parallel_tool_calls"), bool):
        request.parallel_tool_calls = body["parallel_tool_calls"]
    max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
    if isinstance(max_tokens, int) and not isinstance(max_tokens, bool):
        request.max_tokens = max_tokens
    if isinstance(body.get("stream"), bool):
        request.stream = body["stream"]
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "disabled"):
        request.thinking = thinking["type"] == "enabled"
    if isinstance(body.get("response_format"), dict):
        request.response_format = body["response_format"]
    if isinstance(body.get("reasoning_effort"), str):
        request.effort = body["reasoning_effort"]
    return request


def _only_results(message: Message) -> bool:
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


def _tool_message_from_wire(raw: dict[str, Any], path: str) -> ToolResultBlock:
    call_id = expect(raw.get("tool_call_id"), str, f"{path}.tool_call_id", N_("the id of the call"))
    text = "".join(_text_parts(raw.get("content"), f"{path}.content"))
    is_error = text.startswith(ERROR_MARKER)
    if is_error:
        text = text[len(ERROR_MARKER) :]
    return ToolResultBlock(tool_use_id=call_id, content=text, is_error=is_error)


def _assistant_from_wire(raw: dict[str, Any], dialect: ChatDialect, path: str) -> list[Block]:
    blocks: list[Block] = []
    if dialect.reasoning_field is not None:
        reasoning = raw.get(dialect.reasoning_field)
        if isinstance(reasoning, str) and reasoning:
            blocks.append(ThinkingBlock(thinking=reasoning))
    text = "".join(_text_parts(raw.get("content"), f"{path}.content"))
    if text:
        blocks.append(TextBlock(text=text))
    refusal = raw.get("refusal")
    if isinstance(refusal, str) and refusal:
        # OpenAI says a refusal beside `content` (often null): kept as the turn's text.
        blocks.append(TextBlock(text=refusal))
    calls = raw.get("tool_calls") or []
    expect(calls, list, f"{path}.tool_calls", N_("an array of tool calls"))
    for k, call in enumerate(calls):
        blocks.append(_call_from_wire(call, f"{path}.tool_calls[{k}]"))
    return blocks


def _call_from_wire(call: Any, path: str) -> ToolUseBlock:
    expect(call, dict, path, N_("a tool call object"))
    call_id = expect(call.get("id"), str, f"{path}.id", N_("the call's id"))
    function = expect(call.get("function"), dict, f"{path}.function", N_("a function object"))
    name = expect(function.get("name"), str, f"{path}.function.name", N_("the tool's name"))
    arguments = function.get("arguments", "")
    if arguments is None:
        # Seen from compatible servers for a call without arguments: nothing given, `{}`.
        return ToolUseBlock(id=call_id, name=name, input={})
    if not isinstance(arguments, str):
        # Some servers send an object; the format says string. Keep what was meant.
        if isinstance(arguments, dict):
            return ToolUseBlock(id=call_id, name=name, input=arguments)
        arguments = json.dumps(arguments, ensure_ascii=False)
    parsed, raw = parse_arguments(arguments)
    return ToolUseBlock(id=call_id, name=name, input=parsed, raw_arguments=raw)


def _tool_from_wire(tool: Any, path: str) -> ToolSpec:
    expect(tool, dict, path, N_("a tool object"))
    function = expect(tool.get("function"), dict, f"{path}.function", N_("a function object"))
    description = function.get("description") or ""
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    strict = function.get("strict")
    return ToolSpec(
        name=expect(function.get("name"), str, f"{path}.function.name", N_("the tool's name")),
        description=expect(description, str, f"{path}.function.description", N_("a string")),
        input_schema=expect(
            parameters, dict, f"{path}.function.parameters", N_("a JSON Schema object")
        ),
        strict=strict if isinstance(strict, bool) else None,
    )


def _tool_choice_from_wire(choice: Any) -> ToolChoice:
    if choice in ("auto", "none", "required"):
        return ToolChoice(type=choice)
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
        if isinstance(name, str):
            return ToolChoice(type="tool", name=name)
    raise ConversionError(
        Msg("unknown tool_choice {choice!r}", choice=choice), json_path="$.tool_choice"
    )


@shape_errors()
def from_wire_response(body: Any, dialect: ChatDialect = OPENAI) -> Response:
    expect(body, dict, "$", N_("a response object"))
    choices = expect(body.get("choices"), list, "$.choices", N_("an array of choices"))
    if not choices:
        raise ConversionError(Msg("the response has no choices"), json_path="$.choices")
    choice = expect(choices[0], dict, "$.choices[0]", N_("a choice object"))
    message = expect(choice.get("message"), dict, "$.choices[0].message", N_("a message object"))
    finish = expect(
        choice.get("finish_reason"), str, "$.choices[0].finish_reason", N_("a finish reason")
    )
    usage = body.get("usage")
    return Response(
        id=body.get("id") if isinstance(body.get("id"), str) else None,
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        content=_assistant_from_wire(message, dialect, "$.choices[0].message"),
        # Unknown reasons are kept as they came; the engine refuses to guess what they mean.
        # A refusal comes with finish_reason "stop"; internally it is what it is.
        stop_reason="refusal"
        if isinstance(message.get("refusal"), str) and message["refusal"]
        else STOP_FROM_CHAT.get(finish, finish),
        usage=usage_from_wire(usage) if isinstance(usage, dict) else None,
    )


def usage_from_wire(usage: dict[str, Any]) -> Usage:
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
    # The prompt cache: DeepSeek says prompt_cache_hit_tokens (and the misses beside them, which
    # add up to prompt_tokens); OpenAI, and DeepSeek as well lately, prompt_tokens_details.
    prompt_details = usage.get("prompt_tokens_details")
    cached = count(usage.get("prompt_cache_hit_tokens"))
    if cached is None and isinstance(prompt_details, dict):
        cached = count(prompt_details.get("cached_tokens"))
    # OpenAI's newer models say what they wrote to the cache (billed above the input price).
    written = (
        count(prompt_details.get("cache_write_tokens"))
        if isinstance(prompt_details, dict)
        else None
    )
    return Usage(
        input_tokens=count(usage.get("prompt_tokens")),
        output_tokens=count(usage.get("completion_tokens")),
        reasoning_tokens=count(reasoning),
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )
