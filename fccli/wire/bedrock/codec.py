"""The AWS Bedrock Converse format, both directions.

Field names are the REST JSON of the `bedrock-runtime` service (botocore's service model,
2023-09-30, operations Converse and ConverseStream). Where it differs from fc's blocks:

- the model is in the URL (`/model/{modelId}/converse`), and so is the stream
  (`/converse-stream`): a request body holds neither;
- every content block is an object with one key that says its kind: `{text}`, `{toolUse:
  {toolUseId, name, input}}`, `{toolResult: {toolUseId, content: [{text} | {json}], status}}`,
  `{reasoningContent: {reasoningText: {text, signature}}}`; the system prompt is
  `system: [{text}]`;
- a result's error flag is `status: "error"` (Bedrock documents `status` for some models only:
  fc writes it only on an error result, and reads a result without it as a success); fc writes
  a result as one `text` block, and reads a `json` block as its JSON text;
- tools are `toolConfig.tools[].toolSpec {name, description, inputSchema: {json}}`; the choice
  is `toolConfig.toolChoice` `{auto: {}}`, `{any: {}}` (internal `required`) or `{tool: {name}}`:
  there is no `none`, and no switch for parallel calls;
- `max_tokens` is `inferenceConfig.maxTokens`; `--effort` is `outputConfig.effort`; a JSON
  Schema answer is `outputConfig.textFormat` with the schema as a JSON string;
- a description and the system prompt are at least one character (`NonEmptyString`): an
  empty one is left out;
- an answer is `{output: {message}, stopReason, usage, metrics}`: it has no id and names no
  model; `stopReason` uses Anthropic's words (end_turn, tool_use, max_tokens, stop_sequence),
  and others (content_filtered, guardrail_intervened, malformed_tool_use...) are kept as they
  came: the engine stops on them rather than guess;
- usage counts `inputTokens` without what was read from or written to the prompt cache
  (`cacheReadInputTokens`, `cacheWriteInputTokens`), as Anthropic does; internally the input
  is all of it.

A block fc has no equivalent for (a cachePoint, an image, a redacted reasoning block) is kept
verbatim as a ProviderBlock and goes back only to Bedrock.

Round trips: `from_wire_request(to_wire_request(r)) == r` except for the model and stream (in
the URL), `parallel_tool_calls`, `thinking` (a model's own field in
additionalModelRequestFields), a `none` tool choice, an empty system prompt, `raw_arguments`,
and json_object response formats. Responses lose their id and model.
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
from fccli.wire.shape import count, expect, shape_errors

NAME = "bedrock"
"""The format's name: trace files' suffix, and the origin of the blocks it keeps verbatim."""
STOPS_TO_WIRE = {"refusal": "content_filtered"}
"""Internal stop reasons Bedrock says in other words; the rest are its own."""
_KINDS = ("text", "toolUse", "toolResult", "reasoningContent")
"""The block kinds fc reads into its own blocks; any other is kept verbatim."""


# ---------------------------------------------------------------------------------------------
# internal -> wire


def to_wire_request(request: Request) -> dict[str, Any]:
    body: dict[str, Any] = {}
    body["messages"] = [message_to_wire(m) for m in request.messages]
    if request.system:  # Bedrock refuses an empty text block here (NonEmptyString)
        body["system"] = [{"text": request.system}]
    if request.max_tokens is not None:
        body["inferenceConfig"] = {"maxTokens": request.max_tokens}
    config = tool_config(request)
    if config is not None:
        body["toolConfig"] = config
    output = _output_config(request)
    if output:
        body["outputConfig"] = output
    return body


def tool_config(request: Request) -> dict[str, Any] | None:
    """Return `toolConfig`: the tools and the choice (which has no place without tools)."""
    if not request.tools:
        return None
    config: dict[str, Any] = {"tools": [tool_to_wire(t) for t in request.tools]}
    choice = request.tool_choice
    if choice is not None and choice.type != "none":
        config["toolChoice"] = tool_choice_to_wire(choice)
    return config


def tool_to_wire(tool: ToolSpec) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": tool.name}
    if tool.description:
        spec["description"] = tool.description
    spec["inputSchema"] = {"json": tool.input_schema}
    if tool.strict is not None:
        spec["strict"] = tool.strict
    return {"toolSpec": spec}


def tool_choice_to_wire(choice: ToolChoice) -> dict[str, Any]:
    if choice.type == "tool":
        return {"tool": {"name": choice.name}}
    return {"any": {}} if choice.type == "required" else {"auto": {}}


def _output_config(request: Request) -> dict[str, Any]:
    out: dict[str, Any] = {}
    response_format = request.response_format or {}
    inner = response_format.get("json_schema")
    if response_format.get("type") == "json_schema" and isinstance(inner, dict):
        schema = inner.get("schema")
        if isinstance(schema, dict):
            definition: dict[str, Any] = {"schema": json.dumps(schema, ensure_ascii=False)}
            if isinstance(inner.get("name"), str):
                definition["name"] = inner["name"]
            out["textFormat"] = {"type": "json_schema", "structure": {"jsonSchema": definition}}
    if request.effort is not None:
        out["effort"] = request.effort
    return out


def message_to_wire(message: Message) -> dict[str, Any]:
    return {"role": message.role, "content": blocks_to_wire(message.content, message.role)}


def blocks_to_wire(blocks: list[Block], role: str) -> list[dict[str, Any]]:
    out = []
    for block in blocks:
        wire = block_to_wire(block, role)
        if wire is not None:
            out.append(wire)
    return out


def block_to_wire(block: Block, role: str) -> dict[str, Any] | None:
    if isinstance(block, ProviderBlock):
        # Verbatim, back to Bedrock; another format's block has no place (fc convert says so).
        return block.block if block.format == NAME else None
    if isinstance(block, TextBlock):
        return {"text": block.text}
    if isinstance(block, ThinkingBlock) and role == "assistant":
        text: dict[str, Any] = {"text": block.thinking}
        if block.signature is not None:
            text["signature"] = block.signature
        return {"reasoningContent": {"reasoningText": text}}
    if isinstance(block, ToolUseBlock) and role == "assistant":
        return {"toolUse": {"toolUseId": block.id, "name": block.name, "input": block.input}}
    if isinstance(block, ToolResultBlock) and role == "user":
        result: dict[str, Any] = {
            "toolUseId": block.tool_use_id,
            "content": [{"text": block.content}],
        }
        if block.is_error:
            result["status"] = "error"
        return {"toolResult": result}
    raise ConversionError(
        Msg("a {type} block cannot stand in a {role} message", type=block.type, role=role)
    )


def to_wire_response(response: Response) -> dict[str, Any]:
    body: dict[str, Any] = {
        "output": {
            "message": {
                "role": "assistant",
                "content": blocks_to_wire(response.content, "assistant"),
            }
        },
        "stopReason": STOPS_TO_WIRE.get(response.stop_reason, response.stop_reason),
    }
    if response.usage is not None:
        body["usage"] = usage_to_wire(response.usage)
    return body


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
    if usage.input_tokens is not None:
        out["inputTokens"] = max(0, usage.input_tokens - cached)
    if usage.output_tokens is not None:
        out["outputTokens"] = usage.output_tokens
    if usage.input_tokens is not None and usage.output_tokens is not None:
        out["totalTokens"] = usage.input_tokens + usage.output_tokens
    if usage.cache_read_tokens is not None:
        out["cacheReadInputTokens"] = usage.cache_read_tokens
    if usage.cache_write_tokens is not None:
        out["cacheWriteInputTokens"] = usage.cache_write_tokens
    return out


# ---------------------------------------------------------------------------------------------
# wire -> internal


@shape_errors()  # no pydantic error escapes a translator
def from_wire_request(body: Any) -> Request:
    expect(body, dict, "$", N_("a request object"))
    messages = expect(body.get("messages"), list, "$.messages", N_("an array of messages"))
    tools, choice = _tool_config_from_wire(body.get("toolConfig"))
    inference = expect(body.get("inferenceConfig", {}), dict, "$.inferenceConfig", N_("an object"))
    max_tokens = expect(
        inference.get("maxTokens"),
        (int, type(None)),
        "$.inferenceConfig.maxTokens",
        N_("an integer"),
    )
    output = expect(body.get("outputConfig", {}), dict, "$.outputConfig", N_("an object"))
    effort = expect(
        output.get("effort"), (str, type(None)), "$.outputConfig.effort", N_("a string")
    )
    return Request(
        model="",
        system=_system_from_wire(body.get("system")),
        messages=[_message_from_wire(m, f"$.messages[{i}]") for i, m in enumerate(messages)],
        tools=tools,
        tool_choice=choice,
        max_tokens=max_tokens,
        effort=effort,
        response_format=_response_format_from_wire(output.get("textFormat")),
    )


def _system_from_wire(system: Any) -> str | None:
    if system is None:
        return None
    texts = []
    for k, block in enumerate(expect(system, list, "$.system", N_("an array of text blocks"))):
        path = f"$.system[{k}]"
        expect(block, dict, path, N_("a text block"))
        texts.append(expect(block.get("text"), str, f"{path}.text", N_("a text block")))
    return "".join(texts)


def _tool_config_from_wire(config: Any) -> tuple[list[ToolSpec], ToolChoice | None]:
    if config is None:
        return [], None
    expect(config, dict, "$.toolConfig", N_("an object"))
    tools = []
    for i, tool in enumerate(
        expect(config.get("tools"), list, "$.toolConfig.tools", N_("an array of tools"))
    ):
        path = f"$.toolConfig.tools[{i}]"
        expect(tool, dict, path, N_("a tool object"))
        if set(tool) != {"toolSpec"}:
            other = next((k for k in tool if k != "toolSpec"), "toolSpec")
            raise ConversionError(
                Msg("fc holds tool specifications only, not {other!r}", other=other),
                json_path=path,
            )
        tools.append(_tool_from_wire(tool["toolSpec"], f"{path}.toolSpec"))
    choice = None
    if "toolChoice" in config:
        choice = _tool_choice_from_wire(config["toolChoice"])
    return tools, choice


def _tool_from_wire(spec: Any, path: str) -> ToolSpec:
    expect(spec, dict, path, N_("a tool specification"))
    schema = expect(spec.get("inputSchema"), dict, f"{path}.inputSchema", N_("an object"))
    strict = expect(spec.get("strict"), (bool, type(None)), f"{path}.strict", N_("a boolean"))
    return ToolSpec(
        name=expect(spec.get("name"), str, f"{path}.name", N_("the tool's name")),
        description=expect(spec.get("description", ""), str, f"{path}.description", N_("a string")),
        input_schema=expect(
            schema.get("json"), dict, f"{path}.inputSchema.json", N_("a JSON Schema object")
        ),
        strict=strict,
    )


def _tool_choice_from_wire(choice: Any) -> ToolChoice:
    path = "$.toolConfig.toolChoice"
    expect(choice, dict, path, N_("a toolChoice object"))
    if set(choice) == {"auto"}:
        return ToolChoice(type="auto")
    if set(choice) == {"any"}:
        return ToolChoice(type="required")
    if set(choice) == {"tool"}:
        tool = expect(choice["tool"], dict, f"{path}.tool", N_("an object"))
        return ToolChoice(
            type="tool", name=expect(tool.get("name"), str, f"{path}.tool.name", N_("a name"))
        )
    raise ConversionError(Msg("unknown toolChoice {choice!r}", choice=choice), json_path=path)


def _response_format_from_wire(text_format: Any) -> dict[str, Any] | None:
    if text_format is None:
        return None
    path = "$.outputConfig.textFormat"
    expect(text_format, dict, path, N_("an object"))
    structure = expect(text_format.get("structure"), dict, f"{path}.structure", N_("an object"))
    definition = expect(
        structure.get("jsonSchema"), dict, f"{path}.structure.jsonSchema", N_("an object")
    )
    where = f"{path}.structure.jsonSchema.schema"
    text = expect(definition.get("schema"), str, where, N_("a JSON Schema as a string"))
    try:
        schema = json.loads(text)
    except ValueError:
        raise ConversionError(Msg("the schema is not JSON"), json_path=where) from None
    expect(schema, dict, where, N_("a JSON Schema object"))
    inner: dict[str, Any] = {"schema": schema}
    name = definition.get("name")
    if isinstance(name, str):
        inner = {"name": name, **inner}
    return {"type": "json_schema", "json_schema": inner}


def _message_from_wire(message: Any, path: str) -> Message:
    expect(message, dict, path, N_("a message object"))
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise ConversionError(
            Msg("a message's role is user or assistant, not {role!r}", role=role),
            json_path=f"{path}.role",
        )
    content = expect(message.get("content"), list, f"{path}.content", N_("an array of blocks"))
    return Message(role=role, content=blocks_from_wire(content, f"{path}.content", role))


def blocks_from_wire(content: list[Any], path: str, role: str) -> list[Block]:
    blocks: list[Block] = []
    for k, block in enumerate(content):
        where = f"{path}[{k}]"
        expect(block, dict, where, N_("a content block"))
        kinds = [key for key in block if key in _KINDS]
        if not kinds:
            blocks.append(ProviderBlock(format=NAME, block=block))
            continue
        if len(block) != 1:
            raise ConversionError(
                Msg("a content block holds exactly one kind, not {keys}", keys=", ".join(block)),
                json_path=where,
            )
        kind = kinds[0]
        value = block[kind]
        if kind == "text":
            blocks.append(TextBlock(text=expect(value, str, f"{where}.text", N_("a string"))))
        elif kind == "reasoningContent":
            blocks.append(_reasoning_from_wire(block, value, f"{where}.reasoningContent"))
        elif kind == "toolUse" and role == "assistant":
            blocks.append(_tool_use_from_wire(value, f"{where}.toolUse"))
        elif kind == "toolResult" and role == "user":
            blocks.append(_tool_result_from_wire(value, f"{where}.toolResult"))
        else:
            raise ConversionError(
                Msg("a {kind} block cannot stand in a {role} message", kind=kind, role=role),
                json_path=where,
            )
    return blocks


def _reasoning_from_wire(block: dict[str, Any], value: Any, path: str) -> Block:
    expect(value, dict, path, N_("an object"))
    text = value.get("reasoningText")
    if set(value) != {"reasoningText"}:
        return ProviderBlock(format=NAME, block=block)  # redacted reasoning: kept as it came
    expect(text, dict, f"{path}.reasoningText", N_("an object"))
    signature = expect(
        text.get("signature"), (str, type(None)), f"{path}.reasoningText.signature", N_("a string")
    )
    return ThinkingBlock(
        thinking=expect(text.get("text"), str, f"{path}.reasoningText.text", N_("a string")),
        signature=signature,
    )


def _tool_use_from_wire(value: Any, path: str) -> ToolUseBlock:
    expect(value, dict, path, N_("a toolUse object"))
    return ToolUseBlock(
        id=expect(value.get("toolUseId"), str, f"{path}.toolUseId", N_("the call's id")),
        name=expect(value.get("name"), str, f"{path}.name", N_("the tool's name")),
        input=expect(value.get("input"), dict, f"{path}.input", N_("a JSON object")),
    )


def _tool_result_from_wire(value: Any, path: str) -> ToolResultBlock:
    expect(value, dict, path, N_("a toolResult object"))
    parts = expect(value.get("content"), list, f"{path}.content", N_("an array of blocks"))
    texts = []
    for j, part in enumerate(parts):
        where = f"{path}.content[{j}]"
        expect(part, dict, where, N_("a text or json block"))
        if set(part) == {"text"}:
            texts.append(expect(part["text"], str, f"{where}.text", N_("a string")))
        elif set(part) == {"json"}:
            texts.append(json.dumps(part["json"], ensure_ascii=False))
        else:
            raise ConversionError(
                Msg("fc holds a result's text and JSON only, not {keys}", keys=", ".join(part)),
                json_path=where,
            )
    status = expect(value.get("status"), (str, type(None)), f"{path}.status", N_("a string"))
    return ToolResultBlock(
        tool_use_id=expect(value.get("toolUseId"), str, f"{path}.toolUseId", N_("the call's id")),
        content="".join(texts),
        is_error=status == "error",
    )


@shape_errors()
def from_wire_response(body: Any) -> Response:
    expect(body, dict, "$", N_("a response object"))
    output = expect(body.get("output"), dict, "$.output", N_("an object"))
    message = expect(output.get("message"), dict, "$.output.message", N_("a message object"))
    content = expect(
        message.get("content"), list, "$.output.message.content", N_("an array of blocks")
    )
    usage = body.get("usage")
    return Response(
        content=blocks_from_wire(content, "$.output.message.content", "assistant"),
        stop_reason=expect(body.get("stopReason"), str, "$.stopReason", N_("a stop reason")),
        usage=usage_from_wire(usage) if isinstance(usage, dict) else None,
    )


def usage_from_wire(usage: dict[str, Any]) -> Usage:
    read = count(usage.get("cacheReadInputTokens"))
    write = count(usage.get("cacheWriteInputTokens"))
    rest = count(usage.get("inputTokens"))
    return Usage(
        input_tokens=None if rest is None else rest + (read or 0) + (write or 0),
        output_tokens=count(usage.get("outputTokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
    )
