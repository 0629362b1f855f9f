"""Narrow terminals: `fc run`, `fc show` and `fc providers` wrap by words at the terminal's
width, a wrapped line goes on at its own indentation, and a URL or a JSON string is never cut
in two where it would fit on a line. In a pipe nothing is wrapped."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from rich.cells import cell_len

from fccli.render.console import make_console
from fccli.render.run_view import RunView
from fccli.run.events import Event
from fccli.run.prepare import RunSettings, prepare_run
from tests.conftest import REPO, clean_env

WIDTHS = (60, 80, 120)
URLS = ("https://api.deepseek.com", "https://api.openai.com/v1", "http://localhost:11434/v1")


def _plain(text: str) -> str:
    """Without styles (bold and dim stay with NO_COLOR) and rules (as wide as the width)."""
    return re.sub(r"─+", "─", re.sub(r"\x1b\[[0-9;]*m", "", text))


def assert_wrapped_from(wrapped: str, whole: str, width: int) -> None:
    """`wrapped` says what `whole` says, in lines of at most `width` columns, words unbroken."""
    assert all(cell_len(line) <= width for line in _plain(wrapped).splitlines())
    wrapped, whole = (re.sub("─", "", _plain(t)) for t in (wrapped, whole))
    lines = wrapped.splitlines()
    assert "".join(wrapped.split()) == "".join(whole.split())  # nothing lost, nothing added
    # a word, or a Latin run beside Chinese (a line may break between the two)
    words = set(whole.split()) | set(re.findall(r"[^\s\u3000-\u9fff\uff00-\uffef]+", whole))
    for line in lines:
        room = width - (len(line) - len(line.lstrip(" ")))
        for word in line.split():
            # a piece of a word is only allowed for a word longer than the line it is on,
            # or for a run of CJK characters (Chinese breaks between any two of them)
            if word not in words and word.isascii():
                assert any(word in w and cell_len(w) > room for w in words), (word, line)
    # a wrapped line keeps its indentation: the lines of an indented one are indented too
    for line in whole.splitlines():
        if line.startswith("  ") and cell_len(line) > width:
            first = next(i for i, w in enumerate(lines) if w.strip() and line.startswith(w))
            assert lines[first + 1].startswith("  "), (line, lines[first + 1])


def test_lines_wrap_on_a_terminal_only() -> None:
    assert make_console(file=io.StringIO(), force_terminal=True).soft_wrap is False
    assert make_console(file=io.StringIO(), force_terminal=False).soft_wrap is True


def _run_events(tmp_path: Path, question: str) -> tuple[list[Event], RunSettings, object]:
    prepared = prepare_run(RunSettings(question=question, out=tmp_path / "t"))
    events: list[Event] = []
    result = prepared.execute(events.append)
    return events, prepared, result


def _run_transcript(events, prepared, result, *, width: int, terminal: bool) -> str:
    buffer = io.StringIO()
    console = make_console(file=buffer, width=width, color_system=None)
    console.soft_wrap = not terminal  # what make_console decides on a terminal (no spinner here)
    view = RunView(
        console, prepared.provider_name, prepared.wire.name, prepared.wire.results_layout
    )
    for event in events:
        view(event)
    view.finished(result, prepared.trace.path)
    return buffer.getvalue()


@pytest.mark.parametrize("width", WIDTHS)
def test_fc_run_wraps_by_words(tmp_path: Path, width: int) -> None:
    events, prepared, result = _run_events(tmp_path, "北京、上海、深圳今天适合跑步吗？")
    whole = _run_transcript(events, prepared, result, width=10_000, terminal=False)
    wrapped = _run_transcript(events, prepared, result, width=width, terminal=True)
    assert_wrapped_from(wrapped, whole, width)
    if width < 120:
        assert wrapped != whole
    said = "the model only asked; fc validated the arguments and executed:"
    assert said in " ".join(wrapped.split())


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "traces/examples/three-cities", tmp_path / "three-cities")
    return tmp_path / "three-cities"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("wire", [False, True], ids=["transcript", "wire-json"])
def test_fc_show_wraps_by_words_and_folds_json(fc, examples, width: int, wire: bool) -> None:
    args = ["show", "three-cities", *(["--wire"] if wire else [])]
    whole = fc(*args, env=clean_env(COLUMNS="10000"))
    wrapped = fc(*args, env=clean_env(COLUMNS=str(width)), terminal=True)
    assert wrapped.returncode == whole.returncode == 0, wrapped.stderr
    assert_wrapped_from(wrapped.stdout, whole.stdout, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_fc_providers_never_breaks_a_url(fc, width: int) -> None:
    shown = fc("providers", env=clean_env(COLUMNS=str(width)), terminal=True)
    assert shown.returncode == 0, shown.stderr
    lines = _plain(shown.stdout).splitlines()
    assert all(cell_len(line) <= width for line in lines)
    for url in URLS:
        assert re.search(rf"(^|\s){re.escape(url)}(\s|$)", _plain(shown.stdout), re.M), url
    for variable in ("$DEEPSEEK_API_KEY", "$OPENAI_API_KEY", "$ANTHROPIC_API_KEY"):
        assert variable in shown.stdout
    # the same in a pipe as narrow: no URL cut in two either
    piped = fc("providers", env=clean_env(COLUMNS=str(width)))
    for url in URLS:
        assert url in piped.stdout
