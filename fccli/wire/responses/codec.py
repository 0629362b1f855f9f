"""The OpenAI Responses wire format (`POST /v1/responses`), both directions.

A history here is one flat list of items (`input`), not messages of blocks; what differs from
the internal format (openai-python `src/openai/types/responses/`):

- a call is its own item, `{"type": "function_call", "id": "fc_…", "call_id": "call_…",
  "name", "arguments": "<JSON string>"}`: results name the `call_id`; the item `id` is kept
  as the block's `item_id` and goes back unchanged;
- a result is its own item, `{"type": "function_call_output", "call_id", "output"}`; there is
  no error flag, so an error result's text starts with ERROR_MARKER (read back as is_error);
- reasoning is an item `{"type": "reasoning", "id": "rs_…", "summary", "encrypted_content"}`
  that must go back exactly as received, before the call it led to: it is kept verbatim (a
  ProviderBlock), as is any other item fc has no block for (web_search_call, ...);
- text is a message item: fc writes `{"role", "content": "<text>"}` (EasyInputMessageParam),
  one item per text block; the system prompt is `instructions`;
- a tool is flat, `{"type": "function", "name", "description", "parameters", "strict"}`:
  `strict` is required by the SDK's type, and an omitted one means strict on this API, so fc
  always writes it (false unless asked);
- `tool_choice` is `"auto" | "none" | "required"` or `{"type": "function", "name"}`
  (`{"type": "allowed_tools", ...}` is read as its mode: fc has no subset of tools);
- `max_tokens` is `max_output_tokens`; `effort` is `reasoning.effort` (`--no-thinking`:
  `"none"`); JSON mode is `text.format`;
- fc keeps no state on OpenAI's side: `store: false` on every request, the whole history sent,
  and `include: ["reasoning.encrypted_content"]` so reasoning comes back to be sent again
  (asked of reasoning models only: others refuse it).
- A response has no stop reason: calls mean tool_use; `status: "incomplete"` with
  `incomplete_details.reason: "max_output_tokens"` means max_tokens.

Round trips: `from_wire_request(to_wire_request(r)) == r` except for: a tool's
`strict: false` (comes back unset, which fc writes as false), a thinking block not made here
(Responses takes back only its own reasoning items, with their encrypted content: it is
dropped) and `thinking: false` with an effort (the effort becomes `none`; `thinking: true` is
`reasoning.summary: "auto"` and comes back), and `raw_arguments` (arguments that were not
valid JSON go back as the parsed `input`, as chat's do). Responses lose the stop reasons the format cannot
say (stop_sequence, ...) and an output message's `id`.
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
from fccli.i18n import N_, Msg
from fccli.wire.shape import count, expect, parse_arguments, shape_errors

NAME = "responses"
"""The format's name: trace files' suffix, and the origin of the items it keeps verbatim."""
ERROR_MARKER = "[tool error] "
"""Prefix of a function_call_output's text when the internal result had `is_error: true`
(the same marker fc writes in chat, which has no flag either)."""
ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""What `include` asks for, so a stateless request gets its reasoning back to send again."""
REASONING_MODELS = re.compile(r"^(o\d|gpt-5(?!-chat)|codex|deepseek)")
"""Models that reason: the ones that take `include: ["reasoning.encrypted_content"]`; others
answer 400 "Encrypted content is not supported with this model." (ShishirPatil/gorilla#1148,
gpt-4o and gpt-4.1-mini; gpt-5-chat-latest does not reason either: pydantic/pydantic-ai#3331).
DeepSeek's models think unless told not to, in this format as in chat."""


def asks_reasoning(request: Request) -> bool:
    """Return whether the request wants reasoning items back (and so their encrypted content)."""
    if request.thinking is False:
        return False
    return bool(request.thinking or request.effort or REASONING_MODELS.match(request.model))


# ---------------------------------------------------------------------------------------------
# internal -> wire


def to_wire_request(request: Request) -> dict[str, Any]:
    body: dict[str, Any] = {"model": request.model}
    if request.system is not None:
        body["instructions"] = request.system
    body["input"] = [
        item
        for i, message in enumerate(request.messages)
        for item in _message_to_wire(message, f"$.messages[{i}]")
    ]
    if request.tools:
        body["tools"] = [tool_to_wire(t) for t in request.tools]
    if request.tool_choice is not None:
        body["tool_choice"] = tool_choice_to_wire(request.tool_choice)
    if request.parallel_tool_calls is not None:
        body["parallel_tool_calls"] = request.parallel_tool_calls
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    reasoning = _reasoning_to_wire(request)
    if reasoning:
        body["reasoning"] = reasoning
    text_format = _text_format(request.response_format)
    if text_format is not None:
        body["text"] = {"format": text_format}
    # Stateless: nothing stored at OpenAI, every request complete on its own (a trace file can
    # be sent again as it is); the reasoning travels in the history, encrypted.
    body["store"] = False
    if asks_reasoning(request):
        body["include"] = [ENCRYPTED_REASONING]
    if request.stream is not None:
        body["stream"] = request.stream
    return body


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.input_schema,
        # Omitted, Responses would hold the schema strict (Chat Completions would not).
        "strict": bool(tool.strict),
    }


def tool_choice_to_wire(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.type == "tool":
        return {"type": "function", "name": choice.name}
    return choice.type


def _reasoning_to_wire(request: Request) -> dict[str, Any]:
    if request.thinking is False:
        return {"effort": "none"}
    out: dict[str, Any] = {}
    if request.effort is not None:
        out["effort"] = request.effort
    if request.thinking:
        out["summary"] = "auto"
    return out


def _text_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    if response_format is None:
        return None
    if response_format.get("type") != "json_schema":
        return dict(response_format)
    inner = response_format.get("json_schema")
    # Chat nests the schema under json_schema; Responses lays its fields flat.
    return {"type": "json_schema", **(inner if isinstance(inner, dict) else {})}


def _message_to_wire(message: Message, path: str) -> list[dict[str, Any]]:
    items = []
    for j, block in enumerate(message.content):
        item = _block_to_wire(block, message.role, f"{path}.content[{j}]")
        if item is not None:
            items.append(item)
    return items


def _block_to_wire(block: Block, role: str, path: str) -> dict[str, Any] | None:
    if isinstance(block, ProviderBlock):
        # Verbatim, back to the format it came from (a reasoning item with its encrypted
        # content); another format's block has no place here (fc convert lists it as lost).
        return block.block if block.format == NAME else None
    if isinstance(block, TextBlock):
        return {"role": role, "content": block.text}
    if isinstance(block, ThinkingBlock) and role == "assistant":
        # Responses takes back only the reasoning items it made (id, encrypted content);
        # reasoning from elsewhere has no place (fc convert lists it as lost).
        return None
    if isinstance(block, ToolUseBlock) and role == "assistant":
        item: dict[str, Any] = {"type": "function_call"}
        if block.item_id is not None:
            item["id"] = block.item_id
        item["call_id"] = block.id
        item["name"] = block.name
        # The parsed input, as chat writes it: arguments that were not valid JSON (kept in
        # raw_arguments) go back as the object the harness read, or the request breaks FC108.
        item["arguments"] = json.dumps(block.input, ensure_ascii=False)
        return item
    if isinstance(block, ToolResultBlock) and role == "user":
        output = ERROR_MARKER + block.content if block.is_error else block.content
        return {"type": "function_call_output", "call_id": block.tool_use_id, "output": output}
    raise ConversionError(
        Msg("a {type} block cannot stand in a {role} message", type=block.type, role=role),
        json_path=path,
    )


def to_wire_response(response: Response) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if response.id is not None:
        body["id"] = response.id
    body["object"] = "response"
    cut = response.stop_reason == "max_tokens"
    body["status"] = "incomplete" if cut else "completed"
    if cut:
        body["incomplete_details"] = {"reason": "max_output_tokens"}
    if response.model is not None:
        body["model"] = response.model
    body["output"] = _output_to_wire(response.content)
    if response.usage is not None:
        body["usage"] = usage_to_wire(response.usage)
    return body


def _output_to_wire(blocks: list[Block]) -> list[dict[str, Any]]:
    """Return the answer's items: consecutive text blocks share one message item, as OpenAI writes."""
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] | None = None
    """The content of the message item being written, while text blocks follow each other."""
    for j, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            part = {"type": "output_text", "text": block.text, "annotations": []}
            if parts is None:
                parts = []
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "status": "completed",
                        "content": parts,
                    }
                )
            parts.append(part)
            continue
        parts = None
        item = _block_to_wire(block, "assistant", f"$.content[{j}]")
        if item is not None:
            items.append(item)
    return items


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if usage.input_tokens is not None:
        out["input_tokens"] = usage.input_tokens
    details: dict[str, Any] = {}
    if usage.cache_read_tokens is not None:
        details["cached_tokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens is not None:
        details["cache_write_tokens"] = usage.cache_write_tokens
    if details:
        out["input_tokens_details"] = details
    if usage.output_tokens is not None:
        out["output_tokens"] = usage.output_tokens
    if usage.reasoning_tokens is not None:
        out["output_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    if usage.input_tokens is not None and usage.output_tokens is not None:
        out["total_tokens"] = usage.input_tokens + usage.output_tokens
    return out


# ---------------------------------------------------------------------------------------------
# wire -> internal


@shape_errors()  # no pydantic error escapes a translator
def from_wire_request(body: Any) -> Request:
    expect(body, dict, "$", N_("a request object"))
    model = expect(body.get("model"), str, "$.model", N_("the model's name"))
    raw_input = body.get("input")
    system = body.get("instructions")
    system = expect(system, str, "$.instructions", N_("a string")) if system is not None else None
    if isinstance(raw_input, str):
        messages = [Message(role="user", content=[TextBlock(text=raw_input)])]
    else:
        items = expect(raw_input, list, "$.input", N_("a string or an array of items"))
        messages, system_texts = _items_to_messages(items, "$.input")
        if system_texts:
            # System or developer messages in the input: fc has one system prompt.
            system = "\n\n".join([*([system] if system is not None else []), *system_texts])
    request = Request(
        model=model,
        system=system,
        messages=messages,
        tools=[
            _tool_from_wire(t, f"$.tools[{k}]")
            for k, t in enumerate(
                expect(body.get("tools") or [], list, "$.tools", N_("an array of tools"))
            )
        ],
    )
    if body.get("tool_choice") is not None:
        request.tool_choice = _tool_choice_from_wire(body["tool_choice"])
    parallel = body.get("parallel_tool_calls")
    if parallel is not None:
        request.parallel_tool_calls = expect(
            parallel, bool, "$.parallel_tool_calls", N_("true or false")
        )
    if body.get("max_output_tokens") is not None:
        request.max_tokens = expect(
            body["max_output_tokens"], int, "$.max_output_tokens", N_("a whole number")
        )
    if isinstance(body.get("stream"), bool):
        request.stream = body["stream"]
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict):
        effort = reasoning.get("effort")
        if effort == "none":
            request.thinking = False
        elif isinstance(effort, str):
            request.effort = effort
        if reasoning.get("summary") is not None and effort != "none":
            request.thinking = True
    text = body.get("text")
    text_format = text.get("format") if isinstance(text, dict) else None
    if isinstance(text_format, dict) and text_format.get("type") in ("json_object", "json_schema"):
        if text_format["type"] == "json_object":
            request.response_format = {"type": "json_object"}
        else:
            inner = {k: v for k, v in text_format.items() if k != "type"}
            request.response_format = {"type": "json_schema", "json_schema": inner}
    return request


def _role_of(item: dict[str, Any], path: str) -> str:
    """Return whose turn an item belongs to: user (its messages, the results), assistant (its
    messages, calls, reasoning and its other output items), or system."""
    kind = item.get("type", "message")
    if kind == "message" or ("role" in item and "type" not in item):
        role = item.get("role")
        if role in ("user", "assistant"):
            return str(role)
        if role in ("system", "developer"):
            return "system"
        raise ConversionError(
            Msg(
                "unknown role {role!r} (Responses has user, assistant, system and developer)",
                role=role,
            ),
            json_path=f"{path}.role",
        )
    if kind == "function_call_output":
        return "user"
    if not isinstance(kind, str) or not kind or kind.endswith("_output"):
        # Another tool's output (a computer or shell call's) is the client's: fc has no block.
        raise ConversionError(Msg("fc cannot hold a {kind!r} item", kind=kind), json_path=path)
    return "assistant"


def _items_to_messages(items: list[Any], base: str) -> tuple[list[Message], list[str]]:
    """Return the items grouped into turns (consecutive items of one role make one message), and the
    texts of system or developer messages."""
    messages: list[Message] = []
    system_texts: list[str] = []
    for k, item in enumerate(items):
        path = f"{base}[{k}]"
        expect(item, dict, path, N_("an item object"))
        role = _role_of(item, path)
        if role == "system":
            system_texts.extend(_texts(item.get("content"), f"{path}.content"))
            continue
        blocks = _item_to_blocks(item, path)
        if messages and messages[-1].role == role:
            messages[-1].content.extend(blocks)
        else:
            messages.append(Message(role="user" if role == "user" else "assistant", content=blocks))
    return messages, system_texts


def _item_to_blocks(item: dict[str, Any], path: str) -> list[Block]:
    kind = item.get("type", "message")
    if kind == "message":
        return [TextBlock(text=t) for t in _texts(item.get("content"), f"{path}.content")]
    if kind == "function_call":
        return [_call_from_wire(item, path)]
    if kind == "function_call_output":
        output = item.get("output")
        text = output if isinstance(output, str) else "".join(_texts(output, f"{path}.output"))
        is_error = text.startswith(ERROR_MARKER)
        return [
            ToolResultBlock(
                tool_use_id=expect(
                    item.get("call_id"), str, f"{path}.call_id", N_("the call's id")
                ),
                content=text[len(ERROR_MARKER) :] if is_error else text,
                is_error=is_error,
            )
        ]
    # Reasoning (with its encrypted content), a web search, ...: kept verbatim, so it goes back
    # exactly as received, where the provider expects it.
    return [ProviderBlock(format=NAME, block=item)]


def _texts(content: Any, path: str) -> list[str]:
    """Return a message's content: a string, or parts of input_text, output_text or refusal."""
    if isinstance(content, str):
        return [content]
    expect(content, list, path, N_("a string or an array of content parts"))
    out = []
    for k, part in enumerate(content):
        expect(part, dict, f"{path}[{k}]", N_("a content part object"))
        kind = part.get("type")
        key = "refusal" if kind == "refusal" else "text"
        if kind not in ("input_text", "output_text", "refusal", "text"):
            # An image or a file: fc's format has no place for them, and dropping one silently
            # would change the history.
            raise ConversionError(
                Msg("fc cannot hold a {kind!r} part", kind=kind), json_path=f"{path}[{k}]"
            )
        out.append(expect(part.get(key), str, f"{path}[{k}].{key}", N_("a string")))
    return out


def _call_from_wire(item: dict[str, Any], path: str) -> ToolUseBlock:
    arguments = expect(item.get("arguments"), str, f"{path}.arguments", N_("a JSON string"))
    value, raw = parse_arguments(arguments)
    item_id = item.get("id")
    return ToolUseBlock(
        id=expect(item.get("call_id"), str, f"{path}.call_id", N_("the call's id")),
        item_id=expect(item_id, str, f"{path}.id", N_("a string")) if item_id is not None else None,
        name=expect(item.get("name"), str, f"{path}.name", N_("the tool's name")),
        input=value,
        raw_arguments=raw,
    )


def _tool_from_wire(tool: Any, path: str) -> ToolSpec:
    expect(tool, dict, path, N_("a tool object"))
    if tool.get("type") != "function":
        # web_search, file_search, mcp...: OpenAI runs them, fc has no tool of that kind.
        raise ConversionError(
            Msg("fc holds function tools only, found type {type!r}", type=tool.get("type")),
            json_path=f"{path}.type",
        )
    strict = tool.get("strict")
    schema = tool.get("parameters")
    return ToolSpec(
        name=expect(tool.get("name"), str, f"{path}.name", N_("the tool's name")),
        description=expect(
            tool.get("description") or "", str, f"{path}.description", N_("a string")
        ),
        input_schema=expect(
            {} if schema is None else schema,
            dict,
            f"{path}.parameters",
            N_("a JSON Schema object"),
        ),
        # false is what fc writes for "not asked": read back as unset, as the other formats say it.
        strict=True if strict is True else None,
    )


def _tool_choice_from_wire(choice: Any) -> ToolChoice:
    if choice in ("auto", "none", "required"):
        return ToolChoice(type=choice)
    expect(choice, dict, "$.tool_choice", N_("a tool_choice string or object"))
    kind = choice.get("type")
    if kind == "function" and isinstance(choice.get("name"), str):
        return ToolChoice(type="tool", name=choice["name"])
    if kind == "allowed_tools" and choice.get("mode") in ("auto", "required"):
        # fc has no subset of the offered tools: the mode alone (convert lists the list as lost).
        return ToolChoice(type=choice["mode"])
    raise ConversionError(
        Msg("unknown tool_choice {choice!r}", choice=choice), json_path="$.tool_choice"
    )


@shape_errors()
def from_wire_response(body: Any) -> Response:
    expect(body, dict, "$", N_("a response object"))
    if body.get("status") == "failed" or isinstance(body.get("error"), dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        raise ConversionError(
            Msg("this response failed: {said}", said=message or Msg("no message")),
            json_path="$.error",
        )
    output = expect(body.get("output"), list, "$.output", N_("an array of output items"))
    content: list[Block] = []
    for k, item in enumerate(output):
        path = f"$.output[{k}]"
        expect(item, dict, path, N_("an item object"))
        if (
            item.get("type", "message") == "message"
            and item.get("role", "assistant") != "assistant"
        ):
            raise ConversionError(
                Msg("an answer's message is the assistant's"), json_path=f"{path}.role"
            )
        if item.get("type") == "function_call_output":
            raise ConversionError(Msg("a result is no part of an answer"), json_path=f"{path}.type")
        content.extend(_item_to_blocks(item, path))
    usage = body.get("usage")
    return Response(
        id=body.get("id") if isinstance(body.get("id"), str) else None,
        model=body.get("model") if isinstance(body.get("model"), str) else None,
        content=content,
        stop_reason=stop_reason(body, content),
        usage=usage_from_wire(usage) if isinstance(usage, dict) else None,
    )


def stop_reason(body: dict[str, Any], content: list[Block]) -> str:
    """Responses has no stop reason field: read from the status and the items."""
    if body.get("status") == "incomplete":
        details = body.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason == "max_output_tokens":
            return "max_tokens"
        if reason == "content_filter":
            return "refusal"
        return str(reason or "incomplete")
    if any(isinstance(b, ToolUseBlock) for b in content):
        return "tool_use"
    output = body.get("output")
    parts = [
        p
        for item in (output if isinstance(output, list) else [])
        if isinstance(item, dict) and isinstance(item.get("content"), list)
        for p in item["content"]
    ]
    if any(isinstance(p, dict) and p.get("type") == "refusal" for p in parts):
        return "refusal"
    return "end_turn"


def usage_from_wire(usage: dict[str, Any]) -> Usage:
    inputs = usage.get("input_tokens_details")
    outputs = usage.get("output_tokens_details")
    inputs = inputs if isinstance(inputs, dict) else {}
    outputs = outputs if isinstance(outputs, dict) else {}
    return Usage(
        input_tokens=count(usage.get("input_tokens")),
        output_tokens=count(usage.get("output_tokens")),
        reasoning_tokens=count(outputs.get("reasoning_tokens")),
        cache_read_tokens=count(inputs.get("cached_tokens")),
        cache_write_tokens=count(inputs.get("cache_write_tokens")),
    )
