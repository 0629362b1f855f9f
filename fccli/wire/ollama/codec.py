"""Ollama's native chat format (`POST /api/chat`), both directions.

Field names are those of Ollama's `api/types.go` (ChatRequest, Message, ToolCall, ChatResponse,
Metrics) and of the `ollama` Python client's `_types.py`. Where it differs from fc's blocks and
from the OpenAI-compatible chat format Ollama also serves at `/v1/chat/completions`:

- a call is `tool_calls: [{function: {index, name, arguments}}]` with `arguments` an OBJECT, not
  a JSON string; older servers send no id, newer ones an `id`. fc's blocks need one, so a call
  without an id gets INVENTED_PREFIX + a hash of its name, arguments, place among the turn's
  calls and those calls (the same call gets the same id in the response and in every later
  request); an invented id is never sent to Ollama;
- a result is a `role: "tool"` message with `tool_name` (how Ollama pairs it) and, when the
  call had a real id, `tool_call_id`; there is no error flag, so an error result starts its text
  with ERROR_MARKER, as in chat;
- reasoning is the assistant message's `thinking`, switched by the request's `think` (true,
  false, or a level: "low", "high");
- `stream` is true unless the request says false, so fc always says which;
- settings go in `options` (`num_predict` is the answer's length cap); the others there
  (`num_ctx`, `temperature`, ...) and `keep_alive` have no place in fc's request: they are lost
  in a translation, and `fc convert` says so;
- `format` is JSON mode: "json", or a JSON Schema;
- there is no `tool_choice` (`none` is said by offering no tool, a forced tool by offering it
  alone, `required` not at all) and no switch for parallel calls or strict schemas;
- the answer is `{model, created_at, message, done, done_reason, total_duration, load_duration,
  prompt_eval_count, prompt_eval_duration, eval_count, eval_duration}`: the durations in
  nanoseconds, the usage as prompt_eval_count (input) and eval_count (output); `done_reason` is
  "stop" also when the answer holds calls (read as tool_use), "length" is max_tokens.

Round trips: `from_wire_request(to_wire_request(r)) == r` except for what the format cannot
hold: tool_choice, parallel_tool_calls, strict, a thinking signature, `raw_arguments`, an
invented id, several text blocks in one turn (joined), `thinking: true` beside an effort (the
level says both), a json_schema's name, and a result's text starting with ERROR_MARKER by
itself. Responses: the id (Ollama gives none); end_turn, tool_use and stop_sequence all travel
as "stop", refusal too.
"""

from __future__ import annotations

import json
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
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from fccli.i18n import N_, Msg
from fccli.wire.shape import count, expect, shape_errors, stable_id

NAME = "ollama-native"
"""The format's name: trace files' suffix (`1-request.ollama-native.json`)."""
INVENTED_PREFIX = "fcoll_"
"""The start of an id fc made up for a call Ollama sent without one (never sent to Ollama)."""
ERROR_MARKER = "[tool error] "
"""Start of a tool message's content when the internal result had `is_error: true`."""
STOPS_TO_WIRE = {
    "end_turn": "stop",
    "tool_use": "stop",
    "stop_sequence": "stop",
    "refusal": "stop",
    "max_tokens": "length",
}
LEVELS = ("low", "medium", "high")
"""The levels `think` takes beside true and false (api/types.go, ThinkValue)."""


def invented_id(name: str, arguments: Any, position: int, turn: str = "") -> str:
    """Return a stable id for a call sent without one (wire/shape.py, stable_id), the other calls
    of its turn (`turn_key`) hashed in: a call asked again in a later turn beside other calls
    gets another id. The same turn asked again gets the same ids (nothing on the wire tells
    them apart): its results are paired by tool_name and order all the same."""
    return stable_id(INVENTED_PREFIX, name, [arguments, turn], position)


def turn_key(message: dict[str, Any]) -> str:
    """Return what tells one assistant message from another that repeats one of its calls: all
    its calls, as JSON (read leniently: `fc check` asks too). Not its text or thinking: a client
    may send the calls back without them."""
    calls = message.get("tool_calls")
    said = []
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            said.append([function.get("name"), function.get("arguments") or {}])
    return json.dumps(said, sort_keys=True, ensure_ascii=False, default=str)


def is_invented(call_id: str) -> bool:
    return call_id.startswith(INVENTED_PREFIX)


# ---------------------------------------------------------------------------------------------
# internal -> wire


def to_wire_request(request: Request) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if request.system is not None:
        messages.append({"role": "system", "content": request.system})
    names = {c.id: c.name for m in request.messages for c in m.tool_uses()}
    for i, message in enumerate(request.messages):
        if message.role == "user":
            messages.extend(_user_to_wire(message, names, i))
        else:
            messages.append(_assistant_to_wire(message.content, i))
    body: dict[str, Any] = {"model": request.model, "messages": messages}
    tools = offered(request)
    if tools:
        body["tools"] = [tool_to_wire(t) for t in tools]
    # Ollama streams unless told not to (api/types.go: "Stream ... true by default").
    body["stream"] = request.stream is True
    if request.effort is not None:
        body["think"] = request.effort
    elif request.thinking is not None:
        body["think"] = request.thinking
    kind = (request.response_format or {}).get("type")
    if kind == "json_object":
        body["format"] = "json"
    elif kind == "json_schema":
        inner = (request.response_format or {}).get("json_schema")
        schema = inner.get("schema") if isinstance(inner, dict) else None
        body["format"] = schema if isinstance(schema, dict) else "json"
    if request.max_tokens is not None:
        body["options"] = {"num_predict": request.max_tokens}
    return body


def offered(request: Request) -> list[ToolSpec]:
    """Return the tools to send. There is no tool_choice: `none` offers no tool, a forced tool
    is offered alone (nothing forces the call), `required` cannot be said (request_problem)."""
    choice = request.tool_choice
    if choice is not None and choice.type == "none":
        return []
    if choice is not None and choice.type == "tool":
        return [t for t in request.tools if t.name == choice.name]
    return request.tools


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.input_schema}
    return {"type": "function", "function": function}


def _user_to_wire(message: Message, names: dict[str, str], index: int) -> list[dict[str, Any]]:
    """One user message -> tool messages and user messages, in block order (a wrong order is
    kept: `fc check` is there to see it)."""
    out: list[dict[str, Any]] = []
    texts: list[str] = []

    def flush_texts() -> None:
        if texts:
            out.append({"role": "user", "content": "".join(texts)})
            texts.clear()

    for j, block in enumerate(message.content):
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            flush_texts()
            content = ERROR_MARKER + block.content if block.is_error else block.content
            result: dict[str, Any] = {"role": "tool", "content": content}
            result["tool_name"] = names.get(block.tool_use_id, "")
            if not is_invented(block.tool_use_id):
                result["tool_call_id"] = block.tool_use_id
            out.append(result)
        elif isinstance(block, ProviderBlock):
            continue  # another format's block: no place here (fc convert lists it lost)
        else:
            raise ConversionError(
                Msg("a {type} block cannot stand in a user message", type=block.type),
                json_path=f"$.messages[{index}].content[{j}]",
            )
    flush_texts()
    if not out:
        out.append({"role": "user", "content": ""})
    return out


def _assistant_to_wire(blocks: list[Block], index: int) -> dict[str, Any]:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    for j, block in enumerate(blocks):
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ThinkingBlock):
            thinking.append(block.thinking)
        elif isinstance(block, ToolUseBlock):
            function = {"index": len(calls), "name": block.name, "arguments": block.input}
            call: dict[str, Any] = {"function": function}
            if not is_invented(block.id):
                call = {"id": block.id, **call}
            calls.append(call)
        elif isinstance(block, ProviderBlock):
            continue  # another format's block: no place here (fc convert lists it lost)
        else:
            raise ConversionError(
                Msg("a tool_result block cannot stand in an assistant message"),
                json_path=f"$.messages[{index}].content[{j}]",
            )
    # Message.Content is a plain string in api/types.go: always there, "" beside calls.
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if thinking:
        out["thinking"] = "".join(thinking)
    if calls:
        out["tool_calls"] = calls
    return out


def to_wire_response(response: Response) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if response.model is not None:
        body["model"] = response.model
    body["message"] = _assistant_to_wire(response.content, 0)
    body["done"] = True
    body["done_reason"] = STOPS_TO_WIRE.get(response.stop_reason, response.stop_reason)
    if response.usage is not None:
        body.update(usage_to_wire(response.usage))
    return body


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if usage.input_tokens is not None:
        out["prompt_eval_count"] = usage.input_tokens
    if usage.output_tokens is not None:
        out["eval_count"] = usage.output_tokens
    return out


# ---------------------------------------------------------------------------------------------
# wire -> internal


@shape_errors()  # no pydantic error escapes a translator
def from_wire_request(body: Any) -> Request:
    expect(body, dict, "$", N_("a request object"))
    model = expect(body.get("model", ""), str, "$.model", N_("the model's name"))
    raw = expect(body.get("messages"), list, "$.messages", N_("an array of messages"))
    system, messages = messages_from_wire(raw, "$.messages")
    tools = expect(body.get("tools") or [], list, "$.tools", N_("an array of tools"))
    request = Request(
        model=model,
        system=system,
        messages=messages,
        tools=[_tool_from_wire(t, f"$.tools[{k}]") for k, t in enumerate(tools)],
    )
    # Absent means a stream (api/types.go); fc's internal request says "no stream" by leaving
    # the field out.
    if expect(body.get("stream", True), bool, "$.stream", N_("a boolean")):
        request.stream = True
    think = body.get("think")
    if isinstance(think, bool):
        request.thinking = think
    elif think is not None:
        request.effort = expect(think, str, "$.think", N_("true, false or a level"))
    fmt = body.get("format")
    if fmt == "json":
        request.response_format = {"type": "json_object"}
    elif isinstance(fmt, dict):
        request.response_format = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": fmt},
        }
    options = expect(body.get("options") or {}, dict, "$.options", N_("an object"))
    cap = options.get("num_predict")
    if cap is not None:
        request.max_tokens = expect(cap, int, "$.options.num_predict", N_("an integer"))
    return request


def messages_from_wire(raw: list[Any], path: str) -> tuple[str | None, list[Message]]:
    """Return the system prompt and the messages of a `messages` array. A tool message joins
    the user turn of results before it; one without `tool_call_id` is paired with the first
    call of the assistant turn before it that has its `tool_name` and no result yet."""
    system: list[str] = []
    messages: list[Message] = []
    unanswered: list[ToolUseBlock] = []
    for i, message in enumerate(raw):
        where = f"{path}[{i}]"
        expect(message, dict, where, N_("a message object"))
        role = message.get("role")
        given = message.get("content")
        content = expect("" if given is None else given, str, f"{where}.content", N_("a string"))
        if role == "system":
            system.append(content)
        elif role == "assistant":
            blocks = _assistant_from_wire(message, where)
            messages.append(Message(role="assistant", content=blocks))
            unanswered = [b for b in blocks if isinstance(b, ToolUseBlock)]
        elif role in ("user", "tool"):
            new: list[Block] = []
            if role == "tool":
                new.append(_result_from_wire(message, content, where, unanswered))
            elif content:
                new.append(TextBlock(text=content))
            last = messages[-1] if messages else None
            if last is not None and last.role == "user" and _only_results(last):
                # The words after the tool messages share the results' turn, as in fc's blocks.
                last.content.extend(new)
            else:
                messages.append(Message(role="user", content=new))
        else:
            raise ConversionError(
                Msg("unknown role {role!r}", role=role), json_path=f"{where}.role"
            )
    return ("\n\n".join(system) if system else None), messages


def _only_results(message: Message) -> bool:
    return bool(message.content) and all(isinstance(b, ToolResultBlock) for b in message.content)


def _result_from_wire(
    message: dict[str, Any], content: str, path: str, unanswered: list[ToolUseBlock]
) -> ToolResultBlock:
    name = expect(message.get("tool_name", ""), str, f"{path}.tool_name", N_("the tool's name"))
    call_id = message.get("tool_call_id")
    if call_id is not None:
        call_id = expect(call_id, str, f"{path}.tool_call_id", N_("the id of the call"))
        match = next((c for c in unanswered if c.id == call_id), None)
    else:
        match = next((c for c in unanswered if c.name == name), None)
        if match is None and not name and unanswered:
            match = unanswered[0]  # neither id nor name: the calls in order
        call_id = match.id if match is not None else invented_id(name, None, -1)
    if match is not None:
        unanswered.remove(match)
    is_error = content.startswith(ERROR_MARKER)
    text = content[len(ERROR_MARKER) :] if is_error else content
    return ToolResultBlock(tool_use_id=call_id, content=text, is_error=is_error)


def _assistant_from_wire(message: dict[str, Any], path: str) -> list[Block]:
    blocks: list[Block] = []
    thinking = message.get("thinking")
    if thinking is not None and expect(thinking, str, f"{path}.thinking", N_("a string")):
        blocks.append(ThinkingBlock(thinking=thinking))
    text = message.get("content") or ""
    if text:
        blocks.append(TextBlock(text=expect(text, str, f"{path}.content", N_("a string"))))
    calls = expect(message.get("tool_calls") or [], list, f"{path}.tool_calls", N_("an array"))
    turn = turn_key(message)
    for k, call in enumerate(calls):
        blocks.append(_call_from_wire(call, f"{path}.tool_calls[{k}]", k, turn))
    return blocks


def _call_from_wire(call: Any, path: str, position: int, turn: str) -> ToolUseBlock:
    expect(call, dict, path, N_("a tool call object"))
    function = expect(call.get("function"), dict, f"{path}.function", N_("a function object"))
    name = expect(function.get("name"), str, f"{path}.function.name", N_("the tool's name"))
    arguments = function.get("arguments", {})
    if arguments is None:
        arguments = {}
    arguments = expect(arguments, dict, f"{path}.function.arguments", N_("an object"))
    call_id = call.get("id")
    if call_id is None or call_id == "":
        call_id = invented_id(name, arguments, position, turn)
    return ToolUseBlock(
        id=expect(call_id, str, f"{path}.id", N_("the call's id")), name=name, input=arguments
    )


def _tool_from_wire(tool: Any, path: str) -> ToolSpec:
    expect(tool, dict, path, N_("a tool object"))
    function = expect(tool.get("function"), dict, f"{path}.function", N_("a function object"))
    description = function.get("description") or ""
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    return ToolSpec(
        name=expect(function.get("name"), str, f"{path}.function.name", N_("the tool's name")),
        description=expect(description, str, f"{path}.function.description", N_("a string")),
        input_schema=expect(
            parameters, dict, f"{path}.function.parameters", N_("a JSON Schema object")
        ),
    )


@shape_errors()
def from_wire_response(body: Any) -> Response:
    expect(body, dict, "$", N_("a response object"))
    if "error" in body and "message" not in body:
        raise ConversionError(Msg("this is an error body, not a response"), json_path="$.error")
    message = expect(body.get("message"), dict, "$.message", N_("a message object"))
    blocks = _assistant_from_wire(message, "$.message")
    reason = body.get("done_reason")
    if reason is None and body.get("done") is True:
        reason = "stop"  # api/types.go: done_reason is omitted when empty
    reason = expect(reason, str, "$.done_reason", N_("a done reason"))
    model = body.get("model")
    return Response(
        model=model if isinstance(model, str) else None,
        content=blocks,
        stop_reason=stop_from_wire(reason, any(isinstance(b, ToolUseBlock) for b in blocks)),
        usage=usage_from_wire(body),
    )


def stop_from_wire(reason: str, has_calls: bool) -> str:
    """ "stop" is also the reason of an answer that holds calls; "length" is max_tokens; any
    other reason ("load", "unload") is kept as it came, and the engine stops on it."""
    if reason == "stop":
        return "tool_use" if has_calls else "end_turn"
    if reason == "length":
        return "max_tokens"
    return reason


def usage_from_wire(body: dict[str, Any]) -> Usage | None:
    prompt, answer = count(body.get("prompt_eval_count")), count(body.get("eval_count"))
    if prompt is None and answer is None:
        return None
    return Usage(input_tokens=prompt, output_tokens=answer)
