"""Hostile files and a provider that breaks the protocol: each is exit 2 with one clear line,
or exit 3 for the provider, never an internal error (issue #13, items 7-10, 12, 13)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

QUESTION = "杭州今天适合跑步吗？"
COMMANDS = {
    "show": ["show", "{f}"],
    "show-json": ["show", "{f}", "--json"],
    "check": ["check", "{f}"],
    "convert": ["convert", "{f}", "--to", "anthropic"],
    "diff": ["diff", "{f}", "{f}"],
    "curl": ["curl", "{f}"],
    "send": ["send", "{f}", "-p", "demo"],
}


@pytest.fixture
def request_file(fc, tmp_path: Path) -> Path:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    return tmp_path / "t" / "2-request.deepseek.json"


def assert_one_clear_line(result, code: int = 2) -> None:
    assert result.returncode == code, result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert 1 <= len(result.stderr.strip().splitlines()) <= 2, result.stderr


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_integer_of_more_than_4300_digits_is_exit_2(
    fc, tmp_path: Path, request_file: Path, command: str
) -> None:
    text = request_file.read_text(encoding="utf-8")
    hostile = tmp_path / "big.deepseek.json"
    hostile.write_text(text.replace('"model"', '"n": ' + "9" * 5000 + ', "model"', 1))
    result = fc(*[a.format(f=hostile) for a in COMMANDS[command]])
    assert_one_clear_line(result)
    assert "digits" in result.stderr


@pytest.mark.parametrize("command", ["show", "show-json", "convert", "diff", "check"])
def test_a_lone_surrogate_in_a_file_is_read_and_shown_escaped(
    fc, tmp_path: Path, request_file: Path, command: str
) -> None:
    data = json.loads(request_file.read_text(encoding="utf-8"))
    data["messages"][0]["content"] = "杭州 \ud800 跑步？"
    hostile = tmp_path / "lone.deepseek.json"
    hostile.write_text(json.dumps(data))  # ensure_ascii: "\\ud800" in the file, as JSON allows
    args = [a.format(f=hostile) for a in COMMANDS[command]]
    if command == "diff":
        args[-1] = str(request_file)  # against the file before: the surrogate is a difference
    result = fc(*args)
    assert result.returncode in (0, 1), result.stderr
    assert "internal error" not in result.stderr
    if command != "check":
        assert "\\ud800" in result.stdout


def test_show_html_of_a_trace_with_a_lone_surrogate(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    path = tmp_path / "t" / "2-response.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["content"][-1]["text"] += " \ud800"
    path.write_text(json.dumps(data))
    result = fc("show", "t", "--html", "t.html")
    assert result.returncode == 0, result.stderr
    assert "\\ud800" in (tmp_path / "t.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["check", "convert", "curl", "diff", "send"])
def test_a_fifo_is_refused_not_waited_on(fc, tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = fc(*[a.format(f=fifo) for a in COMMANDS[command]])
    assert_one_clear_line(result)
    assert "not a regular file" in result.stderr


def test_a_non_string_error_kind_in_a_manifest_is_shown(fc, tmp_path: Path) -> None:
    assert fc("run", "巴黎今天适合跑步吗？", "-o", "t").returncode == 0
    path = tmp_path / "t" / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["steps"][0]["tool_runs"][0]["error_kind"] = {"not": "a string"}
    path.write_text(json.dumps(manifest))
    result = fc("show", "t")
    assert result.returncode == 0, result.stderr
    assert "✗ error result" in result.stdout


@pytest.mark.parametrize(
    ("field", "value"),
    [("parameters", 5), ("properties", 1), ("required", True)],
)
def test_the_demo_model_reads_a_malformed_tool_schema_without_crashing(
    fc, tmp_path: Path, request_file: Path, field: str, value: object
) -> None:
    data = json.loads(request_file.read_text(encoding="utf-8"))
    data["messages"] = data["messages"][:1]
    function = data["tools"][0]["function"]
    if field == "parameters":
        function["parameters"] = value
    else:
        function["parameters"][field] = value
    hostile = tmp_path / "schema.deepseek.json"
    hostile.write_text(json.dumps(data, ensure_ascii=False))
    result = fc("send", str(hostile), "-p", "demo")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["choices"][0]["message"]


def test_the_demo_model_in_a_replay_reads_a_malformed_schema(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    path = tmp_path / "t" / "2-request.deepseek.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["tools"][0]["function"]["parameters"]["properties"] = 1
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2))
    (tmp_path / "t" / "2-request.json").touch()
    result = fc("replay", "t", "--from", "wire", "--once")
    assert "internal error" not in result.stderr
    assert result.returncode in (0, 1, 2), result.stderr


def test_a_provider_sending_two_calls_with_one_id_is_exit_3_said_so(
    fc, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script = [{"duplicate_ids": True}]
    result = fc(
        "run",
        "北京和上海今天适合跑步吗？",
        "-p",
        "deepseek",
        "--base-url",
        fake_provider.url,
        "-o",
        "t",
        env=clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY),
    )
    assert_one_clear_line(result, 3)
    assert "one id" in result.stderr and "bug in fc" not in result.stderr
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["steps"][0]["tool_runs"] == []  # nothing was executed
