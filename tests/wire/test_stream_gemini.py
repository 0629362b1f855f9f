"""The Gemini stream: its folder on streams no honest server sends, and a hostile stream over
HTTP, which `fc run` ends with exit 3 in one escaped line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.errors import ProtocolError
from fccli.wire.registry import FORMATS
from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

GEMINI = FORMATS["gemini"]


def _fold(*events: str) -> dict[str, Any]:
    folder = GEMINI.stream_folder()
    for event in events:
        folder.feed(event.encode())
    return folder.finish()


@pytest.mark.parametrize(
    "chunk",
    [
        '{"candidates": [{"content": {"parts": ["text"]}}]}',
        '{"candidates": {"content": {}}}',
        '{"candidates": [{"content": "x"}]}',
        "[1, 2]",
    ],
)
def test_a_chunk_of_the_wrong_shape_is_a_protocol_error(chunk: str) -> None:

    with pytest.raises(ProtocolError, match=r"unexpected shape|not a JSON object"):
        _fold(f"data: {chunk}\r\n\r\n")


def test_text_pieces_join_into_one_part_and_a_call_stays_whole() -> None:
    body = _fold(
        'data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "He"}]}}]}\r\n\r\n',
        'data: {"candidates": [{"content": {"parts": [{"text": "llo", "thoughtSignature": "cw=="}]}}]}\r\n\r\n',
        'data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]},'
        ' "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 3}}\r\n\r\n',
    )
    assert body["candidates"][0]["content"]["parts"] == [
        {"text": "Hello", "thoughtSignature": "cw=="},
        {"functionCall": {"name": "f", "args": {}}},
    ]
    assert GEMINI.from_wire_response(body).stop_reason == "tool_use"


ESCAPES = "\x1b[31mX\x1b]0;t\x07"


@pytest.mark.parametrize(
    ("chunks", "said"),
    [
        ([{"candidates": [{"content": {"parts": [{"text": "a"}]}, "finishReason": "NEW"}]}], "NEW"),
        ([{"candidates": "x"}], "unexpected shape"),
        ([{"error": {"code": 400, "message": ESCAPES}}], "\\x1b[31mX"),
        ([[]], "not a JSON object"),
    ],
    ids=["unknown-finish-reason", "candidates-a-string", "escapes-in-an-error", "a-list"],
)
def test_a_hostile_gemini_stream_is_exit_3_in_one_escaped_line(
    fc: Any, fake_provider: FakeProvider, tmp_path: Path, chunks: list[Any], said: str
) -> None:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    fake_provider.script = [
        {"hostile": "status", "status": 200, "body": body, "content_type": "text/event-stream"}
    ]
    result = fc(
        "run", "杭州？", "-p", "gemini", "--stream", "--base-url", fake_provider.url, "-o", "t",
        env=clean_env(GEMINI_API_KEY=DEFAULT_KEY),
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert said in result.stderr and "\x1b" not in result.stderr
