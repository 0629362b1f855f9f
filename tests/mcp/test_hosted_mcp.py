"""Provider-hosted MCP: the Responses API's mcp_list_tools / mcp_call / mcp_approval_request
items and Anthropic's MCP connector blocks (mcp_tool_use, mcp_tool_result) are read, kept as
sent, shown with their server and tool, and reported lost by fc convert to formats without
them. The documents are held to the official SDKs' types first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import REPO

RESPONSES = REPO / "traces" / "examples" / "hangzhou-responses" / "1-response.responses.json"
LISTED = {"name": "ask_question", "input_schema": {"type": "object"}, "description": "Ask"}
ARGUMENTS = '{"repoName": "modelcontextprotocol/python-sdk", "question": "transports?"}'
HOSTED = [
    {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "deepwiki", "tools": [LISTED]},
    {"id": "mcp_1", "type": "mcp_call", "server_label": "deepwiki", "name": "ask_question",
     "arguments": ARGUMENTS, "output": "stdio and streamable HTTP", "error": None},
    {"id": "mcpr_1", "type": "mcp_approval_request", "server_label": "deepwiki",
     "name": "ask_question", "arguments": ARGUMENTS},
]  # fmt: skip


def responses_answer() -> dict[str, Any]:
    from openai.types.responses import Response

    doc = json.loads(RESPONSES.read_text("utf-8"))
    doc["output"] = [*HOSTED, doc["output"][-1]]
    Response.model_validate(doc)  # the SDK reads it as OpenAI would send it
    return doc


def anthropic_answer() -> dict[str, Any]:
    from anthropic.types.beta import BetaMessage

    doc = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask_question",
             "server_name": "deepwiki", "input": json.loads(ARGUMENTS)},
            {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False,
             "content": [{"type": "text", "text": "stdio and streamable HTTP"}]},
            {"type": "text", "text": "stdio and streamable HTTP."},
        ],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }  # fmt: skip
    BetaMessage.model_validate(doc)
    return doc


def test_responses_hosted_mcp_items_are_shown_and_reported_lost(fc, tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(json.dumps(responses_answer()), "utf-8")
    shown = fc("show", "r.json")
    assert shown.returncode == 0, shown.stderr
    assert "responses mcp_list_tools" in shown.stdout
    assert "MCP server deepwiki: 1 tool(s) listed" in shown.stdout
    assert (
        "responses mcp_call" in shown.stdout
        and "MCP server deepwiki, tool ask_question" in shown.stdout
    )
    assert "responses mcp_approval_request" in shown.stdout
    converted = fc("convert", "r.json", "--to", "anthropic", "-o", "a.json")
    assert converted.returncode == 0, converted.stderr
    said = converted.stdout + converted.stderr
    for kind in ("mcp_list_tools", "mcp_call", "mcp_approval_request"):
        assert kind in said
    assert "lost" in said
    assert "mcp_call" not in (tmp_path / "a.json").read_text("utf-8")


def test_anthropic_mcp_connector_blocks_are_kept_shown_and_reported_lost(
    fc, tmp_path: Path
) -> None:
    doc = anthropic_answer()
    (tmp_path / "m.json").write_text(json.dumps(doc), "utf-8")
    shown = fc("show", "m.json")
    assert shown.returncode == 0, shown.stderr
    assert (
        "anthropic mcp_tool_use" in shown.stdout
        and "MCP server deepwiki, tool ask_question" in shown.stdout
    )
    assert (
        "anthropic mcp_tool_result" in shown.stdout and "MCP result for mcptoolu_1" in shown.stdout
    )
    internal = fc("convert", "m.json", "--to", "internal", "-o", "i.json")
    assert internal.returncode == 0, internal.stderr
    kept = json.loads((tmp_path / "i.json").read_text("utf-8"))
    assert [b["block"] for b in kept["content"][:2]] == doc["content"][:2]  # as sent
    chat = fc("convert", "m.json", "--to", "deepseek", "-o", "c.json")
    assert chat.returncode == 0, chat.stderr
    assert "mcp_tool_use" in chat.stdout + chat.stderr and "lost" in chat.stdout + chat.stderr
