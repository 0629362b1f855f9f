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
    ToolUseBlock,
    Usage,
)
from fccli.trace.reader import Document
from fccli.wire.base import WireFormat
from fccli.wire.registry import FORMATS
from tests.support.builders import json_objects, json_paths, json_values, tool_specs
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


APPENDING = [n for n in NAMES if getattr(FORMATS[n], "appends_messages", False)]


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
            data.draw(json_values)
            if not path
            else _damaged(body, path, data.draw(json_values), data.draw(st.booleans()))
        )
        with contextlib.suppress(ConversionError):
            read(damaged)


STREAMS = {
    "chat": _chat_events,
    "blocks": _anthropic_events,
    "items": _responses_events,
    "gemini": gemini_events,
}
"""How the fake provider streams an answer of each family (tests/support/fake_provider.py)."""


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
    fake = FakeProvider()
    if fmt.family == "chat":
        events = _chat_events(wire, fake, include_usage=True)
    elif fmt.family == "items":
        events = _responses_events(wire, fake)
    elif fmt.family == "blocks":
        events = _anthropic_events(wire, fake)
    else:
        events = gemini_events(wire, fake)
    raw = "".join(e for e in events if isinstance(e, str)).encode()
    folder = fmt.stream_folder()
    start = 0
    for cut in sorted({c % (len(raw) + 1) for c in cuts}):
        folder.feed(raw[start:cut])
        start = cut
    folder.feed(raw[start:])
    assert fmt.from_wire_response(folder.finish()) == fmt.from_wire_response(wire)


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
