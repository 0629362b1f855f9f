"""Adding a format of a new layout is one module, its registry entry and a provider profile:
the toy format of tests/support/toy_format.py (a `turns` family: each turn holds its question,
the calls and their results, and the answer), registered with a `toy` provider and nothing else
edited, is spoken by `fc run` and `fc replay` (to a toy model on 127.0.0.1), and read, written
and checked by `fc convert`, `fc diff`, `fc check` and `fc show`. Run in-process through fc's
own entry point, so the entries the test adds are the ones they see; any of them that needed
another file of fc changed fails here.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from fccli.commands.entry import main
from fccli.providers.profiles import PROFILES, Profile
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


TOY_PROFILE = Profile(
    name="toy",
    wire_format="toy",
    default_model="toy-1",
    base_url="http://127.0.0.1:9",
    path="/v1/turns",
    key_env=None,
    auth=None,
    thinking="",
    tool_choices=("auto",),
    strict="",
    parallel_control="",
    api="toy",
    has_strict=False,
)


@pytest.fixture(autouse=True)
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "toy", ToyFormat())
    monkeypatch.setitem(PROFILES, "toy", TOY_PROFILE)


class _ToyModel(BaseHTTPRequestHandler):
    """A toy provider: asks for the weather of the question's city, then answers with it."""

    def do_POST(self) -> None:
        assert self.path == TOY_PROFILE.path, self.path
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        steps = body["turns"][-1].get("steps", [])
        if steps and "results" in steps[-1]:
            said = "适合跑步：" + str(steps[-1]["results"][0]["output"])
            answer = {"toy_version": 1, "model": "toy-1", "say": said, "stop": "end_turn"}
        else:
            call = {"id": f"call_{len(steps) + 1}", "tool": "get_weather", "args": {"city": "杭州"}}
            answer = {"toy_version": 1, "model": "toy-1", "calls": [call], "stop": "tool_use"}
        data = json.dumps(answer, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def toy_model() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ToyModel)
    # shutdown() waits for the loop's next poll (half a second by default)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


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


def test_a_run_in_the_toy_format_is_checked_shown_and_replayed(
    monkeypatch, capsys, tmp_path: Path, toy_model: str
) -> None:
    trace = tmp_path / "toy"
    code, out, err = fc(
        monkeypatch, capsys, "run", QUESTION, "-p", "toy", "--base-url", toy_model, "-o", str(trace)
    )
    assert code == 0, out + err
    assert json.loads((trace / "manifest.json").read_text("utf-8"))["wire_format"] == "toy"
    sent = json.loads((trace / "2-request.toy.json").read_text("utf-8"))
    assert sent["turns"][0]["steps"][0]["results"][0]["id"] == "call_1"

    code, out, err = fc(monkeypatch, capsys, "check", str(trace), "--json")
    assert code == 0, out + err
    assert "2-request.toy.json" in json.loads(out)["files"]

    (trace / "2-response.json").unlink()  # the answer read from the toy's own file
    code, out, err = fc(monkeypatch, capsys, "show", str(trace))
    assert code == 0, err
    assert "get_weather" in out and "适合跑步" in out

    again = tmp_path / "again"
    code, out, err = fc(
        monkeypatch,
        capsys,
        "replay",
        str(trace),
        "--set",
        "call_1=暴雨",
        "--base-url",
        toy_model,
        "-o",
        str(again),
    )
    assert code == 0, out + err
    replayed = json.loads((again / "1-response.toy.json").read_text("utf-8"))
    assert replayed["say"] == "适合跑步：暴雨"
