"""The Gemini API's generateContent format, both directions.

Field names are the REST JSON's camelCase (googleapis/python-genai `google/genai/types.py`).
Where it differs from fc's blocks:

- the model's name is in the URL (`/v1beta/models/{model}:generateContent`), not the body, and
  so is the stream (`:streamGenerateContent?alt=sse`): a request body holds neither;
- the history is `contents: [{role: user | model, parts: [...]}]`, the system prompt
  `systemInstruction: {parts: [{text}]}`;
- a call is a part `{functionCall: {id?, name, args}}`, a result a part `{functionResponse:
  {id?, name, response: {output: ...} | {error: ...}}}`: there is no is_error flag, and Google's
  own convention (`FunctionResponse.response`: "Use 'output' key to specify function output and
  'error' key to specify error details") is the one fc writes and reads;
- `FunctionCall.id` is optional: Gemini 3 sends one and wants it echoed; Gemini 2.x leaves it out
  and pairs results with calls by name and order. fc's blocks need an id, so a call without one
  gets INVENTED_PREFIX + a hash of its name, arguments and place among the turn's calls (the
  same call gets the same id in the response and in every later request), and its result is
  paired by name and order. An invented id is never sent back: the provider gave none;
- `thoughtSignature` sits on a Part beside what it signs (the first functionCall of a turn, or
  a text part) and must go back unchanged. It has no meaning outside Gemini, so it is kept as a
  ProviderBlock `{"thoughtSignature": ...}` placed just before the block of its part, and written
  back onto the next part: the part comes back exactly as it was;
- `toolConfig.functionCallingConfig.mode`: AUTO, ANY (internal `required`; with
  `allowedFunctionNames: [NAME]` a forced tool), NONE; there is no switch for parallel calls;
- thinking is `generationConfig.thinkingConfig`: on is `includeThoughts: true` (thought
  summaries come back as parts with `thought: true`), off `thinkingBudget: 0`; `--effort` is
  `thinkingLevel` (LOW, HIGH);
- `finishReason` is STOP also when the answer holds calls (read as tool_use); MAX_TOKENS is
  max_tokens; every other reason (MALFORMED_FUNCTION_CALL, SAFETY, UNEXPECTED_TOOL_CALL, ...)
  is kept as it came, and the engine stops on it rather than guess (exit 3).

Round trips: `from_wire_request(to_wire_request(r)) == r` except for the model and stream (in
the URL), `parallel_tool_calls`, a thinking block's signature (Anthropic's, meaningless here),
`raw_arguments`, an invented id, and `json_object` response formats (come back as such).
Responses: end_turn/tool_use/stop_sequence all travel as STOP, refusal as SAFETY.
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
    ToolChoice,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from fccli.i18n import N_, Msg
from fccli.wire.shape import count, expect, shape_errors, stable_id

NAME = "gemini"
"""The format's name: trace files' suffix, and the origin of the parts it keeps verbatim."""
INVENTED_PREFIX = "fcgem_"
"""The start of an id fc made up for a call Gemini sent without one (never sent back)."""
SIGNATURE = "thoughtSignature"
"""The Part field that signs the model's thinking: kept as a ProviderBlock of its own."""
STOPS_TO_WIRE = {
    "end_turn": "STOP",
    "tool_use": "STOP",
    "stop_sequence": "STOP",
    "max_tokens": "MAX_TOKENS",
    "refusal": "SAFETY",
}
MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}


def invented_id(name: str, args: Any, position: int) -> str:
    """Return a stable id for a call sent without one (wire/shape.py, stable_id)."""
    return stable_id(INVENTED_PREFIX, name, args, position)


def is_invented(call_id: str) -> bool:
    return call_id.startswith(INVENTED_PREFIX)


# ---------------------------------------------------------------------------------------------
# internal -> wire


def to_wire_request(request: Request) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if request.system is not None:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    names = {c.id: c.name for m in request.messages for c in m.tool_uses()}
    body["contents"] = [content_to_wire(m, names) for m in request.messages]
    if request.tools:
        body["tools"] = [{"functionDeclarations": [tool_to_wire(t) for t in request.tools]}]
    if request.tool_choice is not None:
        body["toolConfig"] = {"functionCallingConfig": tool_choice_to_wire(request.tool_choice)}
    config = _generation_config(request)
    if config:
        body["generationConfig"] = config
    return body


def _generation_config(request: Request) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if request.max_tokens is not None:
        config["maxOutputTokens"] = request.max_tokens
    kind = (request.response_format or {}).get("type")
    if kind in ("json_object", "json_schema"):
        config["responseMimeType"] = "application/json"
        inner = (request.response_format or {}).get("json_schema")
        schema = inner.get("schema") if isinstance(inner, dict) else None
        if isinstance(schema, dict):
            config["responseJsonSchema"] = schema
    thinking: dict[str, Any] = {}
    if request.thinking is True:
        thinking["includeThoughts"] = True
    elif request.thinking is False:
        thinking["thinkingBudget"] = 0
    if request.effort is not None:
        thinking["thinkingLevel"] = request.effort.upper()
    if thinking:
        config["thinkingConfig"] = thinking
    return config


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    # parametersJsonSchema takes JSON Schema as it is; `parameters` is Google's OpenAPI subset.
    return {
        "name": tool.name,
        "description": tool.description,
        "parametersJsonSchema": tool.input_schema,
    }


def tool_choice_to_wire(choice: ToolChoice) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": MODES[choice.type]}
    if choice.type == "tool":
        out["allowedFunctionNames"] = [choice.name]
    return out


def content_to_wire(message: Message, names: dict[str, str]) -> dict[str, Any]:
    role = "model" if message.role == "assistant" else "user"
    return {"role": role, "parts": parts_to_wire(message.content, message.role, names)}


def parts_to_wire(
    blocks: list[Block], role: str, names: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    signature: Any = None
    for block in blocks:
        if isinstance(block, ProviderBlock):
            if block.format != NAME:
                continue  # another format's block has no place here (fc convert says so)
            if set(block.block) == {SIGNATURE}:
                if signature is not None:
                    parts.append({SIGNATURE: signature})
                signature = block.block[SIGNATURE]
                continue
            part = dict(block.block)
        else:
            part = _part_to_wire(block, role, names or {})
        if signature is not None:
            part[SIGNATURE] = signature
            signature = None
        parts.append(part)
    if signature is not None:
        parts.append({SIGNATURE: signature})
    return parts


def _part_to_wire(block: Block, role: str, names: dict[str, str]) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"text": block.text}
    if isinstance(block, ThinkingBlock) and role == "assistant":
        # A thought summary; a signature from another provider has no meaning here.
        return {"text": block.thinking, "thought": True}
    if isinstance(block, ToolUseBlock) and role == "assistant":
        call: dict[str, Any] = {"name": block.name, "args": block.input}
        if not is_invented(block.id):
            call = {"id": block.id, **call}
        return {"functionCall": call}
    if isinstance(block, ToolResultBlock) and role == "user":
        key = "error" if block.is_error else "output"
        result: dict[str, Any] = {
            "name": names.get(block.tool_use_id, ""),
            "response": {key: block.content},
        }
        if not is_invented(block.tool_use_id):
            result = {"id": block.tool_use_id, **result}
        return {"functionResponse": result}
    raise ConversionError(
        Msg("a {type} block cannot stand in a {role} message", type=block.type, role=role)
    )


def to_wire_response(response: Response) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": parts_to_wire(response.content, "assistant")},
        "finishReason": STOPS_TO_WIRE.get(response.stop_reason, response.stop_reason),
        "index": 0,
    }
    body: dict[str, Any] = {"candidates": [candidate]}
    if response.usage is not None:
        body["usageMetadata"] = usage_to_wire(response.usage)
    if response.model is not None:
        body["modelVersion"] = response.model
    if response.id is not None:
        body["responseId"] = response.id
    return body


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    """Gemini counts thoughts apart: candidatesTokenCount is the answer without them."""
    out: dict[str, Any] = {}
    if usage.input_tokens is not None:
        out["promptTokenCount"] = usage.input_tokens
    if usage.output_tokens is not None:
        out["candidatesTokenCount"] = max(0, usage.output_tokens - (usage.reasoning_tokens or 0))
    if usage.reasoning_tokens is not None:
        out["thoughtsTokenCount"] = usage.reasoning_tokens
    if usage.cache_read_tokens is not None:
        out["cachedContentTokenCount"] = usage.cache_read_tokens
    if usage.input_tokens is not None and usage.output_tokens is not None:
        out["totalTokenCount"] = usage.input_tokens + usage.output_tokens
    return out


# ---------------------------------------------------------------------------------------------
# wire -> internal


@shape_errors()  # no pydantic error escapes a translator
def from_wire_request(body: Any) -> Request:
    expect(body, dict, "$", N_("a request object"))
    contents = expect(body.get("contents"), list, "$.contents", N_("an array of contents"))
    messages = contents_from_wire(contents, "$.contents")
    tools: list[ToolSpec] = []
    for i, tool in enumerate(expect(body.get("tools", []), list, "$.tools", N_("an array"))):
        expect(tool, dict, f"$.tools[{i}]", N_("a tool object"))
        declarations = tool.get("functionDeclarations")
        path = f"$.tools[{i}].functionDeclarations"
        if declarations is None or set(tool) != {"functionDeclarations"}:
            other = next((k for k in tool if k != "functionDeclarations"), "functionDeclarations")
            raise ConversionError(
                Msg("fc holds function declarations only, not {other!r}", other=other),
                json_path=path,
            )
        for j, d in enumerate(expect(declarations, list, path, N_("an array"))):
            tools.append(_tool_from_wire(d, f"{path}[{j}]"))
    choice = None
    if "toolConfig" in body:
        choice = _tool_choice_from_wire(body["toolConfig"])
    config = expect(body.get("generationConfig", {}), dict, "$.generationConfig", N_("an object"))
    thinking, effort = _thinking_from_wire(config.get("thinkingConfig"))
    max_tokens = config.get("maxOutputTokens")
    return Request(
        model="",
        system=_system_from_wire(body.get("systemInstruction")),
        messages=messages,
        tools=tools,
        tool_choice=choice,
        max_tokens=expect(
            max_tokens, (int, type(None)), "$.generationConfig.maxOutputTokens", N_("an integer")
        ),
        thinking=thinking,
        effort=effort,
        response_format=_response_format_from_wire(config),
    )


def _system_from_wire(system: Any) -> str | None:
    if system is None:
        return None
    if isinstance(system, str):
        return system
    expect(system, dict, "$.systemInstruction", N_("a content object"))
    parts = expect(system.get("parts"), list, "$.systemInstruction.parts", N_("an array of parts"))
    texts = []
    for k, part in enumerate(parts):
        path = f"$.systemInstruction.parts[{k}]"
        expect(part, dict, path, N_("a part object"))
        texts.append(expect(part.get("text"), str, f"{path}.text", N_("a text part")))
    return "".join(texts)


def _thinking_from_wire(thinking: Any) -> tuple[bool | None, str | None]:
    if thinking is None:
        return None, None
    path = "$.generationConfig.thinkingConfig"
    expect(thinking, dict, path, N_("an object"))
    on: bool | None = None
    if thinking.get("includeThoughts") is True:
        on = True
    elif thinking.get("thinkingBudget") == 0:
        on = False
    level = thinking.get("thinkingLevel")
    effort = expect(level, (str, type(None)), f"{path}.thinkingLevel", N_("a level name"))
    return on, effort.lower() if isinstance(effort, str) else None


def _response_format_from_wire(config: dict[str, Any]) -> dict[str, Any] | None:
    if config.get("responseMimeType") != "application/json":
        return None
    schema = config.get("responseJsonSchema")
    if isinstance(schema, dict):
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    return {"type": "json_object"}


def _tool_from_wire(tool: Any, path: str) -> ToolSpec:
    expect(tool, dict, path, N_("a function declaration"))
    schema = tool.get("parametersJsonSchema", tool.get("parameters", {"type": "object"}))
    return ToolSpec(
        name=expect(tool.get("name"), str, f"{path}.name", N_("the function's name")),
        description=expect(tool.get("description", ""), str, f"{path}.description", N_("a string")),
        input_schema=expect(
            schema, dict, f"{path}.parametersJsonSchema", N_("a JSON Schema object")
        ),
    )


def _tool_choice_from_wire(config: Any) -> ToolChoice:
    path = "$.toolConfig.functionCallingConfig"
    expect(config, dict, "$.toolConfig", N_("an object"))
    calling = expect(config.get("functionCallingConfig"), dict, path, N_("an object"))
    mode = calling.get("mode", "AUTO")
    names = calling.get("allowedFunctionNames")
    if mode == "ANY" and isinstance(names, list) and len(names) == 1 and isinstance(names[0], str):
        return ToolChoice(type="tool", name=names[0])
    if names is not None:
        raise ConversionError(
            Msg("fc holds one forced tool, not a list of allowed ones"),
            json_path=f"{path}.allowedFunctionNames",
        )
    kinds = {"AUTO": "auto", "NONE": "none", "ANY": "required"}
    if not isinstance(mode, str) or mode not in kinds:  # a list or an object is no mode either
        raise ConversionError(Msg("unknown mode {mode!r}", mode=mode), json_path=f"{path}.mode")
    return ToolChoice(type=kinds[mode])  # type: ignore[arg-type]


def contents_from_wire(contents: list[Any], path: str) -> list[Message]:
    messages: list[Message] = []
    previous: list[ToolUseBlock] = []
    for i, content in enumerate(contents):
        expect(content, dict, f"{path}[{i}]", N_("a content object"))
        role = content.get("role", "user")
        if role not in ("user", "model"):
            raise ConversionError(
                Msg("unknown role {role!r}", role=role), json_path=f"{path}[{i}].role"
            )
        parts_path = f"{path}[{i}].parts"
        parts = expect(content.get("parts"), list, parts_path, N_("an array of parts"))
        blocks = parts_from_wire(parts, parts_path, role, previous)
        messages.append(Message(role="assistant" if role == "model" else "user", content=blocks))
        previous = [b for b in blocks if isinstance(b, ToolUseBlock)] if role == "model" else []
    return messages


def parts_from_wire(
    parts: list[Any], path: str, role: str, calls: list[ToolUseBlock] | None = None
) -> list[Block]:
    """Return the blocks of one content. `calls`: the previous model turn's calls, to pair results
    that come without an id (Gemini 2.x) by name and order."""
    blocks: list[Block] = []
    unpaired = list(calls or [])
    position = 0
    for k, part in enumerate(parts):
        p = f"{path}[{k}]"
        expect(part, dict, p, N_("a part object"))
        rest = dict(part)
        if SIGNATURE in rest:
            signature = rest.pop(SIGNATURE)
            blocks.append(ProviderBlock(format=NAME, block={SIGNATURE: signature}))
        if not rest:
            continue
        if "functionCall" in rest and role == "model":
            if isinstance(rest.get("text"), str) and rest["text"]:
                # One kind per part, the API says; a server that sends the words and the call in
                # one part keeps both here (written back as two parts).
                blocks.append(TextBlock(text=rest["text"]))
            blocks.append(_call_from_wire(rest, p, position))
            position += 1
        elif "functionResponse" in rest and role == "user":
            blocks.append(_result_from_wire(rest, p, unpaired))
        elif isinstance(rest.get("text"), str) and set(rest) <= {"text", "thought"}:
            if rest.get("thought") is True and role == "model":
                blocks.append(ThinkingBlock(thinking=rest["text"]))
            else:
                blocks.append(TextBlock(text=rest["text"]))
        elif role == "model":
            # What fc has no equivalent for (executableCode, codeExecutionResult, inlineData...):
            # kept verbatim, so it goes back unchanged.
            blocks.append(ProviderBlock(format=NAME, block=rest))
        else:
            kind = next(iter(rest))
            raise ConversionError(Msg("fc cannot hold a {kind!r} part", kind=kind), json_path=p)
    return blocks


def _call_from_wire(part: dict[str, Any], path: str, position: int) -> ToolUseBlock:
    call = expect(part["functionCall"], dict, f"{path}.functionCall", N_("a function call"))
    name = expect(call.get("name"), str, f"{path}.functionCall.name", N_("the function's name"))
    args = expect(call.get("args", {}), dict, f"{path}.functionCall.args", N_("an object"))
    call_id = call.get("id")
    if call_id is None:
        call_id = invented_id(name, args, position)
    return ToolUseBlock(
        id=expect(call_id, str, f"{path}.functionCall.id", N_("the call's id")),
        name=name,
        input=args,
    )


def _result_from_wire(
    part: dict[str, Any], path: str, unpaired: list[ToolUseBlock]
) -> ToolResultBlock:
    p = f"{path}.functionResponse"
    result = expect(part["functionResponse"], dict, p, N_("a function response"))
    name = expect(result.get("name"), str, f"{p}.name", N_("the function's name"))
    response = expect(result.get("response", {}), dict, f"{p}.response", N_("an object"))
    call_id = result.get("id")
    if call_id is None:
        # Gemini 2.x: the first call of the previous turn with this name not yet answered.
        match = next((c for c in unpaired if c.name == name), None)
        call_id = match.id if match is not None else invented_id(name, None, -1)
    else:
        match = next((c for c in unpaired if c.id == call_id), None)
    if match is not None:
        unpaired.remove(match)
    is_error = set(response) == {"error"}
    if is_error or set(response) == {"output"}:
        value = response["error" if is_error else "output"]
    else:
        value = response
    content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return ToolResultBlock(
        tool_use_id=expect(call_id, str, f"{p}.id", N_("the call's id")),
        content=content,
        is_error=is_error,
    )


@shape_errors()
def from_wire_response(body: Any) -> Response:
    expect(body, dict, "$", N_("a response object"))
    if "error" in body and "candidates" not in body:
        raise ConversionError(Msg("this is an error body, not a response"), json_path="$.error")
    candidates = expect(body.get("candidates"), list, "$.candidates", N_("an array of candidates"))
    if not candidates:
        feedback = body.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
        raise ConversionError(
            Msg("no candidate: the prompt was blocked ({reason})", reason=reason)
            if reason
            else Msg("no candidate"),
            json_path="$.candidates",
        )
    candidate = expect(candidates[0], dict, "$.candidates[0]", N_("a candidate object"))
    content = expect(candidate.get("content", {}), dict, "$.candidates[0].content", N_("an object"))
    parts = expect(content.get("parts", []), list, "$.candidates[0].content.parts", N_("an array"))
    blocks = parts_from_wire(parts, "$.candidates[0].content.parts", "model")
    reason = candidate.get("finishReason")
    stop = expect(reason, str, "$.candidates[0].finishReason", N_("a finish reason"))
    usage = body.get("usageMetadata")
    return Response(
        id=body.get("responseId") if isinstance(body.get("responseId"), str) else None,
        model=body.get("modelVersion") if isinstance(body.get("modelVersion"), str) else None,
        content=blocks,
        stop_reason=stop_from_wire(stop, any(isinstance(b, ToolUseBlock) for b in blocks)),
        usage=usage_from_wire(usage) if isinstance(usage, dict) else None,
    )


def stop_from_wire(reason: str, has_calls: bool) -> str:
    """STOP is also the reason of an answer that holds calls; the other reasons that are not
    MAX_TOKENS (MALFORMED_FUNCTION_CALL, SAFETY, ...) are kept as they came."""
    if reason == "STOP":
        return "tool_use" if has_calls else "end_turn"
    if reason == "MAX_TOKENS":
        return "max_tokens"
    return reason


def usage_from_wire(usage: dict[str, Any]) -> Usage:
    answer = count(usage.get("candidatesTokenCount"))
    thoughts = count(usage.get("thoughtsTokenCount"))
    output = None if answer is None and thoughts is None else (answer or 0) + (thoughts or 0)
    # The prompts of Gemini's own tools (search, code execution) are input billed beside the
    # prompt (toolUsePromptTokenCount), which promptTokenCount leaves out.
    prompt = count(usage.get("promptTokenCount"))
    tools = count(usage.get("toolUsePromptTokenCount"))
    return Usage(
        input_tokens=None if prompt is None else prompt + (tools or 0),
        output_tokens=output,
        reasoning_tokens=thoughts,
        cache_read_tokens=count(usage.get("cachedContentTokenCount")),
    )
