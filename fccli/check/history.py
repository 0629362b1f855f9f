"""A lenient reading of a request in any format: the calls, results and tools the rules look at.

The rules cannot work on the internal form alone: a broken history may not translate (that is
what is being checked), and a finding must point into the file as written, where a chat body's
message indices (a system message, one tool message per result) are not the internal ones.
So each format is read here into the same small view, keeping every piece's JSON path, and
reading never fails: what cannot be read is skipped, and fc's own reader for the format (run
beside the rules, FC100) says what it refuses.

Three families: content blocks (internal, Anthropic: calls and results are blocks of user and
assistant messages), chat (DeepSeek, OpenAI: calls in `tool_calls`, each result its own
`role: "tool"` message) and items (OpenAI Responses: one flat `input` list, where every call,
result, reasoning item and message is its own item; each is read as a turn of one part, the
calls and reasoning the assistant's, the results the user's).
"""

from __future__ import annotations

import json
import operator
from bisect import bisect_right
from functools import cached_property
from typing import Any

from fccli.core.jsonio import reject_constant
from fccli.wire.base import WireFormat
from fccli.wire.chat.codec import ERROR_MARKER
from fccli.wire.gemini import FAMILY as PARTS_FAMILY
from fccli.wire.registry import FORMATS, family, refuses

ITEMS = "items"
"""The family whose history is a flat list of items (wire/base.py)."""


# Plain classes, not dataclasses: `fc run` checks every request it sends, so this module is
# imported at each start, and a dataclass costs ~2 M instructions to create (its methods are
# compiled from source). Nothing compares these records: the rules read their fields.


class Call:
    def __init__(
        self,
        id: str | None,
        name: Any,
        arguments: Any,
        raw: Any,
        parses: bool,
        message: int,
        position: int,
        path: str,
        args_path: str,
    ) -> None:
        self.id = id
        """None when the id is missing or not a string (fc's reader says so)."""
        self.name = name
        self.arguments = arguments
        """The arguments as a JSON value: chat's string parsed (None when it does not parse)."""
        self.raw = raw
        """The arguments exactly as written (chat: the string; blocks: the input)."""
        self.parses = parses
        """Chat: the arguments string is valid JSON. Blocks: always."""
        self.message = message
        self.position = position
        """Index in `tool_calls` (chat) or in the message's content blocks."""
        self.path = path
        self.args_path = args_path
        self.reports: dict[str, Any] = {}
        """The arguments' schema report by the schema's JSON text (rules/arguments.py): a call
        is checked once, not again in every later request of a trace that repeats it."""


class Result:
    def __init__(
        self,
        call_id: str | None,
        content: Any,
        is_error: bool,
        message: int,
        position: int,
        path: str,
        name: Any = None,
    ) -> None:
        self.call_id = call_id
        self.content = content
        self.is_error = is_error
        """Blocks: `is_error: true`. Chat has no flag: content starting with fc's
        `[tool error] `."""
        self.message = message
        self.position = position
        self.path = path
        self.name = name
        """Gemini: the function's name on a result without an id, to pair it by name and
        order."""


class Turn:
    def __init__(
        self, index: int, role: Any, path: str, *, raw: dict[str, Any] | None = None
    ) -> None:
        self.index = index
        self.role = role
        self.path = path
        self.kinds: list[str] = []
        """The message's parts in order: text, thinking, call, result, other."""
        self.calls: list[Call] = []
        self.results: list[Result] = []
        self.text = ""
        self.raw: dict[str, Any] = {} if raw is None else raw
        self.unsigned: Call | None = None
        """Gemini: the turn's first call, when its part carries no thoughtSignature."""


class OfferedTool:
    def __init__(self, name: Any, schema: Any, strict: bool, path: str, schema_path: str) -> None:
        self.name = name
        self.schema = schema
        self.strict = strict
        self.path = path
        self.schema_path = schema_path

    @cached_property
    def schema_text(self) -> str | None:
        """The schema as exact JSON text (None when it has none): the same text is the same
        schema, so a call's report against it is kept (Call.reports)."""
        try:
            return json.dumps(self.schema if self.schema is not None else {})
        except (TypeError, ValueError, RecursionError):
            return None


class Index:
    """Calls and results by the id they carry, so that the rules look them up rather than walk
    a long history again for each call. A trace's next request extends its request before's
    index with its new turns (the lists are copied where they grow, never changed)."""

    def __init__(
        self,
        first_calls: dict[str, Call] | None = None,
        results: dict[str, list[Result]] | None = None,
    ) -> None:
        self.first_calls: dict[str, Call] = {} if first_calls is None else first_calls
        """The first call with each id."""
        self.results: dict[str, list[Result]] = {} if results is None else results
        """Every result naming each id, in the order of the history."""

    def extended(self, turns: list[Turn]) -> Index:
        first_calls, results = dict(self.first_calls), dict(self.results)
        for turn in turns:
            for call in turn.calls:
                if call.id is not None and call.id not in first_calls:
                    first_calls[call.id] = call
            for result in turn.results:
                if result.call_id is not None:
                    results[result.call_id] = [*results.get(result.call_id, ()), result]
        return Index(first_calls, results)

    def result_after(self, call_id: str | None, message: int) -> Result | None:
        """The first result naming `call_id` in a message after `message`."""
        if call_id is None:
            return None
        found = self.results.get(call_id, [])
        at = bisect_right(found, message, key=lambda r: r.message)
        return found[at] if at < len(found) else None


class History:
    def __init__(
        self,
        format: str,
        root: str,
        turns: list[Turn],
        tools: list[OfferedTool],
        choice: tuple[str, str | None] | None,
        thinking: bool,
        doc: dict[str, Any],
        index: Index | None = None,
    ) -> None:
        self.format = format
        self.root = root
        """`$.messages` for a request, `$` for a bare messages array."""
        self.turns = turns
        self.tools = tools
        self.choice = choice
        """The tool_choice as (auto | none | required | tool, name), None when unset or
        unreadable."""
        self.thinking = thinking
        """Thinking mode on, as the format's provider reads the request (DeepSeek: on by
        default)."""
        self.doc = doc
        self.index = index
        """Calls and results by id (see `ids`), made along with the turns."""

    def with_turns(self, turns: list[Turn]) -> History:
        """The same request read with other turns (a tail of these); the index is kept."""
        return History(
            self.format,
            self.root,
            turns,
            self.tools,
            self.choice,
            self.thinking,
            self.doc,
            self.index,
        )

    @property
    def ids(self) -> Index:
        if self.index is None:
            self.index = Index().extended(self.turns)
        return self.index

    @property
    def chat(self) -> bool:
        return family(self.format) == "chat"

    @property
    def items(self) -> bool:
        return family(self.format) == ITEMS

    @property
    def string_arguments(self) -> bool:
        """Calls carry their arguments as a JSON string (chat, items), not as an object."""
        return self.chat or self.items

    @property
    def wire(self) -> WireFormat | None:
        """The wire format (None for the internal format)."""
        return FORMATS.get(self.format)

    def refuses(self, rule: str) -> bool:
        """The format's providers answer this rule's mistake with HTTP 400."""
        return refuses(self.format, rule)

    def calls(self) -> list[Call]:
        return [c for t in self.turns for c in t.calls]

    def results(self) -> list[Result]:
        return [r for t in self.turns for r in t.results]

    def result_of(self, call: Call) -> Result | None:
        """The first result after the call that names its id."""
        return self.ids.result_after(call.id, call.message)

    def tool_names(self) -> list[Any]:
        return [t.name for t in self.tools]


def history_field(fmt: str) -> str:
    """The request's key holding the history in format `fmt` (`messages`; Responses: `input`;
    Gemini: `contents`)."""
    wire = FORMATS.get(fmt)
    return wire.history_field if wire is not None else "messages"


def read_history(
    doc: dict[str, Any], fmt: str, root: str | None = None, *, after: History | None = None
) -> History:
    """The view of `doc`. `after`: the history of the request before it in a trace, whose
    messages `doc` repeats as the very same objects (fccli/core/request_files.py): their turns are
    taken as they are, only the new messages are read."""
    key = history_field(fmt)
    root = root if root is not None else f"$.{key}"
    raw_messages = doc.get(key)
    if isinstance(raw_messages, str):  # Responses' short form: one user message
        raw_messages = [{"role": "user", "content": raw_messages}]
    messages = raw_messages if isinstance(raw_messages, list) else []
    parts = family(fmt) == PARTS_FAMILY
    if family(fmt) == ITEMS:
        # Items are grouped into turns across their boundaries: read whole every time.
        after, turns, new = None, [], _item_turns(messages, root)
    else:
        read = _chat_turn if family(fmt) == "chat" else _parts_turn if parts else _blocks_turn
        turns = _repeated(after, messages, fmt, root)
        new = [
            read(m, i, f"{root}[{i}]") if isinstance(m, dict) else Turn(i, None, f"{root}[{i}]")
            for i, m in enumerate(messages[len(turns) :], start=len(turns))
        ]
    if parts:
        # A result is paired with the turn before it only: the repeated turns were paired.
        _pair_by_name(turns[-1:] + new)
    index = after.ids.extended(new) if turns and after is not None else None
    return History(
        format=fmt,
        root=root,
        turns=turns + new,
        tools=_parts_tools(doc.get("tools")) if parts else _tools(doc.get("tools"), fmt),
        choice=_parts_choice(doc.get("toolConfig"))
        if parts
        else _choice(doc.get("tool_choice"), fmt),
        thinking=_thinking(doc, fmt),
        doc=doc,
        index=index,
    )


def _messages(doc: dict[str, Any], fmt: str) -> list[Any]:
    """The history as a list (history_field), or nothing."""
    history = doc.get(history_field(fmt))
    return history if isinstance(history, list) else []


def _repeated(after: History | None, messages: list[Any], fmt: str, root: str) -> list[Turn]:
    """The turns of `after` whose messages lead `messages`, the same objects."""
    if after is None or after.format != fmt or after.root != root:
        return []
    before = _messages(after.doc, fmt)
    if not before or len(before) > len(messages):
        return []
    if not all(map(operator.is_, before, messages)):
        return []
    return list(after.turns)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def _blocks_turn(message: dict[str, Any], index: int, path: str) -> Turn:
    turn = Turn(index, message.get("role"), path, raw=message)
    content = message.get("content")
    if isinstance(content, str):
        turn.kinds.append("text")
        turn.text = content
        return turn
    for k, block in enumerate(content if isinstance(content, list) else []):
        where = f"{path}.content[{k}]"
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict):
            turn.kinds.append("other")
        elif kind == "text":
            turn.kinds.append("text")
            text = block.get("text")
            turn.text += text if isinstance(text, str) else ""
        elif kind in ("thinking", "redacted_thinking"):
            turn.kinds.append("thinking")
        elif kind == "tool_use":
            turn.kinds.append("call")
            arguments = block.get("input")
            turn.calls.append(
                Call(
                    _id(block.get("id")),
                    block.get("name"),
                    arguments,
                    arguments,
                    True,
                    index,
                    k,
                    where,
                    f"{where}.input",
                )
            )
        elif kind == "tool_result":
            turn.kinds.append("result")
            turn.results.append(
                Result(
                    _id(block.get("tool_use_id")),
                    block.get("content"),
                    block.get("is_error") is True,
                    index,
                    k,
                    where,
                )
            )
        else:
            turn.kinds.append("other")
    return turn


def _text_result(call_id: Any, content: Any, message: int, position: int, path: str) -> Result:
    """A result of a format without an error flag (chat, items): an error is marked in its text."""
    marked = isinstance(content, str) and content.startswith(ERROR_MARKER)
    return Result(_id(call_id), content, marked, message, position, path)


def _string_call(
    call_id: Any, name: Any, raw: Any, message: int, position: int, path: str, args_path: str
) -> Call:
    """A call whose arguments travel as a JSON string (chat, items), parsed leniently."""
    parses, arguments = _parse(raw)
    return Call(_id(call_id), name, arguments, raw, parses, message, position, path, args_path)


def _parts_turn(content: dict[str, Any], index: int, path: str) -> Turn:
    """Gemini's `{role: user | model, parts}`; role model read as assistant. A call or result
    without an id gets one here as fc's reader gives it (_pair_by_name pairs the results)."""
    from fccli.wire.gemini.codec import SIGNATURE, invented_id

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
            call_id = _id(call.get("id"))
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
            response = _object(result.get("response"))
            is_error = "error" in response
            turn.results.append(
                Result(
                    _id(result.get("id")),
                    response.get("error" if is_error else "output", response),
                    is_error,
                    index,
                    k,
                    where,
                )
            )
            if "id" not in result:
                turn.results[-1].name = result.get("name")
        elif isinstance(part.get("text"), str):
            turn.kinds.append("thinking" if part.get("thought") is True else "text")
            if part.get("thought") is not True:
                turn.text += part["text"]
        else:
            turn.kinds.append("other")
    return turn


def _pair_by_name(turns: list[Turn]) -> None:
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


def _parts_tools(tools: Any) -> list[OfferedTool]:
    out = []
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        declarations = _object(tool).get("functionDeclarations")
        for j, spec in enumerate(declarations if isinstance(declarations, list) else []):
            if not isinstance(spec, dict):
                continue
            path = f"$.tools[{i}].functionDeclarations[{j}]"
            key = "parameters" if "parametersJsonSchema" not in spec else "parametersJsonSchema"
            out.append(OfferedTool(spec.get("name"), spec.get(key), False, path, f"{path}.{key}"))
    return out


def _parts_choice(config: Any) -> tuple[str, str | None] | None:
    calling = _object(_object(config).get("functionCallingConfig"))
    mode, names = calling.get("mode"), calling.get("allowedFunctionNames")
    if mode == "ANY" and isinstance(names, list) and len(names) == 1:
        return ("tool", names[0]) if isinstance(names[0], str) else None
    kinds = {"AUTO": "auto", "NONE": "none", "ANY": "required"}
    return (kinds[mode], None) if mode in kinds else None


def _chat_turn(message: dict[str, Any], index: int, path: str) -> Turn:
    role = message.get("role")
    turn = Turn(index, role, path, raw=message)
    if role == "tool":
        turn.kinds.append("result")
        turn.results.append(
            _text_result(message.get("tool_call_id"), message.get("content"), index, 0, path)
        )
        return turn
    if message.get("reasoning_content"):
        turn.kinds.append("thinking")
    turn.text = _texts(message.get("content"))
    if turn.text:
        turn.kinds.append("text")
    calls = message.get("tool_calls")
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        where = f"{path}.tool_calls[{k}]"
        function = _object(call.get("function"))
        turn.kinds.append("call")
        turn.calls.append(
            _string_call(
                call.get("id"),
                function.get("name"),
                function.get("arguments"),
                index,
                k,
                where,
                f"{where}.function.arguments",
            )
        )
    return turn


def _item_role(item: Any) -> Any:
    """Whose turn an item is: the user's (its messages, the results), the assistant's (its
    messages, calls, reasoning and other output items), or a system message's."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type", "message")
    if kind == "message":
        return item.get("role")
    return "user" if kind == "function_call_output" else "assistant"


def _item_turns(items: list[Any], root: str) -> list[Turn]:
    """Items read as turns: consecutive items of one role make one turn (an assistant's text,
    reasoning and calls; the user's results and question), as messages do in the other
    layouts. A turn's path is its first item's; each call and result keeps its own."""
    turns: list[Turn] = []
    for k, item in enumerate(items):
        path = f"{root}[{k}]"
        role = _item_role(item)
        if not turns or role is None or turns[-1].role != role or role not in ("user", "assistant"):
            turns.append(Turn(len(turns), role, path, raw=item if isinstance(item, dict) else {}))
        if isinstance(item, dict):
            _add_item(turns[-1], item, path)
    return turns


def _add_item(turn: Turn, item: dict[str, Any], path: str) -> None:
    kind = item.get("type", "message")
    position = len(turn.kinds)
    if kind == "message":
        turn.kinds.append("text")
        turn.text += _texts(item.get("content"))
    elif kind == "function_call_output":
        turn.kinds.append("result")
        turn.results.append(
            _text_result(item.get("call_id"), item.get("output"), turn.index, position, path)
        )
    elif kind == "function_call":
        turn.kinds.append("call")
        turn.calls.append(
            _string_call(
                item.get("call_id"),
                item.get("name"),
                item.get("arguments"),
                turn.index,
                position,
                path,
                f"{path}.arguments",
            )
        )
    else:
        turn.kinds.append("thinking" if kind == "reasoning" else "other")


def _parse(raw: Any) -> tuple[bool, Any]:
    """Chat arguments: (parses as JSON, the value). A non-string is taken as it is."""
    if not isinstance(raw, str):
        return True, raw
    try:
        return True, json.loads(raw, parse_constant=reject_constant)
    except (ValueError, RecursionError):
        return False, None


def _tools(tools: Any, fmt: str) -> list[OfferedTool]:
    out = []
    for k, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict):
            continue
        path = f"$.tools[{k}]"
        if family(fmt) == ITEMS:
            spec, schema_key = tool, "parameters"
        elif family(fmt) == "chat":
            spec = _object(tool.get("function"))
            path += ".function"
            schema_key = "parameters"
        else:
            spec, schema_key = tool, "input_schema"
        out.append(
            OfferedTool(
                spec.get("name"),
                spec.get(schema_key),
                spec.get("strict") is True,
                path,
                f"{path}.{schema_key}",
            )
        )
    return out


def _choice(choice: Any, fmt: str) -> tuple[str, str | None] | None:
    if choice is None:
        return None
    if isinstance(choice, str):
        return (choice, None) if choice in ("auto", "none", "required") else None
    if not isinstance(choice, dict):
        return None
    if family(fmt) == ITEMS:
        kind = choice.get("type")
        if kind == "function" and isinstance(choice.get("name"), str):
            return ("tool", choice["name"])
        mode = choice.get("mode")
        return (mode, None) if kind == "allowed_tools" and isinstance(mode, str) else None
    if family(fmt) == "chat":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        return ("tool", name) if isinstance(name, str) else None
    kind = choice.get("type")
    kind = "required" if kind == "any" else kind
    if kind in ("auto", "none", "required"):
        return (kind, None)
    if kind == "tool" and isinstance(choice.get("name"), str):
        return ("tool", choice["name"])
    return None


def _thinking(doc: dict[str, Any], fmt: str) -> bool:
    wire = FORMATS.get(fmt)
    if wire is None:  # the internal format: a plain switch
        return doc.get("thinking") is True
    return wire.thinking_on(doc)
