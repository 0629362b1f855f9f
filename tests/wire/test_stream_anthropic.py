"""The Anthropic stream folder: any event stream of a message, split anywhere, assembles to
exactly the JSON the non-streamed call returns; a stream that ended early never does, and a run
whose stream stops inside a tool's input writes the answer and exits 3."""

from __future__ import annotations

import base64
import json
import string
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import ProtocolError, ProviderError, StreamCut
from fccli.core.stream import StreamDelta
from fccli.wire.anthropic import codec as anthropic
from fccli.wire.anthropic import stream as anthropic_stream
from fccli.wire.anthropic.stream import AnthropicStreamFolder
from tests.providers.test_providers_http import load, run_fc
from tests.support import fake_provider
from tests.support.builders import call_ids, json_objects
from tests.support.fake_provider import FakeProvider

# ---------------------------------------------------------------------------------------------
# messages, and event streams of them (written here from the message, independently)


@st.composite
def anthropic_answers(draw: st.DrawFn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if draw(st.booleans()):
        signature = base64.b64encode(draw(st.binary(min_size=1, max_size=48))).decode()
        content.append(
            {"type": "thinking", "thinking": draw(st.text(max_size=30)), "signature": signature}
        )
    for _ in range(draw(st.integers(0, 2))):
        content.append({"type": "text", "text": draw(st.text(min_size=1, max_size=30))})
    calls = draw(st.integers(0, 4))
    for i in range(calls):
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{i}_{draw(call_ids)}",
                "name": draw(st.text(string.ascii_letters + "_", min_size=1, max_size=12)),
                "input": draw(json_objects),
            }
        )
    stop = (
        "tool_use" if calls else draw(st.sampled_from(["end_turn", "max_tokens", "stop_sequence"]))
    )
    usage: dict[str, Any] = {
        "input_tokens": draw(st.integers(0, 10**6)),
        "output_tokens": draw(st.integers(1, 10**6)),
    }
    if draw(st.booleans()):
        usage["cache_creation_input_tokens"] = draw(st.integers(0, 1000))
        usage["cache_read_input_tokens"] = draw(st.integers(0, 1000))
    return {
        "id": "msg_" + draw(st.text(string.ascii_letters + string.digits, min_size=1, max_size=12)),
        "type": "message",
        "role": "assistant",
        "model": draw(st.sampled_from(["claude-sonnet-4-5", "claude-haiku-4-5"])),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": "###" if stop == "stop_sequence" else None,
        "usage": usage,
    }


@st.composite
def stream_options(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "text_size": draw(st.integers(1, 9)),
        "json_size": draw(st.integers(1, 9)),
        "named": draw(st.booleans()),  # `event: NAME` lines, as Anthropic sends them
        "eol": draw(st.sampled_from(["\n", "\r\n"])),
        "pings": draw(st.booleans()),
        # Newer API versions repeat the whole usage in message_delta, not just output_tokens.
        "full_usage": draw(st.booleans()),
        # A tool with no input: no input_json_delta at all, or one with "".
        "empty_delta": draw(st.booleans()),
    }


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def anthropic_events(answer: dict[str, Any], o: dict[str, Any]) -> list[dict[str, Any]]:
    usage = answer["usage"]
    start_usage = {**usage, "output_tokens": 1}
    start = {
        **answer,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(answer["content"]):
        kind = block["type"]
        if kind == "thinking":
            opened: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": p}
                for p in pieces(block["thinking"], o["text_size"])
            ]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            opened = {"type": "text", "text": ""}
            deltas = [
                {"type": "text_delta", "text": p} for p in pieces(block["text"], o["text_size"])
            ]
        else:
            opened = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            text = json.dumps(block["input"], ensure_ascii=False) if block["input"] else ""
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in pieces(text, o["json_size"])
            ]
            if not deltas and o["empty_delta"]:
                deltas = [{"type": "input_json_delta", "partial_json": ""}]
        events.append({"type": "content_block_start", "index": index, "content_block": opened})
        if o["pings"] and index == 0:
            events.append({"type": "ping"})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
    delta_usage = usage if o["full_usage"] else {"output_tokens": usage["output_tokens"]}
    events.append(
        {
            "type": "message_delta",
            "delta": {
                "stop_reason": answer["stop_reason"],
                "stop_sequence": answer["stop_sequence"],
            },
            "usage": delta_usage,
        }
    )
    events.append({"type": "message_stop"})
    return events


def anthropic_sse(events: list[dict[str, Any]], o: dict[str, Any]) -> bytes:
    eol = o["eol"]
    out = []
    for event in events:
        name = f"event: {event['type']}{eol}" if o["named"] else ""
        out.append(f"{name}data: {json.dumps(event, ensure_ascii=False)}{eol}{eol}")
    return "".join(out).encode()


DEFAULT = {
    "text_size": 4,
    "json_size": 3,
    "named": True,
    "eol": "\n",
    "pings": True,
    "full_usage": False,
    "empty_delta": False,
}

ANSWER: dict[str, Any] = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Two cities.", "signature": "c2lnbmF0dXJl"},
        {"type": "text", "text": "Checking both."},
        {"type": "tool_use", "id": "toolu_abc", "name": "get_weather", "input": {"city": "杭州"}},
        {"type": "tool_use", "id": "toolu_def", "name": "get_time", "input": {}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 50, "output_tokens": 40},
}


def fold(
    raw: bytes, sizes: list[int] | None = None, on_delta: Any = None, cut: str | None = None
) -> tuple[dict[str, Any], AnthropicStreamFolder]:
    folder = AnthropicStreamFolder(on_delta)
    sizes = sizes or [len(raw) or 1]
    at = n = 0
    while at < len(raw):
        size = sizes[n % len(sizes)]
        folder.feed(raw[at : at + size])
        at += size
        n += 1
    return folder.finish(cut), folder


split_sizes = st.lists(st.integers(min_value=1, max_value=97), min_size=1, max_size=6)


def sse(*events: Any) -> bytes:
    out = []
    for event in events:
        data = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
        name = json.loads(data).get("type", "x") if data.startswith("{") else "x"
        out.append(f"event: {name}\ndata: {data}\n\n")
    return "".join(out).encode()


# ---------------------------------------------------------------------------------------------
# whole streams


@given(anthropic_answers(), stream_options(), split_sizes)
def test_any_stream_of_a_message_assembles_to_exactly_that_message(
    answer: dict[str, Any], o: dict[str, Any], sizes: list[int]
) -> None:
    raw = anthropic_sse(anthropic_events(answer, o), o)
    out, folder = fold(raw, sizes)
    assert out == answer
    assert folder.notes == []
    assert folder.bytes_received == len(raw)
    assert anthropic.from_wire_response(out) == anthropic.from_wire_response(answer)


def fake_stream(
    answer: dict[str, Any], quirks: set[str], size: int = 4, text: int = 8
) -> list[Any]:
    fp = SimpleNamespace(stream_quirks=quirks, fragment_size=size, text_fragment_size=text)
    return fake_provider._anthropic_events(answer, fp)  # type: ignore[arg-type]


def joined(events: list[Any], *, stop_at_cut: bool = False) -> bytes:
    out = []
    for event in events:
        if event is fake_provider._CUT:
            if stop_at_cut:
                break
            continue
        out.append(str(event))
    return "".join(out).encode()


def fake_compatible(answer: dict[str, Any]) -> dict[str, Any]:
    # What the fake can write: usage with the two counts only, no stop_sequence, a block.
    return {
        **answer,
        "content": answer["content"] or [{"type": "text", "text": "x"}],
        "stop_reason": "max_tokens" if answer["stop_sequence"] else answer["stop_reason"],
        "stop_sequence": None,
        "usage": {k: answer["usage"][k] for k in ("input_tokens", "output_tokens")},
    }


@given(
    anthropic_answers().map(fake_compatible),
    st.sampled_from([set(), {"keep_alive"}]),
    st.integers(1, 7),
    st.integers(1, 9),
    split_sizes,
)
def test_the_fake_servers_streams_assemble_to_its_json_answers(
    answer: dict[str, Any], quirks: set[str], size: int, text: int, sizes: list[int]
) -> None:
    raw = joined(fake_stream(answer, quirks, size, text))
    out, folder = fold(raw, sizes)
    assert out == answer
    assert folder.notes == []


def test_input_json_delta_fragments_make_the_input() -> None:
    raw = sse(
        {
            "type": "message_start",
            "message": {
                **ANSWER,
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "杭'},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '州", "days": [1,'},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": " 2]}"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    )
    out, _ = fold(raw, [5])
    assert out["content"] == [
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "f",
            "input": {"city": "杭州", "days": [1, 2]},
        }
    ]
    # Usage: input from message_start, the cumulative output from message_delta.
    assert out["usage"] == {"input_tokens": 5, "output_tokens": 9}


def test_a_tool_use_without_input_deltas_has_an_empty_input() -> None:
    o = {**DEFAULT, "empty_delta": False}
    out, _ = fold(anthropic_sse(anthropic_events(ANSWER, o), o))
    assert out["content"][3] == {
        "type": "tool_use",
        "id": "toolu_def",
        "name": "get_time",
        "input": {},
    }


def test_thinking_and_its_signature() -> None:
    out, _ = fold(anthropic_sse(anthropic_events(ANSWER, DEFAULT), DEFAULT), [3])
    assert out["content"][0] == {
        "type": "thinking",
        "thinking": "Two cities.",
        "signature": "c2lnbmF0dXJl",
    }


def test_the_fake_server_without_message_stop_passes_with_a_note() -> None:
    raw = joined(fake_stream(ANSWER, {"no_done"}))
    out, folder = fold(raw, [31])
    assert out == ANSWER
    assert folder.notes == ["no `message_stop` event; the stream ended after stop_reason"]


def test_unknown_events_are_skipped_and_unknown_deltas_said() -> None:
    events = anthropic_events(ANSWER, DEFAULT)
    events.insert(2, {"type": "some_future_event", "payload": 1})
    events.insert(
        4, {"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta", "x": 1}}
    )
    out, folder = fold(anthropic_sse(events, DEFAULT))
    assert out == ANSWER
    assert folder.notes == ["a future_delta delta for a thinking block is not kept"]


def test_citations_arrive_as_deltas() -> None:
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0}
    events = [
        {"type": "message_start", "message": {**ANSWER, "content": [], "stop_reason": None}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "It is x."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "citations_delta", "citation": citation},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]
    out, _ = fold(sse(*events))
    assert out["content"] == [{"type": "text", "text": "It is x.", "citations": [citation]}]


# ---------------------------------------------------------------------------------------------
# streams that ended early


def boundaries(raw: bytes, step: int = 0) -> list[int]:
    ends = [i + 1 for i in range(len(raw)) if raw[i : i + 1] == b"\n"]
    return sorted({0, *ends, *(range(0, len(raw), step) if step else ())} - {len(raw)})


def test_a_stream_cut_anywhere_never_gives_half_an_input() -> None:
    raw = anthropic_sse(anthropic_events(ANSWER, DEFAULT), DEFAULT)
    stop_line_end = raw.index(b"\n", raw.index(b'"stop_reason": "tool_use"')) + 1
    passed = 0
    for at in boundaries(raw, 7):
        head = raw[:at]
        should_pass = at >= stop_line_end and head.endswith(b"\n")
        try:
            out, folder = fold(head, [61])
        except StreamCut as e:
            assert not should_pass, at
            assert e.bytes_received == at
            assert e.message.startswith(f"the stream ended early after {at:,} bytes: ")
            assert e.partial is not None
            for block in e.partial["content"]:
                if "partial_json" in block:
                    assert block["input"] == {}
                    assert (
                        f"call {block['id']} ({block['name']}) has incomplete input: " in e.message
                    )
                    assert repr(block["partial_json"][-60:]) in e.message
            if at < stop_line_end:
                assert "no `message_stop`, no stop_reason" in e.message
        else:
            assert should_pass, at
            passed += 1
            assert out == ANSWER
            if at < len(raw) - 1:
                assert folder.notes, at
    assert passed >= 3
    for at in [*boundaries(raw), len(raw)]:
        with pytest.raises(StreamCut, match="the connection closed mid-stream"):
            fold(raw[:at], [61], cut="the connection closed mid-stream")


def test_the_message_says_bytes_what_is_missing_and_the_fragment() -> None:
    raw = joined(fake_stream(ANSWER, {"cut_clean"}, size=4), stop_at_cut=True)
    with pytest.raises(StreamCut) as e:
        fold(raw, [17])
    assert e.value.message == (
        f"the stream ended early after {len(raw):,} bytes: no `message_stop`, no stop_reason, "
        "content block 2 not closed; call toolu_abc (get_weather) has incomplete input: '{\"city\":'"
    )
    assert e.value.partial is not None
    assert e.value.partial["stop_reason"] is None
    assert e.value.partial["content"][2] == {
        "type": "tool_use",
        "id": "toolu_abc",
        "name": "get_weather",
        "input": {},
        "partial_json": '{"city":',
    }


def test_a_whole_stream_whose_input_is_not_json_cannot_be_held() -> None:
    events = anthropic_events(ANSWER, {**DEFAULT, "json_size": 100})
    for event in events:
        if event.get("delta", {}).get("partial_json") == '{"city": "杭州"}':
            event["delta"]["partial_json"] = '{"city": "杭'
    raw = anthropic_sse(events, DEFAULT)
    with pytest.raises(StreamCut) as e:
        fold(raw)
    assert e.value.message == (
        f"the stream ended after {len(raw):,} bytes, but "
        'call toolu_abc (get_weather) has incomplete input: \'{"city": "杭\''
    )


# ---------------------------------------------------------------------------------------------
# errors in the stream


def test_an_error_event_is_the_provider_s_error() -> None:
    events = fake_stream(ANSWER, set())
    at = events.index(fake_provider._CUT)
    error = fake_provider._STREAM_ERRORS["anthropic"]
    raw = ("".join(str(e) for e in events[:at]) + error).encode()
    with pytest.raises(ProviderError) as e:
        fold(raw, [13])
    assert type(e.value) is ProviderError
    assert (
        e.value.message
        == "the provider reported an error in the stream: overloaded_error: Overloaded"
    )
    assert (
        e.value.body
        == '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    )


def test_an_error_object_without_its_type() -> None:
    raw = sse(
        {"type": "ping"}, '{"error": {"type": "api_error", "message": "Internal server error"}}'
    )
    with pytest.raises(ProviderError, match=r"in the stream: api_error: Internal server error$"):
        fold(raw)


def test_an_event_that_is_not_json_is_a_protocol_error() -> None:
    raw = sse({"type": "ping"}, {"type": "ping"}) + b"event: ping\ndata: {oops\n\n"
    with pytest.raises(ProtocolError, match=r"^event 3 of the stream is not JSON: '\{oops'"):
        fold(raw, [6])


def test_a_delta_for_a_block_never_started_is_a_protocol_error() -> None:
    raw = sse(
        {"type": "content_block_delta", "index": 4, "delta": {"type": "text_delta", "text": "x"}}
    )
    with pytest.raises(ProtocolError, match=r"^event 1 of the stream has an unexpected shape"):
        fold(raw)


def test_a_block_started_twice_is_a_protocol_error() -> None:
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    with pytest.raises(ProtocolError, match="content block 0 of the stream started twice"):
        fold(sse(start, start))


# ---------------------------------------------------------------------------------------------
# what a live view receives


@given(anthropic_answers(), stream_options(), split_sizes)
def test_the_deltas_add_up_to_the_message(
    answer: dict[str, Any], o: dict[str, Any], sizes: list[int]
) -> None:
    seen: list[StreamDelta] = []
    fold(anthropic_sse(anthropic_events(answer, o), o), sizes, seen.append)
    blocks = answer["content"]
    text = "".join(b["text"] for b in blocks if b["type"] == "text")
    assert "".join(d.text for d in seen if d.kind == "text") == text
    thinking = "".join(b["thinking"] for b in blocks if b["type"] == "thinking")
    assert "".join(d.text for d in seen if d.kind == "thinking") == thinking
    calls = [b for b in blocks if b["type"] == "tool_use"]
    for position, call in enumerate(calls):
        mine = [d for d in seen if d.kind == "call" and d.call == position]
        assert mine and mine[0].text == ""
        assert [d.text for d in mine].count("") == 1
        assembled = "".join(d.text for d in mine)
        assert (json.loads(assembled) if assembled else {}) == call["input"]
        assert {(d.id, d.name) for d in mine} == {(call["id"], call["name"])}
    assert all(d.text for d in seen if d.kind != "call")


def test_no_delta_is_built_when_nobody_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> StreamDelta:
        raise AssertionError("a StreamDelta was built")

    monkeypatch.setattr(anthropic_stream, "StreamDelta", refuse)
    raw = anthropic_sse(anthropic_events(ANSWER, DEFAULT), DEFAULT)
    out, _ = fold(raw, [50])
    assert out == ANSWER
    with pytest.raises(AssertionError, match="a StreamDelta was built"):
        fold(raw, [50], on_delta=lambda d: None)


def test_out_of_tokens_inside_a_tools_input_writes_the_answer_then_exits_3(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.stream_quirks = {"max_tokens_in_input"}
    result = run_fc(fc, fake_provider, "anthropic", "--stream")
    assert result.returncode == 3, result.stderr
    assert "incomplete input" in result.stderr
    trace = tmp_path / "t"
    assembled = load(trace / "1-response.anthropic.json")
    assert assembled["stop_reason"] == "max_tokens"
    call = assembled["content"][-1]
    assert call["type"] == "tool_use" and call["input"] == {}
    assert call["partial_json"] and not call["partial_json"].endswith("}")
    internal = load(trace / "1-response.json")
    assert internal["content"][-1]["raw_arguments"] == call["partial_json"]
    manifest = load(trace / "manifest.json")
    assert manifest["status"] == "error"
    assert manifest["steps"][0]["tool_runs"] == []
    assert len(fake_provider.received) == 1
