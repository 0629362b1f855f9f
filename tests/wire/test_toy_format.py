"""Adding a format is one module plus its registry entry (issue #14, Done when): with the toy
format of tests/support/toy_format.py registered and nothing else edited, `fc convert`, `fc diff`,
`fc check` and `fc show` read it, write it and find its mistakes. Run in-process through fc's
own entry point, so the registry entry the test adds is the one they see.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fccli.commands.entry import main
from fccli.wire.registry import FORMATS
from tests.support.toy_format import ToyFormat

QUESTION = "杭州今天适合跑步吗？"
CALL = {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "杭州"}}
TOOL = {
    "name": "get_weather",
    "description": "Weather of a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "toy", ToyFormat())


def fc(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    monkeypatch.setattr(sys, "argv", ["fc", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def toy_request(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"toy_version": 1, "model": "toy-1", "messages": list(messages), "tools": [TOOL]}


ASKED = {"role": "user", "content": [{"type": "text", "text": QUESTION}]}
CALLED = {"role": "assistant", "content": [CALL]}
ANSWERED = {
    "role": "user",
    "content": [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "晴，22°C", "is_error": False}
    ],
}


def test_convert_reads_the_toy_and_writes_it(monkeypatch, capsys, tmp_path: Path) -> None:
    toy = write(tmp_path / "r.json", toy_request(ASKED, CALLED, ANSWERED))
    code, out, err = fc(monkeypatch, capsys, "convert", toy, "--to", "anthropic")
    assert code == 0, err
    body = json.loads(out)
    assert body["messages"][1]["content"] == [CALL]
    assert "toy_version" not in body

    wire = write(tmp_path / "r.anthropic.json", body)
    code, out, err = fc(monkeypatch, capsys, "convert", wire, "--to", "toy")
    assert code == 0, err
    assert json.loads(out)["toy_version"] == 1
    assert json.loads(out)["messages"][2] == ANSWERED

    answer = {"toy_version": 1, "content": [{"type": "text", "text": "适合"}], "stop": "end_turn"}
    code, out, err = fc(
        monkeypatch, capsys, "convert", write(tmp_path / "a.json", answer), "--to", "openai"
    )
    assert code == 0, err
    assert json.loads(out)["choices"][0]["finish_reason"] == "stop"


def test_show_names_the_toy_format(monkeypatch, capsys, tmp_path: Path) -> None:
    toy = write(tmp_path / "r.json", toy_request(ASKED, CALLED, ANSWERED))
    code, out, err = fc(monkeypatch, capsys, "show", toy, "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert (shown["format"], shown["kind"]) == ("toy", "request")
    assert shown["reason"] == "it has `toy_version`"
    code, out, err = fc(monkeypatch, capsys, "show", toy)
    assert code == 0, err
    assert "get_weather" in out and "晴，22°C" in out


def test_check_finds_the_toys_mistakes_with_its_own_sentence(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    broken = write(tmp_path / "r.json", toy_request(ASKED, CALLED))
    code, out, err = fc(monkeypatch, capsys, "check", broken, "--json")
    assert code == 1, err
    findings = json.loads(out)["findings"]
    unanswered = next(f for f in findings if f["rule"] == "FC101")
    assert unanswered["provider"] == "Toy Inc."
    assert unanswered["provider_message"] == "call call_1 has no result"

    fine = write(tmp_path / "ok.json", toy_request(ASKED, CALLED, ANSWERED))
    code, out, err = fc(monkeypatch, capsys, "check", fine)
    assert code == 0, out + err


def test_diff_compares_the_toy_with_the_internal_and_another_format(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    toy_body = toy_request(ASKED, CALLED, ANSWERED)
    toy = write(tmp_path / "r.json", toy_body)
    internal = {k: v for k, v in toy_body.items() if k != "toy_version"}
    code, out, err = fc(
        monkeypatch, capsys, "diff", write(tmp_path / "i.json", internal), toy, "--json"
    )
    assert code == 0, err
    assert json.loads(out)["mode"] == "mapping"

    code, out, err = fc(monkeypatch, capsys, "convert", toy, "--to", "openai")
    chat = write(tmp_path / "r.openai.json", json.loads(out))
    code, out, err = fc(monkeypatch, capsys, "diff", toy, chat, "--json")
    assert code == 0, err
    assert json.loads(out)["same"] is True
