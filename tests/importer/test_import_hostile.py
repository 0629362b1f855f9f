"""`fc import` of files that are not what they claim: refused in one or two lines with exit 2,
bounded in size and depth, a FIFO never waited on; secrets masked before anything is written;
control characters escaped when printed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from fccli.core import jsonio
from tests.conftest import clean_env
from tests.importer.spans_json import otlp, span

KEY = "sk-live-secret-0123456789abcdef"


def _refused(ran, words: str) -> None:
    assert ran.returncode == 2, ran.stderr
    assert words in ran.stderr
    assert "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) <= 2, ran.stderr
    assert ran.stdout == ""


def test_what_is_not_a_trace_is_exit_2_in_a_line_or_two(
    fc, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refused(fc("import", "missing.json"), "no such file")
    _refused(fc("import", "."), "is a directory")
    (tmp_path / "empty.json").write_bytes(b"")
    _refused(fc("import", "empty.json"), "empty file")
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)) * 4)
    ran = fc("import", "binary.bin")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000)
    _refused(fc("import", "deep.json"), "deep")
    (tmp_path / "other.json").write_text('{"model": "x", "messages": []}')
    _refused(fc("import", "other.json"), "neither OTLP trace data")
    (tmp_path / "plain.json").write_bytes(otlp([span(1, {"http.method": "GET"}, name="GET /")]))
    _refused(fc("import", "plain.json"), "holds no model call")
    (tmp_path / "bad.jsonl").write_text('{"resourceSpans": []}\n{not json\n')
    _refused(fc("import", "bad.jsonl"), "not valid JSON")
    # a file past the bound is refused before it is read
    (tmp_path / "big.json").write_bytes(b" " * 4096 + b"{}")
    monkeypatch.setattr(jsonio, "READ_LIMIT", 4096)
    _refused(fc("import", "big.json"), "above the 4,096")


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs")
def test_a_fifo_is_refused_not_waited_on(fc, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    _refused(fc("import", "pipe"), "not a regular file")


def test_odd_values_are_read_as_far_as_they_go(fc, tmp_path: Path) -> None:
    """Attributes of the wrong type, messages that are not lists, parts fc has no block for."""
    odd = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "someone.new",
        "gen_ai.input.messages": json.dumps(
            [
                {"role": "user", "parts": [{"type": "text", "content": "hi"}, 7, None]},
                {"role": "user", "parts": [{"type": "blob", "modality": "image"}]},
                {"role": "user", "parts": [{"type": "tool_call", "id": "c", "name": "f"}]},
                "not a message",
            ]
        ),
        "gen_ai.output.messages": "{not json",
        "gen_ai.tool.definitions": 12,
        "gen_ai.usage.input_tokens": "many",
    }
    (tmp_path / "odd.json").write_bytes(otlp([span(1, odd)]))
    ran = fc("import", "odd.json", "-o", "odd")
    assert ran.returncode == 0, ran.stderr
    assert "a user part of type 'blob' has no place" in ran.stderr
    assert "the span carries no answer" in ran.stderr
    assert "names no provider fc knows (someone.new)" in ran.stderr
    # a call in a user message: chat has no place for it, the internal file keeps it
    assert (
        "the request cannot be written as openai ($.messages[1].content[0]: a tool_use"
        in ran.stderr
    )
    assert not (tmp_path / "odd" / "1-request.openai.json").exists()
    assert (tmp_path / "odd" / "1-request.json").is_file()
    manifest = json.loads((tmp_path / "odd" / "manifest.json").read_text())
    assert manifest["wire_format"] == "openai"
    assert len(manifest["notes"]) == len(ran.stderr.strip().splitlines())


def test_secrets_are_masked_and_controls_escaped(fc, tmp_path: Path) -> None:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "url.full": "https://user:pass-word-123@api.example.com/v1?key=query-secret-456",
        "http.request.header.authorization": ["Bearer sk-header-secret-789"],
        "gen_ai.input.messages": json.dumps(
            [
                {
                    "role": "user",
                    "parts": [
                        {
                            "type": "text",
                            "content": f"my key is {KEY}, the other sk-header-secret-789,"
                            " query-secret-456 and pass-word-123",
                        }
                    ],
                }
            ]
        ),
        "gen_ai.output.messages": json.dumps(
            [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": "call_\x1b[2J",
                            "name": "evil\x1b]0;pwned\x07",
                            "arguments": {"key": KEY},
                        }
                    ],
                    "finish_reason": "tool_call",
                }
            ]
        ),
    }
    (tmp_path / "secret.json").write_bytes(otlp([span(1, attributes)]))
    ran = fc("import", "secret.json", "-o", "out", env=clean_env(OPENAI_API_KEY=KEY))
    assert ran.returncode == 0, ran.stderr
    # the call has no result in the file: said, with its name's control characters escaped
    assert "no run or result of the call evil" in ran.stderr
    assert "\x1b" not in ran.stderr + ran.stdout and "\x07" not in ran.stderr
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").iterdir())
    for secret in (KEY, "sk-header-secret-789", "query-secret-456", "pass-word-123"):
        assert secret.encode() not in written, secret
    assert b"my key is ***" in written


def test_a_protobuf_file_without_the_extra_says_the_install_line(
    fc, tmp_path: Path, monkeypatch
) -> None:
    # As if opentelemetry-proto were not installed: importing it fails.
    monkeypatch.setitem(sys.modules, "opentelemetry.proto.collector.trace.v1", None)
    (tmp_path / "spans.pb").write_bytes(b"\x0a\x02not json")
    ran = fc("import", "spans.pb", "-o", "t")
    assert ran.returncode == 2
    assert "reading an OTLP protobuf file needs the otel extra (opentelemetry-proto)" in ran.stderr
    assert "pip install 'fccli[otel]'" in ran.stderr
    zh = fc("import", "spans.pb", "-o", "t", env=clean_env(FC_LANG="zh"))
    assert "读 OTLP protobuf 文件 需要 otel 扩展" in zh.stderr


def test_a_file_that_is_neither_json_nor_protobuf_is_said_so_without_the_extra(
    fc, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.proto.collector.trace.v1", None)
    (tmp_path / "notes.txt").write_bytes(b"garbage\x1b[31m, not spans\n")
    ran = fc("import", "notes.txt", "-o", "t")
    assert ran.returncode == 2
    assert ran.stderr.splitlines() == [
        "fc: error: notes.txt: neither JSON nor an OTLP protobuf message (ExportTraceServiceRequest)"
    ]
    assert not (tmp_path / "t").exists()


def test_messages_that_are_not_json_are_said_once_per_trace(fc, tmp_path: Path) -> None:
    """A message attribute that cannot be parsed is read without (or as text), and said: the
    first span and attribute named, the others counted, in one note."""
    bad = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": '[{"role": "user", "parts": [',
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": "hi"}]}]
        ),
    }
    openllmetry = {
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": '[{"type": "text", "text": "cut sh',
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": "plain text, as OpenLLMetry writes it",
    }
    spans = [span(1, bad, name="chat gpt-4o"), span(2, openllmetry, name="openai.chat")]
    (tmp_path / "bad.json").write_bytes(otlp(spans))
    ran = fc("import", "bad.json", "-o", "bad")
    assert ran.returncode == 0, ran.stderr
    said = [line for line in ran.stderr.splitlines() if "is not JSON" in line]
    assert said == [
        "fc: note: step 1: span chat gpt-4o (0000000000000001)'s gen_ai.input.messages is not"
        " JSON (read without it); 1 more attribute(s) in this trace are not JSON either"
    ]
    manifest = json.loads((tmp_path / "bad" / "manifest.json").read_text())
    assert [n for n in manifest["notes"] if "is not JSON" in n] == [said[0][len("fc: note: ") :]]
    # the text that is not JSON is kept, as text
    request = json.loads((tmp_path / "bad" / "2-request.json").read_text())
    assert request["messages"][0]["content"][0]["text"].startswith('[{"type": "text"')
