"""Adding a format of a new layout is one module plus its registry entry: the toy format of
tests/support/toy_format.py (a `turns` family: each turn holds its question, the calls and their
results, and the answer), registered and nothing else edited, is read, written and checked by
`fc convert`, `fc diff`, `fc check`, `fc show` and `fc replay` (onto the offline demo). Run
in-process through fc's own entry point, so the registry entry the test adds is the one they
see; any of them that needed another file of fc changed fails here.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from fccli.commands.entry import main
from fccli.core.models import Request, Response
from fccli.trace.names import STEP_FILE
from fccli.wire.registry import FORMATS
from tests.check.test_places import place
from tests.support.toy_format import ToyFormat

QUESTION = "杭州今天适合跑步吗？"
CALL = {"id": "call_1", "tool": "get_weather", "args": {"city": "杭州"}}
RESULT = {"id": "call_1", "output": "晴，22°C"}
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


def toy_request(*steps: dict[str, Any], answer: str | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {"ask": QUESTION, "steps": list(steps)}
    if answer is not None:
        turn["answer"] = answer
    return {"toy_version": 1, "model": "toy-1", "tools": [TOOL], "turns": [turn]}


CALLED = {"calls": [CALL]}
ANSWERED = {"calls": [CALL], "results": [RESULT]}
ANTHROPIC_CALL = {
    "type": "tool_use",
    "id": "call_1",
    "name": "get_weather",
    "input": {"city": "杭州"},
}


def test_convert_reads_the_toy_and_writes_it(monkeypatch, capsys, tmp_path: Path) -> None:
    toy = write(tmp_path / "r.json", toy_request(ANSWERED))
    code, out, err = fc(monkeypatch, capsys, "convert", toy, "--to", "anthropic")
    assert code == 0, err
    body = json.loads(out)
    assert body["messages"][1]["content"] == [ANTHROPIC_CALL]
    assert body["messages"][2]["content"][0]["tool_use_id"] == "call_1"
    assert "toy_version" not in body

    wire = write(tmp_path / "r.anthropic.json", body)
    code, out, err = fc(monkeypatch, capsys, "convert", wire, "--to", "toy")
    assert code == 0, err
    assert json.loads(out)["toy_version"] == 1
    assert json.loads(out)["turns"] == toy_request(ANSWERED)["turns"]

    answer = {"toy_version": 1, "say": "适合", "stop": "end_turn"}
    code, out, err = fc(
        monkeypatch, capsys, "convert", write(tmp_path / "a.json", answer), "--to", "openai"
    )
    assert code == 0, err
    assert json.loads(out)["choices"][0]["finish_reason"] == "stop"


def test_show_names_the_toy_format(monkeypatch, capsys, tmp_path: Path) -> None:
    toy = write(tmp_path / "r.json", toy_request(ANSWERED))
    code, out, err = fc(monkeypatch, capsys, "show", toy, "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert (shown["format"], shown["kind"]) == ("toy", "request")
    assert shown["reason"] == "it has `toy_version`"
    code, out, err = fc(monkeypatch, capsys, "show", toy)
    assert code == 0, err
    assert "get_weather" in out and "晴，22°C" in out


def test_check_finds_the_toys_mistakes_where_its_layout_has_them(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    doc = toy_request(CALLED, {"calls": [], "results": [{"id": "call_9", "output": "?"}]})
    broken = write(tmp_path / "r.json", doc)
    code, out, err = fc(monkeypatch, capsys, "check", broken, "--json")
    assert code == 1, err
    findings = {f["rule"]: f for f in json.loads(out)["findings"]}
    assert findings["FC101"]["provider"] == "Toy Inc."
    assert findings["FC101"]["provider_message"] == "call call_1 has no result"
    assert findings["FC101"]["path"] == "$.turns[0].steps[0]"
    assert findings["FC102"]["path"] == "$.turns[0].steps[1].results[0]"
    assert all(place(doc, f["path"])[0] for f in findings.values())

    fine = write(tmp_path / "ok.json", toy_request(ANSWERED, answer="适合"))
    code, out, err = fc(monkeypatch, capsys, "check", fine)
    assert code == 0, out + err


def test_diff_compares_the_toy_with_the_internal_and_another_format(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    toy = write(tmp_path / "r.json", toy_request(ANSWERED))
    code, out, err = fc(monkeypatch, capsys, "convert", toy, "--to", "internal")
    assert code == 0, err
    internal = write(tmp_path / "i.json", json.loads(out))
    code, out, err = fc(monkeypatch, capsys, "diff", internal, toy, "--json")
    assert code == 0, err
    assert json.loads(out)["mode"] == "mapping"

    code, out, err = fc(monkeypatch, capsys, "convert", toy, "--to", "openai")
    chat = write(tmp_path / "r.openai.json", json.loads(out))
    code, out, err = fc(monkeypatch, capsys, "diff", toy, chat, "--json")
    assert code == 0, err
    assert json.loads(out)["same"] is True


def toy_trace(monkeypatch, capsys, tmp_path: Path) -> Path:
    """A run of the offline demo, its wire files written in the toy format."""
    made = tmp_path / "demo"
    code, _, err = fc(monkeypatch, capsys, "run", QUESTION, "-o", str(made))
    assert code == 0, err
    trace = tmp_path / "toy"
    trace.mkdir()
    manifest = json.loads((made / "manifest.json").read_text("utf-8"))
    write(trace / "manifest.json", {**manifest, "wire_format": "toy"})
    toy = ToyFormat()
    for file in sorted(made.iterdir()):
        m = STEP_FILE.fullmatch(file.name)
        if not m or m[3] or m[4] != "json":
            continue
        shutil.copy(file, trace / file.name)
        body = json.loads(file.read_text("utf-8"))
        wired = (
            toy.to_wire_request(Request.model_validate(body))
            if m[2] == "request"
            else toy.to_wire_response(Response.model_validate(body))
        )
        write(trace / f"{m[1]}-{m[2]}.toy.json", wired)
    return trace


def test_a_trace_in_the_toy_format_is_checked_shown_and_replayed(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    trace = toy_trace(monkeypatch, capsys, tmp_path)
    code, out, err = fc(monkeypatch, capsys, "check", str(trace), "--json")
    assert code == 0, out + err
    assert "2-request.toy.json" in json.loads(out)["files"]

    (trace / "2-response.json").unlink()  # the answer read from the toy's own file
    code, out, err = fc(monkeypatch, capsys, "show", str(trace))
    assert code == 0, err
    assert "get_weather" in out

    again = tmp_path / "again"
    code, out, err = fc(
        monkeypatch, capsys, "replay", str(trace), "--step", "2", "-p", "demo", "-o", str(again)
    )
    assert code == 0, out + err
    assert (again / "manifest.json").is_file()
