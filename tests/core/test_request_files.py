"""Request files read against the one before (fccli/core/request_files.py): the same JSON as
json.loads gives, the same errors as parse_json words, and the repeated messages not read again.
Hand edits of an earlier message in every wire format (one that keeps the byte length, a key
order, whitespace, CRLF, a BOM, changed tools), a step that repeats the one before, a step missing
in the middle: `fc check` and `fc show` say exactly what they say with the reuse switched off."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fccli.core.errors import InputFileError
from fccli.core.jsonio import MAX_DEPTH, dumps, parse_json, validate
from fccli.core.models import Request
from fccli.core.request_files import RequestFiles, validate_request
from tests.support.long_traces import write_long_trace


def _message(n: int) -> dict[str, Any]:
    role = "user" if n % 2 == 0 else "assistant"
    return {"role": role, "content": [{"type": "text", "text": f"message {n} 杭州"}]}


def _request(messages: int, **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "system": "s",
        "messages": [_message(n) for n in range(messages)],
        "tools": [],
        **extra,
    }


def _read_all(files: list[bytes]) -> list[Any]:
    reader = RequestFiles()
    return [reader.read(raw, f"{n + 1}-request.json") for n, raw in enumerate(files)]


def test_each_file_repeats_the_one_before_only_its_new_messages_are_read() -> None:
    files = [dumps(_request(n)).encode() for n in (1, 3, 5)]
    read = _read_all(files)
    assert [p.data for p in read] == [json.loads(f) for f in files]
    assert [p.reused for p in read] == [0, 1, 3]
    # the very same objects, not copies: the prefix was neither parsed nor stored again
    assert read[2].messages[0] is read[0].messages[0]
    assert read[2].messages[2] is read[1].messages[2]


def test_a_message_edited_by_hand_is_read_afresh() -> None:
    first = _request(3)
    edited = _request(5)
    edited["messages"][1]["content"][0]["text"] = "changed"
    spaced = dumps(_request(5)).replace('"role": "user"', '"role":  "user"', 1)
    read = _read_all([dumps(first).encode(), dumps(edited).encode(), spaced.encode()])
    assert read[1].reused == 0 and read[1].data == edited
    assert read[2].reused == 0 and read[2].data == _request(5)


def test_keys_after_the_messages_and_compact_files_are_read_too() -> None:
    files = [
        json.dumps(_request(2, tool_choice={"type": "auto"})).encode(),
        json.dumps(_request(4, tool_choice={"type": "auto"}, stream=True)).encode(),
    ]
    read = _read_all(files)
    assert read[1].reused == 2
    assert [p.data for p in read] == [json.loads(f) for f in files]


@pytest.mark.parametrize(
    "tail",
    [
        b"x",  # garbage after the object
        b",",  # a trailing comma
        b'{"a": 1}',
    ],
)
def test_a_broken_file_fails_as_parse_json_says(tail: bytes) -> None:
    good = dumps(_request(2)).encode()
    broken = dumps(_request(4)).encode().rstrip() + tail
    reader = RequestFiles()
    reader.read(good, "1-request.json")
    with pytest.raises(InputFileError) as got:
        reader.read(broken, "2-request.json")
    with pytest.raises(InputFileError) as expected:
        parse_json(broken, "2-request.json")
    assert str(got.value) == str(expected.value)


def test_a_trailing_comma_in_the_messages_is_refused() -> None:
    reader = RequestFiles()
    reader.read(dumps(_request(2)).encode(), "1")
    text = dumps(_request(3))
    broken = text.replace("\n  ],", ",\n  ],", 1).encode()
    with pytest.raises(InputFileError, match="not valid JSON"):
        reader.read(broken, "2")


def test_a_repeated_messages_key_reads_as_json_loads_does() -> None:
    text = '{"model": "m", "messages": [{"role": "user", "content": "a"}], "messages": []}'
    reader = RequestFiles()
    assert reader.read(text.encode(), "f").data == json.loads(text)


def test_a_new_message_nested_too_deeply_is_refused_with_its_path() -> None:
    deep: Any = "x"
    for _ in range(MAX_DEPTH):
        deep = [deep]
    later = _request(3)
    later["messages"][2]["content"] = deep
    raw = dumps(later).encode()
    reader = RequestFiles()
    reader.read(dumps(_request(2)).encode(), "1")
    with pytest.raises(InputFileError) as got:
        reader.read(raw, "2")
    with pytest.raises(InputFileError) as expected:
        parse_json(raw, "2")
    assert str(got.value) == str(expected.value)
    assert "$.messages[2].content" in str(got.value)


def test_validated_requests_share_the_messages_they_repeat() -> None:
    reader = RequestFiles()
    first = validate_request(reader.read(dumps(_request(2)).encode(), "1"), "1")
    second = validate_request(reader.read(dumps(_request(4)).encode(), "2"), "2")
    assert second == validate(Request, _request(4), "2")
    assert second.messages[1] is first.messages[1]


def test_a_bad_new_message_is_worded_as_validating_the_whole() -> None:
    reader = RequestFiles()
    validate_request(reader.read(dumps(_request(2)).encode(), "1"), "1")
    bad = _request(4)
    bad["messages"][3]["content"][0]["type"] = "nope"
    with pytest.raises(InputFileError) as got:
        validate_request(reader.read(dumps(bad).encode(), "2"), "2")
    with pytest.raises(InputFileError) as expected:
        validate(Request, bad, "2")
    assert str(got.value) == str(expected.value)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@given(
    messages=st.lists(_json, max_size=6),
    cuts=st.lists(st.integers(0, 6), min_size=1, max_size=4),
    after=st.dictionaries(st.sampled_from(["tools", "x", "stream"]), _json, max_size=2),
    compact=st.booleans(),
)
def test_any_sequence_of_files_reads_as_json_loads(
    messages: list[Any], cuts: list[int], after: dict[str, Any], compact: bool
) -> None:
    files = []
    for cut in sorted(cuts):
        doc = {"model": "m", "messages": messages[:cut], **after}
        files.append((json.dumps(doc) if compact else dumps(doc)).encode())
    assert [p.data for p in _read_all(files)] == [json.loads(f) for f in files]


def test_a_history_under_contents_is_reused_too() -> None:
    """Gemini keeps its history in `contents`, after nothing that changes."""

    def gemini(n: int) -> bytes:
        contents = [{"role": "user", "parts": [{"text": f"part {k}"}]} for k in range(n)]
        return dumps({"contents": contents, "tools": [], "messages": ["not the history"]}).encode()

    read = _read_all([gemini(2), gemini(4)])
    assert read[1].reused == 2 and read[1].key == "contents"
    assert read[1].data == json.loads(gemini(4))


Edit = Callable[[Path, str], None]


def _text(old: str, new: str) -> Edit:
    def edit(trace: Path, fmt: str) -> None:
        for name in ("3-request.json", f"3-request.{fmt}.json"):
            path = trace / name
            text = path.read_text(encoding="utf-8")
            assert old in text
            path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return edit


def _bytes(change: Callable[[bytes], bytes]) -> Edit:
    def edit(trace: Path, fmt: str) -> None:
        path = trace / f"3-request.{fmt}.json"
        path.write_bytes(change(path.read_bytes()))

    return edit


def _doc(change: Callable[[dict[str, Any]], None]) -> Edit:
    def edit(trace: Path, fmt: str) -> None:
        path = trace / f"3-request.{fmt}.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        change(doc)
        path.write_text(dumps(doc), encoding="utf-8")

    return edit


def _history(doc: dict[str, Any]) -> list[Any]:
    return next(doc[k] for k in ("messages", "contents", "input") if k in doc)


def _reorder(doc: dict[str, Any]) -> None:
    message = _history(doc)[1]
    items = list(message.items())[::-1]
    message.clear()
    message.update(items)


def _same_as_before(trace: Path, fmt: str) -> None:
    for suffix in ("", f".{fmt}"):
        shutil.copy(trace / f"2-request{suffix}.json", trace / f"3-request{suffix}.json")


def _missing(trace: Path, fmt: str) -> None:
    for role in ("request", "response"):
        for suffix in ("", f".{fmt}"):
            os.remove(trace / f"2-{role}{suffix}.json")


EDITS: dict[str, Edit] = {
    "same-length-id": _text("00001", "00009"),
    "same-length-text": _text("杭州天气", "上海天气"),
    "brackets-and-quotes": _text("一直查", '}]\\"{['),
    "whitespace": _text('": "', '":  "'),
    "crlf": _bytes(lambda b: b.replace(b"\n", b"\r\n")),
    "bom": _bytes(lambda b: b"\xef\xbb\xbf" + b),
    "key-order": _doc(_reorder),
    "tools": _doc(
        lambda d: d.update(tools=json.loads(json.dumps(d["tools"]).replace("city", "town", 1)))
    ),
    "last-message-dropped": _doc(lambda d: _history(d).pop()),
    "same-as-before": _same_as_before,
    "step-missing": _missing,
}


def _whole(self: RequestFiles, raw: bytes, source: str) -> Any:
    self.forget()
    return READ(self, raw, source)


READ = RequestFiles.read


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("fmt", ["deepseek", "anthropic", "gemini", "responses"])
def test_an_edited_trace_reads_as_each_file_read_whole(
    fc: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, edit: str
) -> None:
    trace = write_long_trace(tmp_path / "t", 4, fmt)
    EDITS[edit](trace, fmt)
    commands = [("check", str(trace)), ("show", str(trace))]
    reused = [fc(*c) for c in commands]
    monkeypatch.setattr(RequestFiles, "read", _whole)
    whole = [fc(*c) for c in commands]
    for a, b in zip(reused, whole, strict=True):
        assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
