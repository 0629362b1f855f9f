"""The contract every wire format keeps, tested over the registry (issue #14, item 8): a new
format is held to it by being listed, with no test of its own to write first.

- translating settles: after one pass through the format (which drops what it cannot hold),
  wire → internal → wire gives the same wire body again;
- what a round trip does not give back, `fc convert` says (a loss or a note), never in silence;
- any damage to a wire body is a ConversionError or nothing, never a crash;
- a streamed answer, cut into pieces anywhere, assembles to the non-streamed one.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.convert.translate import convert
from fccli.core.errors import ConversionError, FcError, ProtocolError, StreamCut, UsageError
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
from fccli.trace.reader import Document, document_from
from fccli.wire.base import WireFormat
from fccli.wire.registry import FORMATS, get_format
from tests.convert.test_convert import _requests
from tests.support import fake_bedrock, fake_ollama
from tests.support.builders import WEATHER_SCHEMA, json_objects, json_paths, tool_specs
from tests.support.fake_provider import FakeProvider, _anthropic_events, _chat_events, gemini_events
from tests.support.fake_responses import events as _responses_events

NAMES = sorted(FORMATS)
texts = st.text(max_size=16)
ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=12)


@st.composite
def assistant_blocks(draw: st.DrawFn) -> list[Block]:
    blocks: list[Block] = []
    for kind in draw(st.lists(st.sampled_from(["text", "thinking", "call", "kept"]), max_size=4)):
        if kind == "text":
            blocks.append(TextBlock(text=draw(texts)))
        elif kind == "thinking":
            blocks.append(ThinkingBlock(thinking=draw(texts), signature=draw(st.none() | ids)))
        elif kind == "call":
            blocks.append(ToolUseBlock(id=draw(ids), name=draw(ids), input=draw(json_objects)))
        else:
            blocks.append(
                ProviderBlock(
                    format=draw(st.sampled_from(NAMES)),
                    block={
                        "type": draw(st.sampled_from(["compaction", "redacted_thinking"])),
                        "data": draw(texts),
                    },
                )
            )
    return blocks


@st.composite
def requests(draw: st.DrawFn) -> Request:
    messages = [Message(role="user", content=[TextBlock(text=draw(texts))])]
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        turn = Message(role="assistant", content=draw(assistant_blocks()))
        messages.append(turn)
        results: list[Block] = [
            ToolResultBlock(tool_use_id=c.id, content=draw(texts), is_error=draw(st.booleans()))
            for c in turn.tool_uses()
        ]
        messages.append(Message(role="user", content=results or [TextBlock(text=draw(texts))]))
    return Request(
        model=draw(ids),
        system=draw(st.none() | texts),
        messages=messages,
        tools=draw(st.lists(tool_specs, max_size=2)),
        tool_choice=draw(
            st.none() | st.sampled_from([ToolChoice(type="auto"), ToolChoice(type="required")])
        ),
        max_tokens=draw(st.none() | st.integers(min_value=1, max_value=10_000)),
        thinking=draw(st.sampled_from([True, False, None])),
    )


@st.composite
def responses(draw: st.DrawFn) -> Response:
    return Response(
        id=draw(st.none() | ids),
        model=draw(st.none() | ids),
        content=draw(assistant_blocks()),
        stop_reason=draw(st.sampled_from(["end_turn", "tool_use", "max_tokens"])),
        usage=draw(
            st.none()
            | st.builds(Usage, input_tokens=st.integers(0, 999), output_tokens=st.integers(0, 999))
        ),
    )


def _writable(fmt: WireFormat, request: Request) -> bool:
    """The format's own refusal before sending (DeepSeek's tool_choice in thinking mode) is a
    usage error of its own, tested where the format is: not part of this contract."""
    return fmt.request_problem(request) is None


@pytest.mark.parametrize("name", NAMES)
@given(request=requests())
def test_a_request_translates_stably(name: str, request: Request) -> None:
    fmt = FORMATS[name]
    if not _writable(fmt, request):
        return
    wire = fmt.to_wire_request(fmt.from_wire_request(fmt.to_wire_request(request)))
    again = fmt.to_wire_request(fmt.from_wire_request(json.loads(json.dumps(wire))))
    assert again == wire


APPENDING = [n for n in NAMES if FORMATS[n].appends_messages]


@pytest.mark.parametrize("name", APPENDING)
@given(request=requests(), data=st.data())
def test_a_format_that_appends_messages_writes_the_added_ones_alone(
    name: str, request: Request, data: Any
) -> None:
    """`appends_messages` (fc check translates a trace's new messages only): the wire body of a
    request is that of its first messages, followed by the wire messages of the rest translated
    alone, and nothing besides the messages depends on them."""
    fmt = FORMATS[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(request.messages)))

    def wire(messages: list[Message]) -> dict[str, Any]:
        return fmt.to_wire_request(request.model_copy(update={"messages": messages}))

    if not _writable(fmt, request):
        return
    try:
        whole, head = wire(request.messages), wire(request.messages[:cut])
        empty, rest = wire([]), wire(request.messages[cut:])
    except ConversionError:
        return  # check translates the whole request then, and says where it fails
    added = rest["messages"][len(empty["messages"]) :]
    assert whole == {**rest, "messages": [*head["messages"], *added]}


@pytest.mark.parametrize("name", NAMES)
@given(response=responses())
def test_a_response_translates_stably(name: str, response: Response) -> None:
    fmt = FORMATS[name]
    wire = fmt.to_wire_response(fmt.from_wire_response(fmt.to_wire_response(response)))
    again = fmt.to_wire_response(fmt.from_wire_response(json.loads(json.dumps(wire))))
    assert again == wire


@pytest.mark.parametrize("name", NAMES)
@given(request=requests())
def test_what_a_round_trip_does_not_give_back_is_said(name: str, request: Request) -> None:
    fmt = FORMATS[name]
    if not _writable(fmt, request):
        return
    back = fmt.from_wire_request(fmt.to_wire_request(request))
    doc = Document("r.json", request.to_json_dict(), "internal", "request", "test", request)
    out = convert(doc, name)
    if back != request:
        assert out.losses or out.notes, (request, back)


WORDS = ["text", "thinking", "tool_use", "tool_result", "user", "assistant", "model", "tool"]
WORDS += ["function", "function_call", "function_call_output", "functionCall", "any"]
KEYS = ["type", "text", "id", "name", "input", "content", "role", "parts", "args", "call_id"]
KEYS += ["arguments", "output", "tool_calls", "function", "choices", "message", "x"]
damage_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(WORDS),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=8,
)
"""What damage puts in a body: any JSON, and often the words and keys of the formats' own
shapes (a block type where a role goes, a dict that almost is a part)."""


def _damaged(body: Any, path: list[Any], value: Any, drop: bool) -> Any:
    out = copy.deepcopy(body)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if drop and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return out


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_any_damage_to_a_wire_body_is_a_conversion_error_or_nothing(name: str, data: Any) -> None:
    fmt = FORMATS[name]
    request = data.draw(requests())
    response = data.draw(responses())
    if not _writable(fmt, request):
        return
    for body, read in (
        (fmt.to_wire_request(request), fmt.from_wire_request),
        (fmt.to_wire_response(response), fmt.from_wire_response),
    ):
        path = list(data.draw(st.sampled_from(json_paths(body))))
        damaged = (
            data.draw(damage_values)
            if not path
            else _damaged(body, path, data.draw(damage_values), data.draw(st.booleans()))
        )
        with contextlib.suppress(ConversionError):
            read(damaged)


STREAMS = {
    "chat": _chat_events,
    "blocks": _anthropic_events,
    "items": _responses_events,
    "gemini": gemini_events,
    "converse": fake_bedrock.frames,
    "ollama": fake_ollama.lines,
}
"""How the fake provider streams an answer of each family (tests/support/fake_provider.py)."""


def test_the_fake_streams_every_family() -> None:
    """A format of a new layout family is held to the stream contract once the fake streams it:
    a family missing here would be left out of the tests below in silence."""
    assert {f.family for f in FORMATS.values()} <= set(STREAMS)


@pytest.mark.parametrize("name", [n for n in NAMES if FORMATS[n].family in STREAMS])
@given(response=responses(), cuts=st.lists(st.integers(min_value=1), max_size=12))
def test_a_stream_cut_anywhere_assembles_to_the_answer(
    name: str, response: Response, cuts: list[int]
) -> None:
    fmt = FORMATS[name]
    calls = response.tool_uses()
    if fmt.family == "blocks" and any(isinstance(b, ProviderBlock) for b in response.content):
        return  # the fake streams only what it answers itself
    wire = fmt.to_wire_response(response)
    wire = _as_sent(wire, fmt.family)
    if wire is None or (fmt.family == "chat" and len(calls) != len({c.id for c in calls})):
        return
    raw = b"".join(e if isinstance(e, bytes) else e.encode() for e in _stream_events(fmt, wire))
    folder = fmt.stream_folder()
    start = 0
    for cut in sorted({c % (len(raw) + 1) for c in cuts}):
        folder.feed(raw[start:cut])
        start = cut
    folder.feed(raw[start:])
    assert fmt.from_wire_response(folder.finish()) == fmt.from_wire_response(wire)


def _stream_events(fmt: WireFormat, wire: dict[str, Any]) -> list[str]:
    """The events the fake provider streams for answer `wire`, each a whole SSE event."""
    fake = FakeProvider()
    extra = {"include_usage": True} if fmt.family == "chat" else {}
    return [e for e in STREAMS[fmt.family](wire, fake, **extra) if isinstance(e, (str, bytes))]


def _as_sent(wire: dict[str, Any], family: str) -> dict[str, Any] | None:
    """The answer with what a provider always sends (the fake streams from a full answer)."""
    wire = copy.deepcopy(wire)
    if family == "gemini":
        # Text arrives in pieces and is joined into one part: two text parts in a row (which
        # Gemini never sends) would come back as one.
        parts = wire["candidates"][0]["content"]["parts"]
        kinds = [p.get("thought") is True if set(p) <= {"text", "thought"} else None for p in parts]
        if any(a is not None and a == b for a, b in itertools.pairwise(kinds)):
            return None
        return wire
    if family == "chat":
        wire.setdefault("id", "chatcmpl-1")
        wire.setdefault("created", 1)
        wire.setdefault("model", "m")
        wire.setdefault("usage", {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
        message = wire["choices"][0]["message"]
        if message.get("content") is None and not message.get("tool_calls"):
            return None
        return wire
    if family == "converse":
        # The fake streams text, calls and reasoning; a block kept verbatim has no delta.
        kinds = ("text", "toolUse", "reasoningContent")
        content = wire["output"]["message"]["content"]
        return wire if all(len(b) == 1 and next(iter(b)) in kinds for b in content) else None
    if family == "ollama":
        return wire
    if family == "items":
        wire.setdefault("id", "resp_1")
        for k, item in enumerate(wire["output"]):
            item.setdefault("id", f"item_{k}")  # OpenAI gives every output item its id
        return wire
    wire.setdefault("id", "msg_1")
    wire.setdefault("model", "m")
    wire.setdefault("usage", {"input_tokens": 1, "output_tokens": 1})
    if any(b.get("type") == "thinking" and "signature" not in b for b in wire["content"]):
        return None
    return wire


# ---- what every format says about a body it cannot read

MODEL = "m"
RICH_REQUEST = Request(
    model=MODEL,
    system="be brief",
    messages=[
        Message(role="user", content=[TextBlock(text="q")]),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="t", signature="s"),
                TextBlock(text="a"),
                ToolUseBlock(id="call_1", name="get_weather", input={"city": "A"}),
                ToolUseBlock(id="call_2", name="get_weather", input={"city": "B"}),
            ],
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="call_1", content="r"),
                ToolResultBlock(tool_use_id="call_2", content="e", is_error=True),
            ],
        ),
    ],
    tools=[ToolSpec(name="get_weather", description="d", input_schema=WEATHER_SCHEMA)],
    tool_choice=ToolChoice(type="auto"),
    max_tokens=2048,
)
RICH_RESPONSE = Response(
    id="r1",
    model=MODEL,
    content=[
        ThinkingBlock(thinking="t", signature="s"),
        TextBlock(text="a"),
        ToolUseBlock(id="call_1", name="f", input={"a": 1}),
    ],
    stop_reason="tool_use",
    usage=Usage(input_tokens=1, output_tokens=2),
)

ODD_VALUES = (None, True, 0, 1.5, "", "x", [], {}, [None], {"type": None})
"""What a damaged body holds where a value was: each of the JSON kinds, empty and not."""


def _every_damage(body: Any) -> Any:
    """Every way to damage `body` at one place: each key removed, each value replaced."""
    for path in json_paths(body):
        if not path:
            continue
        parent: Any = body
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict):
            yield path, _damaged(body, list(path), None, drop=True)
        for value in ODD_VALUES:
            yield path, _damaged(body, list(path), value, drop=False)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["request", "response"])
def test_every_single_damage_to_a_body_is_a_conversion_error_or_nothing(
    name: str, kind: str
) -> None:
    fmt = FORMATS[name]
    if kind == "request":
        good, read = fmt.to_wire_request(RICH_REQUEST), fmt.from_wire_request
    else:
        good, read = fmt.to_wire_response(RICH_RESPONSE), fmt.from_wire_response
    read(good)
    for path, body in _every_damage(good):
        try:
            read(body)
        except ConversionError:
            pass
        except Exception as e:  # KeyError, TypeError, a pydantic ValidationError...
            pytest.fail(f"damage at {path}: {type(e).__name__}: {e}")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("body", [None, [], "a body", 3])
def test_a_body_that_is_not_an_object_is_a_conversion_error_at_the_root(
    name: str, body: Any
) -> None:
    for read in (FORMATS[name].from_wire_request, FORMATS[name].from_wire_response):
        with pytest.raises(ConversionError) as caught:
            read(body)
        assert caught.value.json_path == "$"
        assert str(caught.value).startswith("$: ")


@pytest.mark.parametrize("name", NAMES)
def test_a_conversion_error_is_a_usage_error_so_fc_exits_2(name: str) -> None:
    with pytest.raises(UsageError) as caught:
        FORMATS[name].from_wire_request({})
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("name", NAMES)
def test_get_format_finds_each_format_by_its_trace_suffix(name: str) -> None:
    assert get_format(name) is FORMATS[name]
    assert get_format(name).name == name


# ---- between formats: every call and result kept, and what is not, said


def _read(data: Any, name: str) -> Document:
    return document_from(data, f"r.{name}.json" if name != "internal" else "r.json", forced=name)


def _exchange(request: Request) -> list[Any]:
    """Every call and result of a history: ids, names, arguments, contents, error flags."""
    return [
        (c.id, c.name, c.input)
        if isinstance(c, ToolUseBlock)
        else (c.tool_use_id, c.content, c.is_error)
        for m in request.messages
        for c in m.content
        if isinstance(c, ToolUseBlock | ToolResultBlock)
    ]


@pytest.mark.parametrize("name", NAMES)
@given(request=_requests, via=st.sampled_from([*NAMES, "internal"]))
def test_through_another_format_and_back_every_call_and_result_is_kept(
    name: str, request: dict[str, Any], via: str
) -> None:
    try:
        wire = convert(_read(request, "internal"), name).output
        there = convert(_read(wire, name), via).output
        back = convert(_read(there, via), name).output
    except FcError:
        return  # a history a format refuses is refused loudly
    fmt = FORMATS[name]
    assert _exchange(fmt.from_wire_request(back)) == _exchange(fmt.from_wire_request(wire))


@pytest.mark.parametrize("name", NAMES)
@given(request=_requests)
def test_no_loss_reported_means_the_format_gives_it_back(
    name: str, request: dict[str, Any]
) -> None:
    try:
        converted = convert(_read(request, "internal"), name)
    except FcError:
        return
    back = FORMATS[name].from_wire_request(converted.output).to_json_dict()
    original = Request.model_validate(request).to_json_dict()
    for path in converted.added:  # a value the format requires, set and said in a note
        assert path.startswith("$.") and "." not in path[2:] and "[" not in path
        assert path[2:] not in original
        back.pop(path[2:])
    if not FORMATS[name].model_in_body:  # the model goes in the URL: said in a note
        said = f"model {original['model']!r}: "
        assert any(n.startswith(said) and "in the URL" in n for n in converted.notes)
        back["model"] = original["model"]
    if not converted.losses:
        assert back == original
    else:
        assert back != original


# ---- what every stream folder says about a stream it cannot fold


SSE = [
    n
    for n in NAMES
    if FORMATS[n].family in STREAMS and FORMATS[n].stream_media_type == "text/event-stream"
]
"""The formats whose streams are server-sent events (Bedrock's binary event stream says these
things in its own words: tests/wire/test_bedrock_stream.py)."""


@pytest.mark.parametrize("name", SSE)
@pytest.mark.parametrize("layout", ["compact", "indented", "html"])
def test_an_answer_that_is_not_an_event_stream_is_said_so(name: str, layout: str) -> None:
    """A server that ignored `stream: true`, or a proxy's error page."""
    fmt = FORMATS[name]
    wire = fmt.to_wire_response(RICH_RESPONSE)
    body = {
        "compact": json.dumps(wire).encode(),
        "indented": json.dumps(wire, indent=2).encode() + b"\n",
        "html": b"<html>\n\n<body>502 Bad Gateway</body>\n\n</html>\n",
    }[layout]
    folder = fmt.stream_folder()
    with pytest.raises(ProtocolError) as e:
        folder.feed(body)
        folder.finish()
    assert e.value.message.startswith(
        f"the answer is not an event stream: {len(body):,} bytes without a `data:` line, "
        f"starting {body[:20].decode()!r}"[:-1]
    )
    # Told the connection was cut, it is a cut stream like any other.
    folder = fmt.stream_folder()
    folder.feed(body)
    with pytest.raises(StreamCut):
        folder.finish("the connection closed mid-stream")


@pytest.mark.parametrize("name", SSE)
def test_an_event_that_is_not_json_is_a_protocol_error_naming_it(name: str) -> None:
    fmt = FORMATS[name]
    wire = _as_sent(fmt.to_wire_response(RICH_RESPONSE), fmt.family)
    assert wire is not None
    first = _stream_events(fmt, wire)[0]
    folder = fmt.stream_folder()
    with pytest.raises(ProtocolError, match=r"^event 2 of the stream is not JSON: '\{oops'"):
        folder.feed((first + "data: {oops\n\n").encode())
        folder.finish()
