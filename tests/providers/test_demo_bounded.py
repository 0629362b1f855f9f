"""The demo model's answer is bounded as a model's is: a long tool result is summarised (its
start and its length), an answer past `max_tokens` (or DeepSeek's default bound when the request
sets none) stops with `finish_reason: "length"`, and a very long string in the request is read a
piece at a time, never held whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fccli.core.body import FileBody
from fccli.core.jsonio import encode
from fccli.providers.demo import request as reader
from fccli.providers.demo.model import CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS, DemoProvider
from fccli.providers.demo.request import LongText, read_request
from tests.providers.test_demo import TOOLS


def _answer(result: str, n: int = 1, **extra: Any) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{k}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": "杭州"})},
        }
        for k in range(n)
    ]
    messages = [
        {"role": "user", "content": "杭州的天气怎么样？"},
        {"role": "assistant", "content": None, "reasoning_content": "查", "tool_calls": calls},
        *({"role": "tool", "tool_call_id": c["id"], "content": result} for c in calls),
    ]
    body = {"model": "fc-demo", "messages": messages, "tools": TOOLS, **extra}
    return json.loads(DemoProvider().send(encode(body), step=2).body)


@pytest.mark.parametrize("result", ["晴" + "x" * 3_000_000, "晴天abc多云" * 300_000])
def test_a_long_result_is_summarised_by_its_start_and_its_length(result: str) -> None:
    body = _answer(result)
    choice = body["choices"][0]
    text = choice["message"]["content"]
    assert choice["finish_reason"] == "stop"
    assert f"{len(result)} 个字符" in text and result[:40] in text
    assert len(text) < 400
    # the input is counted whole, though read by its start
    assert body["usage"]["prompt_tokens"] > len(result) // CHARS_PER_TOKEN


def test_a_result_of_many_fields_names_a_few_and_counts_the_rest() -> None:
    fields = {f"field_{k}": "值" * 1000 for k in range(50)}
    text = _answer(json.dumps(fields, ensure_ascii=False))["choices"][0]["message"]["content"]
    assert "field_0" in text and "field_9" not in text and "另有 42 个字段" in text
    assert len(text) < 1500


def test_without_max_tokens_the_answer_stops_at_deepseeks_default_bound() -> None:
    # 600 results, each said in a line of its own: longer than a default answer may be.
    body = _answer("多云，" * 40, n=600, thinking={"type": "disabled"})
    choice = body["choices"][0]
    assert choice["finish_reason"] == "length"
    bound = DEFAULT_MAX_TOKENS[False]
    assert len(choice["message"]["content"]) == bound * CHARS_PER_TOKEN
    assert body["usage"]["completion_tokens"] == bound


def test_max_tokens_bounds_the_summary_too() -> None:
    body = _answer("x" * 2_000_000, max_tokens=20)
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] <= 20


def _body(strings: list[str]) -> bytes:
    return json.dumps({"messages": [{"role": "tool", "content": s} for s in strings]}).encode()


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A string past 40 bytes is long, its first 16 kept, the body read 7 bytes at a time:
    every boundary (inside an escape, inside a character) is met."""
    monkeypatch.setattr(reader, "LONG", 40)
    monkeypatch.setattr(reader, "HEAD", 16)
    monkeypatch.setattr(reader, "PIECE", 7)
    monkeypatch.setattr("fccli.core.body.PIECE", 7)


STRINGS = [
    "short",
    'quote " and backslash \\ and newline \n and tab \t, then more text to be long',
    "杭州多云，" * 12,
    "\u00e9\U0001f600 control \x01 " * 6,
    "",
]


@pytest.mark.usefixtures("small_pieces")
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_a_long_string_is_read_by_its_start_its_length_and_its_digest(
    tmp_path: Path, ensure_ascii: bool
) -> None:
    raw = json.dumps(
        {"messages": [{"role": "tool", "content": s} for s in STRINGS]}, ensure_ascii=ensure_ascii
    ).encode()
    (tmp_path / "body.json").write_bytes(raw)
    for body in (raw, FileBody(tmp_path / "body.json")):
        read = [m["content"] for m in read_request(body)["messages"]]
        for got, whole in zip(read, STRINGS, strict=True):
            if len(json.dumps(whole, ensure_ascii=ensure_ascii)) <= 40:
                assert got == whole and not isinstance(got, LongText)
                continue
            assert isinstance(got, LongText)
            assert whole.startswith(got) and 1 <= len(got) <= 16
            assert got.chars == len(whole)
    again = [m["content"] for m in read_request(raw)["messages"]]
    other = read_request(_body(["x" * 60]))["messages"][0]["content"]
    assert again[1].digest == read[1].digest != read[2].digest != other.digest


@pytest.mark.usefixtures("small_pieces")
def test_two_long_results_that_differ_after_their_start_get_different_ids() -> None:
    first = _answer("晴" + "x" * 100)
    second = _answer("晴" + "x" * 99 + "y")
    assert first["id"] != second["id"]
