"""The mapping of one internal document onto a wire format: which element went where.

The mapping is not a second copy of the translators' rules: it is found by the translator itself.
Every string of the internal document is replaced by a numbered marker (`§7§`), every object
(arguments, schemas) by `{"fc_mark": "§8§"}`, every count by a marker number; the marked document
is translated, and wherever a marker lands in the wire output is where that element goes. So the
mapping cannot drift from what `fc run` sends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fccli.core.models import Request, Response
from fccli.diff.paths import Loc, canon, compact, path_str, value_at
from fccli.diff.structural import Change, described_changes
from fccli.i18n import Joined, Msg
from fccli.wire.registry import WireFormat, get_format

if TYPE_CHECKING:
    from fccli.trace.reader import Document


_MARK = re.compile(r"§(\d+)§")
_INT_BASE = 987_000_000
_STRING_KEYS = frozenset(
    {
        "model",
        "system",
        "text",
        "thinking",
        "signature",
        "id",
        "name",
        "content",
        "tool_use_id",
        "description",
        "raw_arguments",
        "item_id",
        # Gemini's signature, kept in a provider block: it lands on the part after it.
        "thoughtSignature",
    }
)
_OBJECT_KEYS = frozenset({"input", "input_schema"})
_COUNT_KEYS = frozenset({"max_tokens", "input_tokens", "output_tokens", "reasoning_tokens"})
_STRUCTURAL_KEYS = frozenset({"role", "type"})
"""Keys the rows show in their labels, not as rows or as wire-only fields."""

_EXPLAIN: dict[tuple[str, str], str] = {
    ("text", "content"): Msg("text block → the `content` string"),
    ("thinking", "reasoning_content"): Msg("thinking block → `reasoning_content`"),
    ("tool_use_id", "tool_call_id"): "`tool_use_id` → `tool_call_id`",
    ("input_schema", "parameters"): Msg("renamed; the same JSON Schema"),
    ("system", "content"): Msg("system prompt → a role:system message"),
    ("response_format", "format"): Msg(
        "JSON mode → Anthropic's structured output (the schema only)"
    ),
}


@dataclass(frozen=True)
class _Place:
    loc: Loc
    how: str
    """whole | json (inside a JSON string) | joined (one string with others) | prefixed | part"""
    prefix: str = ""


@dataclass
class Link:
    """One row of the mapping: an internal element and where it is on the wire."""

    a: str
    """The internal element's JSON path."""
    b: list[str]
    """Its place(s) in the wire document; empty when the format has no place for it."""
    level: int
    """0: a top-level field, a message or a tool; 1: a block or a field of those; 2: a block's field."""
    label: str = ""
    """What the internal element is, in words (`tool_use get_weather`)."""
    b_label: str = ""
    """What the wire element is, where that helps (roles of chat messages)."""
    note: str | None = None
    """How the representation changes, when it does."""
    status: str = ""
    """same | differs | missing (compared with what the internal file translates to); empty
    for a row without a place."""
    b_locs: list[Loc] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "internal": self.a,
            "wire": self.b,
            "level": self.level,
            "label": self.label,
            "wire_label": self.b_label,
            "note": self.note,
            "status": self.status or None,
        }


def _marked(value: Any, loc: Loc, marks: dict[int, Loc]) -> Any:
    def new(here: Loc) -> int:
        marks[len(marks)] = here
        return len(marks) - 1

    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, v in value.items():
            here = (*loc, key)
            if key in _OBJECT_KEYS and isinstance(v, dict):
                out[key] = {"fc_mark": f"§{new(here)}§"}
            elif key in _STRING_KEYS and isinstance(v, str):
                out[key] = f"§{new(here)}§"
            elif key in _COUNT_KEYS and type(v) is int:
                out[key] = _INT_BASE + new(here)
            else:
                out[key] = _marked(v, here, marks)
        return out
    if isinstance(value, list):
        return [_marked(v, (*loc, i), marks) for i, v in enumerate(value)]
    return value


def _locate(value: Any, loc: Loc, found: dict[int, list[_Place]]) -> None:
    if isinstance(value, dict):
        mark = value.get("fc_mark")
        if len(value) == 1 and isinstance(mark, str) and _MARK.fullmatch(mark):
            found.setdefault(int(mark[1:-1]), []).append(_Place(loc, "whole"))
            return
        for key, v in value.items():
            _locate(v, (*loc, key), found)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _locate(v, (*loc, i), found)
    elif isinstance(value, str):
        for n, place in _places_in_string(value, loc):
            found.setdefault(n, []).append(place)
    elif type(value) is int and _INT_BASE <= value < _INT_BASE + 1_000_000:
        found.setdefault(value - _INT_BASE, []).append(_Place(loc, "whole"))


def _places_in_string(text: str, loc: Loc) -> Iterator[tuple[int, _Place]]:
    marks = list(_MARK.finditer(text))
    if not marks:
        return
    if len(marks) == 1 and marks[0].group(0) == text:
        yield int(marks[0].group(1)), _Place(loc, "whole")
        return
    how, prefix = "part", ""
    if text.lstrip().startswith(("{", "[")) and _parses(text):
        how = "json"
    elif len(marks) > 1 and not _MARK.sub("", text):
        how = "joined"
    elif len(marks) == 1 and text.endswith(marks[0].group(0)):
        how, prefix = "prefixed", text[: marks[0].start()]
    for m in marks:
        yield int(m.group(1)), _Place(loc, how, prefix)


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _common(locs: list[Loc]) -> Loc:
    first = locs[0]
    n = 0
    while n < len(first) and all(len(loc) > n and loc[n] == first[n] for loc in locs):
        n += 1
    return first[:n]


def _cover(locs: list[Loc]) -> list[Loc]:
    """Where a container (a block, a message, a tool) is on the wire, from where its fields are:
    their common prefix, or, when they spread over several array elements (one internal message
    of N results → N chat messages), each of those elements."""
    if not locs:
        return []
    common = _common(locs)
    if len(common) < len(locs[0]) and isinstance(locs[0][len(common)], int):
        return sorted({loc[: len(common) + 1] for loc in locs}, key=_order)
    return [common]


def _order(loc: Loc) -> tuple[tuple[int, int, str], ...]:
    """Sort key of a path: array indices in number order."""
    return tuple((1, s, "") if isinstance(s, int) else (0, 0, s) for s in loc)


def _find_key(doc: Any, names: tuple[str, ...], within: Loc, depth: int) -> Loc | None:
    """The first field named one of `names` under `within`, at most `depth` segments down."""
    ok, start = value_at(doc, within)
    if not ok:
        return None
    level: list[tuple[Loc, Any]] = [(within, start)]
    for _ in range(depth):
        deeper: list[tuple[Loc, Any]] = []
        for loc, node in level:
            if isinstance(node, dict):
                for key, v in node.items():
                    if key in names:
                        return (*loc, key)
                    deeper.append(((*loc, key), v))
            elif isinstance(node, list):
                deeper += [((*loc, i), v) for i, v in enumerate(node)]
        level = deeper
    return None


@dataclass
class _Mapper:
    fmt: WireFormat
    internal: dict[str, Any]
    """The internal document's JSON."""
    expected: Any
    """What it translates to."""
    wire: Any
    """The wire file as read."""
    places: dict[Loc, list[_Place]]
    """Where each marked internal element landed in the translation."""
    raw: dict[Loc, str] = field(default_factory=dict)
    """Wire places of calls' arguments that may also hold the text the model sent (chat: a
    response carries it; a history sent back carries the parsed `input`)."""
    rows: list[Link] = field(default_factory=list)
    covered: list[Loc] = field(default_factory=list)
    _by_parent: dict[Loc, list[Loc]] | None = None
    """The wire places of `places`, by the internal parent of their element (made once: a long
    request has thousands of elements, each asking for its siblings)."""

    # ---- rows

    def build(self) -> list[Link]:
        for key, value in self.internal.items():
            loc: Loc = (key,)
            if key == "messages" and isinstance(value, list):
                for i, message in enumerate(value):
                    self._message((key, i), message)
            elif key == "tools" and isinstance(value, list):
                for k, tool in enumerate(value):
                    self._container((key, k), tool, 0, str(tool.get("name", "")))
            elif key == "content" and isinstance(value, list):  # a response's blocks
                self._blocks(loc, value, "assistant", 0)
            elif key == "usage" and isinstance(value, dict):
                self._container(loc, value, 0, "")
            elif key not in _STRUCTURAL_KEYS:
                self._leaf(loc, value, 0)
        return self.rows

    def _message(self, loc: Loc, message: dict[str, Any]) -> None:
        role = str(message.get("role"))
        blocks = message.get("content")
        self._blocks(loc, blocks if isinstance(blocks, list) else [], role, 0)

    def _blocks(self, loc: Loc, blocks: list[Any], role: str, level: int) -> None:
        label = Msg("{role}: {blocks}", role=role, blocks=_summary(blocks))
        header = Link(path_str(loc), [], level, label)
        self.rows.append(header)
        start = len(self.rows)
        content = (*loc, "content") if loc[:1] == ("messages",) else loc
        for j, block in enumerate(blocks):
            if isinstance(block, dict):
                self._block((*content, j), block, level + 1)
        inner = self._wire_locs(start)
        if loc[:1] == ("messages",):
            # A message is one or more whole wire messages (chat: one per tool result;
            # Responses: one item per block, in its `input`; Gemini: `contents`).
            history = (self.fmt.history_field,)
            wire_locs = sorted({w[:2] for w in inner if w[:1] == history}, key=_order)
        else:
            wire_locs = self._response_message(inner)
        header.b, header.b_locs = [path_str(w) for w in wire_locs], wire_locs
        header.status = self._container_status(wire_locs)
        roles = [self._value(self.expected, (*w, "role")) for w in wire_locs]
        roles = [r for r in roles if isinstance(r, str)]
        if roles:
            header.b_label = ", ".join(_counted(roles))
            if roles != [role]:
                # (Built before the note: Babel does not extract a marker inside another's call.)
                each = [
                    Msg("{n} `{role}` messages", n=n, role=r)
                    if n > 1
                    else Msg("1 `{role}` message", role=r)
                    for r, n in _tally(roles)
                ]
                header.note = Msg(
                    "1 {role} message → {messages}", role=role, messages=Joined(each, ", ")
                )

    def _response_message(self, wire_locs: list[Loc]) -> list[Loc]:
        if wire_locs and all(w[:3] == ("choices", 0, "message") for w in wire_locs):
            return [("choices", 0, "message")]
        if wire_locs and all(w[:1] == ("content",) for w in wire_locs):
            return [("content",)]
        if wire_locs and all(w[:3] == ("candidates", 0, "content") for w in wire_locs):
            return [("candidates", 0, "content")]  # Gemini's answer
        return _cover(wire_locs)

    def _block(self, loc: Loc, block: dict[str, Any], level: int) -> None:
        fields = [k for k in block if k not in _STRUCTURAL_KEYS]
        kept = block.get("block")
        if block.get("type") == "provider_block" and isinstance(kept, dict):
            # A provider's own block, sent back as it came: its fields are followed one by
            # one (Gemini's thoughtSignature lands on the part after it).
            self._container((*loc, "block"), kept, level, _block_label(block))
        elif len(fields) == 1:  # text, thinking: the block is its one field
            self._leaf((*loc, fields[0]), block[fields[0]], level, label=_block_label(block))
        else:
            self._container(loc, block, level, _block_label(block))

    def _container(self, loc: Loc, value: dict[str, Any], level: int, label: str) -> None:
        header = Link(path_str(loc), [], level, label)
        self.rows.append(header)
        start = len(self.rows)
        for key, v in value.items():
            if key not in _STRUCTURAL_KEYS:
                self._leaf((*loc, key), v, level + 1)
        wire_locs = _cover(self._wire_locs(start))
        header.b, header.b_locs = [path_str(w) for w in wire_locs], wire_locs
        header.status = self._container_status(wire_locs)
        header.note = self._wrapper_note(loc, wire_locs)

    def _wire_locs(self, start: int) -> list[Loc]:
        """Where the rows added since `start` (a container's fields) are on the wire."""
        return [w for row in self.rows[start:] for w in row.b_locs]

    def _leaf(self, loc: Loc, value: Any, level: int, label: str = "") -> None:
        places = self.places.get(loc, [])
        if loc[-1] in ("id", "tool_use_id") and isinstance(value, str) and self.fmt.invented(value):
            made_up: str = (
                Msg("made up by fc for a call sent without one: never on the wire")
                if loc[-1] == "id"
                else Msg("fc's id for a call sent without one: the result goes by name and order")
            )
            self.rows.append(Link(path_str(loc), [], level, label, "", made_up, "", []))
            return
        if places:
            wire_locs = [p.loc for p in places]
            note = self._place_note(loc, places[0])
            status = self._status(wire_locs, places[0].how)
        else:
            found = self._unmarked(loc, value)
            wire_locs = [found[0]] if found[0] is not None else []
            note = found[1]
            status = self._status(wire_locs, "whole") if wire_locs else ""
        self.covered += wire_locs
        paths = [path_str(w) for w in wire_locs]
        self.rows.append(Link(path_str(loc), paths, level, label, "", note, status, wire_locs))

    # ---- notes

    def _place_note(self, loc: Loc, place: _Place) -> str | None:
        a_key = str(loc[-1])
        b_key = next((str(s) for s in reversed(place.loc) if isinstance(s, str)), "")
        if place.how == "json":
            return Msg("`{a_key}` object → `{b_key}` JSON string", a_key=a_key, b_key=b_key)
        if place.how == "joined":
            return Msg("joined with the turn's other {a_key} blocks", a_key=a_key)
        if place.how == "prefixed":
            return Msg("with {prefix} in front", prefix=repr(place.prefix))
        if place.how == "part":
            return Msg("inside a longer `{b_key}` string", b_key=b_key)
        if a_key != b_key:
            return _EXPLAIN.get((a_key, b_key), f"`{a_key}` → `{b_key}`")
        return None

    def _wrapper_note(self, loc: Loc, wire_locs: list[Loc]) -> str | None:
        """`{"type": "function", "function": {…}}` when the wire wraps the element."""
        if len(wire_locs) != 1 or not wire_locs[0] or not isinstance(wire_locs[0][-1], str):
            return None
        inner = wire_locs[0]
        if isinstance(loc[-1], str) and inner[-1] == loc[-1]:
            return None
        ok, wrapper = value_at(self.expected, inner[:-1])
        if (
            not ok
            or not isinstance(wrapper, dict)
            or len(inner) < 2
            or not isinstance(inner[-2], int)
        ):
            return None
        shown = ", ".join(
            f'"{k}": ' + ("{…}" if k == inner[-1] else compact(v, 20)) for k, v in wrapper.items()
        )
        return Msg("wrapped in {{{shown}}}", shown=shown)

    def _unmarked(self, loc: Loc, value: Any) -> tuple[Loc | None, str | None]:
        """Where a field the markers cannot follow (a flag, a stop reason, a choice) went."""
        key = str(loc[-1])
        parent = self._parent_wire(loc)
        renamed = self.fmt.setting_names.get(key) if len(loc) == 1 else None
        if renamed is not None:
            found = _find_key(self.expected, (renamed,), (), 1)
            return found, self._value_note(loc, found, value)
        if key == "format" and loc[-2:-1] != ("response_format",) and len(loc) > 1:
            return None, Msg("fc's own: the format the kept block came from (sent back there only)")
        if key == "block" and isinstance(value, dict):
            # A provider's own item kept verbatim (Responses' reasoning): where it stands whole.
            at = _find_value(self.expected, value, ())
            if at is not None:
                return at, Msg("the provider's own item, verbatim")
        if key == "raw_arguments":
            at = next((w for w, raw in self.raw.items() if raw == value), None)
            if at is not None and value_at(self.wire, at)[1] == value:
                return at, Msg("the text as the model sent it (not a JSON object)")
            return None, _no_place(key, value, self.fmt.name)
        if key == "is_error":
            content = self.places.get((*loc[:-1], "content"), [])
            if value is True and content and content[0].how == "prefixed":
                said = Msg(
                    "no flag in {format}: the {prefix} marker",
                    format=self.fmt.name,
                    prefix=repr(content[0].prefix),
                )
                return content[0].loc, said
            found = _find_key(self.expected, ("is_error",), parent, 1) if parent else None
            if found is not None:
                return found, None
            if value is False:
                return None, Msg("false: not written (absent means false)")
            return None, Msg("no place in {format}", format=self.fmt.name)
        if key == "stop_reason":
            names = ("stop_reason", "finish_reason", self.fmt.stop_field)
            found = _find_key(self.expected, names, (), 3)
            return found, self._value_note(loc, found, value)
        if key == "parallel_tool_calls":
            found = _find_key(
                self.expected, ("parallel_tool_calls", "disable_parallel_tool_use"), (), 2
            )
            return found, self._value_note(loc, found, value)
        if key == "response_format" and len(loc) == 1:
            # JSON mode: chat keeps the name; Anthropic says it as output_config.format.
            found = _find_key(self.expected, ("response_format",), (), 1) or _find_key(
                self.expected, ("format",), ("output_config",), 1
            )
            if found is not None and found[-1] == "format":
                return found, _EXPLAIN[("response_format", "format")]
            return found, self._value_note(loc, found, value)
        found = _find_key(self.expected, (key,), parent, 1) if parent is not None else None
        return found, self._value_note(loc, found, value)

    def _parent_wire(self, loc: Loc) -> Loc | None:
        """Where the element holding `loc` is on the wire, found from its marked siblings."""
        if len(loc) == 1:
            return ()
        if self._by_parent is None:
            self._by_parent = {}
            for k, ps in self.places.items():
                self._by_parent.setdefault(k[:-1], []).extend(p.loc for p in ps)
        siblings = self._by_parent.get(loc[:-1], [])
        if not siblings:
            return None
        common = _common(siblings)
        return common[:-1] if common in siblings else common

    def _value_note(self, loc: Loc, found: Loc | None, value: Any) -> str | None:
        if found is None:
            return _no_place(str(loc[-1]), value, self.fmt.name)
        wire_value = self._value(self.expected, found)
        a_key, b_key = str(loc[-1]), str(found[-1])
        same_key = a_key == b_key
        if canon(wire_value) == canon(value):
            return None if same_key else _EXPLAIN.get((a_key, b_key), f"`{a_key}` → `{b_key}`")
        return f"{compact(value, 40)} → {compact(wire_value, 50)}"

    @staticmethod
    def _value(doc: Any, loc: Loc) -> Any:
        return value_at(doc, loc)[1]

    # ---- status

    def _status(self, wire_locs: list[Loc], how: str) -> str:
        for loc in wire_locs:
            ok, got = value_at(self.wire, loc)
            if not ok:
                return "missing"
            want = self._value(self.expected, loc)
            if loc in self.raw and got == self.raw[loc]:
                continue  # the arguments as the model sent them: the internal file keeps them too
            if how == "json" and isinstance(got, str) and isinstance(want, str):
                got, want = _loads_or(got), _loads_or(want)
            if canon(got) != canon(want):
                return "differs"
        return "same" if wire_locs else ""

    def _container_status(self, wire_locs: list[Loc]) -> str:
        if any(not value_at(self.wire, w)[0] for w in wire_locs):
            return "missing"
        return ""

    # ---- the rest of the wire file

    def wire_only(self) -> list[tuple[str, Any]]:
        covered = set(self.covered)
        out = []
        for loc, value in _leaves(self.wire, ()):
            if loc and isinstance(loc[-1], str) and loc[-1] in _STRUCTURAL_KEYS:
                continue
            if any(loc[:n] in covered for n in range(len(loc) + 1)):
                continue  # under a place already shown (by its prefixes: a set lookup each)
            out.append((path_str(loc), value))
        return out


def _find_value(doc: Any, value: Any, loc: Loc) -> Loc | None:
    """Where `value` stands whole in `doc`, if it does."""
    if doc == value:
        return loc
    children = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    for key, child in children:
        found = _find_value(child, value, (*loc, key))
        if found is not None:
            return found
    return None


def _loads_or(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _leaves(value: Any, loc: Loc) -> Iterator[tuple[Loc, Any]]:
    if isinstance(value, dict) and value:
        for key, v in value.items():
            yield from _leaves(v, (*loc, key))
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            yield from _leaves(v, (*loc, i))
    else:
        yield loc, value


def _no_place(key: str, value: Any, fmt: str) -> str:
    if key == "raw_arguments":
        return Msg(
            "no place in {format}: the wire carries the parsed `input`, not the text the model sent",
            format=fmt,
        )
    if key == "signature":
        return Msg("no place in {format}: the signature is dropped", format=fmt)
    if value is None or value is False:
        return Msg("{value}: not written", value=compact(value))
    return Msg("no place in {format}", format=fmt)


def _block_label(block: dict[str, Any]) -> str:
    kind = str(block.get("type"))
    if kind == "tool_use":
        return f"tool_use {block.get('name')}"
    if kind == "tool_result":
        return Msg("tool_result, error") if block.get("is_error") else "tool_result"
    return kind


def _summary(blocks: list[Any]) -> str:
    kinds = [b.get("type") for b in blocks if isinstance(b, dict)]
    said: dict[str, Callable[[int], str]] = {
        "thinking": lambda n: Msg("thinking") if n == 1 else Msg("{n} thinkings", n=n),
        "text": lambda n: Msg("text") if n == 1 else Msg("{n} texts", n=n),
        "tool_use": lambda n: Msg("1 call") if n == 1 else Msg("{n} calls", n=n),
        "tool_result": lambda n: Msg("1 result") if n == 1 else Msg("{n} results", n=n),
    }
    parts = [say(kinds.count(kind)) for kind, say in said.items() if kinds.count(kind)]
    return Joined(parts, ", ") if parts else Msg("empty")


def _tally(items: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for item in items:
        if out and out[-1][0] == item:
            out[-1] = (item, out[-1][1] + 1)
        else:
            out.append((item, 1))
    return out


def _counted(items: list[str]) -> list[str]:
    return [item if n == 1 else f"{item} ×{n}" for item, n in _tally(items)]


@dataclass
class Mapping:
    """An internal document mapped onto a wire document of the same step."""

    links: list[Link]
    wire_only: list[tuple[str, Any]]
    """Fields of the wire file the internal format keeps nothing of."""
    differences: list[Change]
    """What the format can say of the internal file, against what the wire file says."""
    summary: str
    """What was compared (`2 calls, 2 results, 1 text, 1 tool`)."""


def mapped(internal_doc: Document, wire_doc: Document) -> Mapping:
    """Map an internal request or response onto a wire one: where each element went, by
    translating the marked internal document with the wire file's format."""
    fmt = get_format(wire_doc.format)
    internal = internal_doc.internal
    assert isinstance(internal, (Request, Response))
    marks: dict[int, Loc] = {}
    marked = _marked(internal.to_json_dict(), (), marks)
    if isinstance(internal, Request):
        expected: Any = fmt.to_wire_request(internal)
        translated = fmt.to_wire_request(Request.model_validate(marked))
        said: Any = fmt.from_wire_request(expected)
    else:
        expected = fmt.to_wire_response(internal)
        translated = fmt.to_wire_response(Response.model_validate(marked))
        said = fmt.from_wire_response(expected)
    found: dict[int, list[_Place]] = {}
    _locate(translated, (), found)
    places = {marks[n]: ps for n, ps in found.items() if n in marks}
    raw = _raw_arguments(internal.to_json_dict(), places)
    mapper = _Mapper(fmt, internal.to_json_dict(), expected, wire_doc.data, places, raw)
    links = mapper.build()
    wire_said = wire_doc.internal_json()
    differences = described_changes(
        _with_raw(said.to_json_dict(), internal.to_json_dict(), wire_said), wire_said
    )
    return Mapping(links, mapper.wire_only(), differences, _compared(internal))


def _raw_arguments(internal: dict[str, Any], places: dict[Loc, list[_Place]]) -> dict[Loc, str]:
    """The wire places of arguments that were not a JSON object, with the text the model sent."""
    out: dict[Loc, str] = {}
    for loc, found in places.items():
        if loc[-1] != "input":
            continue
        ok, block = value_at(internal, loc[:-1])
        if ok and isinstance(block, dict) and isinstance(block.get("raw_arguments"), str):
            out.update({p.loc: block["raw_arguments"] for p in found if p.how == "json"})
    return out


def _with_raw(said: Any, internal: Any, wire: Any) -> Any:
    """What the format can say of the internal file, where a call's unparsable arguments may
    travel as the model sent them (a response) or as `{}` (a history sent back): when the wire
    file carries the very text the internal file keeps, that is no difference."""
    kept, carried = _tool_uses(internal), _tool_uses(wire)
    for call_id, block in _tool_uses(said).items():
        raw = kept.get(call_id, {}).get("raw_arguments")
        if raw is not None and carried.get(call_id, {}).get("raw_arguments") == raw:
            block["raw_arguments"] = raw
    return said


def _tool_uses(doc: Any) -> dict[Any, dict[str, Any]]:
    messages = doc["messages"] if isinstance(doc, dict) and "messages" in doc else [doc]
    return {
        b.get("id"): b
        for m in messages
        if isinstance(m, dict)
        for b in m.get("content") or []
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }


def _compared(doc: Request | Response) -> str:
    messages = doc.messages if isinstance(doc, Request) else [doc.as_message()]
    blocks = [b for m in messages for b in m.content]
    n_calls = sum(b.type == "tool_use" for b in blocks)
    n_results = sum(b.type == "tool_result" for b in blocks)
    n_texts = sum(b.type == "text" for b in blocks)
    n_thinking = sum(b.type == "thinking" for b in blocks)
    parts: list[str] = []
    if n_calls:
        parts.append(
            Msg("1 call (id, name, arguments)")
            if n_calls == 1
            else Msg("{n} calls (id, name, arguments)", n=n_calls)
        )
    if n_results:
        parts.append(
            Msg("1 result (id, content, error flag)")
            if n_results == 1
            else Msg("{n} results (id, content, error flag)", n=n_results)
        )
    if n_texts:
        parts.append(Msg("1 text") if n_texts == 1 else Msg("{n} texts", n=n_texts))
    if n_thinking:
        parts.append(
            Msg("1 thinking block") if n_thinking == 1 else Msg("{n} thinking blocks", n=n_thinking)
        )
    if isinstance(doc, Request) and doc.tools:
        n = len(doc.tools)
        parts.append(
            Msg("1 tool offered (name, description, schema)")
            if n == 1
            else Msg("{n} tools offered (name, description, schema)", n=n)
        )
    return Joined(parts, ", ", zh_sep="，") if parts else Msg("no content")
