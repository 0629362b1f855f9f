"""`fc check` as a user runs it: exit codes, the human output, --json, --strict, --format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO

CORPUS = Path(__file__).parent.parent / "corpus" / "check"
EXAMPLES = REPO / "traces" / "examples"


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir()))
def test_every_example_trace_reports_no_error(fc, name: str) -> None:
    result = fc("check", str(EXAMPLES / name))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no problems found" in result.stdout


def test_an_error_exits_1_and_says_what_where_and_what_the_provider_would_answer(fc) -> None:
    result = fc("check", str(CORPUS / "deepseek" / "FC112-reasoning-not-passed-back.json"))
    assert result.returncode == 1
    out = result.stdout
    assert "a deepseek request" in out
    assert "✗ error FC112 at $.messages[1]" in out
    assert "has no `reasoning_content`" in out
    assert (
        "DeepSeek would answer 400: The `reasoning_content` in the thinking mode must be passed "
        "back to the API." in out
    )
    assert result.stderr.startswith("fc: error: fc check: 1 error(s)")
    assert "Traceback" not in result.stderr


def test_a_warning_alone_exits_0_and_1_with_strict(fc) -> None:
    path = str(CORPUS / "openai" / "FC116-results-out-of-call-order.json")
    relaxed = fc("check", path)
    assert relaxed.returncode == 0
    assert "! warning FC116" in relaxed.stdout
    strict = fc("check", path, "--strict")
    assert strict.returncode == 1
    assert "(--strict)" in strict.stderr


def test_json_output_is_the_findings_and_nothing_else(fc) -> None:
    result = fc(
        "check", str(CORPUS / "anthropic" / "FC107-an-id-from-another-provider.json"), "--json"
    )
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["kind"] == "file"
    assert report["format"] == "anthropic"
    assert report["errors"] == 2
    first = report["findings"][0]
    assert first == {
        "rule": "FC107",
        "severity": "error",
        "message": first["message"],
        "file": None,
        "path": "$.messages[1].content[1].id",
        "provider": "Anthropic",
        "provider_message": "messages.1.content.1.tool_use.id: String should match pattern "
        "'^[a-zA-Z0-9_-]+$'",
    }


def test_a_trace_names_each_findings_file(fc, tmp_path: Path) -> None:
    trace = tmp_path / "t"
    shutil.copytree(EXAMPLES / "three-cities", trace)
    wire = trace / "2-request.deepseek.json"
    body = json.loads(wire.read_text("utf-8"))
    body["messages"][2], body["messages"][3] = body["messages"][3], body["messages"][2]
    wire.write_text(json.dumps(body, ensure_ascii=False, indent=2), "utf-8")
    result = fc("check", str(trace), "--json")
    assert result.returncode == 0  # warnings only: results out of order, files disagreeing
    found = {(f["rule"], f["file"]) for f in json.loads(result.stdout)["findings"]}
    assert found == {("FC116", "2-request.deepseek.json"), ("FC120", "2-request.deepseek.json")}


def test_a_bare_messages_array_is_detected_and_checked(fc, tmp_path: Path) -> None:
    doc = json.loads(
        (CORPUS / "openai" / "FC105-tool-message-after-a-user-message.json").read_text()
    )
    (tmp_path / "messages.json").write_text(json.dumps(doc["messages"]))
    result = fc("check", "messages.json", "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["format"] == "openai"
    assert [(f["rule"], f["path"]) for f in report["findings"]] == [("FC105", "$[3]")]


def test_format_forces_the_reading(fc, tmp_path: Path) -> None:
    doc = json.loads((CORPUS / "anthropic" / "FC114-forced-tool-in-thinking-mode.json").read_text())
    (tmp_path / "req.json").write_text(json.dumps(doc))
    # Read as fc's internal format, `thinking` must be true or false: fc's reader refuses it.
    result = fc("check", "req.json", "--format", "internal", "--json")
    report = json.loads(result.stdout)
    assert report["format_reason"] == "--format"
    assert {f["rule"] for f in report["findings"]} == {"FC100"}
    assert fc("check", "req.json", "--format", "anthropic").returncode == 1


@pytest.mark.parametrize(
    ("content", "args", "words"),
    [
        (None, ["missing.json"], "no such file"),
        ("{not json", ["bad.json"], "not valid JSON"),
        ('{"hello": 1}', ["bad.json"], "neither a request"),
        (
            json.dumps({"choices": [{"message": {"role": "assistant"}, "finish_reason": "stop"}]}),
            ["bad.json"],
            "a response (openai format), not a request",
        ),
        ('{"model": "m", "messages": []}', ["bad.json", "--format", "cohere"], "unknown --format"),
        ('{"model": "m", "messages": {}}', ["bad.json", "--format", "openai"], "not a request"),
        (None, [".", "--format", "openai"], "applies to a single file"),
        (None, ["."], "not an fc trace"),
    ],
)
def test_what_cannot_be_read_exits_2(
    fc, tmp_path: Path, content: str | None, args: list[str], words: str
) -> None:
    if content is not None:
        (tmp_path / "bad.json").write_text(content)
    result = fc("check", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2
