"""The Converse format read leniently for `fc check` (wire/view.py): messages of one-key content
blocks, calls as `toolUse`, results as `toolResult` leading the next user message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fccli.i18n import Msg
from fccli.wire.shape import describe
from fccli.wire.view import (
    Call,
    Choice,
    OfferedTool,
    Problem,
    Result,
    Turn,
    as_id,
    as_object,
)


def content_turn(message: dict[str, Any], index: int, path: str) -> Turn:
    """One message: its blocks read by the one key each has."""
    turn = Turn(index, message.get("role"), path, raw=message)
    content = message.get("content")
    for k, block in enumerate(content if isinstance(content, list) else []):
        where = f"{path}.content[{k}]"
        if not isinstance(block, dict):
            turn.kinds.append("other")
        elif isinstance(block.get("text"), str):
            turn.kinds.append("text")
            turn.text += block["text"]
        elif "reasoningContent" in block:
            turn.kinds.append("thinking")
        elif isinstance(block.get("toolUse"), dict):
            turn.kinds.append("call")
            use = block["toolUse"]
            arguments = use.get("input")
            at = f"{where}.toolUse"
            turn.calls.append(
                Call(
                    as_id(use.get("toolUseId")),
                    use.get("name"),
                    arguments,
                    arguments,
                    True,
                    index,
                    k,
                    at,
                    f"{at}.input",
                    id_key="toolUseId",
                )
            )
        elif isinstance(block.get("toolResult"), dict):
            turn.kinds.append("result")
            result = block["toolResult"]
            turn.results.append(
                Result(
                    as_id(result.get("toolUseId")),
                    result_text(result.get("content")),
                    result.get("status") == "error",
                    index,
                    k,
                    where,
                    "toolResult.toolUseId",
                    "toolResult.content",
                )
            )
        else:
            turn.kinds.append("other")
    return turn


def result_text(content: Any) -> Any:
    """Return a result's content as the rules read it: its text and JSON blocks as one text (the
    list as it is when it holds anything else)."""
    if not isinstance(content, list):
        return content
    texts = []
    for part in content:
        if isinstance(part, dict) and set(part) == {"text"} and isinstance(part["text"], str):
            texts.append(part["text"])
        elif isinstance(part, dict) and set(part) == {"json"}:
            texts.append(json.dumps(part["json"], ensure_ascii=False))
        else:
            return content
    return "".join(texts)


def spec_tools(doc: dict[str, Any]) -> list[OfferedTool]:
    out = []
    tools = as_object(doc.get("toolConfig")).get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        spec = as_object(tool).get("toolSpec")
        if not isinstance(spec, dict):
            continue
        path = f"$.toolConfig.tools[{i}].toolSpec"
        schema = as_object(spec.get("inputSchema")).get("json")
        out.append(
            OfferedTool(
                spec.get("name"),
                schema,
                spec.get("strict") is True,
                path,
                f"{path}.inputSchema.json",
            )
        )
    return out


def spec_choice(doc: dict[str, Any]) -> Choice | None:
    choice = as_object(doc.get("toolConfig")).get("toolChoice")
    if not isinstance(choice, dict) or len(choice) != 1:
        return None
    if "auto" in choice:
        return ("auto", None)
    if "any" in choice:
        return ("required", None)
    name = as_object(choice.get("tool")).get("name")
    return ("tool", name) if isinstance(name, str) else None


def json_not_object(doc: dict[str, Any], root: str) -> Iterator[Problem]:
    """FC125: a result's `json` block holds something other than a JSON object (Bedrock's
    Document here must be an object: a list, a number or a string is refused)."""
    messages = doc.get(root.removeprefix("$."))
    for n, message in enumerate(messages if isinstance(messages, list) else []):
        content = as_object(message).get("content")
        for k, block in enumerate(content if isinstance(content, list) else []):
            result = as_object(block).get("toolResult") if isinstance(block, dict) else None
            parts = as_object(result).get("content")
            for j, part in enumerate(parts if isinstance(parts, list) else []):
                if isinstance(part, dict) and "json" in part and not isinstance(part["json"], dict):
                    value = part["json"]
                    yield Problem(
                        "FC125",
                        f"{root}[{n}].content[{k}].toolResult.content[{j}].json",
                        Msg(
                            "this result's json block holds {kind}, not an object: Bedrock takes "
                            "only a JSON object here (send anything else as a text block)",
                            kind=describe(value),
                        ),
                        {"n": n, "k": k, "j": j},
                    )
