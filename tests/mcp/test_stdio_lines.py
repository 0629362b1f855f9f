"""How fc reads a stdio server's stdout: lines split anywhere across chunks, each kept as it
came; a line that is not JSON-RPC kept and skipped; one past --max-response-mb cut, kept in
part, and failing the request whose id it starts with."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")

from fccli.core.secrets import Secrets
from fccli.mcp.stdio import _Lines
from fccli.mcp.wiretap import Wiretap

ANSWER = {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "晴"}]}}
STDOUT = (
    json.dumps(ANSWER, ensure_ascii=False).encode()
    + b"\r\nnot json at all\n"
    + b'{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"'
    + b"x" * 300
    + b'"}]}}\n'
    + b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}'
)


@pytest.mark.parametrize("size", [1, 7, 64, len(STDOUT)])
def test_chunks_of_any_size_give_the_same_lines_and_messages(size: int) -> None:
    tap = Wiretap(Secrets([]), lambda: None)
    lines = _Lines(tap, max_bytes=200)
    out = []
    for start in range(0, len(STDOUT), size):
        out += lines.feed(STDOUT[start : start + size])
    out += lines.rest()
    kinds = [type(item).__name__ for item in out]
    assert kinds == ["SessionMessage", "ValidationError", "SessionMessage", "SessionMessage"]
    assert out[0].message.id == 7
    cut = out[2].message  # the long answer: a JSON-RPC error for its request, id 8
    assert cut.id == 8 and "--max-response-mb" in cut.error.message
    kept = tap.messages
    # Written with spaces after the separators, so kept as the text it was ("\r" aside).
    assert kept[0]["raw"] == json.dumps(ANSWER, ensure_ascii=False) and "message" not in kept[0]
    assert kept[1]["raw"] == "not json at all"
    assert kept[2]["raw"].startswith('{"jsonrpc":"2.0","id":8') and kept[2]["raw"].endswith("…")
    long_line = len(STDOUT.split(b"\n")[2])
    assert {"event": "line_cut", "bytes": long_line, "max_bytes": 200}.items() <= kept[3].items()
    assert kept[4]["message"]["method"] == "notifications/progress"
