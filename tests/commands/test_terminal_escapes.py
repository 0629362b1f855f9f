"""Nothing a server or a file sends may drive the terminal (issue #13, item 2): escape sequences
in a provider's error, in the model's text, thinking and answer, in a tool's name, shown by
`fc run` and `fc show`, come out escaped (`\\x1b`), in every renderer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import clean_env
from tests.support.fake_provider import DEFAULT_KEY, FakeProvider

QUESTION = "杭州今天适合跑步吗？"
# An OSC 52 clipboard write, a screen clear, a colour, and a C1 CSI.
HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[31m\x9b2J"


def assert_inert(text: str) -> None:
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in text
    assert "\\x1b]52;c;" in text


def run(fc, server: FakeProvider, *args: str):
    env = clean_env(DEEPSEEK_API_KEY=DEFAULT_KEY)
    return fc(
        "run", QUESTION, "-p", "deepseek", "--base-url", server.url, "-o", "t", *args, env=env
    )


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_escape_sequences_from_the_model_are_shown_escaped_by_run_and_show(
    fc, fake_provider: FakeProvider, tmp_path: Path, stream: bool
) -> None:
    fake_provider.script = [{"inject": HOSTILE}]
    result = run(fc, fake_provider, *(["--stream"] if stream else []))
    assert result.returncode == 0, result.stderr
    assert_inert(result.stdout + result.stderr)
    for args in (["show", "t", "--thinking"], ["show", "t", "--wire"], ["show", "t", "--json"]):
        shown = fc(*args)
        assert shown.returncode == 0, shown.stderr
        assert "\x1b" not in shown.stdout and "\x9b" not in shown.stdout
    assert_inert(fc("show", "t", "--thinking").stdout)


def test_escape_sequences_in_a_provider_error_are_shown_escaped(
    fc, fake_provider: FakeProvider
) -> None:
    fake_provider.script = [{"status": 400, "message": f"bad request {HOSTILE}"}]
    result = run(fc, fake_provider)
    assert result.returncode == 3
    assert_inert(result.stderr)


def test_escape_sequences_in_a_file_are_shown_escaped_by_every_reader(fc, tmp_path: Path) -> None:
    assert fc("run", QUESTION, "-o", "t").returncode == 0
    path = tmp_path / "t" / "2-request.deepseek.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["messages"][0]["content"] = f"杭州 {HOSTILE}"
    data["tools"][0]["function"]["name"] = f"get{HOSTILE}"
    hostile = tmp_path / "hostile.deepseek.json"
    hostile.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for args in (
        ["show", str(hostile)],
        ["diff", str(hostile), str(path)],
        ["check", str(hostile)],
        ["convert", str(hostile), "--to", "anthropic"],
        ["convert", str(hostile), "--to", "openai"],
    ):
        result = fc(*args)
        assert "internal error" not in result.stderr
        for raw in ("\x1b", "\x07", "\x9b"):
            assert raw not in result.stdout + result.stderr, args


def test_fc_send_escapes_a_body_on_a_terminal_and_passes_it_exactly_through_a_pipe() -> None:
    import io

    from fccli.send.output import shown_on

    body = f'{{"said": "{HOSTILE}"}}'.encode()

    class Terminal(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    screen = io.BytesIO()
    terminal = Terminal(screen, encoding="utf-8", write_through=True)
    show = shown_on(terminal)
    show(body[:9])
    show(body[9:])
    assert_inert(screen.getvalue().decode())
    piped = io.BytesIO()
    pipe = io.TextIOWrapper(piped, encoding="utf-8", write_through=True)
    shown_on(pipe)(body)
    assert piped.getvalue() == body
