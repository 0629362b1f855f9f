"""The Gemini format read leniently for `fc check` (wire/view.py): `{role: user | model, parts}`
contents, calls and results as parts, results paired by id or else by name and order."""

from __future__ import annotations

from typing import Any

from fccli.wire.gemini.codec import SIGNATURE, invented_id
from fccli.wire.view import Call, Choice, OfferedTool, Result, Turn, as_id, as_object


def parts_turn(content: dict[str, Any], index: int, path: str) -> Turn:
    """One content, role model read as assistant. A call or result without an id gets one as
    the codec gives it (pair_by_name pairs the results)."""
    role = content.get("role", "user")
    turn = Turn(index, "assistant" if role == "model" else role, path, raw=content)
    parts = content.get("parts")
    position = 0
    for k, part in enumerate(parts if isinstance(parts, list) else []):
        where = f"{path}.parts[{k}]"
        if not isinstance(part, dict):
            turn.kinds.append("other")
            continue
        call, result = part.get("functionCall"), part.get("functionResponse")
        if isinstance(call, dict):
            turn.kinds.append("call")
            args = call.get("args", {})
            name = call.get("name")
            call_id = as_id(call.get("id"))
            if "id" not in call and isinstance(name, str):
                call_id = invented_id(name, args, position)
            position += 1
            at = f"{where}.functionCall"
            read = Call(call_id, name, args, args, True, index, k, at, f"{at}.args")
            turn.calls.append(read)
            if len(turn.calls) == 1 and SIGNATURE not in part:
                turn.unsigned = read
        elif isinstance(result, dict):
            turn.kinds.append("result")
            response = as_object(result.get("response"))
            is_error = "error" in response
            read_result = Result(
                as_id(result.get("id")),
                response.get("error" if is_error else "output", response),
                is_error,
                index,
                k,
                where,
                "functionResponse.id",
                "functionResponse.response",
            )
            if "id" not in result:
                read_result.name = result.get("name")
            turn.results.append(read_result)
        elif isinstance(part.get("text"), str):
            turn.kinds.append("thinking" if part.get("thought") is True else "text")
            if part.get("thought") is not True:
                turn.text += part["text"]
        else:
            turn.kinds.append("other")
    return turn


def pair_by_name(turns: list[Turn]) -> None:
    """Results without an id (Gemini 2.x) take the id of the first unanswered call of the
    turn before with their name, as the provider pairs them."""
    previous: list[Call] = []
    for turn in turns:
        open_calls = list(previous)
        for result in turn.results:
            if result.call_id is None and result.name is not None:
                match = next((c for c in open_calls if c.name == result.name), None)
                if match is not None:
                    result.call_id = match.id
                    open_calls.remove(match)
        previous = turn.calls if turn.role == "assistant" else []


def parts_tools(doc: dict[str, Any]) -> list[OfferedTool]:
    out = []
    tools = doc.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        declarations = as_object(tool).get("functionDeclarations")
        for j, spec in enumerate(declarations if isinstance(declarations, list) else []):
            if not isinstance(spec, dict):
                continue
            path = f"$.tools[{i}].functionDeclarations[{j}]"
            key = "parameters" if "parametersJsonSchema" not in spec else "parametersJsonSchema"
            out.append(OfferedTool(spec.get("name"), spec.get(key), False, path, f"{path}.{key}"))
    return out


def parts_choice(doc: dict[str, Any]) -> Choice | None:
    calling = as_object(as_object(doc.get("toolConfig")).get("functionCallingConfig"))
    mode, names = calling.get("mode"), calling.get("allowedFunctionNames")
    if mode == "ANY" and isinstance(names, list) and len(names) == 1:
        return ("tool", names[0]) if isinstance(names[0], str) else None
    kinds = {"AUTO": "auto", "NONE": "none", "ANY": "required"}
    return (kinds[mode], None) if mode in kinds else None
