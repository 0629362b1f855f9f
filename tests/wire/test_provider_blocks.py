"""Provider blocks travel unchanged (issue #14, item 4): an Anthropic answer holding blocks fc has
no equivalent for (server tools, redacted thinking, compaction, a model fallback) is taken as it
is, sent back unchanged on the next request, shown, and listed as lost when converted.

The recorded answer follows anthropic-sdk-python's types (ServerToolUseBlock,
WebSearchToolResultBlock, RedactedThinkingBlock; compaction and fallback as the beta SDKs type them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fccli.core.models import ProviderBlock, Response
from fccli.wire.registry import get_format
from tests.providers.test_providers_http import load, run_fc
from tests.support.fake_provider import FakeProvider

SIGNATURE = "EqQBCkYIBxgCKkBvZ2F0ZSBzaWduYXR1cmUgZm9yIGEgdGVzdA=="
KEPT = [
    {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aQkCoq1kP"},
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        "name": "web_search",
        "input": {"query": "杭州 天气 今天"},
    },
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://weather.example/hangzhou",
                "title": "杭州天气",
                "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2Y",
                "page_age": "2 hours ago",
            }
        ],
    },
    {"type": "compaction", "content": "Summary: the user asks whether to run in Hangzhou."},
    {"type": "fallback", "from": {"model": "claude-opus-5-5"}, "to": {"model": "claude-opus-4-8"}},
]
RECORDED: dict[str, Any] = {
    "id": "msg_01Aq9w938a90dw8q",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-4-5",
    "content": [
        {"type": "thinking", "thinking": "I should check the weather.", "signature": SIGNATURE},
        *KEPT,
        {"type": "text", "text": "我先查一下杭州的天气。"},
        {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "杭州"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 512,
        "output_tokens": 90,
        "server_tool_use": {"web_search_requests": 1},
    },
}


def test_each_kept_block_reads_as_a_provider_block_and_writes_back_unchanged() -> None:
    anthropic = get_format("anthropic")
    response = anthropic.from_wire_response(RECORDED)
    kept = [b for b in response.content if isinstance(b, ProviderBlock)]
    assert [b.block for b in kept] == KEPT
    assert {b.format for b in kept} == {"anthropic"}
    assert anthropic.to_wire_response(response)["content"] == RECORDED["content"]
    # The internal JSON holds each block verbatim, so a trace file reads back the same.
    assert Response.model_validate(response.to_json_dict()) == response


def test_a_kept_block_in_the_users_turn_is_still_refused() -> None:
    from fccli.core.errors import ConversionError

    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}],
    }
    try:
        get_format("anthropic").from_wire_request(body)
    except ConversionError as e:
        assert e.json_path == "$.messages[0].content[0]"
    else:
        raise AssertionError("an image in the user's turn was taken")


def test_a_recorded_answer_with_provider_blocks_runs_to_the_end_and_goes_back_unchanged(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script = [{"answer": RECORDED}]
    result = run_fc(fc, fake_provider, "anthropic", "--thinking")
    assert result.returncode == 0, result.stderr
    trace = tmp_path / "t"
    assert load(trace / "manifest.json")["status"] == "ok"
    # The next request carries every block back exactly as it came, in its place.
    second = json.loads(fake_provider.received[1].body)
    assistant = second["messages"][1]["content"]
    assert assistant == RECORDED["content"]
    for block in KEPT:
        sent = next(b for b in assistant if b.get("type") == block["type"])
        assert json.dumps(sent, ensure_ascii=False) == json.dumps(block, ensure_ascii=False)

    shown = fc("show", "t")
    assert shown.returncode == 0, shown.stderr
    for block in KEPT:
        assert f"provider block: anthropic {block['type']}," in shown.stdout
    assert "bytes, kept as sent" in shown.stdout

    checked = fc("check", "t")
    assert checked.returncode == 0, checked.stdout + checked.stderr

    converted = fc("convert", "t/1-response.anthropic.json", "--to", "openai")
    assert converted.returncode == 0, converted.stderr
    lost = [line for line in converted.stderr.splitlines() if line.startswith("fc: lost:")]
    for block in KEPT:
        assert any(f"anthropic {block['type']} block" in line for line in lost), (
            block["type"],
            converted.stderr,
        )
    assert "server_tool_use" not in converted.stdout


def test_a_streamed_answer_with_provider_blocks_assembles_them_unchanged(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script = [{"answer": RECORDED}]
    result = run_fc(fc, fake_provider, "anthropic", "--thinking", "--stream")
    assert result.returncode == 0, result.stderr
    assembled = load(tmp_path / "t" / "1-response.anthropic.json")
    assert assembled["content"] == RECORDED["content"]
    manifest = load(tmp_path / "t" / "manifest.json")
    assert not any("not kept" in note for note in manifest.get("notes", [])), manifest["notes"]
    second = json.loads(fake_provider.received[1].body)
    assert second["messages"][1]["content"] == RECORDED["content"]


def test_a_compaction_that_never_grew_keeps_its_null() -> None:
    folder = get_format("anthropic").stream_folder()
    events = [
        ("message_start", {"message": {"id": "m", "content": [], "usage": {"input_tokens": 1}}}),
        (
            "content_block_start",
            {"index": 0, "content_block": {"type": "compaction", "content": None}},
        ),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "compaction"}, "usage": {"output_tokens": 1}}),
        ("message_stop", {}),
    ]
    for name, data in events:
        folder.feed(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode())
    assert folder.finish()["content"] == [{"type": "compaction", "content": None}]
