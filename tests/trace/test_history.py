"""trace/history.py writes the bytes `jsonio.encode` gives, whatever the files before it held."""

from __future__ import annotations

from typing import Any

from fccli.core.jsonio import encode
from fccli.trace import history
from fccli.trace.history import HistoryEncoder


def _written(encoder: HistoryEncoder, kind: str, doc: Any) -> bytes:
    return b"".join(encoder.pieces(kind, doc))


def test_a_growing_history_is_written_as_encode_writes_it_whole() -> None:
    encoder = HistoryEncoder()
    messages: list[Any] = []
    big = "晴\x85\u2028" * (history.BIG // 2)
    for n in range(12):
        messages.append(
            {"role": "user", "content": f"第{n}步\x7f\ud800", "n": n, "x": 1.0, "e": {}}
        )
        if n == 2:
            messages.append({"role": "tool", "content": big, "list": [[], [big[:10]]]})
        doc = {"model": "m", "messages": messages[:], "tools": [{"a": None}], "stream": False}
        assert _written(encoder, "request", doc) == encode(doc)
        assert _written(encoder, "other", {**doc, "big": big}) == encode({**doc, "big": big})


def test_an_edited_or_shorter_history_is_encoded_afresh() -> None:
    encoder = HistoryEncoder()
    first = [{"a": 1}, {"b": 2}, {"c": 3}, *({"n": n} for n in range(history.FEW))]
    assert _written(encoder, "r", {"messages": first}) == encode({"messages": first})
    edited = [first[0], {"b": 20}, *first[2:], {"d": 4}]
    assert _written(encoder, "r", {"messages": edited}) == encode({"messages": edited})
    shorter = edited[:2]
    assert _written(encoder, "r", {"messages": shorter}) == encode({"messages": shorter})
    for doc in ({"messages": []}, [1, 2], {"k": "v"}, {"input": "text"}):
        assert _written(encoder, "r", doc) == encode(doc)


def test_equal_items_of_a_rebuilt_history_become_the_last_files_objects() -> None:
    encoder = HistoryEncoder()
    more = [{"n": n} for n in range(history.FEW)]
    before = {"messages": [{"a": 1}, {"b": 2}, *more]}
    _written(encoder, "w", before)
    after = {"messages": [{"a": 1}, {"b": 3}, {"c": 4}, *more]}
    encoder.same_items("w", after)
    assert after["messages"][0] is before["messages"][0]
    assert after["messages"][1] is not before["messages"][1]
    assert _written(encoder, "w", after) == encode(after)
