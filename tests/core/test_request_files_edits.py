"""Prefix reuse (fccli/core/request_files.py) against reading each file whole: hand edits of an
earlier message in every wire format (one that keeps the byte length, a key order, whitespace, CRLF, a
BOM, changed tools), a step that repeats the one before, a step missing in the middle. `fc check`
and `fc show` must say exactly what they say with the reuse switched off."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fccli.core.jsonio import dumps
from fccli.core.request_files import RequestFiles
from tests.support.long_traces import write_long_trace

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
