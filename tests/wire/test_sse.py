"""The server-sent-events decoder: bytes split anywhere give the same events, as the standard says."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import ProtocolError
from fccli.wire.sse import SSEDecoder, SSEEvent


def decode(*chunks: bytes) -> tuple[list[SSEEvent], SSEDecoder]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    return events, decoder


# Every rule of the standard in one stream: comments, CRLF and CR line ends, a field without a
# colon, no space after the colon, two spaces (one kept), several data lines, an event name that
# resets after dispatch, id and retry, blank lines with nothing to dispatch, UTF-8 text.
STREAM = (
    b": keep-alive\n\n"
    b"data: one\n\n"
    b"event: add\r\ndata:two\r\ndata:  three\r\n\r\n"
    b"data\rid: 7\rretry: 1500\r\r"
    b"\n\n"
    b": a comment in the middle\ndata: \xe6\x9d\xad\xe5\xb7\x9e\ndata: {}\n\n"
    b"data: after the name reset\n\n"
    b"event: no data\n\n"
    b"data: last\n\n"
)
EXPECTED = [
    SSEEvent("message", "one"),
    SSEEvent("add", "two\n three"),
    SSEEvent("message", ""),
    SSEEvent("message", "杭州\n{}"),
    SSEEvent("message", "after the name reset"),
    SSEEvent("message", "last"),
]


def test_every_rule_at_once() -> None:
    events, decoder = decode(STREAM)
    assert events == EXPECTED
    assert decoder.comments == 2
    assert decoder.events == len(EXPECTED)
    assert decoder.bytes_received == len(STREAM)


def test_a_split_at_every_byte_position_gives_the_same_events() -> None:
    for at in range(len(STREAM) + 1):
        events, decoder = decode(STREAM[:at], STREAM[at:])
        assert events == EXPECTED, at
        assert decoder.comments == 2, at


def test_one_byte_at_a_time() -> None:
    events, decoder = decode(*(STREAM[i : i + 1] for i in range(len(STREAM))))
    assert events == EXPECTED
    assert decoder.finish() == []
    assert decoder.unfinished == ""


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_split_gives_the_same_events(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(STREAM)]
    events, _ = decode(*(STREAM[a:b] for a, b in itertools.pairwise(bounds)))
    assert events == EXPECTED


def test_a_utf8_character_split_across_chunks() -> None:
    raw = "data: 杭州 ok\n\n".encode()
    # 杭 is three bytes at 6..8: cut inside it, both ways.
    for at in (7, 8, 10):
        events, _ = decode(raw[:at], raw[at:])
        assert events == [SSEEvent("message", "杭州 ok")]


def test_crlf_split_between_cr_and_lf_is_one_line_end() -> None:
    # Were the lone \r taken as a line end and the \n as a blank line, "a" would be dispatched
    # alone and "b" would be a second event.
    events, _ = decode(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n")
    assert events == [SSEEvent("message", "a\nb")]
    # An empty read in between changes nothing.
    events, _ = decode(b"data: a\r", b"", b"\ndata: b\r", b"", b"\n\r", b"", b"\n")
    assert events == [SSEEvent("message", "a\nb")]


def test_cr_alone_ends_lines() -> None:
    events, _ = decode(b"data: a\r\rdata: b\r", b"\r")
    assert events == [SSEEvent("message", "a"), SSEEvent("message", "b")]


def test_a_leading_byte_order_mark_is_skipped_once() -> None:
    events, _ = decode(b"\xef\xbb", b"\xbfdata: x\n\n", "data: \ufeffy\n\n".encode())
    assert events == [SSEEvent("message", "x"), SSEEvent("message", "\ufeffy")]


def test_comments_are_counted_not_dispatched() -> None:
    events, decoder = decode(b": keep-alive\n\n: keep-alive\n\n:\n\ndata: x\n\n")
    assert events == [SSEEvent("message", "x")]
    assert decoder.comments == 3


def test_finish_hands_back_the_open_event_and_the_cut_line() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: done\n\ndata: whole line\ndata: half li") == [
        SSEEvent("message", "done")
    ]
    assert decoder.finish() == [SSEEvent("message", "whole line")]
    assert decoder.unfinished == "data: half li"


def test_a_carriage_return_ending_a_chunk_ends_the_line_at_once() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\r\r") == [SSEEvent("message", "x")]
    assert decoder.feed(b"\ndata: y\r") == []  # that \n was the second half of \r\n
    assert decoder.finish() == [SSEEvent("message", "y")]
    assert decoder.unfinished == ""


def test_finish_on_a_clean_end() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: x\n\n")
    assert decoder.finish() == []
    assert decoder.unfinished == ""


def test_a_long_line_in_many_chunks_is_joined_once() -> None:
    # The pending bytes are kept as pieces: nothing is decoded before the event ends.
    decoder = SSEDecoder()
    line = b"data: " + b"x" * 5000
    for i in range(0, len(line), 7):
        assert decoder.feed(line[i : i + 7]) == []
    assert decoder.feed(b"\n\n") == [SSEEvent("message", "x" * 5000)]


# -- feed_json: the fast path and the general parser agree

json_objects = st.dictionaries(
    st.text(max_size=5),
    st.none() | st.integers() | st.text(max_size=8) | st.lists(st.integers(), max_size=2),
    max_size=4,
)


@st.composite
def json_event(draw: st.DrawFn) -> tuple[str, Any]:
    obj = draw(json_objects)
    compact = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    form = draw(st.sampled_from(["plain", "named", "nospace", "multiline", "comment", "id"]))
    if form == "plain":
        text = f"data: {compact}\n\n"
    elif form == "named":
        text = f"event: some_name\ndata: {compact}\n\n"
    elif form == "nospace":
        text = f"data:{compact}\n\n"
    elif form == "multiline":
        lines = json.dumps(obj, indent=1).split("\n")
        text = "".join(f"data: {line}\n" for line in lines) + "\n"
    elif form == "comment":
        text = f": ping\ndata: {compact}\n\n"
    else:
        text = f"id: 3\ndata: {compact}\n\n"
    return text, obj


@given(st.lists(json_event(), max_size=8), st.integers(min_value=1, max_value=50))
def test_feed_json_parses_every_form_of_event(events: list[tuple[str, object]], size: int) -> None:
    raw = "".join(text for text, _ in events).encode()
    decoder = SSEDecoder()
    out: list[object] = []
    for i in range(0, len(raw), size):
        out.extend(decoder.feed_json(raw[i : i + size]))
    assert out == [obj for _, obj in events]
    assert decoder.events == len(events)


def test_feed_json_slices_a_large_chunk_and_keeps_the_order() -> None:
    raw = b"".join(b'data: {"n": %d}\n\n' % i for i in range(3000))
    decoder = SSEDecoder()
    batches = list(decoder.feed_json_slices(raw))
    assert len(batches) > 1
    assert [obj["n"] for batch in batches for obj in batch] == list(range(3000))


def test_literals_pass_through() -> None:
    decoder = SSEDecoder(literals=frozenset({"[DONE]"}))
    assert decoder.feed_json(b'data: {"a": 1}\n\ndata: [DONE]\n\n') == [{"a": 1}, "[DONE]"]


@pytest.mark.parametrize(
    ("raw", "number", "shown"),
    [
        (b'data: {"a": 1}\n\ndata: {"a": 1\n\n', 2, "'{\"a\": 1'"),
        (b'data: {"a": 1}\n\n: c\n\ndata: [DONE]\n\n', 2, "'[DONE]'"),
        (b"data: {}\n\ndata: {}\n\ndata: " + b"y" * 200 + b"\n\n", 3, "'" + "y" * 80 + "'…"),
        (b'data: {"a": 1} trailing\n\n', 1, "'{\"a\": 1} trailing'"),
    ],
)
def test_data_that_is_not_json_names_the_event(raw: bytes, number: int, shown: str) -> None:
    with pytest.raises(ProtocolError) as e:
        SSEDecoder().feed_json(raw)
    assert e.value.message == f"event {number} of the stream is not JSON: {shown}"
    assert e.value.exit_code == 3


def test_data_that_is_json_but_not_an_object() -> None:
    with pytest.raises(
        ProtocolError, match=r"event 1 of the stream is not a JSON object: '\[1, 2\]'"
    ):
        SSEDecoder().feed_json(b"data: [1, 2]\n\n")


def test_raw_data_finds_the_event_as_received() -> None:
    decoder = SSEDecoder()
    [obj] = decoder.feed_json(b'data: {"error":  {"type": "x"}}\n\n')
    assert decoder.raw_data(obj) == '{"error":  {"type": "x"}}'
