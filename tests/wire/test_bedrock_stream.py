"""AWS's event stream as fc reads it, held to botocore's own parser (`botocore.eventstream`):
the same messages from the same bytes, however they are cut; the same refusal of a changed byte;
and the Converse stream folded into the very answer the JSON endpoint gives."""

from __future__ import annotations

import json
import random
import struct
import zlib

import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer

from fccli.core.errors import ProtocolError, ProviderError, StreamCut
from fccli.core.stream import StreamDelta
from fccli.wire.bedrock.eventstream import EventStreamDecoder
from fccli.wire.registry import FORMATS
from tests.support import fake_bedrock
from tests.support.fake_provider import _CUT, FakeProvider

BEDROCK = FORMATS["bedrock"]
ANSWER = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"text": "我来查一下北京的天气。"},
                {
                    "toolUse": {
                        "toolUseId": "tooluse_1",
                        "name": "get_weather",
                        "input": {"city": "北京"},
                    }
                },
                {
                    "toolUse": {
                        "toolUseId": "tooluse_2",
                        "name": "get_weather",
                        "input": {"city": "上海"},
                    }
                },
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 20, "totalTokens": 30},
    "metrics": {"latencyMs": 120},
}


def _stream(answer: dict[str, object] = ANSWER) -> bytes:
    return b"".join(f for f in fake_bedrock.frames(answer, FakeProvider()) if isinstance(f, bytes))


def _half(answer: dict[str, object] = ANSWER) -> bytes:
    """The stream up to where the fake's cut quirks stop it."""
    frames = fake_bedrock.frames(answer, FakeProvider())
    return b"".join(frames[: frames.index(_CUT)])


def _cuts(data: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    pieces, at = [], 0
    while at < len(data):
        size = rng.randint(1, 40)
        pieces.append(data[at : at + size])
        at += size
    return pieces


@pytest.mark.parametrize("seed", range(3))
def test_fc_reads_the_messages_botocore_reads_however_the_bytes_are_cut(seed: int) -> None:
    data = _stream()
    theirs = EventStreamBuffer()
    ours = EventStreamDecoder()
    got_theirs, got_ours = [], []
    for piece in _cuts(data, seed):
        theirs.add_data(piece)
        got_theirs += [(m.headers, m.payload) for m in theirs]
        got_ours += [(f.headers, f.payload) for f in ours.feed(piece)]
    assert got_ours == got_theirs and len(got_ours) > 10
    assert ours.pending == 0


def _header(name: str, kind: int, value: bytes) -> bytes:
    return bytes([len(name)]) + name.encode() + bytes([kind]) + value


def test_every_header_type_is_read_as_botocore_reads_it() -> None:
    headers = (
        _header("t", 0, b"")
        + _header("f", 1, b"")
        + _header("b", 2, struct.pack(">b", -3))
        + _header("s", 3, struct.pack(">h", 300))
        + _header("i", 4, struct.pack(">i", -70000))
        + _header("l", 5, struct.pack(">q", 2**40))
        + _header("y", 6, struct.pack(">H", 2) + b"\x00\xff")
        + _header("str", 7, struct.pack(">H", 6) + "北京".encode())
        + _header("ts", 8, struct.pack(">q", 1767225600000))
    )
    prelude = struct.pack(">II", 12 + len(headers) + 2 + 4, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + b"{}"
    message += struct.pack(">I", zlib.crc32(message))
    theirs = EventStreamBuffer()
    theirs.add_data(message)
    (expected,) = list(theirs)
    (frame,) = EventStreamDecoder().feed(message)
    assert frame.headers == {**expected.headers, "ts": 1767225600000}  # botocore: a datetime
    assert frame.payload == expected.payload == b"{}"


@pytest.mark.parametrize(("at", "said"), [(9, "prelude checksum"), (-6, "message checksum")])
def test_a_changed_byte_is_refused_as_botocore_refuses_it(at: int, said: str) -> None:
    data = bytearray(_stream())
    data[at] ^= 0x01
    theirs = EventStreamBuffer()
    theirs.add_data(bytes(data))
    with pytest.raises(ChecksumMismatch):
        list(theirs)
    folder = BEDROCK.stream_folder()
    folder.feed(bytes(data))
    with pytest.raises(ProtocolError, match=said):
        folder.finish()


def test_the_stream_folds_into_the_json_answer_and_says_each_piece() -> None:
    seen: list[StreamDelta] = []
    folder = BEDROCK.stream_folder(seen.append)
    for piece in _cuts(_stream(), 7):
        folder.feed(piece)
    assert folder.finish() == ANSWER
    assert folder.ended and folder.notes == []
    calls = [d for d in seen if d.kind == "call"]
    assert {(d.call, d.id, d.name) for d in calls} == {
        (0, "tooluse_1", "get_weather"),
        (1, "tooluse_2", "get_weather"),
    }
    assert "".join(d.text for d in calls if d.call == 1) == json.dumps(
        {"city": "上海"}, ensure_ascii=False
    )
    assert "".join(d.text for d in seen if d.kind == "text") == "我来查一下北京的天气。"


def test_reasoning_and_its_signature_fold_into_one_block() -> None:
    answer = json.loads(json.dumps(ANSWER))
    reasoning = {"reasoningContent": {"reasoningText": {"text": "先查天气", "signature": "c2ln"}}}
    answer["output"]["message"]["content"].insert(0, reasoning)
    folder = BEDROCK.stream_folder()
    folder.feed(_stream(answer))
    assert folder.finish() == answer


def test_a_stream_cut_halfway_is_a_cut_with_what_came() -> None:
    folder = BEDROCK.stream_folder()
    data = _half()
    folder.feed(data[:-3])  # and the last message is cut too
    with pytest.raises(StreamCut) as cut:
        folder.finish()
    message = cut.value.message
    assert "no `messageStop`" in message and "the last message was cut off" in message
    assert cut.value.partial is not None and "output" in cut.value.partial


def test_an_exception_message_is_the_providers_error() -> None:
    folder = BEDROCK.stream_folder()
    with pytest.raises(ProviderError, match="modelStreamErrorException: The system encountered"):
        folder.feed(
            _half()
            + fake_bedrock.exception(
                "modelStreamErrorException",
                "The system encountered an unexpected error during processing.",
            )
        )


@pytest.mark.parametrize("cut", [None, "the connection closed mid-stream"])
def test_an_answer_that_is_not_an_event_stream_is_said_so(cut: str | None) -> None:
    body = json.dumps(ANSWER).encode()
    folder = BEDROCK.stream_folder()
    folder.feed(body)
    if cut is None:
        with pytest.raises(
            ProtocolError, match=r"the answer starts '\{\"output\".*not an event-stream message"
        ):
            folder.finish()
    else:
        with pytest.raises(StreamCut):
            folder.finish(cut)


def test_a_call_whose_input_does_not_parse_is_a_cut_even_in_a_whole_stream() -> None:
    answer = json.loads(json.dumps(ANSWER))
    fake = FakeProvider()
    frames = [f for f in fake_bedrock.frames(answer, fake) if isinstance(f, bytes)]
    bad = fake_bedrock.event(
        "contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"ci'}}}
    )
    stop = next(i for i, f in enumerate(frames) if b"messageStop" in f)
    frames.insert(stop, bad)
    folder = BEDROCK.stream_folder()
    folder.feed(b"".join(frames))
    with pytest.raises(StreamCut, match=r"tooluse_2.*incomplete input") as cut:
        folder.finish()
    assert cut.value.ended
