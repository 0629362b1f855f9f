"""The lenient view of a history that `fc check` reads: calls, results and tools with their paths.

A broken history may not translate (that is what is being checked), and a finding must point
into the file as written. So each format reads its own layout into these few records, keeping
every piece's JSON path, and reading never fails: what cannot be read is skipped, and the
format's codec (run beside the rules, FC100) says what it refuses.

Also here: fc's own layout (core/models.py: calls and results are content blocks of user and
assistant messages), which the internal format reads and formats of the same layout share.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any, Literal, NamedTuple

from fccli.core.jsonio import reject_constant

Placement = Literal["next_message", "own_messages", "after_call"]
"""Where a format wants the results of a turn's calls, the pairing rules `fc check` holds it to:
`next_message`: all of them leading the one user message right after the calls (fc's blocks,
Anthropic, Gemini); `own_messages`: one message each, right after the calls (chat);
`after_call`: anywhere after the call with their id (Responses)."""


class Places(NamedTuple):
    """Where a format keeps what `fc check` points at, as JSON paths from the document's root."""

    stop: str
    """A response's stop reason (FC130)."""
    answer: str
    """A response's answer (FC119)."""
    tool_choice: str = "$.tool_choice"
    tools: str = "$.tools"
    prompt: tuple[str, ...] = ("$.system", "$.tools")
    """What a request's prompt begins with before its history, in order (FC122)."""
    json_mode: str | None = None
    """A request's JSON mode field (FC132), where the format has one."""
    system: str | None = None
    """A request's system prompt as text, where it is not a message."""


class Call:
    """One tool call as written. Plain classes here: `fc run` checks every request it sends."""

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
        name_path: str | None = None,
        id_key: str = "id",
    ) -> None:
        self.id = id
        """None when the id is missing or not a string (the codec says so)."""
        self.name = name
        self.arguments = arguments
        """The arguments as a JSON value: a string parsed (None when it does not parse)."""
        self.raw = raw
        """The arguments exactly as written."""
        self.parses = parses
        """The arguments are valid JSON (always, where they travel as an object)."""
        self.message = message
        self.position = position
        """Index of the call in its message's calls or parts."""
        self.path = path
        self.args_path = args_path
        self.id_path = f"{path}.{id_key}"
        self.name_path = name_path or f"{path}.name"
        self.reports: dict[str, Any] = {}
        """The arguments' schema report by the schema's JSON text: a call is checked once, not
        again in every later request of a trace that repeats it."""


class Result:
    def __init__(
        self,
        call_id: str | None,
        content: Any,
        is_error: bool,
        message: int,
        position: int,
        path: str,
        id_key: str = "tool_use_id",
        content_key: str = "content",
    ) -> None:
        self.call_id = call_id
        self.content = content
        self.is_error = is_error
        """The error flag, or the format's error marker at the start of the text."""
        self.message = message
        self.position = position
        self.path = path
        self.id_path = f"{path}.{id_key}"
        self.content_path = f"{path}.{content_key}"
        self.name: Any = None
        """The function's name on a result without an id, to pair it by name and order."""


class Turn:
    def __init__(
        self, index: int, role: Any, path: str, *, raw: dict[str, Any] | None = None
    ) -> None:
        self.index = index
        self.role = role
        """user, assistant, system or tool, as the rules read it."""
        self.path = path
        self.kinds: list[str] = []
        """The message's parts in order: text, thinking, call, result, other."""
        self.calls: list[Call] = []
        self.results: list[Result] = []
        self.text = ""
        self.raw: dict[str, Any] = {} if raw is None else raw
        self.unsigned: Call | None = None
        """The turn's first call, when the format wants a signature on it and it has none."""
        self.unsigned_thinking: list[tuple[int, str]] = []
        """(position, path) of each thinking part without its signature."""


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


class Problem(NamedTuple):
    """A mistake only a format's own layout can have, found by the format (`layout_problems`)."""

    rule: str
    path: str
    message: str
    values: dict[str, Any]
    """What fills in the provider's sentence."""


Choice = tuple[str, str | None]
"""A tool_choice as (auto | none | required | tool, the tool's name)."""


def as_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_id(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def texts(content: Any) -> str:
    """Return the text of a string or of a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def string_call(
    call_id: Any,
    name: Any,
    raw: Any,
    message: int,
    position: int,
    path: str,
    args_path: str,
    name_path: str | None = None,
    id_key: str = "id",
) -> Call:
    """Return a call whose arguments travel as a JSON string, parsed leniently (a non-string is
    taken as it is)."""
    parses, arguments = True, raw
    if isinstance(raw, str):
        try:
            arguments = json.loads(raw, parse_constant=reject_constant)
        except (ValueError, RecursionError):
            parses, arguments = False, None
    return Call(
        as_id(call_id),
        name,
        arguments,
        raw,
        parses,
        message,
        position,
        path,
        args_path,
        name_path,
        id_key,
    )


def marked_result(
    call_id: Any,
    content: Any,
    marker: str,
    message: int,
    position: int,
    path: str,
    id_key: str,
    content_key: str,
) -> Result:
    """Return a result of a format without an error flag: an error starts its text with `marker`."""
    marked = isinstance(content, str) and content.startswith(marker)
    return Result(as_id(call_id), content, marked, message, position, path, id_key, content_key)


def blocks_turn(message: dict[str, Any], index: int, path: str) -> Turn:
    """Return a message of content blocks (fc's own layout): text, thinking, tool_use, tool_result."""
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
            if kind == "thinking" and not isinstance(block.get("signature"), str):
                turn.unsigned_thinking.append((k, where))
        elif kind == "tool_use":
            turn.kinds.append("call")
            arguments = block.get("input")
            turn.calls.append(
                Call(
                    as_id(block.get("id")),
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
                    as_id(block.get("tool_use_id")),
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


def message_turns(messages: list[Any], root: str, start: int, read: Any) -> list[Turn]:
    """`messages[start:]` read one turn each by `read(message, index, path)`."""
    return [
        read(m, i, f"{root}[{i}]") if isinstance(m, dict) else Turn(i, None, f"{root}[{i}]")
        for i, m in enumerate(messages[start:], start=start)
    ]


def offered_at(doc: dict[str, Any], schema_key: str, inner: str | None = None) -> list[OfferedTool]:
    """Return the tools of `doc["tools"]`, each `{name, <schema_key>, strict}` (under `inner`, where
    the format nests them: chat's `function`)."""
    out = []
    tools = doc.get("tools")
    for k, tool in enumerate(tools if isinstance(tools, list) else []):
        if isinstance(tool, dict):
            path = f"$.tools[{k}]" + (f".{inner}" if inner else "")
            spec = as_object(tool.get(inner)) if inner else tool
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


def word_choice(choice: Any) -> Choice | None:
    """Return a tool_choice said in a word (`auto`, `none`, `required`)."""
    if isinstance(choice, str) and choice in ("auto", "none", "required"):
        return (choice, None)
    return None


def blocks_choice(doc: dict[str, Any]) -> Choice | None:
    """fc's own tool_choice (`{"type": "auto" | "any" | "none" | "tool", "name"}`, or a word)."""
    choice = doc.get("tool_choice")
    if not isinstance(choice, dict):
        return word_choice(choice)
    kind = choice.get("type")
    kind = "required" if kind == "any" else kind
    if kind in ("auto", "none", "required"):
        return (kind, None)
    if kind == "tool" and isinstance(choice.get("name"), str):
        return ("tool", choice["name"])
    return None


class BlocksLayout:
    """What `fc check` asks a format (or the internal format) about its layout, as fc's own
    blocks lay it out: a format of another layout overrides what differs."""

    @property
    def name(self) -> str:
        """The format's name, also the trace files' suffix (`1-request.<name>.json`)."""
        raise NotImplementedError

    history_field = "messages"
    """The request's key holding the history (Responses: `input`)."""
    places = Places(
        stop="$.stop_reason",
        answer="$.content",
        json_mode="$.response_format",
        system="$.system",
    )
    arguments_as_text = False
    """Calls carry their arguments as a JSON string, not as an object (FC108)."""
    placement: Placement = "next_message"
    duplicate_quote = "call"
    """Which second use of an id the FC106 sentence speaks of: a `call` or a `result`."""
    appends_turns = True
    """Each message reads as one turn: a trace's next request reads only its new ones."""
    id_pattern: str | None = None
    """The call ids the providers accept (a regex), where they limit them (FC107)."""
    id_rule = ""
    """`id_pattern` in a learner's words (`exactly 9 letters or digits`); "": Anthropic's
    (letters, digits, _ and -)."""
    json_word_modes: tuple[str, ...] = ()
    """The JSON modes whose prompt must say "json" (FC132)."""
    rules_without_place: tuple[str, ...] = ()
    """`fc check` rules about something this format cannot hold (Gemini has no `strict`:
    FC115): they do not apply to it."""
    reasoning_field: str | None = None
    """The assistant message's key for reasoning, where thinking travels as a field."""
    thinking_tool_choices: tuple[str, ...] | None = None
    """The tool_choice types accepted in thinking mode, where limited."""
    signed_thinking = False
    """The provider takes a thinking block back only with the signature it gave it."""
    system_in_history = False
    """A system prompt can be a message of the history (chat's `role: "system"`)."""

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        """Return the turns of `messages[start:]` (all, where turns do not follow messages), read
        leniently; `before`: the turns already read of the messages before `start`."""
        return message_turns(messages, root, start, blocks_turn)

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return offered_at(doc, "input_schema")

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return blocks_choice(doc)

    def thinking_on(self, body: dict[str, Any]) -> bool:
        """Return whether a request body of this format asks for thinking (read leniently)."""
        return False

    def layout_problems(
        self, doc: dict[str, Any], root: str, calls: list[Call], thinking: bool
    ) -> list[Problem]:
        """Return the mistakes only this layout can have (Responses: reasoning items apart from
        theirs)."""
        return []


class InternalLayout(BlocksLayout):
    """fc's internal format as `fc check` reads it: its providers' rules are Anthropic's."""

    name = "internal"
    json_word_modes = ("json_object",)

    def __init__(self, id_pattern: str) -> None:
        self.id_pattern = id_pattern

    def thinking_on(self, body: dict[str, Any]) -> bool:
        return body.get("thinking") is True
